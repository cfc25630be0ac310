#!/usr/bin/env bash
# The ASan+UBSan run of the suite (make test): tests/asan_run.sh TESTS ARGS...
# A leak report from any test process fails the run. The Criterion runner
# process does not check for leaks (tests/lsan_runner.c: it leaked a few
# bytes of its own bookkeeping now and then, with no npugen frame); should
# it report one anyway, it is shown but does not fail the run: LSan's exit
# code is off, and reports are judged by the process that wrote them.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=exitcode=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$@" 2>"$log" &
runner=$!
wait "$runner"
rc=$?
cat "$log" >&2
leaks=$(grep -E '^==[0-9]+==ERROR: LeakSanitizer' "$log" | grep -v "^==$runner==" || true)
if [ -n "$leaks" ]; then
  echo "asan_run: a test process leaked memory (reports above):" >&2
  echo "$leaks" >&2
  exit 1
fi
exit "$rc"
