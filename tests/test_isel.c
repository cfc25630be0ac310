/* Instruction sequences (schedule/isel_cover.c, issue 40): a vectorize
 * whose statement no single VU instruction computes becomes a sequence of
 * them, the intermediate values in vu_vm temporaries; each call on a line
 * of its own under a comment naming the expression it computes. Each
 * variant passes the check by execution against the kernel as written,
 * and the max pool also on inputs with NaNs, -0, +0 and infinities. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "test_sched_util.h"
#include "test_sim_util.h"

static const char pool[] =
    "#include <math.h>\n"
    "void k(const float x[4][16][32], float y[4][8][16]) {\n"
    "  for (int c = 0; c < 4; c++)\n"
    "    for (int i = 0; i < 8; i++)\n"
    "      for (int j = 0; j < 16; j++)\n"
    "        pool: y[c][i][j] = fmaxf(fmaxf(x[c][2 * i][2 * j], x[c][2 * i][2 * j + 1]),\n"
    "                                 fmaxf(x[c][2 * i + 1][2 * j], x[c][2 * i + 1][2 * j + 1]));\n"
    "}\n";

static const char pool_steps[] = "#pragma npu schedule(k, v)\n"
                                 "#pragma npu cache_read(x, vu_vm, c, x_vm)\n"
                                 "#pragma npu cache_write(y, vu_vm, c, y_vm)\n"
                                 "#pragma npu vectorize(j)\n";

Test(isel, a_2x2_fmaxf_max_pool_is_three_max_ops) {
  NpgSession *s = open_ok(pool, pool_steps);
  const char *c = npg_emit_source(s, checked(s, "v"));
  /* largest first: the root's max over two temporaries, each a strided max */
  has(c, "      /* y_vm_t1[j] = fmaxf(x_vm[0][2 * i][2 * j], x_vm[0][2 * i][2 * j + 1]), of pool (line 6) */\n"
         "      npu_vu_fmax_str_f32(&y_vm_t1[0], &x_vm[0][2 * i][0], &x_vm[0][2 * i][1], /*n=*/16, /*sa=*/2, /*sb=*/2);\n"
         "      /* y_vm_t2[j] = fmaxf(x_vm[0][2 * i + 1][2 * j], x_vm[0][2 * i + 1][2 * j + 1]), of pool (line 6) */\n"
         "      npu_vu_fmax_str_f32(&y_vm_t2[0], &x_vm[0][2 * i + 1][0], &x_vm[0][2 * i + 1][1], /*n=*/16, /*sa=*/2, /*sb=*/2);\n"
         "      /* y_vm[0][i][j] = fmaxf(y_vm_t1[j], y_vm_t2[j]), of pool (line 6) */\n"
         "      npu_vu_fmax_f32(&y_vm[0][i][0], &y_vm_t1[0], &y_vm_t2[0], /*n=*/16);\n");
  /* the temporaries are placed in the VM like every on-chip buffer */
  has(c, "float *y_vm_t1 = (float *)(void *)((char *)npu_scope_base(NPU_VU_VM, 0) + 2560); /* vu_vm, bytes [2560, 2624): 64 bytes */");
  npg_close(s);
}

/* vectorize(i): the nest under the plane's row loop, three strided ops
 * over the plane (str_plane), the temporaries 8 x 16 */
Test(isel, the_max_pool_over_a_plane_is_three_plane_ops) {
  char steps[512];
  snprintf(steps, sizeof steps, "%s", pool_steps);
  strstr(steps, "vectorize(j)")[10] = 'i';
  NpgSession *s = open_ok(pool, steps);
  has(npg_emit_source(s, checked(s, "v")),
      "    /* y_vm_t1[i][j] = fmaxf(x_vm[0][2 * i][2 * j], x_vm[0][2 * i][2 * j + 1]), of pool (line 6) */\n"
      "    npu_vu_fmax_str_plane_f32(&y_vm_t1[0][0], &x_vm[0][0][0], &x_vm[0][0][1], /*rows=*/8, /*cols=*/16, /*ra=*/2, /*sa=*/2, /*rb=*/2, /*sb=*/2, /*ldd=*/16, /*lda=*/32, /*ldb=*/32);\n"
      "    /* y_vm_t2[i][j] = fmaxf(x_vm[0][2 * i + 1][2 * j], x_vm[0][2 * i + 1][2 * j + 1]), of pool (line 6) */\n"
      "    npu_vu_fmax_str_plane_f32(&y_vm_t2[0][0], &x_vm[0][1][0], &x_vm[0][1][1], /*rows=*/8, /*cols=*/16, /*ra=*/2, /*sa=*/2, /*rb=*/2, /*sb=*/2, /*ldd=*/16, /*lda=*/32, /*ldb=*/32);\n"
      "    /* y_vm[0][i][j] = fmaxf(y_vm_t1[i][j], y_vm_t2[i][j]), of pool (line 6) */\n"
      "    npu_vu_fmax_str_plane_f32(&y_vm[0][0][0], &y_vm_t1[0][0], &y_vm_t2[0][0], /*rows=*/8, /*cols=*/16, /*ra=*/1, /*sa=*/1, /*rb=*/1, /*sb=*/1, /*ldd=*/16, /*lda=*/16, /*ldb=*/16);\n");
  npg_close(s);
}

