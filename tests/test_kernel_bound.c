/* The kernel's own bound (jit/kernel_bound.c), the roofline of every
 * figure: a bound no variant beats, so it counts what any form of the
 * kernel must do. Each case is a form a new user wrote (trial 41c) for
 * which it once counted more than that, and a variant then read past
 * 100%. Default target: the NU 1024 int8 / 256 fp32 MACs a cycle, DDR 64
 * bytes a cycle, four VU cores of 64-byte vectors. No run: the bound is
 * the kernel's, computed before any variant exists. */
#include <criterion/criterion.h>
#include <string.h>

#include "jit/kernel_bound.h"
#include "jit/session_ir.h"
#include "npugen.h"

static uint64_t bound_of(const char *src, const char *kernel, char *unit) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  uint64_t b = kernel_bound(module_kernel(session_module(s), kernel), session_target(s), unit, 8);
  npg_close(s);
  return b;
}

/* C = C + A * B is C += A * B: MACs on the NU, not three ops a lane on
 * the VU (2319% once); with alpha, the float MACs at the NU's fp32 rate. */
Test(kernel_bound, a_sum_written_out_and_a_scaled_product_are_the_nus_macs) {
  char unit[8];
  uint64_t b = bound_of("#include <stdint.h>\n"
                        "void mm(const int8_t A[64][1024], const int8_t B[1024][64], int32_t C[64][64]) {\n"
                        "  for (int i = 0; i < 64; i++)\n"
                        "    for (int j = 0; j < 64; j++)\n"
                        "      for (int k = 0; k < 1024; k++)\n"
                        "        C[i][j] = C[i][j] + (int32_t)A[i][k] * (int32_t)B[k][j];\n"
                        "}\n",
                        "mm", unit);
  cr_expect_str_eq(unit, "nu");
  cr_expect_eq(b, 64 * 64 * 1024 / 1024);
  b = bound_of("void mm(float alpha, const float A[64][512], const float B[512][64], float C[64][64]) {\n"
               "  for (int i = 0; i < 64; i++)\n"
               "    for (int j = 0; j < 64; j++)\n"
               "      for (int k = 0; k < 512; k++)\n"
               "        C[i][j] += alpha * A[i][k] * B[k][j];\n"
               "}\n",
               "mm", unit);
  cr_expect_str_eq(unit, "nu");
  cr_expect_eq(b, 64 * 64 * 512 / 256);
}

/* An array the kernel only reads is read once, whether or not it is
 * declared const (it was counted written back: 120%); an array it never
 * touches moves nothing. */
Test(kernel_bound, an_array_only_read_is_not_written_back) {
  char unit[8];
  uint64_t b = bound_of("void scale(float x[4096], float y[4096], float unused[4096]) {\n"
                        "  for (int i = 0; i < 4096; i++)\n"
                        "    y[i] = x[i] * 2.0f;\n"
                        "}\n",
                        "scale", unit);
  cr_expect_str_eq(unit, "ddr");
  cr_expect_eq(b, 2 * 4096 * 4 / 64);
  /* read through a local's initializer, as people write it */
  b = bound_of("void lrelu(const float x[4096], float y[4096], float alpha) {\n"
               "  for (int i = 0; i < 4096; i++) {\n"
               "    float v = x[i];\n"
               "    y[i] = v >= 0 ? v : v * alpha;\n"
               "  }\n"
               "}\n",
               "lrelu", unit);
  cr_expect_eq(b, 2 * 4096 * 4 / 64);
}

/* The elements the accesses reach, not the whole array: a diagonal moves
 * 256 of A's 65,536 elements (102.5% once), a triangle half of them. */
