/* The two VU routes the MobileNetV2 block's callees needed (issue 43),
 * each on a small kernel of its own: tune's space is built, the sketch's
 * seed candidate rendered, applied and checked against the kernel as
 * written (no search: its cost is the space's probes and one check).
 * - vu:halo (tune/sketch_vu_halo.c): a stencil whose window reads are
 *   guarded by the zero padding they stand for, its halo staged in the DM
 *   (tests/kernels/tune_halo/depthwise_pad.c). Before, no NPU sketch took
 *   it (vu:rows: "a halo region is not cached") and tune timed it on the
 *   host.
 * - vu:rows after the local's chain folded into its store
 *   (tune/sketch_vu_fold.c): TFLite's requantised residual add
 *   (tests/kernels/tune_halo/residual_requant.c). Before, vu:rows ran on
 *   the kernel's array form, every temporary an array, and the
 *   requantisation stayed on the CU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"
#include "tune/tune.h"

/* Both run in the normal build only: make test's CPU budget (0.4 s and
 * 1.3 s of CPU there, the space's probes most of it; the ASan build
 * would take several times that). */
#if !defined(__SANITIZE_ADDRESS__)
/* The seed candidate of the sketch named `sketch` in the kernel's space,
 * added to s as `variant` and checked: its emitted C (s owns it). */
static const char *seed_checked(NpgSession *s, const char *kernel, const char *sketch, const char *variant) {
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, kernel, false, why, sizeof why), "%s", why);
  TuneGenome g = {.sketch = -2};
  for (int i = 0; i < sp.nsketch; i++)
    if (!strcmp(sp.sketch[i].name, sketch)) g.sketch = i;
  cr_assert(g.sketch >= 0, "no sketch %s; notes:\n%s", sketch, sp.notes);
  for (int i = 0; i < sp.sketch[g.sketch].nknobs; i++) g.choice[i] = sp.sketch[g.sketch].knobs[i].seed;
  char *steps = tune_render(&sp, &g, variant);
  tune_space_free(&sp);
  cr_assert(npg_add_schedule_string(s, "<seed>", steps, strlen(steps)), "%s\n%s", steps, npg_errors(s));
  free(steps);
  int v = npg_variant_index(s, variant);
  cr_assert(v >= 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r) && r.pass && r.exact, "%s: %s", variant, r.message);
  return npg_emit_source(s, v);
}

/* The padded depthwise on the VU cores: the window's multiply-add is a
 * VU instruction under the padding guard (reorder lifts the guard above
 * the vector loop), the input staged in the DM with its halo in front. */
Test(tune_halo, a_depthwise_with_padding_guards_runs_on_the_vu_cores) {
  NpgSession *s = npg_open_file("tests/kernels/tune_halo/depthwise_pad.c");
  cr_assert(s && npg_error_count(s) == 0, "%s", s ? npg_errors(s) : "");
  const char *c = seed_checked(s, "depthwise", "vu:halo", "dw_halo");
  cr_assert(c);
  cr_expect(strstr(c, "transform_layout(in_dm, (h0, h1, h2), (h0 + 1, h1 + 1, h2), 0)"), "%s", c);
  const char *guard = strstr(c, "ky - 1 >= 0 && ");
  cr_assert(guard, "no padding guard in the emitted C:\n%s", c);
  cr_expect(strstr(guard, "npu_vu_mul_f32("), "the window's product is not a VU instruction:\n%s", c);
  cr_expect(strstr(guard, "npu_vu_add_f32("), "the window's sum is not a VU instruction:\n%s", c);
  npg_close(s);
}

/* The residual add's requantisation is one VU instruction a row. */
Test(tune_halo, a_requantised_residual_add_runs_its_requantisation_on_the_vu) {
  NpgSession *s = npg_open_file("tests/kernels/tune_halo/residual_requant.c");
  cr_assert(s && npg_error_count(s) == 0, "%s", s ? npg_errors(s) : "");
  const char *c = seed_checked(s, "residual_add", "vu:rows", "add_rows");
  cr_assert(c);
  cr_expect(strstr(c, "fold(s5)"), "the chain is not folded:\n%s", c);
  cr_expect(strstr(c, "npu_vu_requant_q31_i8("), "the requantisation is not a VU instruction:\n%s", c);
  npg_close(s);
}
#endif
