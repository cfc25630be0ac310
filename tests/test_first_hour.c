/* A user's first hour (issue 28): did-you-mean for every kind of name, the
 * warning for a reorder that changes nothing, tile's messages in the
 * user's loops, `npugen intrinsics` (its cycle figures against the
 * simulator), npg_jit_run of an NPU variant with no simulator bound, and
 * host code a compiler can make fast: restrict kept, the kernel's macros
 * in signatures, every copy of an unrolled vectorized loop marked, every
 * emitted example clean under -Wshadow -Wmissing-prototypes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "npugen.h"
#include "sim/npusim.h"
#include "tests/test_cli_util.h"
#include "tests/test_sched_util.h"

/* matmul: tests/test_sched_util.h */
static const char *const matmul = test_matmul;

/* ---------------- did you mean ---------------- */

Test(first_hour, did_you_mean_loops_statements_and_buffers) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(ii, 16, io, ij)\n",
          "k.c:12:19: error: split: no loop named 'ii' in v (loops: i, j, k); did you mean 'i'?");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(inti, i)\n",
          "k.c:12:33: error: decompose_reduction: no statement named 'inti' in v (statements: init, update); did you "
          "mean 'init'?");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu cache_read(AA, dm, i, A_dm)\n",
          "k.c:12:24: error: cache_read: no array named 'AA' among the kernel's parameters and local arrays (arrays: A, "
          "B, C); did you mean 'A'?");
  /* nothing close: the list alone */
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(x, 16, io, ii)\n",
          "k.c:12:19: error: split: no loop named 'x' in v (loops: i, j, k)");
}

Test(first_hour, did_you_mean_scopes_primitives_intrinsics_and_kernels) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu cache_read(A, nu_iv, i, A_ib)\n",
          "k.c:12:27: error: cache_read: unknown scope 'nu_iv'; the on-chip scopes are dm, nu_ib, nu_wb, nu_ob and "
          "vu_vm; did you mean 'nu_ib'?");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu reoder(i, j)\n",
          "k.c:12:13: error: unknown schedule primitive 'reoder'; did you mean 'reorder'?");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu tensorize(i, npu_nu_matmul_int8)\n",
          "k.c:12:26: error: tensorize: unknown intrinsic 'npu_nu_matmul_int8' (npu_intrinsics/ has no semantics kernel "
          "npu_nu_matmul_int8.c; `npugen intrinsics` lists them); did you mean 'npu_nu_matmul_i8'?");
  refused(matmul, "#pragma npu schedule(matmull, v)\n",
          "k.c:11:22: error: schedule: no kernel named 'matmull' (kernels: matmul); did you mean 'matmul'?");
}

/* The names of `#pragma npu inputs(KERNEL, PARAM, ...)` (docs/check.md). */
Test(first_hour, did_you_mean_in_the_inputs_pragma) {
  static const char *k = "void scale(const float Xin[4], float Yout[4]) {\n"
                         "  for (int i = 0; i < 4; i++) Yout[i] = Xin[i] * 2.0f;\n"
                         "}\n";
  refused(k, "#pragma npu inputs(scal, Xin, 0, 1)\n",
          "k.c:4:20: error: no kernel 'scal' is defined above this pragma; did you mean 'scale'?");
  refused(k, "#pragma npu inputs(scale, Xn, 0, 1)\n",
          "k.c:4:27: error: kernel 'scale' has no parameter 'Xn'; did you mean 'Xin'?");
}

Test(first_hour, did_you_mean_variants) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, matmul_tiled)\n#pragma npu split(i, 16, io, ii)\n");
  char msg[512];
  npg_variant_unknown(s, "matmul_tiles", msg, sizeof msg);
  cr_expect_str_eq(msg, "no variant named 'matmul_tiles' in k.c (variants: matmul, matmul_tiled); did you mean "
                        "'matmul_tiled'?");
  npg_variant_unknown(s, "zzz", msg, sizeof msg);
  cr_expect_str_eq(msg, "no variant named 'zzz' in k.c (variants: matmul, matmul_tiled)");
  npg_close(s);
}

