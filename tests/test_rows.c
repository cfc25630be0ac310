/* Row-wise kernels on the VU (softmax, layernorm): the f32 row ops through
 * tensorize, fission into stages, and the matching rules they need: a loop
 * that starts at 1, scalar operands bound to constants and parameters, one
 * array as two read operands. Every variant is checked by execution. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_sched_util.h"

static const char softmax[] =
    "#include <math.h>\n"
    "void sm(const float X[8][16], float Y[8][16]) {\n"
    "  float mx[8], d[8][16], e[8][16], sum[8];\n"
    "  for (int r = 0; r < 8; r++) {\n"
    "    mx[r] = X[r][0];\n"
    "    for (int c = 1; c < 16; c++)\n"
    "      rmax: mx[r] = X[r][c] > mx[r] ? X[r][c] : mx[r];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      shift: d[r][c] = X[r][c] - mx[r];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      ex: e[r][c] = expf(d[r][c]);\n"
    "    sum[r] = 0.0f;\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      acc: sum[r] += e[r][c];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      norm: Y[r][c] = e[r][c] / sum[r];\n"
    "  }\n"
    "}\n";

static const char softmax_stages[] =
    "#pragma npu schedule(sm, v)\n"
    "#pragma npu split(r, 4, ro, ri)\n"
    "#pragma npu fission(ri, rmax, shift, ex, acc)\n"
    "#pragma npu cache_read(X, vu_vm, ro, X_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, ro, Y_vm)\n"
    "#pragma npu cache_write(mx, vu_vm, ro, mx_vm)\n"
    "#pragma npu cache_write(d, vu_vm, ro, d_vm)\n"
    "#pragma npu cache_write(e, vu_vm, ro, e_vm)\n"
    "#pragma npu cache_write(sum, vu_vm, ro, sum_vm)\n";

Test(rows, softmax_stages_run_as_vu_instructions) {
  NpgSession *s = open_ok(softmax, steps_then(softmax_stages, "#pragma npu tensorize(ri, npu_vu_reduce_max_f32)\n"
                                                        "#pragma npu tensorize(ri_1, npu_vu_sub_rows_f32)\n"
                                                        "#pragma npu tensorize(ri_2, npu_vu_exp_f32)\n"
                                                        "#pragma npu tensorize(ri_3, npu_vu_reduce_sum_f32)\n"
                                                        "#pragma npu tensorize(ri_4, npu_vu_div_rows_f32)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  /* the max reduction's loop from 1 matches the intrinsic's */
  has(c, "npu_vu_reduce_max_f32(&mx_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  has(c, "npu_vu_sub_rows_f32(&d_vm[0][0], &X_vm[0][0], &mx_vm[0], /*rows=*/4, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  has(c, "npu_vu_exp_f32(&e_vm[0][0], &d_vm[0][0], /*rows=*/4, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  has(c, "npu_vu_reduce_sum_f32(&sum_vm[0], &e_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  has(c, "npu_vu_div_rows_f32(&Y_vm[0][0], &e_vm[0][0], &sum_vm[0], /*rows=*/4, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  /* the temporaries never reach DDR */
  lacks(c, "float mx[");
  lacks(c, "float d[");
  npg_close(s);
}

/* fission with several cut points: one loop per stage, named in order. */
Test(rows, fission_cuts_at_every_statement_named) {
  NpgSession *s = open_ok(softmax, "#pragma npu schedule(sm, v)\n#pragma npu fission(r, rmax, shift, ex, acc)\n");
  int v = checked(s, "v");
  const char *ir = npg_dump_ir(s, v);
  has(ir, "  for r_3 (counter r) in 0 .. < 8 step 1:  # line 4\n    s2: sum[r] = 0.0f  # line 12\n");
  has(ir, "  for r_4 (counter r) in 0 .. < 8 step 1:  # line 4\n    for c_5 (counter c) in 0 .. < 16 step 1:  # line 15\n"
          "      norm: Y[r][c] = e[r][c] / sum[r]  # line 16\n");
  npg_close(s);
  refused(softmax, "#pragma npu schedule(sm, v)\n#pragma npu fission(r, shift, rmax)\n",
          "k.c:20:31: error: fission: rmax (line 7) is not inside loop r_1 (the cut points must come in the order "
          "of the body)");
  refused(softmax, "#pragma npu schedule(sm, v)\n#pragma npu fission(r, rmax, norm)\n",
          "k.c:20:30: error: fission: nothing follows norm in loop r_1: there is nothing to split off");
}

Test(rows, loops_must_start_where_the_intrinsics_do) {
  /* a max loop from 0 is the same result, but not the intrinsic's nest */
  char k[2048];
  snprintf(k, sizeof k, "%s", softmax);
  char *p = strstr(k, "int c = 1;");
  p[8] = '0';
  refused(k, steps_then(softmax_stages, "#pragma npu tensorize(ri, npu_vu_reduce_max_f32)\n"),
          "k.c:28:27: error: tensorize: the nest under ri does not match npu_vu_reduce_max_f32: the loops start at "
          "different values: loop c_1 (line 6) against the intrinsic's c (line 15)");
}

static const char norm[] =
    "#include <math.h>\n"
    "void ln(const float X[8][16], const float g[16], const float b[16], float eps, float Y[8][16]) {\n"
    "  float mean[8], d[8][16], ssq[8], rstd[8], rs[8], n[8][16];\n"
    "  for (int r = 0; r < 8; r++) {\n"
    "    mean[r] = 0.0f;\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      rsum: mean[r] += X[r][c];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      centre: d[r][c] = X[r][c] - mean[r] / 16;\n"
    "    ssq[r] = 0.0f;\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      sq: ssq[r] += d[r][c] * d[r][c];\n"
    "    inv: rstd[r] = 1.0f / sqrtf(ssq[r] + eps);\n"
    "    lit: rs[r] = rstd[r] * 0.25f;\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      scale: n[r][c] = d[r][c] * rs[r];\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      affine: Y[r][c] = n[r][c] * g[c] + b[c];\n"
    "  }\n"
    "}\n";

static const char norm_stages[] =
    "#pragma npu schedule(ln, v)\n"
    "#pragma npu split(r, 4, ro, ri)\n"
    "#pragma npu fission(ri, rsum, centre, sq, inv, lit, scale)\n"
    "#pragma npu cache_read(X, vu_vm, ro, X_vm)\n"
    "#pragma npu cache_read(g, vu_vm, ro, g_vm)\n"
    "#pragma npu cache_read(b, vu_vm, ro, b_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, ro, Y_vm)\n"
    "#pragma npu cache_write(mean, vu_vm, ro, mean_vm)\n"
    "#pragma npu cache_write(d, vu_vm, ro, d_vm)\n"
    "#pragma npu cache_write(ssq, vu_vm, ro, ssq_vm)\n"
    "#pragma npu cache_write(rstd, vu_vm, ro, rstd_vm)\n"
    "#pragma npu cache_write(rs, vu_vm, ro, rs_vm)\n"
    "#pragma npu cache_write(n, vu_vm, ro, n_vm)\n";

/* A scalar operand binds a kernel parameter (eps) or a float constant; a
 * row dot product binds one array to both of its read operands. */
Test(rows, scalars_and_a_sum_of_squares) {
  NpgSession *s = open_ok(norm, steps_then(norm_stages, "#pragma npu tensorize(ri, npu_vu_reduce_sum_f32)\n"
                                                  "#pragma npu tensorize(ri_2, npu_vu_reduce_dot_f32)\n"
                                                  "#pragma npu tensorize(ri_3, npu_vu_rsqrt_f32)\n"
                                                  "#pragma npu tensorize(ri_4, npu_vu_muls_f32)\n"
                                                  "#pragma npu tensorize(ri_5, npu_vu_mul_rows_f32)\n"
                                                  "#pragma npu tensorize(ri_6, npu_vu_muladd_cols_f32)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_vu_reduce_dot_f32(&ssq_vm[0], &d_vm[0][0], &d_vm[0][0], /*rows=*/4, /*cols=*/16, /*lda=*/16, /*ldb=*/16);");
  has(c, "npu_vu_rsqrt_f32(&rstd_vm[0], &ssq_vm[0], /*n=*/4, eps);");
  has(c, "npu_vu_muls_f32(&rs_vm[0], &rstd_vm[0], /*n=*/4, /*s=*/0.25f);");
  has(c, "npu_vu_muladd_cols_f32(&Y_vm[0][0], &n_vm[0][0], &g_vm[0], &b_vm[0], /*rows=*/4, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  npg_close(s);
}

/* mean[r] / 16 inside the centring is not a row broadcast of mean. */
Test(rows, what_does_not_match_says_why) {
  refused(norm, steps_then(norm_stages, "#pragma npu tensorize(ri_1, npu_vu_sub_rows_f32)\n"),
          "k.c:34:29: error: tensorize: the nest under ri_1 does not match npu_vu_sub_rows_f32: the expressions "
          "differ: 'mean_vm[ri] / 16' in centre (line 9) against the intrinsic's 'b[r]' (line 17)");
  refused(norm, steps_then(norm_stages, "#pragma npu tensorize(ri_4, npu_vu_divs_f32)\n"),
          "k.c:34:29: error: tensorize: the nest under ri_4 does not match npu_vu_divs_f32: the operators differ: "
          "'rstd_vm[ri] * 0.25f' in lit (line 14) against the intrinsic's 'a[i] / s' (line 12)");
  /* an operand the intrinsic writes may be one it reads only element for
   * element in place (A[i] = A[i] * 0.5f, tests/test_coverage.c), not
   * shifted */
  refused("void k(float A[8]) {\n  for (int i = 0; i < 7; i++) A[i] = A[i + 1] * 0.5f;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu tensorize(i, npu_vu_muls_f32)\n",
          "k.c:5:26: error: tensorize: the nest under i does not match npu_vu_muls_f32: one array would be two "
          "intrinsic operands: 'A[i + 1]' in s1 (line 2) against the intrinsic's 'a[i]' (line 12)");
}

/* The reductions name their operands' scopes too: a max over rows in DDR is
 * refused when it is scheduled, not found by the simulator. An int constant
 * binds a float operand as C converts it (2^24 + 1 rounds the same way in
 * the kernel and in the call). */
Test(rows, reductions_need_their_operands_in_the_vm) {
  refused("void k(const float X[16][64], float M[16]) {\n"
          "  for (int r = 0; r < 16; r++) {\n"
          "    M[r] = X[r][0];\n"
          "    for (int c = 1; c < 64; c++) M[r] = X[r][c] > M[r] ? X[r][c] : M[r];\n"
          "  }\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu tensorize(r, npu_vu_reduce_max_f32)\n",
          "k.c:8:26: error: tensorize: the nest under r does not match npu_vu_reduce_max_f32: its operand dst would be "
          "M, which is in DDR; it must be in vu_vm (stage it there with cache_read or cache_write)");
  NpgSession *s = open_ok("void k(const float A[2][64], float O[2][64]) {\n"
                          "  for (int b = 0; b < 2; b++)\n"
                          "    for (int i = 0; i < 64; i++) O[b][i] = A[b][i] / 16777217;\n}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(A, vu_vm, b, A_vm)\n"
                          "#pragma npu cache_write(O, vu_vm, b, O_vm)\n"
                          "#pragma npu tensorize(i, npu_vu_divs_f32)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_vu_divs_f32(&O_vm[0][0], &A_vm[0][0], /*n=*/64, /*s=*/16777217);");
  npg_close(s);
}
