/* Buffer layouts: transform_layout, its sugar, padding and axis separators.
 * Every variant passes the differential check (inputs packed, outputs
 * unpacked by the variant's own helpers); pack then unpack is the identity
 * and the padding holds pad_value after pack; refusals have exact messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/tcc_unit.h"
#include "npugen.h"
#include "tests/test_sched_util.h"

/* The variant's .c without its #include of its own .h, which tcc would
 * look for on disk (malloc'ed). */
static char *source_alone(NpgSession *s, int v) {
  char line[300];
  snprintf(line, sizeof line, "#include \"%s.h\"\n", npg_variant_name(s, v));
  char *c = strdup(npg_emit_source(s, v)), *at = strstr(c, line);
  cr_assert_not_null(at, "%s", c);
  memmove(at, at + strlen(line), strlen(at + strlen(line)) + 1);
  return c;
}

/* pack then unpack, run on the emitted helpers of a float buffer: distinct
 * logical values come back unchanged, and exactly the padding elements hold
 * pad_value (pad must differ from every logical value: they are 1 .. n). */
static void pack_roundtrip(NpgSession *s, int v, const char *buf, long logical_n, long physical_n, float pad) {
  char err[4096], name[256];
  char *c = source_alone(s, v);
  TccUnit *u = tcc_unit_compile(c, "v.c", err, sizeof err);
  free(c);
  cr_assert_not_null(u, "%s", err);
  snprintf(name, sizeof name, "%s_pack_%s", npg_variant_name(s, v), buf);
  void (*pack)(const float *, float *) = (void (*)(const float *, float *))tcc_unit_symbol(u, name);
  snprintf(name, sizeof name, "%s_unpack_%s", npg_variant_name(s, v), buf);
  void (*unpack)(const float *, float *) = (void (*)(const float *, float *))tcc_unit_symbol(u, name);
  cr_assert(pack && unpack, "no pack/unpack helpers for %s", buf);
  float *lg = malloc(sizeof(float) * (size_t)logical_n), *back = calloc((size_t)logical_n, sizeof(float));
  float *ph = malloc(sizeof(float) * (size_t)physical_n);
  for (long e = 0; e < logical_n; e++) lg[e] = (float)(e + 1);
  for (long e = 0; e < physical_n; e++) ph[e] = -12345.0f; /* anything pack does not write shows */
  pack(lg, ph);
  long pads = 0;
  for (long e = 0; e < physical_n; e++) {
    cr_assert_neq(ph[e], -12345.0f, "pack left physical element %ld unwritten", e);
    if (ph[e] == pad) pads++;
  }
  cr_assert_eq(pads, physical_n - logical_n, "%ld elements hold pad_value, expected %ld", pads, physical_n - logical_n);
  unpack(ph, back);
  for (long e = 0; e < logical_n; e++) cr_assert_eq(back[e], lg[e], "unpack(pack(x)) differs at %ld", e);
  free(lg);
  free(back);
  free(ph);
  tcc_unit_free(u);
}

/* ---------------- the conv weight of the TY-NNP pre-RFC ---------------- */

static const char *conv =
    "void conv(const float X[3][13][13], const float W[32][3][7][7], float Y[32][7][7]) {\n"
    "  for (int o = 0; o < 32; o++)\n"
    "    for (int y = 0; y < 7; y++)\n"
    "      for (int x = 0; x < 7; x++) {\n"
    "        init: Y[o][y][x] = 0.0f;\n"
    "        for (int i = 0; i < 3; i++)\n"
    "          for (int h = 0; h < 7; h++)\n"
    "            for (int w = 0; w < 7; w++)\n"
    "              update: Y[o][y][x] += X[i][y + h][x + w] * W[o][i][h][w];\n"
    "      }\n"
    "}\n";

