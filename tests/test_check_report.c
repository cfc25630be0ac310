/* The check's report of a variant's run (jit/check_report.c): host code
 * that works on on-chip memory itself is timed and counted (the hooks
 * emit/emit_cu_hooks.c adds only for the check), the unit that bounds the
 * run and the roofline are named, and what the figure leaves out is said. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* A staged in dm per tile of 16, then read by host code: nothing matches an
 * intrinsic, so the CU runs the loop itself over on-chip memory. */
static const char *staged =
    "#include <stdint.h>\n"
    "void k(const int32_t A[1024], int32_t B[1024]) {\n"
    "  for (int i = 0; i < 1024; i++)\n"
    "    s: B[i] = A[i] * 3 + 1;\n"
    "}\n"
    "#pragma npu schedule(k, staged)\n"
    "#pragma npu split(i, 256, io, ii)\n"
    "#pragma npu cache_read(A, dm, io, A_dm)\n";

Test(check_report, host_code_over_onchip_memory_is_timed) {
  NpgSession *s = open_ok(staged, "");
  NpgCheckResult r;
  cr_assert(npg_check(s, 1, 1, &r), "%s", r.message);
  /* per tile: the DMA issued (1 cycle) runs 16 + 200 cycles while the wait
   * is issued; then 256 reads of A_dm and 256 writes of B at 1 cycle each:
   * 4 x (1 + 216 + 512) */
  cr_expect(strstr(r.summary, "host code touched 1024 on-chip and 1024 ddr elements itself (in the figure)"),
            "%s", r.summary);
  cr_expect(strstr(r.summary, "sim: 2916 cycles, bound by cu (busy 70.5%)"), "%s", r.summary);
  /* the C a user gets has no hooks; it is the check's alone */
  cr_expect(!strstr(npg_emit_source(s, 1), "npu_cu_access"), "%s", npg_emit_source(s, 1));
  /* the kernel as written calls no intrinsic: no cycle figure, and it says so */
  cr_assert(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_str_eq(r.summary, "no cycle figure: the variant calls no intrinsic, so all of it runs on the host");
  npg_close(s);
}

Test(check_report, bound_unit_roofline_and_packing) {
  NpgSession *s = npg_open_file("examples/conv2d_npu.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int v = npg_variant_index(s, "conv2d_nu");
  cr_assert_geq(v, 0);
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect(strstr(r.summary, "bound by nu (busy 96.1%), roofline 93.4% (the kernel's bound: 110224 cycles"), "%s", r.summary);
  cr_expect(strstr(r.summary, "leaves out packing in, wt, out into their layouts (the caller's conv2d_nu_pack_*)"),
            "%s", r.summary);
  npg_close(s);
}

/* The roofline is the kernel's own bound (jit/kernel_bound.c), one figure
 * for every variant of a kernel: never the variant's own work. gemv_vu
 * keeps the VU busy a quarter of its run, so against its own VU work it
 * looked far better than against what the kernel needs (its arrays
 * through DDR once, which gemv_nu nearly reaches). A program is bounded
 * as one kernel, whatever each variant inlines or keeps on chip. */
Test(check_report, the_roofline_is_the_kernels_own_bound_for_every_variant) {
  NpgSession *s = npg_open_file("examples/gemv_npu.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *bound = "(the kernel's bound: 16464 cycles, its arrays through DDR once)";
  const char *names[] = {"gemv_nu", "gemv_vu"};
  for (int i = 0; i < 2; i++) {
    int v = npg_variant_index(s, names[i]);
    cr_assert_geq(v, 0);
    NpgSimResult sim;
    cr_assert(npg_simulate(s, v, 1, &sim), "%s", sim.message);
    cr_expect_eq(sim.ideal_cycles, 16464, "%s: %llu", names[i], (unsigned long long)sim.ideal_cycles);
    cr_expect(sim.roofline > 0 && fabs(sim.roofline * (double)sim.sim_cycles - 16464.0) < 0.5, "%s", names[i]);
    cr_expect(strstr(sim.summary, bound), "%s", sim.summary);
  }
  npg_close(s);

  s = npg_open_file("examples/program_npu.c");
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *programs[] = {"layer_nu", "layer_chip"};
  for (int i = 0; i < 2; i++) {
    NpgSimResult sim;
    cr_assert(npg_simulate(s, npg_variant_index(s, programs[i]), 1, &sim), "%s", sim.message);
    cr_expect(strstr(sim.summary, "(the kernel's bound: 4096 cycles, its MACs on the NU)"), "%s: %s",
              programs[i], sim.summary);
  }
  npg_close(s);
}

/* Work left on the CU is a share of the cycles even where another unit
 * bounds the run (trial 41c, D5: a matmul on the NU with its ReLU on the
 * CU said only how many elements host code touched). */
Test(check_report, work_left_on_the_cu_is_its_share_of_the_cycles) {
  const char *src = "#include <stdint.h>\n"
                    "void mmrelu(const int8_t X[32][4096], const int8_t W[4096][32], int32_t Y[32][32]) {\n"
                    "  for (int r = 0; r < 32; r++)\n"
                    "    for (int c = 0; c < 32; c++) {\n"
                    "      zero: Y[r][c] = 0;\n"
                    "      for (int p = 0; p < 4096; p++)\n"
                    "        acc: Y[r][c] += (int32_t)X[r][p] * (int32_t)W[p][c];\n"
                    "      act: Y[r][c] = Y[r][c] > 0 ? Y[r][c] : 0;\n"
                    "    }\n"
                    "}\n"
                    "#pragma npu schedule(mmrelu, cu_relu)\n"
                    "#pragma npu fission(r, acc)\n"
                    "#pragma npu cache_read(X, nu_ib, root, X_ib)\n"
                    "#pragma npu cache_read(W, nu_wb, root, W_wb)\n"
                    "#pragma npu cache_write(Y, nu_ob, root, Y_ob)\n"
                    "#pragma npu tensorize(r, npu_nu_matmul_i8)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check_orders(s, 1, 1, 0, &r), "%s", r.message);
  cr_expect(strstr(r.summary, "; the CU busy ") && !strstr(r.summary, "bound by cu"), "%s", r.summary);
  npg_close(s);
}
