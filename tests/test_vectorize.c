/* vectorize(loop): on a nest over vector memory it becomes the VU
 * instruction that computes the nest, chosen by the matcher; otherwise it
 * stays a portable hint, and on vu_vm data the emitted loop says which
 * instruction came nearest and how the nest differs. Every variant is
 * checked by execution. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_sched_util.h"

/* Three stages of a row kernel: a row maximum (from element 1), a shift by
 * it, and an element-wise product of two rows. */
static const char rows[] =
    "#include <math.h>\n"
    "void k(const float X[8][16], const float W[8][16], float Y[8][16], float Z[8][16]) {\n"
    "  float mx[8];\n"
    "  for (int r = 0; r < 8; r++) {\n"
    "    mx[r] = X[r][0];\n"
    "    for (int c = 1; c < 16; c++)\n"
    "      rmax: mx[r] = X[r][c] > mx[r] ? X[r][c] : mx[r];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      shift: Y[r][c] = X[r][c] - mx[r];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      prod: Z[r][c] = X[r][c] * W[r][c];\n"
    "  }\n"
    "}\n";

static const char staged[] =
    "#pragma npu schedule(k, v)\n"
    "#pragma npu split(r, 4, ro, ri)\n"
    "#pragma npu fission(ri, rmax, shift)\n"
    "#pragma npu cache_read(X, vu_vm, ro, X_vm)\n"
    "#pragma npu cache_read(W, vu_vm, ro, W_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, ro, Y_vm)\n"
    "#pragma npu cache_write(Z, vu_vm, ro, Z_vm)\n"
    "#pragma npu cache_write(mx, vu_vm, ro, mx_vm)\n";