/* fmaxf's NaNs and signed zeros: the sequence gives the bits the kernel as
 * written gives, window by window, with every pair of specials meeting. */
Test(isel, the_fmaxf_pool_is_bit_exact_on_nans_and_signed_zeros) {
  static const float special[] = {0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY, 1.0f, -2.5f};
  enum { S = sizeof special / sizeof special[0] };
  NpgSession *s = open_ok(pool, pool_steps);
  int v = npg_variant_index(s, "v");
  has(npg_emit_source(s, v), "npu_vu_fmax_str_f32(&"); /* the sequence runs, not the host loops */
  static float x[4][16][32], want[4][8][16], got[4][8][16];
  /* window w's corners: the base-S digits of w (all 512 combinations of
   * the first three), the fourth a mix of them; window 0 all NaN, window 1
   * all -0 */
  for (int w = 0; w < 4 * 8 * 16; w++) {
    int c = w / 128, i = w / 16 % 8, j = w % 16, d[4] = {w % S, w / S % S, w / (S * S) % S, 0};
    d[3] = (d[0] + d[1] + d[2]) % S;
    for (int k = 0; k < 4; k++)
      x[c][2 * i + k / 2][2 * j + k % 2] = w == 0 ? NAN : w == 1 ? -0.0f : special[d[k]];
  }
  memset(want, 0x55, sizeof want);
  memset(got, 0xaa, sizeof got);
  NpgJit *ref = npg_jit_reference(s, v), *var = npg_jit_variant(s, v);
  cr_assert_null(npg_jit_error(ref), "%s", npg_jit_error(ref));
  cr_assert_null(npg_jit_error(var), "%s", npg_jit_error(var));
  void *ra[] = {x, want}, *va[] = {x, got};
  cr_assert(npg_jit_run(ref, ra), "%s", npg_jit_error(ref));
  cr_assert(npg_jit_run(var, va), "%s", npg_jit_error(var));
  int nans = 0, negzero = 0;
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 16; j++) {
        uint32_t w, g;
        memcpy(&w, &want[c][i][j], 4);
        memcpy(&g, &got[c][i][j], 4);
        cr_assert_eq(w, g, "y[%d][%d][%d]: kernel %08x, sequence %08x", c, i, j, w, g);
        nans += isnan(want[c][i][j]);
        negzero += w == 0x80000000u;
      }
  cr_expect_gt(nans, 0, "no window gave NaN: the inputs test nothing of it");
  cr_expect_gt(negzero, 0, "no window gave -0: the inputs test nothing of it");
  npg_jit_free(ref);
  npg_jit_free(var);
  npg_close(s);
}

Test(isel, a_difference_over_a_sum_is_a_sub_and_a_div_with_a_broadcast) {
  NpgSession *s = open_ok("void k(const float x[8][64], float mean, float m, float y[8][64]) {\n"
                          "  for (int r = 0; r < 8; r++)\n"
                          "    for (int i = 0; i < 64; i++)\n"
                          "      norm: y[r][i] = (x[r][i] - mean) / (m + 1);\n"
                          "}\n"
                          "#pragma npu inputs(k, m, 0, 10)\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(x, vu_vm, r, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, r, y_vm)\n"
                          "#pragma npu vectorize(i)\n");
  has(npg_emit_source(s, checked(s, "v")),
      "    /* y_vm_t1[i] = x_vm[0][i] - mean, of norm (line 4) */\n"
      "    npu_vu_subs_f32(&y_vm_t1[0], &x_vm[0][0], /*n=*/64, mean);\n"
      "    /* y_vm[0][i] = y_vm_t1[i] / (m + 1), of norm (line 4) */\n"
      "    npu_vu_divs_f32(&y_vm[0][0], &y_vm_t1[0], /*n=*/64, m + 1);\n");
  npg_close(s);
}

