/* sched_random finding: annotate accepts a string value containing a
 * comment opener (slash-star; it refuses only the closer star-slash). The
 * value is copied into two C comments of the emitted code (the schedule in
 * the header comment, and the "@key = value" comment before the target),
 * and gcc rejects a nested opener under the flags DESIGN.md section 6
 * promises ("/" "*" within comment [-Werror=comment], twice).
 *
 * A pragma cannot carry the value: `#pragma npu annotate(s, note, "a/_*b")`
 * (without the underscore) is refused with "syntax error at '#pragma'"
 * (tree-sitter-c takes the opener inside the pragma's string for a comment;
 * a second, minor finding: the line is valid C). So this reproduction is a
 * program on the C API (npg_sched_annotate_str), which the fuzzer's steps
 * mirror:
 *   cc -std=c11 -Iinclude fuzz/regressions/annotate_comment_opener.c \
 *      build/libnpugen.a build/libnpusim.a -ltree-sitter -ltcc -ldl -lisl \
 *      -lgmp -linih -lm -o /tmp/acm && /tmp/acm > /tmp/acm.c &&
 *   gcc -std=c99 -Wall -Wextra -pedantic -Werror -c /tmp/acm.c -o /dev/null
 * Expected: annotate refuses the opener in keys and values as it refuses
 * the closer, or the emitter escapes it.
 *
 * Status: fixed in 0a12183 (annotate refuses comment openers too).
 */
#include <stdio.h>
#include <string.h>

#include "npugen.h"

static const char *kernel =
    "#define N 16\n"
    "void f(const int x[N], int y[N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    s: y[i] = x[i] + 1;\n"
    "}\n";

int main(void) {
  NpgSession *s = npg_open_string("acm.c", kernel, strlen(kernel));
  NpgSched *h = npg_sched_begin(s, "f", "v");
  if (!npg_sched_annotate_str(h, "s", "note", "a/*b")) {
    fprintf(stderr, "refused: %s", npg_errors(s));
    return 1;
  }
  int v = npg_sched_end(h);
  fputs(npg_emit_source(s, v), stdout);
  npg_close(s);
  return 0;
}