Test(layout, conv_weight_split_split_reorder) {
  NpgSession *s = open_ok(conv, "#pragma npu schedule(conv, packed)\n"
                                "#pragma npu buffer_split(W, 0, 4)\n"
                                "#pragma npu buffer_split(W, 2, 4, 0)\n"
                                "#pragma npu buffer_reorder(W, 0, 2, 1, 3, 4, 5)\n");
  int v = checked(s, "packed");
  const char *c = npg_emit_source(s, v);
  has(c, "void packed(const float X[3][13][13], const float W[8][1][4][4][7][7], float Y[32][7][7]) {");
  has(c, "Y[o][y][x] += X[i][y + h][x + w] * W[o / 4][0][o % 4][i][h][w];");
  has(c, "void packed_pack_W(const float logical[32][3][7][7], float physical[8][1][4][4][7][7]) {");
  has(c, "          physical[i0 / 4][0][i0 % 4][i1][i2][i3] = logical[i0][i1][i2][i3];");
  has(c, "void packed_unpack_W(const float physical[8][1][4][4][7][7], float logical[32][3][7][7]) {");
  has(npg_emit_header(s, v), "void packed_pack_W(const float logical[32][3][7][7], float physical[8][1][4][4][7][7]);");
  pack_roundtrip(s, v, "W", 32 * 3 * 7 * 7, 8 * 4 * 4 * 7 * 7, 0.0f);
  npg_close(s);
}

/* ---------------- RFC #77: the 127x127x127 matmul ---------------- */

static const char *mm127 =
    "#define N 127\n"
    "void mm(const float A[N][N], const float B[N][N], float C[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++) {\n"
    "      C[i][j] = 0.0f;\n"
    "      for (int k = 0; k < N; k++)\n"
    "        C[i][j] += A[i][k] * B[k][j];\n"
    "    }\n"
    "}\n";

static const char *pad_all = "#pragma npu buffer_pad(A, (128, 128), 0)\n#pragma npu buffer_pad(B, (128, 128), 0)\n"
                             "#pragma npu buffer_pad(C, (128, 128), 0)\n";

Test(layout, matmul_127_padded_to_128_has_no_guard) {
  char p[2048];
  snprintf(p, sizeof p,
           "#pragma npu schedule(mm, guarded)\n#pragma npu split(i, 32, io, ii)\n#pragma npu split(k, 32, ko, ki)\n"
           "#pragma npu schedule(mm, padded)\n%s#pragma npu split(i, 32, io, ii)\n#pragma npu split(j, 32, jo, ji)\n"
           "#pragma npu split(k, 32, ko, ki)\n",
           pad_all);
  NpgSession *s = open_ok(mm127, p);
  int g = checked(s, "guarded"), v = checked(s, "padded");
  has(npg_emit_source(s, g), "if (io * 32 + ii < N) {");
  const char *c = npg_emit_source(s, v);
  has(c, "void padded(const float A[128][128], const float B[128][128], float C[128][128]) {");
  has(c, "C[io * 32 + ii][jo * 32 + ji] += A[io * 32 + ii][ko * 32 + ki] * B[ko * 32 + ki][jo * 32 + ji];");
  cr_assert_null(strstr(c, "if ("), "a guard is left:\n%s", c);
  pack_roundtrip(s, v, "A", 127 * 127, 128 * 128, 0.0f);
  npg_close(s);
}

