/* The vectorize mark has an effect in every build a user makes of the
 * emitted C: -O3, -fopenmp-simd (the build tune's host timer makes) and
 * -fopenmp, and it stays warning-free under -Wall -Wextra -Werror
 * -pedantic (ir/loop_hint.c). Before, it was `omp simd` inside
 * `#ifdef _OPENMP`, which -fopenmp-simd does not define: the object
 * files with and without the mark were byte-identical, and tune's
 * vectorize knob measured nothing on serial host candidates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_cli_util.h"
#include "tune/tune.h"

static const char *kernel = "tests/kernels/tune_suite/saxpy_rows.c";

/* One variant `v` with and one without vectorize(j), emitted to $d/with
 * and $d/without, checked against the kernel; then cmd_tail. */
static int emit_both(const char *cmd_tail, char *out, size_t n) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '#pragma npu schedule(saxpy_rows, v)\\n#pragma npu vectorize(j)\\n' > $d/with.sched && "
           "printf '#pragma npu schedule(saxpy_rows, v)\\n' > $d/without.sched && "
           "%s emit %s --schedule $d/with.sched -o $d/with >/dev/null && "
           "%s emit %s --schedule $d/without.sched -o $d/without >/dev/null && "
           "%s check %s --schedule $d/with.sched 2>&1 | tail -1 && %s; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel, npugen(), kernel, cmd_tail);
  return run(cmd, out, n);
}

Test(tune_vectorize, the_mark_changes_the_object_under_fopenmp_simd) {
  char tail[1024], out[8192];
  /* the host timer's own flags (tune/host_timer.c) */
  snprintf(tail, sizeof tail,
           "(cd $d/with && cc %s -c v.c -o v.o) && (cd $d/without && cc %s -c v.c -o v.o) && "
           "if cmp -s $d/with/v.o $d/without/v.o; then echo the same object; else echo the objects differ; fi",
           tune_host_cflags(false), tune_host_cflags(false));
  cr_assert_eq(emit_both(tail, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "2 passed, 0 failed") && strstr(out, "the objects differ"), "%s", out);
}

Test(tune_vectorize, the_mark_builds_warning_free_and_takes_effect_in_every_build) {
  char out[8192];
  const char *tail =
      "cd $d/with && for fl in '-O3' '-O3 -fopenmp-simd' '-O3 -fopenmp'; do "
      "cc -std=c99 -Wall -Wextra -Werror -pedantic $fl -c v.c -o w.o 2>&1 && "
      "(cd ../without && cc -std=c99 $fl -c v.c -o w.o) && "
      "if cmp -s w.o ../without/w.o; then echo \"$fl: no effect\"; else echo \"$fl: an effect\"; fi || exit 1; done && "
      "clang -std=c99 -Wall -Wextra -Werror -pedantic -O3 -fopenmp-simd -c v.c -o c.o 2>&1 && "
      "tcc -Wall -Werror -c v.c -o t.o 2>&1 && echo all built";
  cr_assert_eq(emit_both(tail, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "-O3: an effect\n-O3 -fopenmp-simd: an effect\n-O3 -fopenmp: an effect\nall built"), "%s", out);
}