/* A log-sum-exp's end, `lse = mx + logf(total)`: a log (npu_vu_log_f32, a
 * row of the table), then an add (before: no VU log, and a log-softmax's
 * lse stayed on the CU, 41.8% of its roofline; tuned now 95.2%). */
Test(isel, a_sum_with_a_log_is_a_log_then_an_add) {
  NpgSession *s = open_ok("#include <math.h>\n"
                          "void k(const float mx[64], const float total[64], float lse[64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    l: lse[i] = mx[i] + logf(total[i]);\n"
                          "}\n"
                          "#pragma npu inputs(k, total, 0.5, 100)\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(mx, vu_vm, root, mx_vm)\n"
                          "#pragma npu cache_read(total, vu_vm, root, total_vm)\n"
                          "#pragma npu cache_write(lse, vu_vm, root, lse_vm)\n"
                          "#pragma npu vectorize(i)\n");
  lacks(npg_errors(s), "stays a hint");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, "npu_vu_log_f32(");
  has(c, "npu_vu_add_f32(");
  npg_close(s);
}

/* A ?: whose taken value is computed: an add over every lane, then the
 * select (the lanes it does not keep computed nothing C could see). */
Test(isel, a_select_of_a_sum_is_an_add_then_a_select) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const uint8_t m[64], const float x[64], float y[64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    y[i] = m[i] ? x[i] + 1.0f : 0.0f;\n"
                          "}\n"
                          "#pragma npu inputs(k, m, 0, 1)\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 32, core, ii)\n"
                          "#pragma npu bind(core, vu)\n"
                          "#pragma npu cache_read(m, vu_vm, core, m_vm)\n"
                          "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                          "#pragma npu vectorize(ii)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_adds_f32(&y_vm_t1[0], &x_vm[0], /*n=*/32, /*s=*/1.0f);\n");
  has(c, "npu_vu_select_u8s_f32(&y_vm[0], &m_vm[0], &y_vm_t1[0], /*n=*/32, /*e=*/0.0f);\n");
  npg_close(s);
}

/* An int32 sum of a 2x2 window written as one expression: three strided
 * adds, the sums wrapping as the kernel's never do (its inputs are small). */
Test(isel, an_int32_sum_of_four_is_three_adds) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const int32_t x[2][8][32], int32_t y[2][4][16]) {\n"
                          "  for (int c = 0; c < 2; c++)\n"
                          "    for (int i = 0; i < 4; i++)\n"
                          "      for (int j = 0; j < 16; j++)\n"
                          "        y[c][i][j] = x[c][2 * i][2 * j] + x[c][2 * i][2 * j + 1] + x[c][2 * i + 1][2 * j] +\n"
                          "                     x[c][2 * i + 1][2 * j + 1];\n"
                          "}\n"
                          "#pragma npu inputs(k, x, -100000, 100000)\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(x, vu_vm, c, x_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, c, y_vm)\n"
                          "#pragma npu vectorize(j)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  /* ((a + b) + c) + d, as C groups it: the strided pair, then two adds
   * of a temporary and a strided operand */
  has(c, "      npu_vu_add_str_i32(&y_vm_t1[0], &x_vm[0][2 * i][0], &x_vm[0][2 * i][1], /*n=*/16, /*sa=*/2, /*sb=*/2);\n"
         "      /* y_vm_t2[j] = y_vm_t1[j] + x_vm[0][2 * i + 1][2 * j], of s1 (line 6) */\n"
         "      npu_vu_add_str_i32(&y_vm_t2[0], &y_vm_t1[0], &x_vm[0][2 * i + 1][0], /*n=*/16, /*sa=*/1, /*sb=*/2);\n"
         "      /* y_vm[0][i][j] = y_vm_t2[j] + x_vm[0][2 * i + 1][2 * j + 1], of s1 (line 6) */\n"
         "      npu_vu_add_str_i32(&y_vm[0][i][0], &y_vm_t2[0], &x_vm[0][2 * i + 1][1], /*n=*/16, /*sa=*/1, /*sb=*/2);\n");
  lacks(c, "for (int j");
  npg_close(s);
}