Test(kernel_bound, the_traffic_is_the_elements_the_kernel_reaches) {
  char unit[8];
  uint64_t b = bound_of("void diag(const float A[256][256], const float s[256], float d[256]) {\n"
                        "  for (int i = 0; i < 256; i++)\n"
                        "    d[i] = A[i][i] * s[i];\n"
                        "}\n",
                        "diag", unit);
  cr_expect_str_eq(unit, "ddr");
  cr_expect_eq(b, 3 * 256 * 4 / 64);
  b = bound_of("void lower(const float L[256][256], float y[256]) {\n"
               "  for (int i = 0; i < 256; i++) {\n"
               "    y[i] = 0.0f;\n"
               "    for (int j = 0; j <= i; j++)\n"
               "      y[i] = y[i] + L[i][j];\n"
               "  }\n"
               "}\n",
               "lower", unit);
  cr_expect_eq(b, (256 * 257 / 2 + 256) * 4 / 64, "%llu", (unsigned long long)b); /* L's 32,896 reached, y's 256 written */
}

/* A program is bounded as one kernel: an intermediate that stays on chip
 * moves nothing through DDR (the sum of its calls' bounds counted t twice,
 * and tune's own winner read 125%). */
Test(kernel_bound, a_programs_intermediate_is_not_its_traffic) {
  char unit[8];
  uint64_t b = bound_of("void scale(const float x[64][64], float t[64][64]) {\n"
                        "  for (int i = 0; i < 64; i++)\n"
                        "    for (int j = 0; j < 64; j++)\n"
                        "      t[i][j] = x[i][j] * 2.0f;\n"
                        "}\n"
                        "void add(const float t[64][64], const float b[64][64], float y[64][64]) {\n"
                        "  for (int i = 0; i < 64; i++)\n"
                        "    for (int j = 0; j < 64; j++)\n"
                        "      y[i][j] = t[i][j] + b[i][j];\n"
                        "}\n"
                        "void prog(const float x[64][64], const float b[64][64], float y[64][64]) {\n"
                        "  float t[64][64];\n"
                        "  scale(x, t);\n"
                        "  add(t, b, y);\n"
                        "}\n",
                        "prog", unit);
  cr_expect_str_eq(unit, "ddr");
  cr_expect_eq(b, 3 * 64 * 64 * 4 / 64);
}

/* MACs count as often as they run (trial 41d: 1047.6% and 998.7%): a guard
 * on loop counters keeps a sixteenth of them, a loop that runs no pass
 * none, a triangle half; under a condition on data none (a variant may
 * skip them). */
Test(kernel_bound, macs_count_as_often_as_they_run) {
  char unit[8];
  uint64_t b = bound_of("void g(const float A[1024][256], const float B[256][256], float C[1024][256], int T) {\n"
                        "  for (int i = 0; i < 1024; i++)\n"
                        "    for (int j = 0; j < 256; j++)\n"
                        "      for (int k = 0; k < 256; k++)\n"
                        "        if (i < 64)\n"
                        "          C[i][j] += A[i][k] * B[k][j];\n"
                        "  for (int t = 0; t < 0; t++)\n"
                        "    for (int i = 0; i < 1024; i++)\n"
                        "      for (int j = 0; j < 256; j++)\n"
                        "        for (int k = 0; k < 256; k++)\n"
                        "          C[i][j] += A[i][k] * B[k][j];\n"
                        "}\n",
                        "g", unit);
  cr_expect_str_eq(unit, "nu");
  cr_expect_eq(b, 64 * 256 * 256 / 256, "%llu", (unsigned long long)b);
  b = bound_of("void t(const float A[512][512], const float B[512][64], float C[512][64]) {\n"
               "  for (int i = 0; i < 512; i++)\n"
               "    for (int k = 0; k <= i; k++)\n"
               "      for (int j = 0; j < 64; j++)\n"
               "        C[i][j] += A[i][k] * B[k][j];\n"
               "}\n",
               "t", unit);
  cr_expect_str_eq(unit, "nu");
  cr_expect_eq(b, 512 * 513 / 2 * 64 / 256, "%llu", (unsigned long long)b);
  b = bound_of("void m(const float A[64][64], const float B[64][64], const float M[64][64], float C[64][64]) {\n"
               "  for (int i = 0; i < 64; i++)\n"
               "    for (int j = 0; j < 64; j++)\n"
               "      for (int k = 0; k < 64; k++)\n"
               "        if (M[i][k] > 0.5f)\n"
               "          C[i][j] += A[i][k] * B[k][j];\n"
               "}\n",
               "m", unit);
  cr_expect_str_eq(unit, "ddr");
}
