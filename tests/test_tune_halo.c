/* tune's vu:halo sketch (tune/sketch_vu_halo.c): a stencil whose window
 * reads are guarded by the zero padding they stand for reaches the VU
 * cores, its halo staged in the DM. Before it no NPU sketch took such a
 * kernel (vu:rows: "a halo region is not cached") and tune timed it on
 * the host. The kernel is tests/kernels/tune_halo/depthwise_pad.c, tuned
 * with a budget of 2 trials (counted, never timed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_cli_util.h"
#include "tune/tune.h"

/* Tunes the kernel and emits the winner: tune's output, then the tuned
 * variant's emitted C, into out. */
static void tune_emit(const char *file, const char *kernel, char *out, size_t n) {
  char cmd[2048], variant[200];
  tune_variant_name("k.c", kernel, variant, sizeof variant);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && cp %s $d/k.c && %s tune $d/k.c --kernel %s --seed 1 --trials 2 --jobs 1 -o $d/t.sched "
           "2>&1 && %s emit $d/k.c --schedule $d/t.sched -o $d/out 2>&1 && cat $d/out/%s.c; rc=$?; "
           "rm -rf $d; exit $rc",
           file, npugen(), kernel, npugen(), variant);
  int rc = run(cmd, out, n);
  cr_assert_eq(rc, 0, "%s", out);
}

/* The padded depthwise on the VU cores: the sketch applies, its winner is
 * bit-exact with the kernel as written (tune checks it), its window's
 * multiply-add is a VU instruction under the padding guard (the guard
 * above the vector loop: reorder lifts it), and the input is staged in
 * the DM with its halo in front. */
Test(tune_halo, a_depthwise_with_padding_guards_runs_on_the_vu_cores) {
  static char out[1 << 18];
  tune_emit("tests/kernels/tune_halo/depthwise_pad.c", "depthwise", out, sizeof out);
  cr_assert(strstr(out, "1 sketch: vu:halo"), "the sketch does not apply:\n%s", out);
  cr_assert(strstr(out, "depthwise_tuned: PASS npugen check"), "%s", out);
  cr_expect(strstr(out, "transform_layout(in_dm, (h0, h1, h2), (h0 + 1, h1 + 1, h2), 0)"), "%s", out);
  const char *guard = strstr(out, "ky - 1 >= 0 && ");
  cr_assert(guard, "no padding guard in the emitted C:\n%s", out);
  cr_expect(strstr(guard, "npu_vu_mul_f32("), "the window's product is not a VU instruction:\n%s", out);
  cr_expect(strstr(guard, "npu_vu_add_f32("), "the window's sum is not a VU instruction:\n%s", out);
}