/* A tree with an operand no instruction computes stays a hint, and the
 * message names that operand and its nearest instruction; --strict
 * makes it an error. */
Test(isel, an_operand_no_instruction_computes_still_refuses) {
  static const char kernel[] = "#include <math.h>\n"
                               "void k(const float x[8][64], float y[8][64]) {\n"
                               "  for (int r = 0; r < 8; r++)\n"
                               "    for (int i = 0; i < 64; i++)\n"
                               "      y[r][i] = sqrtf(fabsf(x[r][i])) * 2.0f;\n"
                               "}\n";
  static const char steps[] = "#pragma npu schedule(k, v)\n"
                              "#pragma npu cache_read(x, vu_vm, r, x_vm)\n"
                              "#pragma npu cache_write(y, vu_vm, r, y_vm)\n"
                              "#pragma npu vectorize(i)\n"
                              "#pragma npu strict\n";
  char src[2048];
  snprintf(src, sizeof src, "%s%s", kernel, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 1, "%s", npg_errors(s));
  has(npg_errors(s), "k.c:10:23: error: vectorize: vectorize(i) stays a hint: no VU instruction computes the nest "
                     "under i (nearest npu_vu_mul_f32: the expressions differ: 'sqrtf(fabsf(x_vm[0][i]))' in s1 "
                     "(line 5) against the intrinsic's 'a[i]' (line 12); as a sequence of instructions: no VU "
                     "instruction computes 'sqrtf(fabsf(x_vm[0][i]))' (nearest npu_vu_abs_f32: the calls differ: "
                     "'sqrtf(fabsf(x_vm[0][i]))' in s1 (line 5) against the intrinsic's 'fabsf(a[i])' (line 13)))");
  npg_close(s);
}

/* The temporaries take VM space: a sequence whose temporaries do not fit
 * beside the nest's caches is refused with the usage table, as any
 * on-chip buffer that does not fit is. Without them the caches fit. */
Test(isel, temporaries_that_do_not_fit_are_refused) {
  static const char kernel[] = "void k(const float a[5000], const float b[5000], const float c[5000],\n"
                               "       const float d[5000], float y[5000]) {\n"
                               "  for (int i = 0; i < 5000; i++)\n"
                               "    y[i] = (a[i] + b[i]) * (c[i] + d[i]);\n"
                               "}\n";
  const char *steps = "#pragma npu schedule(k, v)\n"
                      "#pragma npu cache_read(a, vu_vm, root, a_vm)\n"
                      "#pragma npu cache_read(b, vu_vm, root, b_vm)\n"
                      "#pragma npu cache_read(c, vu_vm, root, c_vm)\n"
                      "#pragma npu cache_read(d, vu_vm, root, d_vm)\n"
                      "#pragma npu cache_write(y, vu_vm, root, y_vm)\n";
  char src[4096];
  snprintf(src, sizeof src, "%s%s", kernel, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "five caches of 20000 bytes fit in the VM: %s", npg_errors(s));
  npg_close(s);
  snprintf(src, sizeof src, "%s%s#pragma npu vectorize(i)\n", kernel, steps);
  s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 1, "%s", npg_errors(s));
  has(npg_errors(s), "vectorize");
  has(npg_errors(s), "y_vm_t1");
  has(npg_errors(s), "vu_vm");
  npg_close(s);
}

/* TFLite clamps with std::max then std::min (here each a select of a
 * reassignment, folded into the store): min(max(q, -128), 127) is the
 * requantisation op's `q < -128 ? -128 : q > 127 ? 127 : q` for every
 * int q. Before: "the expressions differ". A clamp to other bounds
 * ([-127, 127], a symmetric int8) is not the op's. */
