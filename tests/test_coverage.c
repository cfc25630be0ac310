/* Kernels as a new user writes them, reaching the NPU without rewriting
 * (issue 27): a GEMV on the NU's matmul with the loop it lacks run once
 * and on the VU cores; equivalent forms (S = X + S, int for int32_t, an
 * in-place maximum); notes that say what to try; vectorize(loop, lanes);
 * split and unroll of loops that count down or by a stride; caches at the
 * root; max and average pooling as written on the VU's window reductions;
 * masked selects, a ReLU with threshold and masked stores on the VU's
 * selects.
 * Every accepted variant is checked by execution in the simulator, and the
 * look-alikes that must stay refused are. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char gemv[] =
    "#include <stdint.h>\n"
    "void gemv(const int8_t A[64][96], const int8_t x[96], int32_t y[64]) {\n"
    "  for (int i = 0; i < 64; i++) {\n"
    "    init: y[i] = 0;\n"
    "    for (int k = 0; k < 96; k++)\n"
    "      update: y[i] += (int32_t)A[i][k] * (int32_t)x[k];\n"
    "  }\n"
    "}\n";

static const char gemv_staged[] =
    "#pragma npu schedule(gemv, v)\n"
    "#pragma npu split(i, 32, io, ii)\n"
    "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
    "#pragma npu cache_read(x, nu_wb, io, x_wb)\n"
    "#pragma npu cache_write(y, nu_ob, io, y_ob)\n";

Test(coverage, gemv_as_written_runs_on_the_nu_matmul) {
  /* the matmul's j loop runs once (N = 1): y is C[M][1] with LDC = 1, x is
   * B[K][1] with LDB = 1 */
  NpgSession *s = open_ok(gemv, steps_then(gemv_staged, "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"));
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_nu_matmul_i8(&y_ob[0], &A_ib[0][0], &x_wb[0], /*m=*/32, /*n=*/1, /*k=*/96, /*lda=*/96, /*ldb=*/1, /*ldc=*/1, /*accumulate=*/0);");
  npg_close(s);
  /* rows the tiles do not divide: M at run time, as for a matmul */
  NpgSession *t = open_ok(gemv, "#pragma npu schedule(gemv, v)\n"
                                "#pragma npu split(i, 24, io, ii)\n"
                                "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                                "#pragma npu cache_read(x, nu_wb, io, x_wb)\n"
                                "#pragma npu cache_write(y, nu_ob, io, y_ob)\n"
                                "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  has(npg_emit_source(t, checked(t, "v")), "npu_nu_matmul_i8(&y_ob[0], &A_ib[0][0], &x_wb[0], io_count, /*n=*/1, /*k=*/96, "
                                           "/*lda=*/96, /*ldb=*/1, /*ldc=*/1, /*accumulate=*/0);");
  npg_close(t);
}

Test(coverage, a_vector_matrix_product_leaves_out_the_matmuls_rows) {
  /* y = x B: the matmul's i loop runs once (M = 1), so A[0][k] is x[k] and
   * C[0][j] is y[j]; a leading dimension left out sets no stride */
  static const char gevm[] =
      "#include <stdint.h>\n"
      "void gevm(const int8_t x[64], const int8_t B[64][48], int32_t y[48]) {\n"
      "  for (int j = 0; j < 48; j++) {\n"
      "    y[j] = 0;\n"
      "    for (int k = 0; k < 64; k++)\n"
      "      y[j] += (int32_t)x[k] * (int32_t)B[k][j];\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(gevm, "#pragma npu schedule(gevm, v)\n"
                                "#pragma npu split(j, 16, jo, ji)\n"
                                "#pragma npu cache_read(x, nu_ib, jo, x_ib)\n"
                                "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                                "#pragma npu cache_write(y, nu_ob, jo, y_ob)\n"
                                "#pragma npu tensorize(ji, npu_nu_matmul_i8)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_nu_matmul_i8(&y_ob[0], &x_ib[0], &B_wb[0][0], /*m=*/1, /*n=*/16, /*k=*/64, /*lda=*/64, /*ldb=*/16, /*ldc=*/16, /*accumulate=*/0);");
  npg_close(s);
}