/* An unknown loop that an earlier step replaced names that step. */
Test(first_hour, an_unknown_loop_names_the_step_that_replaced_it) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 16, io, ii)\n#pragma npu unroll(i, 2)\n",
          "k.c:13:20: error: unroll: no loop named 'i' in v (loops: io, ii, j, k); the last step that named 'i' was "
          "split(i, 16, io, ii); did you mean 'io'?");
}

/* ---------------- messages in the user's loops ---------------- */

Test(first_hour, tile_names_the_users_loop_of_an_imperfect_nest) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu tile(j, k, 8, 8, jo, ko, ji, ki)\n",
          "k.c:12:18: error: tile: loop j is not perfectly nested: its body holds init (line 6) before the next loop; "
          "use fission or decompose_reduction first");
}

/* ---------------- a reorder that changes nothing ---------------- */

Test(first_hour, a_reorder_in_the_same_order_is_a_warning) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(init, i)\n"
                                  "#pragma npu reorder(j, k)\n");
  cr_assert_eq(npg_error_count(s), 0);
  has(npg_errors(s), "k.c:13:13: warning: reorder: loops j and k are already in this order; the step changes "
                     "nothing\n");
  int v = checked(s, "v");
  has(npg_variant_schedule(s, v), "reorder(j, k)\n"); /* kept as written */
  npg_close(s);
  /* a reorder that does change the order warns of nothing */
  s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(init, i)\n"
                      "#pragma npu reorder(k, j)\n");
  cr_expect_str_eq(npg_errors(s), "");
  npg_close(s);
}

/* ---------------- npugen intrinsics ---------------- */

/* The "= N at the semantics kernel's sizes" figure of name's paragraph. */
static long long described_cycles(const char *name) {
  char err[512];
  char *text = npg_intrinsics_describe(name, NULL, err, sizeof err);
  cr_assert_not_null(text, "%s", err);
  const char *eq = strstr(text, "               = ");
  cr_assert_not_null(eq, "%s", text);
  long long n = atoll(eq + 17);
  free(text);
  return n;
}

/* The busy cycles of one call, in a fresh simulator. */
static uint64_t unit_busy(NpuSim *sim, const char *unit) {
  npusim_finish(sim);
  npusim_unbind();
  cr_assert(!npusim_failed(sim), "%s", npusim_error(sim));
  NpuSimReport r;
  npusim_report(sim, &r);
  npusim_free(sim);
  for (int u = 0; u < r.unit_count; u++)
    if (!strcmp(r.units[u].name, unit)) return r.units[u].busy;
  cr_assert_fail("no unit %s", unit);
  return 0;
}

static NpuSim *bound_sim(void) {
  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *sim = npusim_new(&t);
  npusim_bind(sim);
  return sim;
}

Test(first_hour, intrinsics_cycle_figures_are_the_simulators) {
  NpuSim *sim = bound_sim();
  npu_nu_matmul_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_NU_WB, 0), 32, 32,
                   32, 32, 32, 32, 0);
  cr_expect_eq(described_cycles("npu_nu_matmul_i8"), (long long)unit_busy(sim, "nu"));
  sim = bound_sim();
  npu_nu_conv2d_i8(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0), npu_scope_base(NPU_NU_WB, 0), 8, 8, 4,
                   8, 3, 3, 1, 1, 1, 1, 1, 1, 0);
  cr_expect_eq(described_cycles("npu_nu_conv2d_i8"), (long long)unit_busy(sim, "nu"));
  sim = bound_sim();
  float *vm = npu_scope_base(NPU_VU_VM, 0);
  npu_vu_add_f32(vm, vm + 64, vm + 128, 64);
  cr_expect_eq(described_cycles("npu_vu_add_f32"), (long long)unit_busy(sim, "vu0"));
  sim = bound_sim();
  vm = npu_scope_base(NPU_VU_VM, 0); /* this simulator's */
  npu_vu_reduce_max_f32(vm, vm + 64, 16, 16, 16);
  cr_expect_eq(described_cycles("npu_vu_reduce_max_f32"), (long long)unit_busy(sim, "vu0"));
}

