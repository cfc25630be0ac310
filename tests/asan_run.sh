#!/usr/bin/env bash
# The ASan+UBSan run of the suite (make test): tests/asan_run.sh TESTS ARGS...
# A leak report from any test process fails the run. The Criterion runner's
# own report at exit (a few bytes of its bookkeeping now and then, with no
# npugen frame) is shown but does not: LSan's exit code is off, and reports
# are judged by the process that wrote them.
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