Test(coverage, gemv_on_the_vu_cores_sweeps_columns) {
  /* the VU has no int8 row dot product: k outside the rows, each step one
   * multiply-accumulate of a column of A by x[k] (npu_vu_macs_i8_i32 with
   * its column loop run once: COLS = 1, LDD = 1) */
  NpgSession *s = open_ok(gemv, "#pragma npu schedule(gemv, v)\n"
                                "#pragma npu split(i, 16, core, ri)\n"
                                "#pragma npu fission(ri, init)\n"
                                "#pragma npu reorder(k, ri_1)\n"
                                "#pragma npu bind(core, vu)\n"
                                "#pragma npu cache_read(A, vu_vm, core, A_vm)\n"
                                "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                "#pragma npu vectorize(ri)\n"
                                "#pragma npu vectorize(ri_1)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_fill_i32(&y_vm[0], /*rows=*/16, /*cols=*/1, /*ldd=*/1, /*value=*/0);");
  has(c, "npu_vu_macs_i8_i32(&y_vm[0], &A_vm[0][k], &x_vm[k], /*rows=*/16, /*cols=*/1, /*ldd=*/1, /*lda=*/96);");
  npg_close(s);
}

Test(coverage, a_row_dot_product_needs_a_row_of_x_per_row) {
  /* npu_vu_reduce_dot_f32 reads b[r][c]: x[k] is the same row for every r
   * (a stride of 0), which its operand cannot be: refused */
  static const char fgemv[] =
      "void gemv(const float A[32][16], const float x[16], float y[32]) {\n"
      "  for (int i = 0; i < 32; i++) {\n"
      "    y[i] = 0.0f;\n"
      "    for (int k = 0; k < 16; k++)\n"
      "      y[i] += A[i][k] * x[k];\n"
      "  }\n"
      "}\n";
  refused(fgemv, "#pragma npu schedule(gemv, v)\n"
                 "#pragma npu split(i, 8, core, ri)\n"
                 "#pragma npu cache_read(A, vu_vm, core, A_vm)\n"
                 "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                 "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                 "#pragma npu tensorize(ri, npu_vu_reduce_dot_f32)\n",
          "k.c:13:27: error: tensorize: the nest under ri does not match npu_vu_reduce_dot_f32: x_vm has 1 dimension "
          "where the intrinsic's b has 2, and b's index r follows loop ri, which x_vm's indices do not use (one "
          "element for every ri: a stride of 0): 'x_vm[k]' in s2 (line 5) against the intrinsic's 'b[r][c]' (line 18)");
}

/* ---- equivalent forms: commuted, folded, equivalent types, in place ---- */

/* A row kernel with the forms a user writes; every stage's row loop is
 * one VU instruction after the same staging. */
static char *forms_kernel(char *buf, size_t n, const char *elem, const char *stmt) {
  snprintf(buf, n,
           "#include <stdint.h>\n"
           "void k(const %s X[8][16], %s S[8]) {\n"
           "  for (int r = 0; r < 8; r++) {\n"
           "    S[r] = 0;\n"
           "    for (int c = 0; c < 16; c++)\n"
           "      %s;\n"
           "  }\n"
           "}\n",
           elem, elem, stmt);
  return buf;
}

static const char forms_staged[] =
    "#pragma npu schedule(k, v)\n"
    "#pragma npu split(r, 4, ro, ri)\n"
    "#pragma npu cache_read(X, vu_vm, ro, X_vm)\n"
    "#pragma npu cache_write(S, vu_vm, ro, S_vm)\n"
    "#pragma npu vectorize(ri)\n";

static void form_is(const char *elem, const char *stmt, const char *call) {
  char k[1024];
  NpgSession *s = open_ok(forms_kernel(k, sizeof k, elem, stmt), forms_staged);
  const char *c = npg_emit_source(s, checked(s, "v"));
  if (call) has(c, call);
  else has(c, "stays a hint");
  npg_close(s);
}