Test(first_hour, intrinsics_lists_every_one_with_its_call_unit_and_scopes) {
  char err[512];
  char *all = npg_intrinsics_describe(NULL, NULL, err, sizeof err);
  cr_assert_not_null(all, "%s", err);
  has(all, "npu_nu_matmul_i8  (NU)\n  call:        void npu_nu_matmul_i8(int32_t *C, const int8_t *A, const int8_t *B, "
           "int m, int n, int k, int lda, int ldb, int ldc, int accumulate);\n  operands:    C nu_ob, A nu_ib, B nu_wb\n");
  /* a macro-declared one */
  has(all, "npu_vu_sub_rows_f32  (VU)\n  call:        void npu_vu_sub_rows_f32(float *dst, const float *a, const float "
           "*b, int rows, int cols, int ldd, int lda);\n");
  has(all, "zero_point in [-128, 127]");
  has(all, "npu_scope_base, npu_scope_size, npu_dma_1d, npu_dma_2d, npu_dma_3d, npu_dma_wait, npu_barrier, "
           "npu_cu_access, npu_cu_fallback\n");
  /* every symbol of libnpusim is described */
  size_t n;
  const NpuSimSymbol *sym = npusim_symbols(&n);
  for (size_t i = 0; i < n; i++) {
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strlen(sym[i].name) - 3, sym[i].name);
    cr_expect(strstr(all, name), "%s is not listed", name);
  }
  free(all);
  char *one = npg_intrinsics_describe("npu_dma_wait", NULL, err, sizeof err);
  cr_assert_not_null(one, "%s", err);
  has(one, "npu_dma_wait  (CU)\n  call:        void npu_dma_wait(npu_token_t token);\n");
  free(one);
  cr_expect_null(npg_intrinsics_describe("npu_vu_add_f23", NULL, err, sizeof err));
  has(err, "did you mean 'npu_vu_add_f32'?");
}

/* ---------------- npg_jit_run of an NPU variant ---------------- */

Test(first_hour, jit_run_of_an_npu_variant_binds_a_simulator) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n"
                                  "#pragma npu split(i, 32, io, ii)\n#pragma npu split(j, 16, jo, ji)\n"
                                  "#pragma npu reorder(io, jo, ii, ji)\n"
                                  "#pragma npu cache_read(A, nu_ib, jo, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                                  "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  int v = npg_variant_index(s, "v");
  static int8_t A[64][32], B[32][48];
  static int32_t want[64][48], got[64][48];
  for (int i = 0; i < 64 * 32; i++) A[i / 32][i % 32] = (int8_t)(i * 37 % 251 - 125);
  for (int i = 0; i < 32 * 48; i++) B[i / 48][i % 48] = (int8_t)(i * 53 % 241 - 120);
  void *ref_args[] = {A, B, want}, *var_args[] = {A, B, got};
  NpgJit *ref = npg_jit_reference(s, v), *var = npg_jit_variant(s, v);
  cr_assert_null(npg_jit_error(var), "%s", npg_jit_error(var));
  cr_assert(npg_jit_run(ref, ref_args), "%s", npg_jit_error(ref));
  cr_assert_null(npusim_current());
  cr_assert(npg_jit_run(var, var_args), "%s", npg_jit_error(var));
  cr_expect_eq(memcmp(want, got, sizeof want), 0, "the NPU variant's output differs: did its intrinsics run?");
  cr_expect_gt(npg_jit_sim_cycles(var), 0);
  cr_expect_null(npusim_current()); /* unbound again */
  cr_expect_eq(npg_jit_sim_cycles(ref), 0);
  npg_jit_free(ref);
  npg_jit_free(var);
  npg_close(s);
}