Test(layout, matmul_127_split_and_fused_to_128) {
  char p[2048];
  snprintf(p, sizeof p,
           "#pragma npu schedule(mm, v)\n%s#pragma npu split(i, 32, io, ii)\n#pragma npu fuse(io, ii, i128)\n"
           "#pragma npu split(k, 32, ko, ki)\n#pragma npu fuse(ko, ki, k128)\n",
           pad_all);
  NpgSession *s = open_ok(mm127, p);
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  for (int i128 = 0; i128 < 128; i128++) {\n    for (int j = 0; j < N; j++) {\n      C[i128][j] = 0.0f;\n"
         "      for (int k128 = 0; k128 < 128; k128++) {\n        C[i128][j] += A[i128][k128] * B[k128][j];\n");
  cr_assert_null(strstr(c, "if ("), "a guard is left:\n%s", c);
  npg_close(s);
}

Test(layout, padding_that_is_not_zero_keeps_the_reduction_guard) {
  /* A and B pad with 1: A[i][127] * B[127][j] adds 1, so the k guard stays;
   * the rows past 127 write only C's padding, so the i and j guards go. */
  NpgSession *s = open_ok(mm127, "#pragma npu schedule(mm, v)\n#pragma npu buffer_pad(A, (128, 128), 1)\n"
                                 "#pragma npu buffer_pad(B, (128, 128), 1)\n#pragma npu buffer_pad(C, (128, 128), 0)\n"
                                 "#pragma npu split(i, 32, io, ii)\n#pragma npu split(k, 32, ko, ki)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "if (ko * 32 + ki < N) {");
  cr_assert_null(strstr(c, "if (io"), "the row guard is left:\n%s", c);
  npg_close(s);
}

Test(layout, guard_stays_when_the_extra_rows_fall_outside_the_buffer) {
  NpgSession *s = open_ok(mm127, "#pragma npu schedule(mm, v)\n#pragma npu buffer_pad(B, (128, 128), 0)\n"
                                 "#pragma npu split(i, 32, io, ii)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "if (io * 32 + ii < N) {");
  npg_close(s);
}

/* ---------------- NHWC -> NCHWc ---------------- */

Test(layout, nhwc_to_nchwc) {
  static const char *k = "void relu(const float X[1][6][5][8], float Y[1][6][5][8]) {\n"
                         "  for (int n = 0; n < 1; n++)\n"
                         "    for (int h = 0; h < 6; h++)\n"
                         "      for (int w = 0; w < 5; w++)\n"
                         "        for (int c = 0; c < 8; c++)\n"
                         "          Y[n][h][w][c] = X[n][h][w][c] > 0.0f ? X[n][h][w][c] : 0.0f;\n"
                         "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(relu, nchwc)\n"
                             "#pragma npu transform_layout(X, (n, h, w, c), (n, c / 4, h, w, c % 4))\n"
                             "#pragma npu transform_layout(Y, (n, h, w, c), (n, c / 4, h, w, c % 4))\n");
  int v = checked(s, "nchwc");
  const char *c = npg_emit_source(s, v);
  has(c, "void nchwc(const float X[1][2][6][5][4], float Y[1][2][6][5][4]) {");
  has(c, "physical[0][c / 4][h][w][c % 4] = logical[0][h][w][c];");
  pack_roundtrip(s, v, "X", 6 * 5 * 8, 6 * 5 * 8, 0.0f);
  npg_close(s);
}

/* ---------------- axis separators (RFC #39) ---------------- */

static const char *mnpq = "void add1(const float A[2][3][4][5], float B[2][3][4][5]) {\n"
                          "  for (int m = 0; m < 2; m++)\n"
                          "    for (int n = 0; n < 3; n++)\n"
                          "      for (int p = 0; p < 4; p++)\n"
                          "        for (int q = 0; q < 5; q++)\n"
                          "          B[m][n][p][q] = A[m][n][p][q] + 1.0f;\n"
                          "}\n";

Test(layout, axis_separators_give_1_2_and_3_dimensional_arrays) {
  NpgSession *s = open_ok(mnpq, "#pragma npu schedule(add1, flat)\n#pragma npu set_axis_separators(A)\n"
                                "#pragma npu schedule(add1, two)\n"
                                "#pragma npu transform_layout(A, (m, n, p, q), (m, n, axis_separator, p, q))\n"
                                "#pragma npu schedule(add1, three)\n#pragma npu set_axis_separators(A, 1, 3)\n"
                                "#pragma npu schedule(add1, upper)\n"
                                "#pragma npu transform_layout(A, (m, n, p, q), (m, AXIS_SEPARATOR, n, p, AXIS_SEPARATOR, q))\n");
  has(npg_emit_source(s, checked(s, "flat")), "void flat(const float A[120], float B[2][3][4][5]) {");
  has(npg_emit_source(s, checked(s, "flat")), "B[m][n][p][q] = A[((m * 3 + n) * 4 + p) * 5 + q] + 1.0f;");
  has(npg_emit_source(s, checked(s, "two")), "void two(const float A[6][20], float B[2][3][4][5]) {");
  has(npg_emit_source(s, checked(s, "two")), "A[m * 3 + n][p * 5 + q]");
  has(npg_emit_source(s, checked(s, "three")), "void three(const float A[2][12][5], float B[2][3][4][5]) {");
  has(npg_emit_source(s, checked(s, "upper")), "void upper(const float A[2][12][5], float B[2][3][4][5]) {");
  pack_roundtrip(s, npg_variant_index(s, "three"), "A", 120, 120, 0.0f);
  npg_close(s);
}

Test(layout, buffer_fuse_and_storage_align) {
  NpgSession *s = open_ok(mnpq, "#pragma npu schedule(add1, fused)\n#pragma npu buffer_fuse(B, 2, 3)\n"
                                "#pragma npu schedule(add1, aligned)\n#pragma npu storage_align(A, 2, 8, 1)\n");
  has(npg_emit_source(s, checked(s, "fused")), "float B[2][3][20]) {");
  /* stride of axis 2 becomes 9 = 8 * 1 + 1: axis 3 padded from 5 to 9 */
  has(npg_emit_source(s, checked(s, "aligned")), "const float A[2][3][4][9]");
  pack_roundtrip(s, npg_variant_index(s, "aligned"), "A", 120, 216, 0.0f);
  npg_close(s);
}

Test(layout, local_array_layout) {
  static const char *k = "void blur(const float A[8][8], float B[8][8]) {\n"
                         "  float T[8][8];\n"
                         "  for (int i = 0; i < 8; i++)\n"
                         "    for (int j = 0; j < 8; j++)\n"
                         "      T[i][j] = A[i][j] * 0.5f;\n"
                         "  for (int i = 0; i < 8; i++)\n"
                         "    for (int j = 0; j < 8; j++)\n"
                         "      B[i][j] = T[i][j] + T[j][i];\n"
                         "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(blur, v)\n#pragma npu transform_layout(T, (i, j), (j / 4, i, j % 4))\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float T[2][8][4];");
  has(c, "B[i][j] = T[j / 4][i][j % 4] + T[i / 4][j][i % 4];");
  npg_close(s);
}

/* ---------------- refusals ---------------- */

Test(layout, refusals) {
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m, n / 2, p, q))\n",
          "k.c:9:47: error: transform_layout: the map is not injective: A[0][0][0][0] and A[0][1][0][0] map to the same element");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m, n, p / 3, p % 3, q))\n",
          "k.c:9:47: error: transform_layout: the new layout of A has 180 elements for 120 values: the 60 padding elements need a pad_value (the last argument)");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p), (m, n, p))\n",
          "k.c:9:33: error: transform_layout: A has 4 dimensions, but the map takes 3 indices");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu buffer_split(A, 4, 2, 0)\n",
          "k.c:9:29: error: buffer_split: axis 4 is out of range: A has axes 0 to 3");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu buffer_split(A, 1, 0, 0)\n",
          "k.c:9:32: error: buffer_split: factor must be positive, got 0");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m, n, p, q - 1))\n",
          "k.c:9:57: error: transform_layout: index 'q - 1' of the new layout of A ranges over [-1, 3]: it must not be negative");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m, n, p, q * q))\n",
          "k.c:9:57: error: transform_layout: index 'q * q' is not affine in the indices of A (allowed: + and -, * by a constant, / and % by a positive constant)");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu buffer_split(A, 1, 2)\n",
          "k.c:9:26: error: buffer_split: the new layout of A has 160 elements for 120 values: the 40 padding elements need a pad_value (the last argument)");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(Z, (m), (m))\n",
          "k.c:9:30: error: transform_layout: no array named 'Z' among the kernel's parameters and local arrays (arrays: A, B)");
}

