/* The tidying pass (lower/tidy.c): a loop of one pass is its body, the
 * per-core waits are one loop, a subexpression a statement would print
 * twice is held by a local. Each variant is also checked by execution
 * against its kernel as written, which itself is left as written. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* split(i, 64) of a 64-row matmul: io runs once. */
Test(tidy, a_loop_of_one_pass_is_its_body) {
  NpgSession *s = open_ok(test_matmul, "#pragma npu schedule(matmul, whole)\n"
                                       "#pragma npu split(i, 64, io, ii)\n"
                                       "#pragma npu cache_read(A, nu_ib, io, A_ib)\n");
  int v = checked(s, "whole");
  const char *c = npg_emit_source(s, v);
  lacks(c, "for (int io");
  lacks(c, "io *");
  has(c, "for (int ii = 0; ii < 64; ii++)");
  has(c, "npu_dma_1d(0, &A_ib[0][0], &A[0][0], 2048)");
  npg_close(s);
}

/* The kernel as written keeps its loop of one pass (its C copies it). */
Test(tidy, the_kernel_as_written_is_left_as_written) {
  NpgSession *s = open_ok("void k(const int X[1][8], int Y[1][8]) {\n"
                          "  for (int n = 0; n < 1; n++)\n"
                          "    for (int i = 0; i < 8; i++)\n"
                          "      s: Y[n][i] = X[n][i] * 2 + 1 > 5 ? X[n][i] * 2 + 1 : 5;\n"
                          "}\n",
                          "#pragma npu schedule(k, k2)\n"
                          "#pragma npu split(i, 4, io, ii)\n");
  const char *c = npg_emit_source(s, npg_variant_index(s, "k"));
  has(c, "for (int n = 0; n < 1; n++)");
  has(c, "X[n][i] * 2 + 1 > 5 ? X[n][i] * 2 + 1 : 5");
  int v = checked(s, "k2");
  c = npg_emit_source(s, v);
  lacks(c, "for (int n");
  has(c, "const int s_val = X[0][io * 4 + ii] * 2 + 1;\n");
  has(c, "Y[0][io * 4 + ii] = s_val > 5 ? s_val : 5; /* s */");
  npg_close(s);
}

/* The requantisation's rounded value, printed in the condition and both
 * arms, is computed once; one printed only under an arm stays there (a
 * local would read A[i - 1] at i = 0). */
Test(tidy, a_repeated_subexpression_is_held_by_a_local) {
  NpgSession *s = open_ok("#include <math.h>\n"
                          "#include <stdint.h>\n"
                          "void q(const int32_t A[64], int8_t Y[64], int32_t Z[64], int m, int sh) {\n"
                          "  for (int i = 0; i < 64; i++) {\n"
                          "    requant: Y[i] = (int8_t)(floor(ldexp((double)A[i] * (double)m, -sh) + 0.5) > 127.0 ? "
                          "127.0 : "
                          "floor(ldexp((double)A[i] * (double)m, -sh) + 0.5) < -128.0 ? -128.0 : "
                          "floor(ldexp((double)A[i] * (double)m, -sh) + 0.5));\n"
                          "    edge: Z[i] = i > 0 ? (A[i - 1] % 1000 + 7) * (A[i - 1] % 1000 + 7) : 0;\n"
                          "  }\n"
                          "}\n",
                          "#pragma npu inputs(q, m, 0, 1000)\n"
                          "#pragma npu inputs(q, sh, 0, 20)\n"
                          "#pragma npu inputs(q, A, -100000, 100000)\n"
                          "#pragma npu schedule(q, q2)\n"
                          "#pragma npu split(i, 16, io, ii)\n");
  int v = checked(s, "q2");
  const char *c = npg_emit_source(s, v);
  has(c, "const double requant_val = floor(ldexp((double)A[io * 16 + ii] * (double)m, -sh) + 0.5);\n");
  has(c, "(int8_t)(requant_val > 127.0 ? 127.0 : requant_val < -128.0 ? -128.0 : requant_val); /* requant */");
  lacks(c, "edge_val");
  npg_close(s);
}

/* gemv_vu's copies out of y_vm, one per VU core, are waited for by one
 * loop over the cores. */
Test(tidy, per_core_waits_are_one_loop) {
  NpgSession *s = npg_open_file("examples/gemv_npu.c");
  cr_assert_not_null(s);
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  int v = checked(s, "gemv_vu");
  const char *c = npg_emit_source(s, v);
  has(c, "    for (int core = 0; core < 4; core++) {\n"
         "      if (y_vm_tok[core]) npu_dma_wait(y_vm_tok[core]);\n    }\n");
  lacks(c, "y_vm_tok[1])");
  npg_close(s);
}

/* A window guard's start (io * 32768 + core * 8192), which the call
 * prints in both operands and the length, is held by a local in a block
 * where the nest was: the bound loop still runs phase by phase. */
Test(tidy, a_window_start_is_held_by_a_local) {
  NpgSession *s = npg_open_file("examples/select_npu.c");
  cr_assert_not_null(s);
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  int v = checked(s, "scaled_suffix_vu");
  const char *c = npg_emit_source(s, v);
  has(c, "          {\n            const int ii_start = io * 32768 + core * 8192;\n"
         "            const int ii_bound = npu_clamp(7 - ii_start, 8192);\n"
         "            npu_vu_muls_f32(&y_vm[ii_bound], &x_vm[ii_bound], 8192 - ii_bound, /*s=*/2.0f);\n          }\n");
  has(c, "for (int core = 0; core < 4; core++) { /* compute */");
  npg_close(s);
}

/* A load equal to the element a statement writes is read into a local,
 * and the statement still writes the element (Floyd-Warshall's relax). */
Test(tidy, the_element_written_stays_the_element) {
  NpgSession *s = open_ok("#define N 10\n"
                          "void fw(int D[N][N]) {\n"
                          "  for (int k = 0; k < N; k++)\n"
                          "    for (int i = 0; i < N; i++)\n"
                          "      for (int j = 0; j < N; j++)\n"
                          "        relax: D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];\n"
                          "}\n",
                          "#pragma npu schedule(fw, ok)\n#pragma npu reorder(j, i)\n#pragma npu split(i, 4, io, ii)\n");
  const char *c = npg_emit_source(s, checked(s, "ok"));
  has(c, "const int relax_val2 = D[io * 4 + ii][j];\n");
  has(c, "D[io * 4 + ii][j] = relax_val2 < relax_val ? relax_val2 : relax_val; /* relax */");
  npg_close(s);
}