/* ---------------- host code at peer speed ---------------- */

static const char *const scale_rows = "#define R 8\n#define K 16\n"
                                      "void scale_rows(const float X[restrict R][K], const float w[K], float Y[restrict R][K]) {\n"
                                      "  for (int i = 0; i < R; i++)\n"
                                      "    for (int k = 0; k < K; k++)\n"
                                      "      s: Y[i][k] = X[i][k] * w[k];\n"
                                      "}\n";

/* The variant's C runs (through the JIT, restrict and all) and matches the
 * kernel as written. */
static void runs_as_written(NpgSession *s, int v) {
  static float X[8][16], w[16], want[8][16], got[8][16];
  for (int i = 0; i < 8 * 16; i++) X[i / 16][i % 16] = (float)(i % 13) - 6.0f;
  for (int k = 0; k < 16; k++) w[k] = 0.5f * (float)k;
  void *ref_args[] = {X, w, want}, *var_args[] = {X, w, got};
  NpgJit *ref = npg_jit_reference(s, v), *var = npg_jit_variant(s, v);
  cr_assert_null(npg_jit_error(var), "%s", npg_jit_error(var));
  cr_assert(npg_jit_run(ref, ref_args), "%s", npg_jit_error(ref));
  cr_assert(npg_jit_run(var, var_args), "%s", npg_jit_error(var));
  cr_expect_eq(memcmp(want, got, sizeof want), 0);
  npg_jit_free(ref);
  npg_jit_free(var);
}

Test(first_hour, restrict_and_macro_names_stay_in_the_signature) {
  NpgSession *s = open_ok(scale_rows, "#pragma npu schedule(scale_rows, v)\n#pragma npu vectorize(k)\n");
  int v = checked(s, "v");
  const char *proto = "void v(const float X[restrict R][K], const float w[K], float Y[restrict R][K])";
  has(npg_emit_source(s, v), proto);
  has(npg_emit_source(s, v), "#define K 16\n\n#include \"v.h\"\n");
  has(npg_emit_header(s, v), "#define V_R 8\n#define V_K 16\n\n");
  /* C++ has no restrict */
  has(npg_emit_header(s, v), "#if defined(__cplusplus) /* C++: no restrict, no _Bool, no variable-length array parameter */\n"
                             "void v(const float X[V_R][V_K], const float w[V_K], float Y[V_R][V_K]);\n#else\n"
                             "void v(const float X[restrict V_R][V_K], const float w[V_K], float Y[restrict V_R][V_K]);\n"
                             "#endif\n");
  runs_as_written(s, v);
  /* --assume-no-alias: every array, as if each were declared restrict */
  npg_set_assume_no_alias(s, true);
  has(npg_emit_source(s, v), "const float w[restrict K]");
  runs_as_written(s, v);
  npg_close(s);
}

Test(first_hour, only_restrict_in_the_first_brackets) {
  refused("void f(const float X[const 4][4], float Y[4][4]) { for (int i = 0; i < 4; i++) Y[i][0] = X[i][0]; }\n", "",
          "k.c:1:22: error: qualifier 'const' inside an array parameter's brackets is not supported (only 'restrict')");
  refused("void f(const float X[4][restrict 4], float Y[4][4]) { for (int i = 0; i < 4; i++) Y[i][0] = X[i][0]; }\n", "",
          "k.c:1:25: error: 'restrict' belongs in the first brackets of an array parameter, e.g. 'float A[restrict N][K]'");
}