Test(coverage, a_sum_written_out_or_commuted_is_the_reduction) {
  /* S = S + X and S = X + S are S += X: C defines the one by the other */
  form_is("float", "S[r] = S[r] + X[r][c]", "npu_vu_reduce_sum_f32(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  form_is("float", "S[r] = X[r][c] + S[r]", "npu_vu_reduce_sum_f32(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  /* int is int32_t's type: the same instruction */
  form_is("int", "S[r] += X[r][c]", "npu_vu_reduce_sum_i32(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
  form_is("int", "S[r] = X[r][c] + S[r]", "npu_vu_reduce_sum_i32(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/16, /*ld=*/16);");
}

Test(coverage, look_alikes_of_a_sum_stay_scalar) {
  /* X - S is not S -= X nor S += X */
  form_is("float", "S[r] = X[r][c] - S[r]", NULL);
  form_is("float", "S[r] = S[r] - X[r][c]", NULL);
  form_is("int", "S[r] = S[r] * X[r][c]", NULL);
  /* a sum of int8_t is converted back to int8_t at each step (and wraps),
   * which the int32 reduction does not do; the int8 window sum does, over
   * a window of one row of 16 */
  form_is("int8_t", "S[r] = S[r] + X[r][c]", "npu_vu_window_sum_i8(&S_vm[0], &X_vm[0][0], /*rows=*/4, /*cols=*/1, /*kh=*/1, /*kw=*/16, /*sh=*/1, /*sw=*/1, /*ldd=*/1, /*lda=*/16);");
}

/* A running maximum over rows, in place: m[c] = max(X[r][c], m[c]) is the
 * element-wise npu_vu_max_f32 with dst and one operand one array. */
static void running_max(const char *stmt, const char *call) {
  char k[1024];
  snprintf(k, sizeof k,
           "void k(const float X[8][16], float m[16]) {\n"
           "  for (int c = 0; c < 16; c++)\n"
           "    m[c] = X[0][c];\n"
           "  for (int r = 1; r < 8; r++)\n"
           "    for (int c = 0; c < 16; c++)\n"
           "      %s;\n"
           "}\n",
           stmt);
  NpgSession *s = open_ok(k, "#pragma npu schedule(k, v)\n"
                             "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                             "#pragma npu cache_write(m, vu_vm, r, m_vm)\n"
                             "#pragma npu vectorize(c_2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  if (call) has(c, call);
  else has(c, "stays a hint");
  npg_close(s);
}

Test(coverage, an_in_place_maximum_is_the_vu_max) {
  running_max("m[c] = X[r][c] > m[c] ? X[r][c] : m[c]", "npu_vu_max_f32(&m_vm[0], &X_vm[0][0], &m_vm[0], /*n=*/16);");
  /* m < x is x > m, for NaNs too */
  running_max("m[c] = m[c] < X[r][c] ? X[r][c] : m[c]", "npu_vu_max_f32(&m_vm[0], &X_vm[0][0], &m_vm[0], /*n=*/16);");
  /* m > x ? m : x is the max with the operands the other way round */
  running_max("m[c] = m[c] > X[r][c] ? m[c] : X[r][c]", "npu_vu_max_f32(&m_vm[0], &m_vm[0], &X_vm[0][0], /*n=*/16);");
  /* x > m ? m : x is the minimum */
  running_max("m[c] = X[r][c] > m[c] ? m[c] : X[r][c]", "npu_vu_min_f32(&m_vm[0], &m_vm[0], &X_vm[0][0], /*n=*/16);");
}

Test(coverage, look_alikes_of_a_maximum_stay_scalar) {
  /* >= picks x where they are equal (-0.0f against 0.0f); a > b ? a : b
   * picks b there: not the max, the select under m <= x */
  running_max("m[c] = X[r][c] >= m[c] ? X[r][c] : m[c]",
              "npu_vu_select_le_f32(&m_vm[0], &m_vm[0], &X_vm[0][0], &X_vm[0][0], &m_vm[0], /*n=*/16);");
  /* another element of m: not in place, so not the instruction, and the
   * loop carries a dependence, so not a hint either */
  refused("void k(const float X[8][16], float m[16]) {\n"
          "  for (int c = 0; c < 16; c++)\n"
          "    m[c] = X[0][c];\n"
          "  for (int r = 1; r < 8; r++)\n"
          "    for (int c = 0; c < 16; c++)\n"
          "      m[c] = X[r][c] > m[15 - c] ? X[r][c] : m[c];\n"
          "}\n",
          "#pragma npu schedule(k, v)\n"
          "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
          "#pragma npu cache_write(m, vu_vm, r, m_vm)\n"
          "#pragma npu vectorize(c_2)\n",
          "k.c:11:13: error: vectorize: illegal: loop c_2 would run its iterations in any order, but it carries the "
          "flow dependence on m_vm from s2 (line 6) to s2 (line 6), distance (0, 15)");
}

Test(coverage, a_compound_update_is_the_element_wise_op) {
  /* y += x is y = y + x, in place */
  static const char axpy[] =
      "void k(const float X[4][16], float Y[4][16]) {\n"
      "  for (int r = 0; r < 4; r++)\n"
      "    for (int c = 0; c < 16; c++)\n"
      "      Y[r][c] += X[r][c];\n"
      "}\n";
  NpgSession *s = open_ok(axpy, "#pragma npu schedule(k, v)\n"
                                "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                                "#pragma npu cache_write(Y, vu_vm, r, Y_vm)\n"
                                "#pragma npu vectorize(c)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_add_f32(&Y_vm[0][0], &Y_vm[0][0], &X_vm[0][0], /*n=*/16);");
  npg_close(s);
}

Test(coverage, an_operand_scaled_in_place_is_one_instruction) {
  /* dst and a one array, element for element: each element is read before
   * it is written, by the instruction as by the loop */
  NpgSession *s = open_ok("void k(float A[4][16]) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int c = 0; c < 16; c++) A[r][c] = A[r][c] * 0.5f;\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_write(A, vu_vm, r, A_vm)\n"
                          "#pragma npu tensorize(c, npu_vu_muls_f32)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_muls_f32(&A_vm[0][0], &A_vm[0][0], /*n=*/16, /*s=*/0.5f);");
  npg_close(s);
}

/* ---- what to try when a nest is not the intrinsic ---- */

Test(coverage, a_refusal_names_the_loop_to_try) {
  /* the loop above the caches' copies: the loop inside them matches */
  char src[4096];
  snprintf(src, sizeof src, "%s%s%s", gemv, gemv_staged, "#pragma npu tensorize(io, npu_nu_matmul_i8)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(s), 0);
  has(npg_errors(s), "k.c:14:13: note: the nest under ii matches npu_nu_matmul_i8: try tensorize(ii, npu_nu_matmul_i8)\n");
  npg_close(s);
  /* a tiled matmul named at its outermost loop: deeper than the intrinsic */
  static const char mm[] =
      "#include <stdint.h>\n"
      "void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
      "  for (int i = 0; i < 64; i++)\n"
      "    for (int j = 0; j < 64; j++) {\n"
      "      init: C[i][j] = 0;\n"
      "      for (int k = 0; k < 64; k++)\n"
      "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
      "    }\n"
      "}\n";
  snprintf(src, sizeof src, "%s%s", mm,
           "#pragma npu schedule(mm, v)\n"
           "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
           "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
           "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
           "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
           "#pragma npu tensorize(io, npu_nu_matmul_i8)\n");
  NpgSession *t = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(t), 0);
  has(npg_errors(t), "k.c:15:13: note: the nest under io is 5 loops deep, npu_nu_matmul_i8 3: a nest may lack loops "
                     "of the intrinsic (they run once) but not have more\n"
                     "k.c:15:13: note: the nest under ii matches npu_nu_matmul_i8: try tensorize(ii, npu_nu_matmul_i8)\n");
  npg_close(t);
}

/* ---- caches at the root, above every loop ---- */

Test(coverage, a_cache_at_the_root_loads_x_once) {
  NpgSession *s = open_ok(gemv, "#pragma npu schedule(gemv, v)\n"
                                "#pragma npu split(i, 32, io, ii)\n"
                                "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                                "#pragma npu cache_read(x, nu_wb, root, x_wb)\n"
                                "#pragma npu cache_write(y, nu_ob, io, y_ob)\n"
                                "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  npu_dma_wait(npu_dma_1d(0, &x_wb[0], &x[0], 96));\n  /* loop nest io (line 3)");
  has(c, "npu_nu_matmul_i8(&y_ob[0], &A_ib[0][0], &x_wb[0], /*m=*/32, /*n=*/1, /*k=*/96, /*lda=*/96, /*ldb=*/1, /*ldc=*/1, /*accumulate=*/0);");
  npg_close(s);
}

Test(coverage, a_write_cache_at_the_root_copies_in_and_out_once) {
  /* y is read (+=): copied in before the first statement, out after the
   * last; t, a local array every read of which sees the kernel's own
   * write, is replaced by its cache */
  static const char two[] = "#include <stdint.h>\n"
                            "void k(const int32_t x[64], int32_t y[64]) {\n"
                            "  int32_t t[64];\n"
                            "  for (int i = 0; i < 64; i++)\n"
                            "    t[i] = x[i] * 2;\n"
                            "  for (int j = 0; j < 64; j++)\n"
                            "    y[j] += t[63 - j];\n"
                            "}\n";
  NpgSession *s = open_ok(two, "#pragma npu schedule(k, v)\n"
                               "#pragma npu cache_write(y, dm, root, y_dm)\n"
                               "#pragma npu cache_write(t, dm, root, t_dm)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  npu_dma_wait(npu_dma_1d(0, &y_dm[0], &y[0], 256));\n  /* loop nest i (line 4)");
  has(c, "    y_dm[j] += t_dm[63 - j];\n  }\n  /* nest at line 10: y_dm_store (line 10) */\n"
         "  /* y_dm_store: y <- y_dm */\n  npu_dma_wait(npu_dma_1d(0, &y[0], &y_dm[0], 256));\n}\n");
  lacks(c, "int32_t t[64]");
  lacks(c, "t_dm_load");
  npg_close(s);
}

Test(coverage, a_cache_at_the_root_refusals) {
  refused("void k(const float x[8], float y[8]) {\n  for (int root = 0; root < 8; root++)\n    y[root] = x[root];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_read(x, dm, root, x_dm)\n",
          "k.c:6:31: error: cache_read: 'root' names both loop root (line 2) and the kernel's root, above every loop; "
          "rename the loop in the kernel");
  /* x is written by the kernel: a read cache would go stale */
  refused("void k(float x[8], float y[8]) {\n  for (int i = 0; i < 8; i++)\n    x[i] = 1.0f;\n"
          "  for (int j = 0; j < 8; j++)\n    y[j] = x[j];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_read(x, dm, root, x_dm)\n",
          "k.c:8:24: error: cache_read: s1 (line 3) writes x under the root: a read cache would go stale; use cache_write");
  /* every core has its own VM: a vu_vm buffer above the bound loop is one core's */
  refused("void k(const float x[64], float y[64]) {\n  for (int i = 0; i < 64; i++)\n    y[i] = x[i] * x[0];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu split(i, 16, core, ii)\n#pragma npu bind(core, vu)\n"
          "#pragma npu cache_read(x, vu_vm, root, x_vm)\n",
          "k.c:8:13: error: cache_read: s1 (line 3) uses x_vm inside loop core, which is bound to the VU cores, but x_vm "
          "lives in one core's VM (declared outside the loop); stage it at the bound loop or inside it");
}

/* ---- pooling as written: the VU's window reductions ---- */

static const char maxpool[] =
    "void k(const float in[8][12][12], float out[8][6][6]) {\n"
    "  for (int c = 0; c < 8; c++)\n"
    "    for (int i = 0; i < 6; i++)\n"
    "      for (int j = 0; j < 6; j++) {\n"
    "        out[c][i][j] = in[c][2 * i][2 * j];\n"
    "        for (int a = 0; a < 2; a++)\n"
    "          for (int b = 0; b < 2; b++)\n"
    "            out[c][i][j] = in[c][2 * i + a][2 * j + b] > out[c][i][j] ? in[c][2 * i + a][2 * j + b] : out[c][i][j];\n"
    "      }\n"
    "}\n";

static const char pool_on_cores[] = "#pragma npu schedule(k, v)\n"
                                    "#pragma npu split(c, 2, core, ci)\n"
                                    "#pragma npu bind(core, vu)\n"
                                    "#pragma npu cache_read(in, vu_vm, core, in_vm)\n"
                                    "#pragma npu cache_write(out, vu_vm, core, out_vm)\n"
                                    "#pragma npu vectorize(i)\n";

Test(coverage, a_max_pool_as_written_is_the_vu_window_max) {
  /* one call per channel on each core: the 2x2 windows 2 apart of its
   * 12 x 12 plane */
  NpgSession *s = open_ok(maxpool, pool_on_cores);
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_window_max_f32(&out_vm[ci][0][0], &in_vm[ci][0][0], /*rows=*/6, /*cols=*/6, /*kh=*/2, /*kw=*/2, /*sh=*/2, /*sw=*/2, /*ldd=*/6, /*lda=*/12);");
  npg_close(s);
  /* named at the column loop: one call per output row, its row loop run
   * once; the row step it leaves unbound (r * SH with r = 0) is 1 */
  char rows[1024];
  snprintf(rows, sizeof rows, "%.*svectorize(j)\n", (int)(strlen(pool_on_cores) - strlen("vectorize(i)\n")),
           pool_on_cores);
  NpgSession *t = open_ok(maxpool, rows);
  has(npg_emit_source(t, checked(t, "v")),
      "npu_vu_window_max_f32(&out_vm[ci][i][0], &in_vm[ci][2 * i][0], /*rows=*/1, /*cols=*/6, /*kh=*/2, /*kw=*/2, /*sh=*/1, /*sw=*/2, /*ldd=*/6, /*lda=*/12);");
  npg_close(t);
}

Test(coverage, an_average_pool_with_overlapping_windows_is_the_vu_window_avg) {
  /* 3x3 windows 2 apart over 13 x 13 (they overlap), the mean written
   * S = S / 9: the divisor is the call's scalar */
  static const char avgpool[] =
      "void k(const float in[4][13][13], float out[4][6][6]) {\n"
      "  for (int c = 0; c < 4; c++)\n"
      "    for (int i = 0; i < 6; i++)\n"
      "      for (int j = 0; j < 6; j++) {\n"
      "        out[c][i][j] = 0.0f;\n"
      "        for (int a = 0; a < 3; a++)\n"
      "          for (int b = 0; b < 3; b++)\n"
      "            out[c][i][j] += in[c][2 * i + a][2 * j + b];\n"
      "        out[c][i][j] = out[c][i][j] / 9.0f;\n"
      "      }\n"
      "}\n";
  NpgSession *s = open_ok(avgpool, "#pragma npu schedule(k, v)\n"
                                   "#pragma npu cache_read(in, vu_vm, c, in_vm)\n"
                                   "#pragma npu cache_write(out, vu_vm, c, out_vm)\n"
                                   "#pragma npu vectorize(i)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_window_avg_f32(&out_vm[0][0][0], &in_vm[0][0][0], /*rows=*/6, /*cols=*/6, /*kh=*/3, /*kw=*/3, /*sh=*/2, /*sw=*/2, /*ldd=*/6, /*lda=*/13, /*s=*/9.0f);");
  npg_close(s);
}

Test(coverage, look_alikes_of_a_window_max_stay_scalar) {
  /* the first element is another (a tie or a NaN would pick otherwise),
   * the comparison keeps the old maximum on ties: each is checked as the
   * loops it is, with the note naming what differs */
  static const char *const bodies[] = {
      "in[c][2 * i + 1][2 * j]",
      "in[c][2 * i][2 * j]",
  };
  static const char *const updates[] = {
      "in[c][2 * i + a][2 * j + b] > out[c][i][j] ? in[c][2 * i + a][2 * j + b] : out[c][i][j]",
      "out[c][i][j] > in[c][2 * i + a][2 * j + b] ? out[c][i][j] : in[c][2 * i + a][2 * j + b]",
  };
  for (int v = 0; v < 2; v++) {
    char src[1024];
    snprintf(src, sizeof src,
             "void k(const float in[8][12][12], float out[8][6][6]) {\n"
             "  for (int c = 0; c < 8; c++)\n"
             "    for (int i = 0; i < 6; i++)\n"
             "      for (int j = 0; j < 6; j++) {\n"
             "        out[c][i][j] = %s;\n"
             "        for (int a = 0; a < 2; a++)\n"
             "          for (int b = 0; b < 2; b++)\n"
             "            out[c][i][j] = %s;\n"
             "      }\n"
             "}\n",
             bodies[v], updates[v]);
    NpgSession *s = open_ok(src, pool_on_cores);
    const char *c = npg_emit_source(s, checked(s, "v"));
    lacks(c, "npu_vu_window_max_f32(");
    has(c, "vectorize(i) stays a hint: no VU instruction computes this nest (nearest npu_vu_window_max_f32: ");
    npg_close(s);
  }
}

/* ---- masks: the VU's selects ---- */

/* kernel k(m, x, y, t) with `body` as the loop's statement, on two VU
 * cores with every array it uses in vector memory */
static NpgSession *select_kernel(const char *body) {
  char src[1024];
  snprintf(src, sizeof src,
           "void k(const float m[64], const float x[64], float y[64], float t) {\n"
           "  for (int i = 0; i < 64; i++)\n"
           "    %s\n"
           "}\n"
           "#pragma npu schedule(k, v)\n"
           "#pragma npu split(i, 32, core, ii)\n"
           "#pragma npu bind(core, vu)\n"
           "%s"
           "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
           "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
           "#pragma npu vectorize(ii)\n",
           body, strstr(body, "m[") ? "#pragma npu cache_read(m, vu_vm, core, m_vm)\n" : "");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  return s;
}

Test(coverage, masks_are_the_vu_selects) {
  static const char *const cases[][2] = {
      /* a masked select: the else is the scalar */
      {"y[i] = m[i] > 0 ? x[i] : 0.0f;", "npu_vu_select_gts_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, /*t=*/0, /*e=*/0.0f);"},
      /* a ReLU with threshold: x compared and selected */
      {"y[i] = x[i] > t ? x[i] : 0.0f;", "npu_vu_select_gts_f32(&y_vm[0], &x_vm[0], &x_vm[0], /*n=*/32, t, /*e=*/0.0f);"},
      /* the comparison mirrored */
      {"y[i] = t < m[i] ? x[i] : -1.0f;", "npu_vu_select_gts_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, t, /*e=*/-1.0f);"},
      /* an if and an else that store one element */
      {"if (m[i] > 0.5f) y[i] = x[i]; else y[i] = 0.0f;",
       "npu_vu_select_gts_f32(&y_vm[0], &m_vm[0], &x_vm[0], /*n=*/32, /*t=*/0.5f, /*e=*/0.0f);"},
      /* a masked store: y kept where the mask fails (and copied in) */
      {"if (m[i] > t) y[i] = x[i];", "npu_vu_select_gt_f32(&y_vm[0], &m_vm[0], &x_vm[0], &y_vm[0], /*n=*/32, t);"},
      /* an else from another array */
      {"y[i] = m[i] > 0.0f ? x[i] : m[i];", "npu_vu_select_gt_f32(&y_vm[0], &m_vm[0], &x_vm[0], &m_vm[0], /*n=*/32, /*t=*/0.0f);"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    NpgSession *s = select_kernel(cases[c][0]);
    has(npg_emit_source(s, checked(s, "v")), cases[c][1]);
    npg_close(s);
  }
}

Test(coverage, a_masked_store_with_a_tail_takes_its_length_at_run_time) {
  /* the split's guard around the mask's if: the tail, then the select */
  NpgSession *s = open_ok("void k(const float m[100], const float x[100], float y[100]) {\n"
                          "  for (int i = 0; i < 100; i++)\n"
                          "    if (m[i] > 0.0f) y[i] = x[i];\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 32, io, ii)\n"
                          "#pragma npu cache_read(m, vu_vm, io, m_vm)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                          "#pragma npu vectorize(ii, 8)\n");
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_select_gt_f32(&y_vm[ii * 8], &m_vm[ii * 8], &x_vm[ii * 8], &y_vm[ii * 8], "
      "npu_clamp(100 - (io * 32 + ii * 8), 8), /*t=*/0.0f);");
  npg_close(s);
}

Test(coverage, look_alikes_of_a_select_stay_scalar) {
  /* another comparison; a condition that loads nothing (not a mask: one
   * on the counters may guard an access that the select would make); a
   * value converted on the way */
  static const char *const bodies[] = {
      "y[i] = m[i] >= 0 ? x[i] : 0.0f;",
      "if (t > 0.0f) y[i] = x[i];",
      "y[i] = m[i] > 0 ? (float)(int)x[i] : 0.0f;",
  };
  for (size_t c = 0; c < sizeof bodies / sizeof bodies[0]; c++) {
    NpgSession *s = select_kernel(bodies[c]);
    const char *text = npg_emit_source(s, checked(s, "v"));
    has(text, "stays a hint"); /* naming the nearest instruction, a select */
    npg_close(s);
  }
}

/* ---- vectorize(loop, lanes): split and vectorize in one step ---- */

static const char add100[] =
    "void k(const float X[100], const float W[100], float Y[100]) {\n"
    "  for (int i = 0; i < 100; i++)\n"
    "    Y[i] = X[i] + W[i];\n"
    "}\n";

Test(coverage, vectorize_with_lanes_splits_then_vectorizes) {
  /* on vector memory: one VU instruction per 8 lanes, the last 4 lanes
   * long (100 = 12 * 8 + 4) */
  NpgSession *s = open_ok(add100, "#pragma npu schedule(k, v)\n"
                                  "#pragma npu split(i, 32, io, ii)\n"
                                  "#pragma npu cache_read(X, vu_vm, io, X_vm)\n"
                                  "#pragma npu cache_read(W, vu_vm, io, W_vm)\n"
                                  "#pragma npu cache_write(Y, vu_vm, io, Y_vm)\n"
                                  "#pragma npu vectorize(ii, 8)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "for (int ii = 0; ii < 4; ii++) {\n");
  has(c, "npu_vu_add_f32(&Y_vm[ii * 8], &X_vm[ii * 8], &W_vm[ii * 8], npu_clamp(100 - (io * 32 + ii * 8), 8));");
  npg_close(s);
  /* on the host: the outer loop keeps the name, the inner is the hint */
  NpgSession *h = open_ok(add100, "#pragma npu schedule(k, v)\n#pragma npu vectorize(i, 16)\n");
  const char *d = npg_emit_source(h, checked(h, "v"));
  has(d, "for (int i = 0; i < 7; i++) {\n#if defined(_OPENMP) || defined(__clang__)\n#pragma omp simd\n#elif defined(__GNUC__) && !defined(__TINYC__)\n#pragma GCC ivdep\n#endif\n    for (int i_v = 0; i_v < 16; i_v++) {\n");
  npg_close(h);
}

Test(coverage, vectorize_with_lanes_refusals) {
  refused(add100, "#pragma npu schedule(k, v)\n#pragma npu vectorize(i, 0)\n",
          "k.c:6:26: error: vectorize: the vector length must be positive, got 0");
  refused(add100, "#pragma npu schedule(k, v)\n#pragma npu vectorize(i, 128)\n",
          "k.c:6:26: error: vectorize: the vector length 128 is larger than loop i's trip count 100");
  refused(add100, "#pragma npu schedule(k, v)\n#pragma npu vectorize(i, 4, 4)\n",
          "k.c:6:13: error: vectorize: takes 1 or 2 arguments, vectorize(loop) or vectorize(loop, lanes); got 3");
  /* a recurrence: the lanes would run at once */
  refused("void k(float Y[100]) {\n  for (int j = 1; j < 100; j++)\n    Y[j] = Y[j - 1] * 2.0f;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu vectorize(j, 4)\n",
          "k.c:6:13: error: vectorize: illegal: loop j_v would run its iterations in any order, but it carries the "
          "flow dependence on Y from s1 (line 3) to s1 (line 3), distance (1)");
}

/* ---- split and unroll of loops that count down or by a stride ---- */

static const char down[] =
    "void k(const float x[257], float a[257], float b[257], int y[257]) {\n"
    "  int s = 0;\n"
    "  for (int i = 256; i >= 0; i--) {\n"
    "    s += (int)x[i];\n"
    "    y[i] = s;\n"
    "  }\n"
    "  for (int j = 256; j > 0; j -= 3)\n"
    "    a[j] = x[j] - x[j - 1];\n"
    "  for (int m = 1; m <= 256; m += 2)\n"
    "    b[m] = x[m] * 0.5f;\n"
    "}\n";

Test(coverage, split_counts_a_decreasing_or_strided_loop_up_by_1) {
  /* counted 0 .. trip count - 1, the counter's value in the body: the same
   * iterations in the same order (a running sum backwards stays exact) */
  NpgSession *s = open_ok(down, "#pragma npu schedule(k, v)\n"
                                "#pragma npu split(i, 16, io, ii)\n"
                                "#pragma npu split(j, 8, jo, ji)\n"
                                "#pragma npu split(m, 32, mo, mi)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "      if (io * 16 + ii < 257) {\n        s += (int)x[256 - (io * 16 + ii)];\n");
  /* the index printed twice (11 tokens) is held by a local (lower/tidy.c) */
  has(c, "      if (jo * 8 + ji < 86) {\n        const int s4_val = 256 - (jo * 8 + ji) * 3;\n        a[s4_val] = x[s4_val] - ");
  has(c, "      const int s5_val = 1 + (mo * 32 + mi) * 2;\n      b[s5_val] = x[s5_val] * 0.5f;\n");
  npg_close(s);
}

Test(coverage, unroll_by_a_factor_counts_a_decreasing_loop_up_by_1) {
  NpgSession *s = open_ok(down, "#pragma npu schedule(k, v)\n"
                                "#pragma npu unroll(i, 4)\n"
                                "#pragma npu unroll(j, 5)\n"
                                "#pragma npu unroll(m, 3)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  for (int i = 0; i < 256; i += 4) {\n    s += (int)x[256 - i];\n    y[256 - i] = s;\n"
         "    s += (int)x[255 - i];\n");
  has(c, "  { /* loop i (line 3) runs once, i = 256 */\n    s += (int)x[0];\n    y[0] = s;\n  }\n"); /* the tail's one pass */
  npg_close(s);
  /* and vectorize(loop, lanes), which splits */
  NpgSession *v = open_ok(down, "#pragma npu schedule(k, v)\n#pragma npu vectorize(j, 4)\n");
  has(npg_emit_source(v, checked(v, "v")), "for (int j_v = 0; j_v < 4; j_v++) {\n");
  npg_close(v);
}

Test(coverage, a_decreasing_loop_with_bounds_that_vary_is_counted_up) {
  /* back substitution: j runs down to i, a bound that changes with i (it
   * was refused: "counted up by 1 only between constant bounds"); an
   * unsigned counter still is */
  NpgSession *s = open_ok("void k(const float U[8][8], float x[8]) {\n"
                          "  for (int i = 7; i >= 0; i--)\n"
                          "    for (int j = 7; j > i; j--)\n"
                          "      x[i] -= U[i][j] * x[j];\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu split(j, 2, jo, ji)\n");
  has(npg_emit_source(s, checked_once(s, "v")), "for (int jo = 0; jo < (7 - i) / 2 + ((7 - i) % 2 > 0); jo++) {");
  npg_close(s);
  refused("void k(float x[8]) {\n"
          "  for (unsigned j = 7; j > 0; j--)\n"
          "    x[j] = x[j] * 2.0f;\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu split(j, 2, jo, ji)\n",
          "k.c:6:19: error: split: loop j counts by -1 with an unsigned counter; it is counted up by 1 only with a "
          "signed counter, towards its end");
}

Test(coverage, a_refused_vectorize_names_the_loop_whose_nest_is_an_instruction) {
  /* the column loop of a row sum carries the sum; the row loop around it
   * is npu_vu_reduce_sum_f32 */
  char k[1024], src[4096];
  snprintf(src, sizeof src, "%s%s", forms_kernel(k, sizeof k, "float", "S[r] += X[r][c]"),
           "#pragma npu schedule(k, v)\n"
           "#pragma npu split(r, 4, ro, ri)\n"
           "#pragma npu cache_read(X, vu_vm, ro, X_vm)\n"
           "#pragma npu cache_write(S, vu_vm, ro, S_vm)\n"
           "#pragma npu vectorize(c)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(s), 0);
  has(npg_errors(s), "k.c:13:13: note: the nest under ri is npu_vu_reduce_sum_f32: try vectorize(ri)\n");
  npg_close(s);
}