Test(vectorize, picks_the_vu_instruction_that_computes_the_nest) {
  /* the user names loops; the matcher names the instructions, as tensorize
   * with the right names would */
  NpgSession *s = open_ok(rows, steps_then(staged, "#pragma npu vectorize(ri)\n"
                                                   "#pragma npu vectorize(ri_1)\n"
                                                   "#pragma npu vectorize(c_3)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_vu_reduce_max_f32(&mx_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  has(c, "npu_vu_sub_rows_f32(&Y_vm[0][0], &X_vm[0][0], &mx_vm[0], /*rows=*/4, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  /* a 1-D instruction per row: vectorize named the row's loop */
  has(c, "npu_vu_mul_f32(&Z_vm[ri][0], &X_vm[ri][0], &W_vm[ri][0], /*n=*/16);");
  lacks(c, "omp simd");

  NpgSession *t = open_ok(rows, steps_then(staged, "#pragma npu tensorize(ri, npu_vu_reduce_max_f32)\n"
                                                   "#pragma npu tensorize(ri_1, npu_vu_sub_rows_f32)\n"
                                                   "#pragma npu tensorize(c_3, npu_vu_mul_f32)\n"));
  int w = checked(t, "v");
  const char *d = npg_emit_source(t, w);
  /* the same code after the schedule comment */
  cr_assert_str_eq(strstr(c, "void v("), strstr(d, "void v("));
  npg_close(t);
  npg_close(s);
}

Test(vectorize, stays_a_hint_and_says_why_when_no_instruction_matches) {
  /* no VU instruction computes sqrtf, so neither one instruction nor a
   * sequence (schedule/isel_cover.c) computes the nest */
  static const char axpb[] =
      "#include <math.h>\n"
      "void k(const float X[8][16], float Y[8][16]) {\n"
      "  for (int i = 0; i < 8; i++)\n"
      "    for (int j = 0; j < 16; j++)\n"
      "      Y[i][j] = sqrtf(fabsf(X[i][j])) + 1.0f;\n"
      "}\n";
  NpgSession *s = open_ok(axpb, "#pragma npu schedule(k, v)\n"
                                "#pragma npu cache_read(X, vu_vm, i, X_vm)\n"
                                "#pragma npu cache_write(Y, vu_vm, i, Y_vm)\n"
                                "#pragma npu vectorize(j)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  /* the nearest single instruction is the add, and the sequence names the
   * operand no instruction computes */
  has(c, "/* vectorize(j) stays a hint: no VU instruction computes this nest (nearest npu_vu_add_f32: the expressions "
         "differ: 'sqrtf(fabsf(X_vm[0][j]))' in s1 (line 5) against the intrinsic's 'a[i]' (line 12); as a sequence "
         "of instructions: no VU instruction computes 'sqrtf(fabsf(X_vm[0][j]))' (nearest npu_vu_abs_f32: the calls "
         "differ: 'sqrtf(fabsf(X_vm[0][j]))' in s1 (line 5) against the intrinsic's 'fabsf(a[i])' (line 13))) */\n");
  has(c, "#if defined(_OPENMP) || defined(__clang__)\n#pragma omp simd\n#elif defined(__GNUC__) && !defined(__TINYC__)\n#pragma GCC ivdep\n#endif\n");
  lacks(c, "npu_vu_add_f32(&");
  npg_close(s);

  /* on DDR data vectorize is the hint alone: the VU is not tried */
  NpgSession *h = open_ok(axpb, "#pragma npu schedule(k, v)\n#pragma npu vectorize(j)\n");
  const char *e = npg_emit_source(h, checked(h, "v"));
  has(e, "#pragma omp simd\n");
  lacks(e, "stays a hint");
  npg_close(h);
}

Test(vectorize, a_reduction_no_instruction_computes_is_refused_with_the_nearest) {
  /* a row's sum alone (vectorize of the inner loop) carries a dependence, and
   * the reductions are whole 2-D boxes: refused, saying both */
  static const char sums[] =
      "void k(const float X[8][16], float S[8]) {\n"
      "  for (int i = 0; i < 8; i++) {\n"
      "    S[i] = 0.0f;\n"
      "    for (int j = 0; j < 16; j++)\n"
      "      S[i] += X[i][j];\n"
      "  }\n"
      "}\n";
  char src[4096];
  snprintf(src, sizeof src, "%s%s", sums,
           "#pragma npu schedule(k, v)\n"
           "#pragma npu cache_read(X, vu_vm, i, X_vm)\n"
           "#pragma npu cache_write(S, vu_vm, i, S_vm)\n"
           "#pragma npu vectorize(j)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(s), 0);
  const char *e = npg_errors(s);
  has(e, "k.c:11:13: error: vectorize: illegal: loop j would run its iterations in any order, but it carries the "
         "flow dependence on S_vm");
  /* S += X is S = S + X: what differs from the element-wise add is the
   * element, one S_vm[0] for every j */
  has(e, "k.c:11:13: note: no VU instruction computes the nest under j either: nearest npu_vu_add_f32: an index "
         "differs: '0' in s2 (line 5) against the intrinsic's 'i' (line 12)\n");
  npg_close(s);

  /* whole rows, the loop around the sum, are npu_vu_reduce_sum_f32 */
  NpgSession *t = open_ok(sums, "#pragma npu schedule(k, v)\n"
                                "#pragma npu split(i, 4, io, ii)\n"
                                "#pragma npu cache_read(X, vu_vm, io, X_vm)\n"
                                "#pragma npu cache_write(S, vu_vm, io, S_vm)\n"
                                "#pragma npu vectorize(ii)\n");
  has(npg_emit_source(t, checked(t, "v")), "npu_vu_reduce_sum_f32(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  npg_close(t);
}

Test(vectorize, a_tensorized_or_bound_loop_is_refused) {
  refused(rows, steps_then(staged, "#pragma npu tensorize(ri, npu_vu_reduce_max_f32)\n#pragma npu vectorize(ri)\n"),
          "k.c:23:23: error: vectorize: loop ri is already tensorized (npu_vu_reduce_max_f32)");
  refused(rows, "#pragma npu schedule(k, v)\n#pragma npu split(r, 4, ro, ri)\n#pragma npu bind(ri, vu)\n"
                "#pragma npu vectorize(ri)\n",
          "k.c:17:23: error: vectorize: loop ri is bound to the VU cores");
}

Test(vectorize, a_nest_unrolled_after_tensorize_says_a_later_step_copied_it) {
  /* unroll(c) inside the row op's nest expands it into 16 copies of s1
   * after tensorize: the emitted loops say so, not that the nest as
   * written does more than the intrinsic */
  static const char rows_minus[] =
      "void k(const float X[8][16], const float m[8], float Z[8][16]) {\n"
      "  for (int r = 0; r < 8; r++)\n"
      "    for (int c = 0; c < 16; c++)\n"
      "      Z[r][c] = X[r][c] - m[r];\n"
      "}\n";
  NpgSession *s = open_ok(rows_minus, "#pragma npu schedule(k, v)\n"
                                      "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
                                      "#pragma npu cache_read(m, vu_vm, root, m_vm)\n"
                                      "#pragma npu cache_write(Z, vu_vm, root, Z_vm)\n"
                                      "#pragma npu tensorize(r, npu_vu_sub_rows_f32)\n"
                                      "#pragma npu unroll(c)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "/* tensorize(r, npu_vu_sub_rows_f32) no longer matches: the nest holds 16 copies of s1 (line 4): a later "
         "step copied it (an unroll of a loop in the nest, or a partition), and one call of the intrinsic runs the "
         "whole nest; drop that step, or apply it to a loop around the nest */");
  lacks(c, "does more than the intrinsic");
  npg_close(s);
}