/* The command's --assume-no-alias, and its refusal where nothing is emitted. */
Test(first_hour, assume_no_alias_on_the_command_line) {
  char cmd[1024], out[1 << 16];
  snprintf(cmd, sizeof cmd, "%s emit examples/matmul.c --variant matmul_tiled --assume-no-alias 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  has(out, "void matmul_tiled(const int8_t A[restrict M][512], const int8_t B[restrict 512][128], "
           "int32_t C[restrict M][128]) {");
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --assume-no-alias 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  has(out, "--assume-no-alias belong to 'emit'");
}

/* A loop vectorized, then a loop around it unrolled: every copy keeps the
 * mark and its hint (unroll clones the loop with its kind). */
Test(first_hour, unroll_keeps_vectorize_on_every_copy) {
  NpgSession *s = open_ok(scale_rows, "#pragma npu schedule(scale_rows, v)\n#pragma npu split(i, 4, io, ii)\n"
                                      "#pragma npu vectorize(k)\n#pragma npu unroll(ii)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  int hints = 0;
  for (const char *p = strstr(c, "#pragma omp simd"); p; p = strstr(p + 1, "#pragma omp simd")) hints++;
  cr_expect_eq(hints, 4, "%s", c);
  runs_as_written(s, v);
  npg_close(s);
}

/* Register blocking (docs/schedules.md): split, reorder and unroll put an
 * 8x16 block of C, at constant addresses, inside the k loop: 128
 * statements and no loop under k; the variant computes what the kernel does. */
Test(first_hour, register_blocking_by_split_reorder_unroll) {
  static const char *const mm = "void mm(const float A[restrict 16][24], const float B[restrict 24][32], float C[restrict 16][32]) {\n"
                                "  for (int i = 0; i < 16; i++)\n"
                                "    for (int j = 0; j < 32; j++) {\n"
                                "      init: C[i][j] = 0.0f;\n"
                                "      for (int k = 0; k < 24; k++)\n"
                                "        update: C[i][j] += A[i][k] * B[k][j];\n"
                                "    }\n"
                                "}\n";
  NpgSession *s = open_ok(mm, "#pragma npu schedule(mm, blocked)\n#pragma npu decompose_reduction(init, i)\n"
                              "#pragma npu tile(i, j, 8, 16, io, jo, ii, ji)\n#pragma npu reorder(io, jo, k, ii, ji)\n"
                              "#pragma npu unroll(ji)\n#pragma npu unroll(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "blocked"));
  const char *k = strstr(c, "for (int k = 0; k < 24; k++) {\n");
  cr_assert_not_null(k, "%s", c);
  int updates = 0;
  for (const char *p = strstr(k, "+="); p; p = strstr(p + 1, "+=")) updates++;
  cr_expect_eq(updates, 128, "%s", c);
  cr_expect_null(strstr(k + 1, "for ("), "a loop under k:\n%s", c);
  has(k, "C[io * 8 + 7][jo * 16 + 15] += A[io * 8 + 7][k] * B[k][jo * 16 + 15];");
  npg_close(s);
}

/* Every committed emitted example builds as a user's project would build
 * it: with its own header, under -Wshadow -Wmissing-prototypes -Werror
 * (one gcc per directory, syntax only: fast). The normal build's alone:
 * it runs gcc on committed files, no code of npugen's. */
#if !defined(__SANITIZE_ADDRESS__)
Test(first_hour, emitted_examples_are_warning_clean) {
  DIR *top = opendir("examples/emitted");
  cr_assert_not_null(top, "run from the source tree");
  int dirs = 0;
  for (struct dirent *e; (e = readdir(top));) {
    if (e->d_name[0] == '.') continue;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd examples/emitted/%s && gcc -std=c99 -pedantic -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror "
             "-fsyntax-only -I. -I../../../npu_intrinsics *.c 2>&1",
             e->d_name);
    FILE *p = popen(cmd, "r");
    char out[4096] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    cr_expect_eq(pclose(p), 0, "%s:\n%s", cmd, out);
    dirs++;
  }
  closedir(top);
  cr_expect_gt(dirs, 5);
}
#endif
