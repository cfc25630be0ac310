/* expand (schedule/expand.c): scalar locals that carry a value through a
 * loop nest, as people write them (a matmul's accumulator, a leaky ReLU's
 * temporary, a softmax row's max and sum), take the array form the other
 * steps handle. Every variant is JIT-run against its kernel (bit-exact:
 * each value is computed as before); tensorize and vectorize expand the
 * locals of a nest by themselves; refusals say why. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* 64 is not a multiple of 48: the tiles of j leave a tail */
static const char *matmul_acc =
    "#include <stdint.h>\n"
    "void k(const int8_t A[64][64], const int8_t B[64][48], int32_t C[64][48]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 48; j++) {\n"
    "      int32_t acc = 0;\n"
    "      for (int kk = 0; kk < 64; kk++)\n"
    "        acc += A[i][kk] * B[kk][j];\n"
    "      C[i][j] = acc;\n"
    "    }\n"
    "}\n";

static const char *nu_steps =
    "#pragma npu split(i, 32, io, ii)\n"
    "#pragma npu split(j, 16, jo, ji)\n"
    "#pragma npu reorder(io, jo, ii, ji)\n"
    "#pragma npu cache_read(A, nu_ib, jo, A_ib)\n"
    "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
    "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
    "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n";

Test(expand, an_accumulator_lives_in_its_destination) {
  NpgSession *s = open_ok(matmul_acc, "#pragma npu schedule(k, v)\n#pragma npu expand(acc)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "C[i][j] = 0;");
  has(c, "C[i][j] += A[i][kk] * B[kk][j];");
  lacks(c, "int32_t acc");
  npg_close(s);
}

Test(expand, a_local_accumulator_matmul_is_tensorized_onto_the_nu) {
  /* explicitly, and with no expand: tensorize expands acc by itself */
  NpgSession *s = open_ok(matmul_acc, steps_then("#pragma npu schedule(k, explicit)\n#pragma npu expand(acc)\n", nu_steps));
  const char *c = npg_emit_source(s, checked(s, "explicit"));
  has(c, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/16, /*k=*/64, /*lda=*/64, /*ldb=*/16, /*ldc=*/16, /*accumulate=*/0);");
  npg_close(s);
  s = open_ok(matmul_acc, steps_then("#pragma npu schedule(k, implicit)\n", nu_steps));
  c = npg_emit_source(s, checked(s, "implicit"));
  has(c, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/16, /*k=*/64, /*lda=*/64, /*ldb=*/16, /*ldc=*/16, /*accumulate=*/0);");
  has(c, " *   expand(acc)\n *   tensorize(ii, npu_nu_matmul_i8)\n"); /* the schedule as applied says so */
  lacks(c, "int32_t acc");
  npg_close(s);
}

Test(expand, an_array_over_the_loops_it_lives_in) {
  NpgSession *s = open_ok(matmul_acc, "#pragma npu schedule(k, all)\n#pragma npu expand(acc, i)\n"
                                      "#pragma npu schedule(k, inner)\n#pragma npu expand(acc, j)\n");
  const char *c = npg_emit_source(s, checked(s, "all"));
  has(c, "int32_t acc[64][48];");
  has(c, "acc[i][j] += A[i][kk] * B[kk][j];");
  has(c, "C[i][j] = acc[i][j];");
  c = npg_emit_source(s, checked(s, "inner"));
  has(c, "int32_t acc[48];"); /* declared in i's body, right before j */
  has(c, "acc[j] = 0;");
  npg_close(s);
}

/* The destination is read while acc lives: acc gets an array instead. */
Test(expand, a_destination_used_while_the_local_lives_is_not_taken) {
  static const char *bias =
      "#include <stdint.h>\n"
      "void k(const int8_t A[16][16], const int8_t B[16][16], int32_t C[16][16]) {\n"
      "  for (int i = 0; i < 16; i++)\n"
      "    for (int j = 0; j < 16; j++) {\n"
      "      int32_t acc = C[i][j] >> 1;\n"
      "      for (int kk = 0; kk < 16; kk++)\n"
      "        acc += A[i][kk] * B[kk][j] + C[i][kk];\n"
      "      C[i][j] = acc;\n"
      "    }\n"
      "}\n";
  NpgSession *s = open_ok(bias, "#pragma npu schedule(k, v)\n#pragma npu expand(acc)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "int32_t acc[16][16];");
  has(c, "acc[i][j] = C[i][j] >> 1;");
  has(c, "C[i][j] = acc[i][j];");
  npg_close(s);
}

static const char *leaky =
    "#define N 1000\n"
    "void k(const float x[N], float y[N], float alpha) {\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    float v = x[i];\n"
    "    y[i] = v >= 0 ? v : v * alpha;\n"
    "  }\n"
    "}\n";

Test(expand, a_leaky_relu_through_a_local_is_vectorized_onto_the_vu) {
  NpgSession *s = open_ok(leaky, "#pragma npu schedule(k, vu)\n#pragma npu split(i, 256, io, ii)\n"
                                 "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                                 "#pragma npu vectorize(ii)\n"
                                 "#pragma npu schedule(k, array)\n#pragma npu expand(v)\n");
  const char *c = npg_emit_source(s, checked(s, "vu"));
  has(c, "npu_vu_select_ge_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], ");
  lacks(c, "omp simd");
  c = npg_emit_source(s, checked(s, "array"));
  has(c, "float v[1000];");
  has(c, "y[i] = v[i] >= 0 ? v[i] : v[i] * alpha;");
  npg_close(s);
}

/* The same written with an if on a second local (trial 40, D6): the if
 * folds into the local's initializer as a select, the locals then live
 * in y, and the VU's select matches (it stayed a hint, on the host). */
Test(expand, a_leaky_relu_written_with_an_if_is_vectorized_onto_the_vu) {
  NpgSession *s = open_ok("#define N 1000\n"
                          "void k(const float x[N], float y[N], float alpha) {\n"
                          "  for (int i = 0; i < N; i++) {\n"
                          "    float t = x[i];\n"
                          "    float r = t;\n"
                          "    if (t < 0.0f) r = t * alpha;\n"
                          "    y[i] = r;\n"
                          "  }\n"
                          "}\n",
                          "#pragma npu schedule(k, vu)\n#pragma npu split(i, 256, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                          "#pragma npu vectorize(ii)\n");
  lacks(npg_errors(s), "stays a hint");
  has(npg_emit_source(s, checked_once(s, "vu")), "npu_vu_select_lt_muls_f32(&y_vm[0], &x_vm[0], &x_vm[0], &x_vm[0], ");
  npg_close(s);
}

static const char *softmax =
    "#include <math.h>\n"
    "#define R 128\n"
    "#define C 64\n"
    "void k(const float X[R][C], float Y[R][C]) {\n"
    "  for (int r = 0; r < R; r++) {\n"
    "    float m = X[r][0];\n"
    "    for (int c = 1; c < C; c++)\n"
    "      m = X[r][c] > m ? X[r][c] : m;\n"
    "    float s = 0.0f;\n"
    "    for (int c = 0; c < C; c++) {\n"
    "      float e = expf(X[r][c] - m);\n"
    "      Y[r][c] = e;\n"
    "      s += e;\n"
    "    }\n"
    "    for (int c = 0; c < C; c++)\n"
    "      Y[r][c] = Y[r][c] / s;\n"
    "  }\n"
    "}\n";

Test(expand, a_softmax_with_scalar_locals_is_cut_into_stages) {
  refused(softmax, "#pragma npu schedule(k, v)\n#pragma npu fission(r, c_1)\n",
          "k.c:20:24: error: fission: local m (line 6) is declared before the cut and used after it");
  NpgSession *s = open_ok(softmax, "#pragma npu schedule(k, v)\n#pragma npu expand(m)\n#pragma npu expand(s)\n"
                                   "#pragma npu fission(r, c_1, c_2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float m[128];");
  has(c, "m[r] = X[r][c] > m[r] ? X[r][c] : m[r];");
  has(c, "Y[r][c] = Y[r][c] / s[r];");
  npg_close(s);
}

Test(expand, a_softmax_row_max_reaches_the_vu_cores) {
  NpgSession *s = open_ok(softmax,
                          "#pragma npu schedule(k, v)\n#pragma npu expand(m)\n#pragma npu expand(s)\n"
                          "#pragma npu expand(e, r)\n#pragma npu split(r, 64, ro, rr)\n#pragma npu split(rr, 16, core, ri)\n"
                          "#pragma npu bind(core, vu)\n#pragma npu fission(ri, c_1, c_2)\n"
                          "#pragma npu cache_read(X, vu_vm, core, X_vm)\n#pragma npu cache_write(Y, vu_vm, core, Y_vm)\n"
                          "#pragma npu cache_write(m, vu_vm, core, m_vm)\n#pragma npu cache_write(s, vu_vm, core, s_vm)\n"
                          "#pragma npu cache_write(e, vu_vm, core, e_vm)\n#pragma npu vectorize(ri)\n"
                          "#pragma npu vectorize(ri_2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_reduce_max_f32(&m_vm[0], &X_vm[0][0], /*rows=*/16, /*cols=*/64, /*ld=*/64);");
  has(c, "npu_vu_div_rows_f32(");
  npg_close(s);
}

/* Two nests with their own accumulators, one of them with a scalar
 * parameter in its update: each tensorize expands its own. */
Test(expand, several_nests_each_with_its_local) {
  static const char *two =
      "#include <stdint.h>\n"
      "void k(const int8_t A[32][32], const int8_t B[32][32], int32_t C[32][32], int32_t D[32][32], int32_t scale) {\n"
      "  for (int i = 0; i < 32; i++)\n"
      "    for (int j = 0; j < 32; j++) {\n"
      "      int32_t acc = 0;\n"
      "      for (int kk = 0; kk < 32; kk++)\n"
      "        acc += A[i][kk] * B[kk][j];\n"
      "      C[i][j] = acc;\n"
      "    }\n"
      "  for (int i = 0; i < 32; i++)\n"
      "    for (int j = 0; j < 32; j++) {\n"
      "      int32_t acc = 0;\n"
      "      for (int kk = 0; kk < 32; kk++)\n"
      "        acc += B[i][kk] * A[kk][j];\n"
      "      D[i][j] = acc * scale;\n"
      "    }\n"
      "}\n";
  refused(two, "#pragma npu schedule(k, v)\n#pragma npu expand(acc)\n",
          "k.c:19:20: error: expand: 2 locals are named 'acc'; name its declaration instead: s1 (line 5), "
          "s4 (line 12)");
  NpgSession *s = open_ok(two, "#pragma npu schedule(k, v)\n#pragma npu expand(s1)\n#pragma npu expand(s4)\n"
                               "#pragma npu schedule(k, nu)\n#pragma npu cache_read(A, nu_ib, root, A_ib)\n"
                               "#pragma npu cache_read(B, nu_wb, root, B_wb)\n#pragma npu cache_write(C, nu_ob, root, C_ob)\n"
                               "#pragma npu tensorize(i_1, npu_nu_matmul_i8)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "C[i][j] = 0;");
  has(c, "int32_t acc[32][32];"); /* D[i][j] = acc * scale is no store of acc itself */
  c = npg_emit_source(s, checked(s, "nu"));
  has(c, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/32, /*k=*/32, /*lda=*/32, /*ldb=*/32, /*ldc=*/32, /*accumulate=*/0);");
  npg_close(s);
}

Test(expand, refusals_say_why) {
  refused(matmul_acc, "#pragma npu schedule(k, v)\n#pragma npu expand(ac)\n",
          "k.c:12:20: error: expand: no local scalar named 'ac' in v (locals: acc)");
  refused(matmul_acc, "#pragma npu schedule(k, v)\n#pragma npu expand(acc, kk)\n",
          "k.c:12:25: error: expand: acc (line 5) does not live in loop kk: it is declared outside it");
  static const char *top =
      "void k(const float x[16], float y[16]) {\n"
      "  float t = 2.0f;\n"
      "  for (int i = 0; i < 16; i++)\n"
      "    y[i] = x[i] * t;\n"
      "}\n";
  refused(top, "#pragma npu schedule(k, v)\n#pragma npu expand(t)\n",
          "k.c:7:20: error: expand: a value of t flows from one iteration of loop i (or a loop around it) into "
          "another, or into the loop from before it: one element per iteration would not carry it");
  static const char *used_outside =
      "void k(const float x[16], float y[16]) {\n"
      "  float t = 2.0f;\n"
      "  y[0] = t;\n"
      "  for (int i = 1; i < 16; i++)\n"
      "    y[i] = x[i] * t;\n"
      "}\n";
  refused(used_outside, "#pragma npu schedule(k, v)\n#pragma npu expand(t)\n",
          "k.c:8:20: error: expand: t (line 2) is declared and used outside every loop: there is nothing to expand it "
          "over");
}

/* C89 style: the locals declared at the top, assigned in the row loop.
 * isl proves each read takes its value from the same row (the dataflow
 * of the IR's own iterations); a running total across rows is refused. */
static const char *c89 =
    "#include <math.h>\n"
    "#define R 32\n"
    "#define C 16\n"
    "void k(const float X[R][C], float Y[R][C], float run[R]) {\n"
    "  float m, s, t = 0.0f;\n"
    "  int r, c;\n"
    "  for (r = 0; r < R; r++) {\n"
    "    m = X[r][0];\n"
    "    for (c = 1; c < C; c++)\n"
    "      m = X[r][c] > m ? X[r][c] : m;\n"
    "    s = 0.0f;\n"
    "    for (c = 0; c < C; c++) {\n"
    "      Y[r][c] = expf(X[r][c] - m);\n"
    "      s += Y[r][c];\n"
    "    }\n"
    "    for (c = 0; c < C; c++)\n"
    "      Y[r][c] = Y[r][c] / s;\n"
    "    t += s;\n"
    "    run[r] = t;\n"
    "  }\n"
    "}\n";

Test(expand, locals_declared_outside_their_loops_are_proven_by_isl) {
  NpgSession *s = open_ok(c89, "#pragma npu schedule(k, v)\n#pragma npu expand(m)\n#pragma npu expand(s)\n"
                               "#pragma npu fission(r, c_1, c_2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float m[32];");
  has(c, "m[r] = X[r][0];");
  has(c, "Y[r][c] = Y[r][c] / s[r];");
  has(c, "float t = 0.0f;");
  npg_close(s);
  refused(c89, "#pragma npu schedule(k, v)\n#pragma npu expand(t)\n",
          "k.c:23:20: error: expand: a value of t flows from one iteration of loop r (or a loop around it) into "
          "another, or into the loop from before it: one element per iteration would not carry it");
  /* a value only some iterations write: a read may find no write before it in its iteration */
  static const char *guarded =
      "void k(const float x[16], float y[16]) {\n"
      "  float t;\n"
      "  for (int i = 0; i < 16; i++) {\n"
      "    if (x[i] > 0) t = x[i];\n"
      "    y[i] = x[i] > 0 ? t : 0.0f;\n"
      "  }\n"
      "}\n";
  refused(guarded, "#pragma npu schedule(k, v)\n#pragma npu expand(t)\n",
          "k.c:9:20: error: expand: t can be read before anything is written to it: its value would come from no "
          "element");
}

/* Symbolic sizes, a tail no tile divides (n = 100 by tiles of 32):
 * tensorize's own expansion needs no array, so no constant extent. */
Test(expand, a_local_accumulator_with_symbolic_sizes_is_tensorized) {
  static const char *sized =
      "#include <stdint.h>\n"
      "void k(int n, const int8_t A[n][64], const int8_t B[64][32], int32_t C[n][32]) {\n"
      "  for (int i = 0; i < n; i++)\n"
      "    for (int j = 0; j < 32; j++) {\n"
      "      int32_t acc = 0;\n"
      "      for (int kk = 0; kk < 64; kk++)\n"
      "        acc += A[i][kk] * B[kk][j];\n"
      "      C[i][j] = acc;\n"
      "    }\n"
      "}\n"
      "#pragma npu assume(k, n >= 1 && n <= 256)\n"
      "#pragma npu sizes(k, n = 100)\n";
  NpgSession *s = open_ok(sized, "#pragma npu schedule(k, nu)\n#pragma npu split(i, 32, io, ii)\n"
                                 "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, root, B_wb)\n"
                                 "#pragma npu cache_write(C, nu_ob, io, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  const char *c = npg_emit_source(s, checked(s, "nu"));
  has(c, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], ");
  lacks(c, "int32_t acc");
  npg_close(s);
}

/* A reduction's init goes beside its loop: `float s = 0;` then a loop cut
 * in two (y, then s += y) gives `s[r] = 0.0f;` right before the sum's
 * loop, not before y's, so the init and its reduction stay one stage for
 * fission and one VU instruction (npu_vu_reduce_sum_f32). Before, the
 * store stayed where the declaration was. */
Test(expand, an_init_moves_down_beside_the_loop_that_first_uses_it) {
  static const char *cut =
      "#include <math.h>\n"
      "void k(const float x[8][16], float y[8][16]) {\n"
      "  for (int r = 0; r < 8; r++) {\n"
      "    float s = 0.0f;\n"
      "    for (int c = 0; c < 16; c++) {\n"
      "      y[r][c] = expf(x[r][c]);\n"
      "      s += y[r][c];\n"
      "    }\n"
      "    for (int c = 0; c < 16; c++)\n"
      "      y[r][c] = y[r][c] / s;\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(cut, "#pragma npu schedule(k, v)\n#pragma npu fission(c_1, s2)\n#pragma npu expand(s)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "y[r][c] = expf(x[r][c]);\n    }\n    s[r] = 0.0f;\n    for (int c = 0; c < 16; c++) {\n      s[r] += y[r][c];");
  npg_close(s);
}

/* A running max written with an if is the store of a select in the array
 * form, so it is the VU's row reduction like `m = x > m ? x : m;` (and a
 * cache of m sees its element written in every iteration). Before, the if
 * stayed, and cache_write(m, vu_vm, ...) was refused as read before it is
 * written. */
Test(expand, a_running_max_written_with_an_if_is_a_select) {
  static const char *rowmax =
      "void k(const float x[64][32], float y[64]) {\n"
      "  for (int r = 0; r < 64; r++) {\n"
      "    float m = x[r][0];\n"
      "    for (int c = 1; c < 32; c++)\n"
      "      if (x[r][c] > m) m = x[r][c];\n"
      "    y[r] = m + 1.0f;\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(rowmax, "#pragma npu schedule(k, v)\n#pragma npu expand(m)\n"
                                  "#pragma npu split(r, 32, ro, rr)\n#pragma npu split(rr, 8, core, ri)\n"
                                  "#pragma npu bind(core, vu)\n#pragma npu fission(ri, s2)\n"
                                  "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                  "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                  "#pragma npu cache_write(m, vu_vm, core, m_vm)\n#pragma npu vectorize(ri)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_reduce_max_f32(&m_vm[0], &x_vm[0][0], /*rows=*/8, /*cols=*/32, /*ld=*/32);");
  npg_close(s);
}

/* A temporary stored and then read again (`float e = expf(..); y = e;
 * s += e;`) lives in the element it is stored to: after the store, s adds
 * y's element, and no array e is made (before: its last use was no store,
 * so e became an array over r and c). With a loop, expand still makes the
 * array. */
Test(expand, a_temporary_stored_then_read_lives_in_its_store) {
  static const char *stored =
      "#include <math.h>\n"
      "void k(const float x[8][16], float y[8][16], float t[8]) {\n"
      "  for (int r = 0; r < 8; r++) {\n"
      "    float s = 0.0f;\n"
      "    for (int c = 0; c < 16; c++) {\n"
      "      float e = expf(x[r][c]);\n"
      "      y[r][c] = e;\n"
      "      s += e;\n"
      "    }\n"
      "    t[r] = s;\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(stored, "#pragma npu schedule(k, v)\n#pragma npu expand(e)\n"
                                  "#pragma npu schedule(k, array)\n#pragma npu expand(e, r)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "      y[r][c] = expf(x[r][c]);\n      s += y[r][c];\n");
  lacks(c, "float e");
  c = npg_emit_source(s, checked(s, "array"));
  has(c, "float e[8][16];");
  npg_close(s);
}

/* A local declared in a loop with an initializer and read only in a loop
 * inside (`const float inv = 1.0f / s;` before the row's loop) is an array
 * over the loops around its declaration. Before: refused, as if declared
 * outside the loop it is used in ("a value of inv flows from one
 * iteration of loop c ... into the loop from before it"). */
Test(expand, an_initialized_local_read_in_an_inner_loop_is_an_array_over_its_own_loops) {
  static const char *scaled =
      "void k(const float x[8][16], const float s[8], float y[8][16]) {\n"
      "  for (int r = 0; r < 8; r++) {\n"
      "    const float inv = 1.0f / s[r];\n"
      "    for (int c = 0; c < 16; c++)\n"
      "      y[r][c] = x[r][c] * inv;\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(scaled, "#pragma npu schedule(k, v)\n#pragma npu expand(inv)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "inv[8];");
  has(c, "inv[r] = 1.0f / s[r];");
  has(c, "y[r][c] = x[r][c] * inv[r];");
  npg_close(s);
}

/* TFLite's reference convolution ends with its accumulator reassigned in
 * sequence: the bias, the requantisation (SaturatingRoundingDoublingHighMul
 * and RoundingDivideByPOT written out with int64), the output offset, the
 * activation clamp as std::max then std::min. fold (schedule/fold.c)
 * makes the chain one expression in the store: bit-exact, the
 * reassignments gone. */
static const char *tflite_chain =
    "#include <stdint.h>\n"
    "void k(const int8_t in[8][16], const int8_t w[16][64], const int32_t bias[64], const int32_t mult[64],\n"
    "       const int32_t shift[64], int8_t out[8][64], int32_t output_offset) {\n"
    "  for (int p = 0; p < 8; p++)\n"
    "    for (int oc = 0; oc < 64; oc++) {\n"
    "      int32_t acc = 0;\n"
    "      for (int ic = 0; ic < 16; ic++)\n"
    "        acc += in[p][ic] * w[ic][oc];\n"
    "      acc += bias[oc];\n"
    "      int64_t ab = (int64_t)acc * mult[oc];\n"
    "      int32_t high = acc == (-2147483647 - 1) && mult[oc] == (-2147483647 - 1) ? 2147483647\n"
    "                     : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));\n"
    "      int32_t mask = (int32_t)(((int64_t)1 << -shift[oc]) - 1);\n"
    "      acc = (high >> -shift[oc]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);\n"
    "      acc += output_offset;\n"
    "      acc = acc > -128 ? acc : -128;\n"
    "      acc = acc < 127 ? acc : 127;\n"
    "      out[p][oc] = (int8_t)acc;\n"
    "    }\n"
    "}\n"
    "#pragma npu inputs(k, mult, 1073741824, 2147483647)\n"
    "#pragma npu inputs(k, shift, -31, -1)\n"
    "#pragma npu inputs(k, output_offset, -128, 127)\n";

Test(expand, fold_makes_a_reassigned_accumulator_one_expression) {
  NpgSession *s = open_ok(tflite_chain, "#pragma npu schedule(k, tail)\n"
                                        "#pragma npu fold(s8)\n"
                                        "#pragma npu schedule(k, all)\n"
                                        "#pragma npu compute_inline(s4)\n"
                                        "#pragma npu compute_inline(s5)\n"
                                        "#pragma npu compute_inline(s6)\n"
                                        "#pragma npu fold(s3)\n"
                                        "#pragma npu expand(acc)\n");
  const char *c = npg_emit_source(s, checked(s, "tail"));
  has(c, "const int s11_val = acc + output_offset > -128 ? acc + output_offset : -128;");
  has(c, "out[p][oc] = (int8_t)(s11_val < 127 ? s11_val : 127);");
  lacks(c, "acc += output_offset;");
  lacks(c, "acc = acc > -128");
  c = npg_emit_source(s, checked(s, "all"));
  has(c, "int32_t acc[8][64];");
  lacks(c, "acc[p][oc] += bias[oc];");
  has(c, "const int32_t s11_val = ((acc[p][oc] + bias[oc] == -2147483647 - 1 && mult[oc] == -2147483647 - 1 ?");
  has(c, "out[p][oc] = (int8_t)(s11_val2 < 127 ? s11_val2 : 127);");
  npg_close(s);
}

Test(expand, fold_refusals_say_why) {
  refused(tflite_chain, "#pragma npu schedule(k, v)\n#pragma npu fold(s11)\n",
          "k.c:25:18: error: fold: s11 (line 18) does not assign a scalar local");
  refused(tflite_chain, "#pragma npu schedule(k, v)\n#pragma npu fold(s2)\n",
          "k.c:25:18: error: fold: acc is not declared in the block of s2 (line 8): a value it holds may be read "
          "after the block");
  refused(tflite_chain, "#pragma npu schedule(k, v)\n#pragma npu fold(s4)\n",
          "k.c:25:18: error: fold: s4 (line 10) does not assign a scalar local");
  /* the chain's value must reach a statement right after it */
  static const char *read_later =
      "void k(const float x[16], float y[16], float z[16]) {\n"
      "  for (int i = 0; i < 16; i++) {\n"
      "    float t = x[i];\n"
      "    t = t * 2.0f;\n"
      "    y[i] = t;\n"
      "    z[i] = t;\n"
      "  }\n"
      "}\n";
  refused(read_later, "#pragma npu schedule(k, v)\n#pragma npu fold(s2)\n",
          "k.c:10:18: error: fold: t is used after s3 (line 5), which would read the value the chain stores");
  static const char *outside =
      "void k(const float x[16], float y[16]) {\n"
      "  float t = 0.0f;\n"
      "  for (int i = 0; i < 16; i++) {\n"
      "    t = x[i] * 2.0f;\n"
      "    y[i] = t;\n"
      "  }\n"
      "  y[0] = t;\n"
      "}\n";
  refused(outside, "#pragma npu schedule(k, v)\n#pragma npu fold(s2)\n",
          "k.c:10:18: error: fold: t is not declared in the block of s2 (line 4): a value it holds may be read "
          "after the block");
  static const char *converts =
      "#include <stdint.h>\n"
      "void k(const int8_t x[16], int8_t y[16]) {\n"
      "  for (int i = 0; i < 16; i++) {\n"
      "    int8_t t = x[i];\n"
      "    t += 1;\n"
      "    y[i] = t;\n"
      "  }\n"
      "}\n";
  refused(converts, "#pragma npu schedule(k, v)\n#pragma npu fold(s2)\n",
          "k.c:10:18: error: fold: s2 (line 5) converts: `t op= e` with e of type int is not `t = t op e` in int8_t");
}