static const char *tflite_clamp(int lo) {
  static char src[2048];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "void k(const int32_t X[4][64], int8_t Y[4][64], int32_t multiplier, int shift, int32_t zp) {\n"
           "  for (int r = 0; r < 4; r++)\n"
           "    for (int c = 0; c < 64; c++) {\n"
           "      int32_t acc = X[r][c];\n"
           "      int64_t ab = (int64_t)acc * multiplier;\n"
           "      int32_t high = acc == (-2147483647 - 1) && multiplier == (-2147483647 - 1) ? 2147483647\n"
           "                     : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));\n"
           "      int32_t mask = (int32_t)(((int64_t)1 << -shift) - 1);\n"
           "      acc = (high >> -shift) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);\n"
           "      acc += zp;\n"
           "      acc = acc > %d ? acc : %d;\n"
           "      acc = acc < 127 ? acc : 127;\n"
           "      Y[r][c] = (int8_t)acc;\n"
           "    }\n"
           "}\n"
           "#pragma npu inputs(k, multiplier, 1073741824, 2147483647)\n"
           "#pragma npu inputs(k, shift, -31, -1)\n"
           "#pragma npu inputs(k, zp, -128, 127)\n"
           "#pragma npu schedule(k, v)\n"
           "#pragma npu compute_inline(s2)\n"
           "#pragma npu compute_inline(s3)\n"
           "#pragma npu compute_inline(s4)\n"
           "#pragma npu fold(s5)\n"
           "#pragma npu compute_inline(s1)\n"
           "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
           "#pragma npu cache_write(Y, vu_vm, r, Y_vm)\n"
           "#pragma npu tensorize(c, npu_vu_requant_q31_i8)\n",
           lo, lo);
  return src;
}

Test(isel, tflites_max_then_min_clamp_is_the_requantisation_ops) {
  NpgSession *s = open_ok(tflite_clamp(-128), "");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_vu_requant_q31_i8(&Y_vm[0][0], &X_vm[0][0], /*n=*/64, multiplier, shift, zp);");
  npg_close(s);
  const char *other = tflite_clamp(-127);
  NpgSession *o = npg_open_string("k.c", other, strlen(other));
  cr_assert_eq(npg_error_count(o), 1, "%s", npg_errors(o));
  has(npg_errors(o), "the clamps' bounds differ");
  npg_close(o);
}

/* A running fmaxf or fminf over a row, as a softmax's max is often
 * written, is the VU's reduce_fmax / reduce_fmin (C's fmaxf over the row
 * from its first element). npu_vu_reduce_max_f32's `a > m ? a : m` is not
 * it: a NaN first element stays NaN there (fmaxf gives the next element),
 * and on equal operands (-0, +0) it keeps the running value (fmaxf gives
 * the second). The simulator against the semantics kernels, every ordered
 * triple of specials a row; then a kernel's running fmaxf and fminf
 * tensorized, bit-exact with the kernel as written on the same rows.
 * Before: no instruction computed them (the nest stayed on the CU). */
static const float specials[] = {0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY, 1.0f, -2.5f};
enum { NSPEC = sizeof specials / sizeof specials[0], TRIPLES = NSPEC * NSPEC * NSPEC };

static void special_rows(float x[TRIPLES][3]) {
  for (int r = 0; r < TRIPLES; r++)
    for (int c = 0; c < 3; c++) x[r][c] = specials[r / (c == 0 ? 1 : c == 1 ? NSPEC : NSPEC * NSPEC) % NSPEC];
}

static void bits_equal(const float *want, const float *got, int n, const char *what) {
  for (int i = 0; i < n; i++) {
    uint32_t w, g;
    memcpy(&w, &want[i], 4);
    memcpy(&g, &got[i], 4);
    cr_assert_eq(w, g, "%s row %d: the kernel %08x, the VU %08x", what, i, w, g);
  }
}

Test(isel, the_vus_running_fmaxf_and_fminf_are_cs_on_nans_and_signed_zeros) {
  static float x[TRIPLES][3], want[TRIPLES], got[TRIPLES];
  special_rows(x);
  const char *ops[] = {"npu_vu_reduce_fmax_f32", "npu_vu_reduce_fmin_f32"};
  for (int k = 0; k < 2; k++) {
    const char *defs[] = {"ROWS=512", "COLS=3", "LD=3", NULL};
    char *src = simt_kernel_source(ops[k], defs);
    TccUnit *u = simt_compile(src, ops[k]);
    free(src);
    void (*sem)(float *, const float (*)[3]) = (void (*)(float *, const float (*)[3]))tcc_unit_symbol(u, ops[k]);
    cr_assert_not_null(sem);
    sem(want, (const float (*)[3])x);
    NpuSim *s = simt_new();
    float *va = npu_scope_base(NPU_VU_VM, 0), *vd = va + TRIPLES * 3;
    memcpy(va, x, sizeof x);
    if (k == 0) npu_vu_reduce_fmax_f32(vd, va, TRIPLES, 3, 3);
    else npu_vu_reduce_fmin_f32(vd, va, TRIPLES, 3, 3);
    npusim_finish(s);
    cr_assert(!npusim_failed(s), "%s", npusim_error(s));
    memcpy(got, vd, sizeof got);
    bits_equal(want, got, TRIPLES, ops[k]);
    simt_free(s);
    tcc_unit_free(u);
  }
}

