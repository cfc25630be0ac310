/* Kernels written in plain C reach the VU's family ops through vectorize
 * once the op exists (issue 40): a sum pool and an int32 max pool (window
 * sum and max over int32), a masked add, a `>=` mask over int32, an int32
 * select, abs and neg, and C's fmaxf, fminf and fabsf, element-wise and
 * as a max pool's window. Each variant calls the op and passes the check
 * by execution against the kernel as written (bit-exact: fmaxf's NaNs and
 * zeros included, the check's inputs hold no NaN, the simulator tests do). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "schedule/intrinsics.h"
#include "test_sched_util.h"

/* The kernel k's variant v, whose schedule stages every array named in
 * `arrays` in the VM at loop `at` and vectorizes `loop`, passes the check and
 * calls op. */
static void reaches(const char *kernel, const char *at, const char *ins, const char *outs, const char *loop,
                    const char *op) {
  char pragmas[1024];
  int n = snprintf(pragmas, sizeof pragmas, "#pragma npu schedule(k, v)\n");
  char list[128];
  snprintf(list, sizeof list, "%s", ins);
  char *save = NULL;
  for (char *a = strtok_r(list, " ", &save); a; a = strtok_r(NULL, " ", &save))
    n += snprintf(pragmas + n, sizeof pragmas - (size_t)n, "#pragma npu cache_read(%s, vu_vm, %s, %s_vm)\n", a, at, a);
  snprintf(list, sizeof list, "%s", outs);
  for (char *a = strtok_r(list, " ", &save); a; a = strtok_r(NULL, " ", &save))
    n += snprintf(pragmas + n, sizeof pragmas - (size_t)n, "#pragma npu cache_write(%s, vu_vm, %s, %s_vm)\n", a, at, a);
  snprintf(pragmas + n, sizeof pragmas - (size_t)n, "#pragma npu vectorize(%s)\n", loop);
  NpgSession *s = open_ok(kernel, pragmas);
  int v = checked(s, "v");
  char call[96];
  snprintf(call, sizeof call, "%s(&", op);
  has(npg_emit_source(s, v), call);
  npg_close(s);
}

Test(vu_reach, int32_sum_pool) {
  reaches("#include <stdint.h>\n"
          "void k(const int32_t x[4][16][32], int32_t y[4][8][16]) {\n"
          "  for (int c = 0; c < 4; c++)\n"
          "    for (int i = 0; i < 8; i++)\n"
          "      for (int j = 0; j < 16; j++) {\n"
          "        y[c][i][j] = 0;\n"
          "        for (int p = 0; p < 2; p++)\n"
          "          for (int q = 0; q < 2; q++)\n"
          "            y[c][i][j] += x[c][2 * i + p][2 * j + q];\n"
          "      }\n"
          "}\n"
          "#pragma npu inputs(k, x, -100000, 100000)\n",
          "c", "x", "y", "i", "npu_vu_window_sum_i32");
}

Test(vu_reach, int32_max_pool) {
  reaches("#include <stdint.h>\n"
          "void k(const int32_t x[4][16][32], int32_t y[4][8][16]) {\n"
          "  for (int c = 0; c < 4; c++)\n"
          "    for (int i = 0; i < 8; i++)\n"
          "      for (int j = 0; j < 16; j++) {\n"
          "        y[c][i][j] = x[c][2 * i][2 * j];\n"
          "        for (int p = 0; p < 2; p++)\n"
          "          for (int q = 0; q < 2; q++)\n"
          "            y[c][i][j] = x[c][2 * i + p][2 * j + q] > y[c][i][j] ? x[c][2 * i + p][2 * j + q] : y[c][i][j];\n"
          "      }\n"
          "}\n",
          "c", "x", "y", "i", "npu_vu_window_max_i32");
}

Test(vu_reach, masked_add_in_place) {
  reaches("#include <stdint.h>\n"
          "void k(const uint8_t m[4][128], const float a[4][128], const float b[4][128], float y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      if (m[r][i]) y[r][i] = a[r][i] + b[r][i];\n"
          "}\n"
          "#pragma npu inputs(k, m, 0, 1)\n",
          "r", "m a b", "y", "i", "npu_vu_add_u8_f32");
}

