/* TFLite's input offset, `acc += filter[oc][ic] * (input[p][ic] +
 * input_offset)`, through tune's NU sketch with an epilogue
 * (tune/sketch_nu_epilogue.c): the sketch takes the offset out of the
 * reduction first (hoist_offset), so the product is the NU's int8 matmul,
 * the offset's sums (offset * each channel's filter sum) are computed on
 * the VU cores, and they join the epilogue's first stage (acc + sums +
 * bias, VU adds). The sketch is built alone, as tune_space_build would build it,
 * and its seed is checked by execution against the kernel as written
 * (one seed: each probe proves some thirty steps). In the suite tune_reach:
 * a kernel as TFLite writes it reaching the NPU through tune. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "npugen.h"
#include "tests/test_sched_util.h"
#include "tune/tune.h"

/* The NU sketches with an epilogue that apply to s's kernel, as
 * tune_space_build makes them: in sp, with its notes. */
static NpgSession *epilogue_sketches_of(NpgSession *s, const char *kernel, TuneSpace *sp) {
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  memset(sp, 0, sizeof *sp);
  sp->s = s;
  sp->kernel = kernel;
  arena_init(&sp->arena, 0);
  tune_shape(module_kernel(session_module(s), kernel), &sp->shape);
  tune_sketch_nu_epilogue(sp);
  return s;
}

static NpgSession *epilogue_sketches(const char *file, const char *kernel, TuneSpace *sp) {
  return epilogue_sketches_of(npg_open_file(file), kernel, sp);
}

/* Before: the sketch matched neither NU matmul ("an index differs" at
 * tensorize: the product is int8 by int16), and tune timed the kernel on
 * the host. */