Test(isel, a_running_fmaxf_or_fminf_over_a_row_is_one_vu_reduction) {
  static const char kernel[] = "#include <math.h>\n"
                               "void k(const float x[512][3], float hi[512], float lo[512]) {\n"
                               "  for (int r = 0; r < 512; r++) {\n"
                               "    float m = x[r][0];\n"
                               "    for (int c = 1; c < 3; c++)\n"
                               "      m = fmaxf(m, x[r][c]);\n"
                               "    hi[r] = m;\n"
                               "  }\n"
                               "  for (int r = 0; r < 512; r++) {\n"
                               "    lo[r] = x[r][0];\n"
                               "    for (int c = 1; c < 3; c++)\n"
                               "      lo[r] = fminf(lo[r], x[r][c]);\n"
                               "  }\n"
                               "}\n";
  NpgSession *s = open_ok(kernel, "#pragma npu schedule(k, v)\n"
                                  "#pragma npu expand(m)\n"
                                  "#pragma npu cache_read(x, vu_vm, root, x_vm)\n"
                                  "#pragma npu cache_write(hi, vu_vm, root, hi_vm)\n"
                                  "#pragma npu cache_write(lo, vu_vm, root, lo_vm)\n"
                                  "#pragma npu vectorize(r_1)\n"
                                  "#pragma npu vectorize(r_2)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_vu_reduce_fmax_f32(&hi_vm[0], &x_vm[0][0], /*rows=*/512, /*cols=*/3, /*ld=*/3);");
  has(c, "npu_vu_reduce_fmin_f32(&lo_vm[0], &x_vm[0][0], /*rows=*/512, /*cols=*/3, /*ld=*/3);");
  static float x[TRIPLES][3], want[2][TRIPLES], got[2][TRIPLES];
  special_rows(x);
  NpgJit *ref = npg_jit_reference(s, v), *var = npg_jit_variant(s, v);
  cr_assert_null(npg_jit_error(ref), "%s", npg_jit_error(ref));
  cr_assert_null(npg_jit_error(var), "%s", npg_jit_error(var));
  void *ra[] = {x, want[0], want[1]}, *va[] = {x, got[0], got[1]};
  cr_assert(npg_jit_run(ref, ra), "%s", npg_jit_error(ref));
  cr_assert(npg_jit_run(var, va), "%s", npg_jit_error(var));
  bits_equal(want[0], got[0], TRIPLES, "fmaxf");
  bits_equal(want[1], got[1], TRIPLES, "fminf");
  npg_jit_free(ref);
  npg_jit_free(var);
  npg_close(s);
}

/* A sequence under a split's tail guard (100 = 64 + 36): each instruction
 * runs over the tile the guard allows (npu_clamp), the temporary too.
 * Before: the guard hid the statement from the cover, and vectorize
 * stayed a hint (an error under strict). */
Test(isel, a_sequence_runs_under_a_tail_guard) {
  NpgSession *s = open_ok("void k(const float a[4][100], const float b[4][100], const float c[4][100], float y[4][100]) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int i = 0; i < 100; i++)\n"
                          "      y[r][i] = (a[r][i] + b[r][i]) * c[r][i];\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 64, io, ii)\n"
                          "#pragma npu cache_read(a, vu_vm, r, a_vm)\n"
                          "#pragma npu cache_read(b, vu_vm, r, b_vm)\n"
                          "#pragma npu cache_read(c, vu_vm, r, c_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, r, y_vm)\n"
                          "#pragma npu vectorize(ii)\n"
                          "#pragma npu strict\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_add_f32(&y_vm_t1[0], &a_vm[0][io * 64], &b_vm[0][io * 64], npu_clamp(100 - io * 64, 64));");
  has(c, "npu_vu_mul_f32(&y_vm[0][io * 64], &y_vm_t1[0], &c_vm[0][io * 64], npu_clamp(100 - io * 64, 64));");
  has(c, "s1_t1 (line 4), s1 (line 4)"); /* the first instruction's statement has a name of its own */
  npg_close(s);
}