Test(layout, c_api) {
  NpgSession *s = open_ok(conv, "");
  NpgSched *h = npg_sched_begin(s, "conv", "api");
  cr_assert(npg_sched_step(h, "buffer_split(W, 0, 4)"));
  cr_assert(npg_sched_transform_layout(h, "X", "(i, y, x)", "(y, x, i)", NULL));
  cr_assert_geq(npg_sched_end(h), 0, "%s", npg_errors(s));
  const char *c = npg_emit_source(s, checked(s, "api"));
  has(c, "void api(const float X[13][13][3], const float W[8][4][3][7][7], float Y[32][7][7]) {");
  h = npg_sched_begin(s, "conv", "bad");
  cr_assert_not(npg_sched_transform_layout(h, "X", "(i, y, x)", "(y, x, i / 2)", NULL));
  cr_assert_eq(npg_sched_end(h), -1);
  has(npg_errors(s), "transform_layout: the map is not injective: X[0][0][0] and X[1][0][0] map to the same element");
  npg_close(s);
}

/* Found by a new user's trial: padding holding INT_MAX made the dropped guard
 * compute INT_MAX + 1 (undefined); huge map constants wrapped around. */
Test(layout, guard_stays_where_the_padding_would_overflow) {
  static const char *k = "#include <stdint.h>\n#define N 7\n"
                         "void incr(const int32_t X[N], int32_t Y[N]) {\n"
                         "  for (int i = 0; i < N; i++)\n"
                         "    Y[i] = X[i] + 1;\n"
                         "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(incr, v)\n#pragma npu buffer_pad(X, (8), 2147483647)\n"
                             "#pragma npu buffer_pad(Y, (8), 0)\n#pragma npu split(i, 4, io, ii)\n");
  has(npg_emit_source(s, checked(s, "v")), "if (io * 4 + ii < N) {");
  npg_close(s);
}