Test(tune_reach, tflites_input_offset_is_taken_out_for_the_nu) {
  TuneSpace sp;
  NpgSession *s = epilogue_sketches("tests/kernels/tflite_pw_offset.c", "conv_pw", &sp);
  cr_assert_geq(sp.nsketch, 1, "%s", sp.notes);
  TuneGenome g = {.sketch = 0};
  for (int k = 0; k < sp.sketch[0].nknobs; k++) g.choice[k] = sp.sketch[0].knobs[k].seed;
  char *steps = tune_render(&sp, &g, "tuned");
  has(steps, "#pragma npu hoist_offset(s2, input_offset, acc_ofs)\n");
  has(steps, "#pragma npu stage(s11, \"acc[p][oc] + acc_ofs[oc] + bias[oc]\", acc_in)\n");
  has(steps, "#pragma npu tensorize(pr, npu_nu_matmul_i8_bt)\n");
  has(steps, "#pragma npu bind(acc_ofs_c, vu)\n"); /* the sums on the VU cores */
  cr_assert(npg_add_schedule_string(s, "<tuned>", steps, strlen(steps)), "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, npg_variant_index(s, "tuned"), 1, &r), "%s", r.message);
  cr_expect_gt(r.compared, 0);
  cr_expect_gt(r.nu_utilization, 0.0, "the NU does not run: %s", r.summary);
  lacks(r.summary, "host code touched"); /* nor does the CU sum the offset's terms itself */
  free(steps);
  tune_space_free(&sp);
  npg_close(s);
}

/* The kernel's own bound (tune's roofline) counts `filter * (input +
 * input_offset)` as the NU's MAC, the offset being out of the product
 * after hoist_offset: 64 x 64 x 256 MACs at 1024 a cycle (more than its
 * DDR traffic, 768 cycles). Before: 3 VU operations a MAC (the add, the
 * multiply, the accumulate), a bound 48 times the NU's, and the winner's
 * roofline read 507.6% at 256 x 256 x 256. */
Test(tune_reach, the_bound_of_an_input_offset_product_is_the_nus) {
  static const char src[] = "#include <stdint.h>\n"
                            "void conv(const int8_t input[64][256], const int8_t filter[64][256], int32_t out[64][64],\n"
                            "          int16_t input_offset) {\n"
                            "  for (int p = 0; p < 64; p++)\n"
                            "    for (int oc = 0; oc < 64; oc++) {\n"
                            "      out[p][oc] = 0;\n"
                            "      for (int ic = 0; ic < 256; ic++)\n"
                            "        out[p][oc] += filter[oc][ic] * (input[p][ic] + input_offset);\n"
                            "    }\n"
                            "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  char unit[8];
  uint64_t bound = kernel_bound(module_kernel(session_module(s), "conv"), session_target(s), unit, sizeof unit);
  cr_expect_str_eq(unit, "nu");
  cr_expect_eq(bound, 64 * 64 * 256 / 1024);
  npg_close(s);
}

/* file's semantics kernel with its intrinsic renamed `as` throughout: a
 * user's own op under a name of their choosing. */
static bool renamed_is_nu_matmul(const char *file, const char *name, const char *as, TuneNuMatmul *mm) {
  char path[512], src[8192];
  snprintf(path, sizeof path, "npu_intrinsics/%s", file);
  FILE *f = fopen(path, "rb");
  cr_assert(f, "%s", path);
  size_t len = fread(src, 1, sizeof src - 1, f);
  fclose(f);
  src[len] = 0;
  char out[8192] = "";
  size_t o = 0;
  for (const char *p = src; *p && o + 64 < sizeof out;)
    if (!strncmp(p, name, strlen(name))) o += (size_t)snprintf(out + o, sizeof out - o, "%s", as), p += strlen(name);
    else out[o++] = *p++;
  out[o] = 0;
  return tune_nu_matmul(as, out, o, mm);
}

/* The NU sketches pick a matmul by what its semantics kernel computes, not
 * by its name (issue 45): a copy of npu_nu_matmul_i8_bt named
 * npu_gemm_s8_wt (no "matmul", "_i8" or "_bt" in it) is an int8 NU matmul
 * that reads B[j][k]. Before, tune/sketch_nu_epilogue.c took an
 * intrinsic only if its name held "matmul" and ended in "_i8" or
 * "_i8_bt" (worth_probing), so a user's own op was never tried. */
Test(tune_reach, an_nu_matmul_is_known_by_its_semantics_not_its_name) {
  TuneNuMatmul mm = {true, false};
  cr_expect(renamed_is_nu_matmul("npu_nu_matmul_i8_bt.c", "npu_nu_matmul_i8_bt", "npu_gemm_s8_wt", &mm));
  cr_expect(!mm.fp32 && mm.bt);
  cr_expect(renamed_is_nu_matmul("npu_nu_matmul_i8.c", "npu_nu_matmul_i8", "npu_mm", &mm));
  cr_expect(!mm.fp32 && !mm.bt);
  cr_expect(renamed_is_nu_matmul("npu_nu_matmul_f32.c", "npu_nu_matmul_f32", "npu_sgemm", &mm));
  cr_expect(mm.fp32 && !mm.bt);
  /* a convolution and a VU op are no NU matmul, whatever their names */
  cr_expect(!renamed_is_nu_matmul("npu_nu_conv2d_i8.c", "npu_nu_conv2d_i8", "npu_nu_matmul_i8_x", &mm));
  cr_expect(!renamed_is_nu_matmul("npu_vu_macs_i8_i32.c", "npu_vu_macs_i8_i32", "npu_nu_matmul_i8_y", &mm));
}

/* An int32_t offset is any int32_t: hoist_offset refuses it (offset times
 * a sum of filter elements could leave int), and the sketch says which
 * step it needed and why it was refused. Before: "tensorize: the nest
 * under pr does not match npu_nu_matmul_i8_bt: an index differs", which
 * named no offset. */
Test(tune_reach, an_input_offset_the_engine_will_not_hoist_is_named) {
  static const char src[] = "#include <stdint.h>\n"
                            "void conv_pw(const int8_t input[64][64], const int8_t filter[32][64], int32_t out[64][32],\n"
                            "             int32_t input_offset) {\n"
                            "  for (int p = 0; p < 64; p++)\n"
                            "    for (int oc = 0; oc < 32; oc++) {\n"
                            "      int32_t acc = 0;\n"
                            "      for (int ic = 0; ic < 64; ic++)\n"
                            "        acc += filter[oc][ic] * (input[p][ic] + input_offset);\n"
                            "      acc += 1;\n"
                            "      out[p][oc] = acc;\n"
                            "    }\n"
                            "}\n";
  TuneSpace sp;
  NpgSession *s = epilogue_sketches_of(npg_open_string("k.c", src, strlen(src)), "conv_pw", &sp);
  cr_expect_eq(sp.nsketch, 0);
  has(sp.notes, "nu+epilogue: hoist_offset(s2, input_offset, acc_ofs) would take the input offset out of the reduction "
                "(the NU multiplies two arrays), but the engine refused it: hoist_offset: input_offset times a sum of 64 "
                "elements of filter could leave int");
  tune_space_free(&sp);
  npg_close(s);
}