/* A clamp written as one expression, two ways: MIN(MAX(x, lo), hi) with
 * the usual macros computes the max twice, `(x > lo ? x : lo) < hi ? (x >
 * lo ? x : lo) : hi`; the max is computed once into a temporary both
 * occurrences read, then the min: a max and a min with a scalar. With the
 * C library, fminf(fmaxf(x, lo), hi), it is the fmax with lo into a
 * temporary (npu_vu_scalar_fmax_f32, C's fmaxf as the check's C library
 * computes it, NaN and signed zeros included: vu_families checks the row
 * on every pair of specials), then the fmin with hi. Over int8 the macros
 * compute in int (C's promotion); the max's values are int8 values (an
 * int8 element or qlo, promoted), so its temporary is int8, read back
 * promoted, and the max and the min are the int8 rows (the min with the
 * constant 100). One variant, checked by execution. Before: no instruction took the macros' node and cutting
 * either occurrence alone left the min's compare and value two arrays,
 * and no VU op took fmaxf of an element and a scalar: both nests stayed
 * on the CU. */
Test(isel, a_clamp_written_as_one_expression_is_a_max_then_a_min) {
  NpgSession *s = open_ok("#include <math.h>\n"
                          "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n"
                          "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
                          "#include <stdint.h>\n"
                          "void k(const float x[4][64], float y[4][64], float z[4][64], float lo, float hi,\n"
                          "       const int8_t q[4][64], int8_t w[4][64], int8_t qlo) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int i = 0; i < 64; i++) {\n"
                          "      clamp: y[r][i] = MIN(MAX(x[r][i], lo), hi);\n"
                          "      fclamp: z[r][i] = fminf(fmaxf(x[r][i], lo), hi);\n"
                          "      qclamp: w[r][i] = MIN(MAX(q[r][i], qlo), 100);\n"
                          "    }\n"
                          "}\n"
                          "#pragma npu inputs(k, lo, -1, 0)\n"
                          "#pragma npu inputs(k, hi, 0, 1)\n"
                          "#pragma npu inputs(k, qlo, -100, 0)\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu fission(i, fclamp)\n"
                          "#pragma npu fission(i, clamp)\n"
                          "#pragma npu cache_read(x, vu_vm, r, x_vm)\n"
                          "#pragma npu cache_read(q, vu_vm, r, q_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, r, y_vm)\n"
                          "#pragma npu cache_write(z, vu_vm, r, z_vm)\n"
                          "#pragma npu cache_write(w, vu_vm, r, w_vm)\n"
                          "#pragma npu vectorize(i)\n"
                          "#pragma npu vectorize(i_1)\n"
                          "#pragma npu vectorize(i_2)\n");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, "    /* y_vm_t1[i] = x_vm[0][i] > lo ? x_vm[0][i] : lo, of clamp (line 9) */\n"
         "    npu_vu_scalar_max_f32(&y_vm_t1[0], &x_vm[0][0], /*n=*/64, lo);\n"
         "    /* y_vm[0][i] = y_vm_t1[i] < hi ? y_vm_t1[i] : hi, of clamp (line 9) */\n"
         "    npu_vu_scalar_min_f32(&y_vm[0][0], &y_vm_t1[0], /*n=*/64, hi);\n");
  has(c, "    /* z_vm_t1[i] = fmaxf(x_vm[0][i], lo), of fclamp (line 10) */\n"
         "    npu_vu_scalar_fmax_f32(&z_vm_t1[0], &x_vm[0][0], /*n=*/64, lo);\n"
         "    /* z_vm[0][i] = fminf(z_vm_t1[i], hi), of fclamp (line 10) */\n"
         "    npu_vu_scalar_fmin_f32(&z_vm[0][0], &z_vm_t1[0], /*n=*/64, hi);\n");
  has(c, "    /* w_vm_t1[i] = q_vm[0][i] > qlo ? q_vm[0][i] : qlo, of qclamp (line 11) */\n"
         "    npu_vu_scalar_max_i8(&w_vm_t1[0], &q_vm[0][0], /*n=*/64, qlo);\n"
         "    /* w_vm[0][i] = w_vm_t1[i] < 100 ? w_vm_t1[i] : 100, of qclamp (line 11) */\n"
         "    npu_vu_scalar_min_i8(&w_vm[0][0], &w_vm_t1[0], /*n=*/64, /*s=*/100);\n");
  has(c, "int8_t *w_vm_t1 = "); /* the max's temporary is int8: every value the max takes is one */
  npg_close(s);
}