Test(layout, more_refusals) {
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m * 4611686018427387904, n, p, q))\n",
          "k.c:9:52: error: transform_layout: constant 4611686018427387904 is too large for an index map (at most 2^31 - 1)");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu transform_layout(A, (m, n, p, q), (m + n, p, q))\n",
          "k.c:9:47: error: transform_layout: the map is not injective: it has 3 outputs for 4 indices");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu buffer_pad(A, (2, 3, 4, 6), 1e39)\n",
          "k.c:9:41: error: buffer_pad: pad_value 1e39 is out of the range of float");
  refused(mnpq, "#pragma npu schedule(add1, v)\n#pragma npu set_axis_separators(A, 0)\n",
          "k.c:9:36: error: set_axis_separators: a separator at axis 0 would start an empty dimension; separators are axes 1 to 3");
}

/* A layout step that changes nothing warns, naming itself and its line
 * (docs/schedules.md); the layout-padding RFC's own map with pad_value = 0
 * quietly gave an unpadded 127 x 127 buffer (issue 39). */
Test(layout, a_layout_step_that_changes_nothing_warns) {
  static const struct {
    const char *step, *want;
  } cases[] = {
      {"transform_layout(A, (i, j), (i, j))",
       "k.c:7:41: warning: transform_layout: the new layout of A is the one it has; the step changes nothing"},
      {"buffer_reorder(A, 0, 1)",
       "k.c:7:28: warning: buffer_reorder: the new layout of A is the one it has; the step changes nothing"},
      {"transform_layout(A, (i, j), ((i / 32) * 32 + i % 32, j), 0)",
       "k.c:7:41: warning: transform_layout: the new layout of A is the one it has (no padding for pad_value); the "
       "step changes nothing"},
      {"transform_layout(A, (i, j), (j, i), 0)",
       "k.c:7:49: warning: transform_layout: pad_value pads nothing: the new layout of A has no more elements than "
       "the old (16129)"},
      {"transform_layout(A, (i, j), (i / 32, j, i % 32), 0)", NULL}, /* pads 127 to 128 rows: quiet */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char src[1024];
    snprintf(src, sizeof src,
             "void k(const float A[127][127], float B[127][127]) {\n"
             "  for (int i = 0; i < 127; i++)\n"
             "    for (int j = 0; j < 127; j++)\n"
             "      B[i][j] = A[i][j] * 2.0f;\n"
             "}\n"
             "#pragma npu schedule(k, v)\n"
             "#pragma npu %s\n",
             cases[c].step);
    NpgSession *s = npg_open_string("k.c", src, strlen(src));
    cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
    const char *e = npg_errors(s);
    if (cases[c].want) cr_expect(!strncmp(e, cases[c].want, strlen(cases[c].want)), "%s\nwant: %s", e, cases[c].want);
    else cr_expect_str_eq(e, "");
    NpgCheckResult r;
    cr_expect(npg_check(s, 1, 1, &r), "%s: %s", cases[c].step, r.message);
    npg_close(s);
  }
}