Test(vu_reach, int32_greater_or_equal_mask) {
  reaches("#include <stdint.h>\n"
          "void k(const int32_t a[4][128], const int32_t b[4][128], uint8_t m[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      m[r][i] = a[r][i] >= b[r][i];\n"
          "}\n",
          "r", "a b", "m", "i", "npu_vu_cmple_i32");
}

Test(vu_reach, int32_select) {
  reaches("#include <stdint.h>\n"
          "void k(const uint8_t m[4][128], const int32_t a[4][128], const int32_t b[4][128], int32_t y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = m[r][i] ? a[r][i] : b[r][i];\n"
          "}\n",
          "r", "m a b", "y", "i", "npu_vu_select_u8_i32");
}

Test(vu_reach, abs_and_neg) {
  reaches("#include <stdint.h>\n"
          "void k(const int32_t x[4][128], int32_t y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = x[r][i] < 0 ? -x[r][i] : x[r][i];\n"
          "}\n"
          "#pragma npu inputs(k, x, -2147483647, 2147483647)\n",
          "r", "x", "y", "i", "npu_vu_abs_i32");
  reaches("void k(const float x[4][128], float y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = -x[r][i];\n"
          "}\n",
          "r", "x", "y", "i", "npu_vu_neg_f32");
}

Test(vu_reach, fabsf_fmaxf_fminf_element_wise) {
  reaches("#include <math.h>\n"
          "void k(const float x[4][128], float y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = fabsf(x[r][i]);\n"
          "}\n",
          "r", "x", "y", "i", "npu_vu_abs_f32");
  reaches("#include <math.h>\n"
          "void k(const float a[4][128], const float b[4][128], float y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = fmaxf(a[r][i], b[r][i]);\n"
          "}\n",
          "r", "a b", "y", "i", "npu_vu_fmax_f32");
  reaches("#include <math.h>\n"
          "void k(const float a[4][128], const float b[4][128], float y[4][128]) {\n"
          "  for (int r = 0; r < 4; r++)\n"
          "    for (int i = 0; i < 128; i++)\n"
          "      y[r][i] = fminf(b[r][i], a[r][i]);\n"
          "}\n",
          "r", "a b", "y", "i", "npu_vu_fmin_f32");
}

Test(vu_reach, fmaxf_max_pool) {
  reaches("#include <math.h>\n"
          "void k(const float x[4][16][32], float y[4][8][16]) {\n"
          "  for (int c = 0; c < 4; c++)\n"
          "    for (int i = 0; i < 8; i++)\n"
          "      for (int j = 0; j < 16; j++) {\n"
          "        y[c][i][j] = x[c][2 * i][2 * j];\n"
          "        for (int p = 0; p < 2; p++)\n"
          "          for (int q = 0; q < 2; q++)\n"
          "            y[c][i][j] = fmaxf(y[c][i][j], x[c][2 * i + p][2 * j + q]);\n"
          "      }\n"
          "}\n",
          "c", "x", "y", "i", "npu_vu_window_fmax_f32");
}

/* The instruction gives the second operand of two equal ones; this C
 * library (glibc) does too, so fmaxf matches. A semantics file naming a
 * function the probe does not know matches nothing. */
Test(vu_reach, fmaxf_matches_where_the_c_library_agrees) {
  char why[256] = "";
  cr_expect(sched_libm_agrees("/* libm: fmaxf\n */", why, sizeof why), "%s", why);
  cr_expect(sched_libm_agrees("/* libm: fminf\n */", why, sizeof why), "%s", why);
  cr_expect(sched_libm_agrees("/* no line */", why, sizeof why));
  cr_expect(!sched_libm_agrees("/* libm: hypotf\n */", why, sizeof why));
  has(why, "its semantics name an unknown C library function 'hypotf'");
}