/* A min or max of an integer and a constant written with the constant in
 * a branch, `x > 127 ? 127 : x` or `-128 > x ? -128 : x`, is the VU's op
 * with a scalar, as `x < 127 ? x : 127` is (for integers the same value
 * every time; a float's NaN would tell them apart). Before: "a constant
 * where the intrinsic reads a vector operand" and the nests stayed on the
 * CU. And an int32 value stored into int8 is the VU's narrowing cast
 * (npu_vu_cast_i32_i8, a row of npu_vu_families.def: the low byte, as gcc,
 * clang and tcc convert), alone or after a clamp (the folded form of `v =
 * v > 127 ? 127 : v; out = (int8_t)(v < -128 ? -128 : v);`: a min, a max,
 * then the cast). Before: no VU op narrowed int32 to int8 and the nest
 * stayed on the CU. Trial isel7: a convolution's clamped int8 store so
 * written kept its epilogue on the CU (20,268 cycles, now 5,726). One
 * variant, checked by execution. */
Test(isel, integer_bounds_written_any_way_and_an_int8_store_are_vu_ops) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const int32_t x[4][64], int32_t y[4][64], int32_t z[4][64], const int8_t q[4][64],\n"
                          "       int8_t w[4][64], int8_t n[4][64], int8_t c[4][64]) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int i = 0; i < 64; i++) {\n"
                          "      hi: y[r][i] = x[r][i] > 127 ? 127 : x[r][i];\n"
                          "      lo: z[r][i] = -128 > x[r][i] ? -128 : x[r][i];\n"
                          "      relu: w[r][i] = q[r][i] < 0 ? 0 : q[r][i];\n"
                          "      wrap: n[r][i] = (int8_t)x[r][i];\n"
                          "      sat: c[r][i] = (int8_t)((x[r][i] > 127 ? 127 : x[r][i]) < -128 ? -128\n"
                          "                              : (x[r][i] > 127 ? 127 : x[r][i]));\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu fission(i, wrap)\n"
                          "#pragma npu fission(i, relu)\n"
                          "#pragma npu fission(i, lo)\n"
                          "#pragma npu fission(i, hi)\n"
                          "#pragma npu cache_read(x, vu_vm, r, x_vm)\n"
                          "#pragma npu cache_read(q, vu_vm, r, q_vm)\n"
                          "#pragma npu cache_write(y, vu_vm, r, y_vm)\n"
                          "#pragma npu cache_write(z, vu_vm, r, z_vm)\n"
                          "#pragma npu cache_write(w, vu_vm, r, w_vm)\n"
                          "#pragma npu cache_write(n, vu_vm, r, n_vm)\n"
                          "#pragma npu cache_write(c, vu_vm, r, c_vm)\n"
                          "#pragma npu vectorize(i)\n"
                          "#pragma npu vectorize(i_1)\n"
                          "#pragma npu vectorize(i_2)\n"
                          "#pragma npu vectorize(i_3)\n"
                          "#pragma npu vectorize(i_4)\n");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, "npu_vu_scalar_min_i32(&y_vm[0][0], &x_vm[0][0], /*n=*/64, /*s=*/127);\n");
  has(c, "npu_vu_scalar_max_i32(&z_vm[0][0], &x_vm[0][0], /*n=*/64, /*s=*/-128);\n");
  has(c, "npu_vu_scalar_max_i8(&w_vm[0][0], &q_vm[0][0], /*n=*/64, /*s=*/0);\n");
  has(c, "npu_vu_cast_i32_i8(&n_vm[0][0], &x_vm[0][0], /*n=*/64);\n");
  has(c, "npu_vu_cast_i32_i8(&c_vm[0][0], ");
  lacks(c, "for (int i");
  npg_close(s);
}
