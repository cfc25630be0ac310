/* libFuzzer harness for the frontend: bytes -> tree-sitter parse -> checked
 * IR -> schedule pragmas applied (legality proofs included) -> emitted C,
 * header and IR dump of every variant, all through the public API. No JIT:
 * fuzz/fuzz_schedules.c runs variants. Built with clang, ASan, UBSan and
 * LeakSanitizer; a crash, a sanitizer report, a leak or a timeout is a bug
 * (DESIGN.md section 8: bad input never crashes, hangs or reads out of
 * bounds).
 *   make fuzz-frontend SECONDS=600     # seeds: tests/kernels, examples, fuzz/regressions
 *   make fuzz-frontend-smoke           # 2,000 executions
 *   make fuzz-frontend-replay          # fuzz/regressions once each, ASan+UBSan gcc build (fuzz/replay_main.c), in `make test`
 *   build/fuzz/fuzz_frontend fuzz/failures/frontend-crash-...   # replay one input
 * Findings go to fuzz/failures/; each fixed one becomes a kernel in
 * fuzz/regressions/ with its `Expect:` line (tests/test_fuzz_regressions.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"

/* Every string the API returns must be NUL-terminated and readable: reading
 * its length (kept in a volatile, so not optimized away) lets ASan check. */
static volatile size_t sink;
static size_t touch(const char *s) { return s ? strlen(s) : 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpgSession *s = npg_open_string("fuzz.c", (const char *)data, size);
  size_t total = touch(npg_errors(s));
  int errors = npg_error_count(s), n = npg_variant_count(s);
  /* An input without errors has its kernels as variants. */
  if (errors == 0 && n == 0) abort();
  for (int v = 0; v < n; v++) {
    const char *name = npg_variant_name(s, v);
    if (!name || npg_variant_index(s, name) != v) abort();
    const char *src = npg_emit_source(s, v), *hdr = npg_emit_header(s, v);
    if (!src || !hdr) abort();
    total += touch(src) + touch(hdr) + touch(npg_dump_ir(s, v));
    total += touch(npg_variant_schedule(s, v)) + touch(npg_dump_ir_steps(s, v));
  }
  npg_close(s);
  sink = total;
  return 0;
}
