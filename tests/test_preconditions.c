/* Preconditions npugen derives (ir/preconditions.c, docs/limits.md): a
 * kernel undefined only at some sizes (an extent or a loop bound that
 * overflows, a counter past its type, an index past a local) is accepted
 * with the condition under which it is defined: a note says it, the
 * header states it, the variants are proven and checked under it, and the
 * emitted function tests it at entry. Each of these kernels was refused
 * before. Sizes are given small, to keep the checks cheap. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char conv3x3[] =
    "#include <stdint.h>\n"
    "void conv3x3(int h, int w, const int8_t in[h + 2][w + 2], const int8_t k[3][3], int32_t out[h][w]) {\n"
    "  for (int y = 0; y < h; y++)\n"
    "    for (int x = 0; x < w; x++) {\n"
    "      int32_t acc = 0;\n"
    "      for (int dy = 0; dy < 3; dy++)\n"
    "        for (int dx = 0; dx < 3; dx++)\n"
    "          acc += (int32_t)in[y + dy][x + dx] * (int32_t)k[dy][dx];\n"
    "      out[y][x] = acc;\n"
    "    }\n"
    "}\n";

static const char heat[] = "void heat(int tsteps, int n, float a[n]) {\n"
                           "  for (int t = 1; t <= tsteps; t++)\n"
                           "    for (int i = 1; i < n - 1; i++)\n"
                           "      a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;\n"
                           "}\n";

static const char local[] = "void loc(int n, float a[n]) {\n"
                            "  float z[122];\n"
                            "  for (int i = 0; i <= n; i++)\n"
                            "    z[i] = a[0];\n"
                            "  a[0] = z[0];\n"
                            "}\n";

/* Runs variant v of s with args, which must fail the entry test `want`. */
static void entry_fails(NpgSession *s, const char *variant, void **args, const char *want) {
  NpgJit *j = npg_jit_variant(s, npg_variant_index(s, variant));
  cr_assert(j && !npg_jit_error(j), "%s", j ? npg_jit_error(j) : "no jit");
  cr_expect(!npg_jit_run(j, args));
  has(npg_jit_error(j), want);
  npg_jit_free(j);
}

static void passes(NpgSession *s, const char *variant) {
  NpgCheckResult r;
  cr_expect(npg_check(s, npg_variant_index(s, variant), 1, &r), "%s: %s", variant, r.message);
}

/* `in[h + 2][w + 2]` overflows only at h or w near INT_MAX. */
Test(preconditions, an_extent_that_overflows_at_some_sizes_is_a_precondition) {
  NpgSession *s = open_ok(conv3x3, "#pragma npu sizes(conv3x3, h = 5, w = 6)\n"
                                   "#pragma npu schedule(conv3x3, conv3x3_tiled)\n"
                                   "#pragma npu tile(y, x, 4, 4, yo, xo, yi, xi)\n");
  has(npg_errors(s), "k.c:2:44: note: npugen assumes h <= 2147483645 (array extent 'h + 2' must fit int); the "
                     "emitted function tests it at entry (NPUGEN_ASSUME)\n");
  has(npg_errors(s), "k.c:2:51: note: npugen assumes w <= 2147483645 (array extent 'w + 2' must fit int)");
  has(npg_emit_header(s, npg_variant_index(s, "conv3x3_tiled")),
      " *   h <= 2147483645 (derived: array extent 'h + 2' must fit int)\n"
      " *   w <= 2147483645 (derived: array extent 'w + 2' must fit int)\n");
  has(npg_emit_source(s, npg_variant_index(s, "conv3x3_tiled")), "  NPUGEN_ASSUME(h <= 2147483645);\n");
  /* C evaluates a parameter's extents at entry, before the tests: `h + 2`
   * overflowed at h = INT_MAX first (UBSan saw it; trial of issue 42, D9).
   * The definition and the header's C prototype (gcc's -Wvla-parameter
   * wants one spelling) compute them in long long; tcc's and C++'s flat
   * prototypes keep them as written, in a comment. */
  has(npg_emit_source(s, 0), "void conv3x3(int h, int w, const int8_t in[(long long)h + 2][(long long)w + 2], "
                             "const int8_t k[3][3], int32_t out[h][w]) {\n");
  const char *header = npg_emit_header(s, 0);
  has(header, "void conv3x3(int h, int w, const int8_t in[(long long)h + 2][(long long)w + 2], const int8_t k[3][3], "
              "int32_t out[h][w]);\n");
  has(header, "const int8_t *in /* [h + 2][w + 2] */");
  passes(s, "conv3x3");
  passes(s, "conv3x3_tiled"); /* the tile's proofs hold under it */
  int h = INT_MAX - 1, w = 4;
  int8_t in[1] = {0}, k[3][3] = {{0}};
  int32_t out[1] = {0};
  void *args[] = {&h, &w, in, k, out};
  entry_fails(s, "conv3x3_tiled", args,
              "an assumption of the kernel does not hold at these sizes: NPUGEN_ASSUME(h <= 2147483645)");
  npg_close(s);
}

/* A local counter incremented n * m times is undefined past INT_MAX: the
 * count is a product of sizes, which isl's affine sets cannot hold, so
 * the condition is derived from the nest's shape, in a form whose own
 * arithmetic cannot overflow, and tested at entry (before: no note, no
 * test; found by a new user's trial of issue 42, D8). */
Test(preconditions, a_counter_of_iterations_past_its_type_is_a_precondition) {
  NpgSession *s = open_ok("void count(int n, int m, int out[1]) {\n  int c = 0;\n  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < m; j++)\n      c++;\n  out[0] = c;\n}\n",
                          "#pragma npu sizes(count, n = 3, m = 5)\n");
  const char *cond = "n <= 0 || m <= 0 || n <= 2147483647 / m";
  char want[256];
  snprintf(want, sizeof want, "k.c:5:7: note: npugen assumes %s (counter 'c' must stay within int after the loops "
                              "around it); the emitted function tests it at entry (NPUGEN_ASSUME)\n", cond);
  has(npg_errors(s), want);
  snprintf(want, sizeof want, " *   %s (derived: counter 'c' must stay within int after the loops around it)\n", cond);
  has(npg_emit_header(s, 0), want);
  snprintf(want, sizeof want, "  NPUGEN_ASSUME(%s);\n", cond);
  has(npg_emit_source(s, 0), want);
  passes(s, "count");
  int n = 65536, m = 32768, out[1] = {0}; /* 2^31 increments */
  void *args[] = {&n, &m, out};
  snprintf(want, sizeof want, "NPUGEN_ASSUME(%s)", cond);
  entry_fails(s, "count", args, want);
  npg_close(s);
  /* a constant loop and a step: 2147483647 / 2 / 4 */
  s = open_ok("void count(int n, int out[1]) {\n  int c = 1;\n  for (int i = 0; i < n; i++)\n"
              "    for (int j = 0; j < 4; j++)\n      c += 2;\n  out[0] = c;\n}\n",
              "");
  has(npg_errors(s), "note: npugen assumes n <= 0 || n <= 268435455 (counter 'c' must stay within int");
  npg_close(s);
}

/* `t <= tsteps` would pass INT_MAX after its last iteration at tsteps = INT_MAX. */
Test(preconditions, a_counter_past_its_type_at_some_sizes_is_a_precondition) {
  NpgSession *s = open_ok(heat, "#pragma npu sizes(heat, tsteps = 3, n = 9)\n"
                                "#pragma npu schedule(heat, heat_split)\n#pragma npu split(t, 2, to, ti)\n");
  has(npg_errors(s), "k.c:2:3: note: npugen assumes tsteps <= 2147483646 (loop counter 't' must stay within int "
                     "after the last iteration)");
  passes(s, "heat_split");
  int tsteps = INT_MAX, n = 3;
  float a[3] = {0};
  void *args[] = {&tsteps, &n, a};
  entry_fails(s, "heat", args, "NPUGEN_ASSUME(tsteps <= 2147483646)");
  npg_close(s);
}

/* z[i] with i <= n is in bounds for n <= 121; the counter's own
 * condition (n <= 2147483646) follows from it and is not kept. The
 * check's default size sets stay inside it. */
Test(preconditions, an_index_past_a_local_at_some_sizes_is_a_precondition) {
  NpgSession *s = open_ok(local, "");
  const char *notes = npg_errors(s);
  has(notes, "k.c:4:7: note: npugen assumes n <= 121 (index 'i' must stay within dimension 1 of local array 'z' "
             "(extent 122))");
  lacks(notes, "2147483646");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  has(r.summary, "(n = 121)");
  lacks(r.summary, "(n = 257)");
  npg_close(s);
  /* what a caller needs for a call's inlined body is noted at the call,
   * naming the callee's own precondition (before: at the callee's line 4,
   * as if the caller's code were there; trial of issue 42) */
  char src[1024];
  snprintf(src, sizeof src, "%svoid prog(int m, float b[m]) {\n  loc(m, b);\n}\n", local);
  s = open_ok(src, "");
  notes = npg_errors(s);
  has(notes, "k.c:8:3: note: npugen assumes m <= 121 (call loc of 'loc' needs it: its precondition 'n <= 121' (line 4: "
             "index 'i' must stay within dimension 1 of local array 'z' (extent 122))); the emitted function tests it at "
             "entry (NPUGEN_ASSUME)\n");
  lacks(notes, "k.c:4:7: note: npugen assumes m");
  npg_close(s);
}

/* Several sizes: the test is in long long, so that it cannot overflow itself. */
Test(preconditions, a_condition_on_several_sizes_is_tested_in_long_long) {
  NpgSession *s = open_ok("void two(int n, int m, float a[n + m]) {\n"
                          "  for (int i = 0; i < n + m; i++)\n    a[i] = 1.0f;\n}\n",
                          "#pragma npu sizes(two, n = 3, m = 4)\n");
  has(npg_errors(s), "note: npugen assumes (long long)n + (long long)m <= 2147483647ll (array extent 'n + m' must "
                     "fit int)");
  passes(s, "two");
  int n = 2000000000, m = 2000000000;
  float a[1] = {0};
  void *args[] = {&n, &m, a};
  entry_fails(s, "two", args, "NPUGEN_ASSUME((long long)n + (long long)m <= 2147483647ll)");
  npg_close(s);
}

/* An explicit assume narrows the sizes: nothing is left to derive. */
Test(preconditions, an_assumption_that_covers_it_leaves_nothing_to_derive) {
  NpgSession *s = open_ok(conv3x3, "#pragma npu assume(conv3x3, h <= 4096, w <= 4096)\n");
  lacks(npg_errors(s), "npugen assumes");
  has(npg_emit_header(s, 0), " *   h <= 4096 (assumed)\n *   w <= 4096 (assumed)\n");
  npg_close(s);
  s = open_ok(local, "#pragma npu assume(loc, n <= 50)\n");
  lacks(npg_errors(s), "npugen assumes");
  npg_close(s);
}

/* A condition no allowed size satisfies stays an error. */
Test(preconditions, a_condition_no_size_satisfies_stays_an_error) {
  const char *pragma = "#pragma npu assume(loc, n >= 200)\n";
  char src[1024];
  snprintf(src, sizeof src, "%s%s", local, pragma);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_expect_gt(npg_error_count(s), 0);
  has(npg_errors(s), "k.c:4:7: error: index 'i' leaves dimension 1 of 'z' (extent 122) at every size the "
                     "assumptions allow");
  lacks(npg_errors(s), "npugen assumes n <=");
  npg_close(s);
}

/* A tiled gemm over three sizes needs no assume; its header states what
 * it tests at entry, and a call with an empty extent fails there. */
Test(preconditions, a_tiled_gemm_over_three_sizes_states_its_entry_tests) {
  NpgSession *s = open_ok("void gemm(int m, int n, int k, const float A[m][k], const float B[k][n], float C[m][n]) {\n"
                          "  for (int i = 0; i < m; i++)\n    for (int j = 0; j < n; j++) {\n"
                          "      C[i][j] = 0.0f;\n      for (int l = 0; l < k; l++)\n"
                          "        C[i][j] += A[i][l] * B[l][j];\n    }\n}\n",
                          "#pragma npu sizes(gemm, m = 9, n = 5, k = 3)\n"
                          "#pragma npu schedule(gemm, gemm_tiled)\n#pragma npu tile(i, j, 4, 4, io, jo, ii, ji)\n");
  passes(s, "gemm_tiled");
  has(npg_emit_header(s, npg_variant_index(s, "gemm_tiled")),
      " * Preconditions, each tested at entry by NPUGEN_ASSUME(c): a failed one calls abort(), unless the .c\n"
      " * is compiled with a definition of NPUGEN_ASSUME of the caller's (-include; docs/limits.md):\n"
      " *   m >= 1 (an extent of A)\n");
  int m = 0, n = 4, k = 4;
  float A[1] = {0}, B[16] = {0}, C[1] = {0};
  void *args[] = {&m, &n, &k, A, B, C};
  entry_fails(s, "gemm_tiled", args, "NPUGEN_ASSUME(m >= 1)");
  npg_close(s);
}

/* A long size's condition lies near the end of int64_t, and is said
 * exactly; as an array's extent, a long or unsigned size is at most
 * 2^31 - 1 (an array's limit along a dimension), which implies the
 * other (trial 42b, D2: an unsigned size's cache asked for an assume). */
Test(preconditions, a_long_size_gets_its_condition_near_the_type_end) {
  NpgSession *s = open_ok("void l(long m, float b[1000]) {\n  for (long j = 0; j <= m; j++)\n"
                          "    b[j % 1000] = 2.0f;\n}\n", "");
  has(npg_errors(s), "k.c:2:3: note: npugen assumes m <= 9223372036854775806l (loop counter 'j' must stay within long "
                     "after the last iteration)");
  has(npg_emit_source(s, 0), "  NPUGEN_ASSUME(m <= 9223372036854775806l);\n");
  npg_close(s);
  s = open_ok("void l(long m, unsigned n, float b[m + 1], float c[n + 1]) {\n  for (long j = 0; j <= m; j++)\n"
              "    b[j] = 2.0f;\n  for (unsigned i = 0; i < n; i++)\n    c[i] = 2.0f;\n}\n", "");
  has(npg_errors(s), "k.c:1:36: note: npugen assumes m <= 2147483646l (array extent 'm + 1' must be at most "
                     "2147483647)");
  has(npg_errors(s), "k.c:1:52: note: npugen assumes n <= 2147483646u (array extent 'n + 1' must be at most "
                     "2147483647)");
  /* the extent evaluated at entry in unsigned long long, which wraps
   * instead of overflowing; an unsigned extent as written (D9) */
  has(npg_emit_source(s, 0), "void l(long m, unsigned n, float b[NPUGEN_FIRST_EXTENT((unsigned long long)m + 1)], float c[NPUGEN_FIRST_EXTENT(n + 1)]) {\n");
  has(npg_emit_source(s, 0), "  NPUGEN_ASSUME(m <= 2147483646l);\n");
  npg_close(s);
}

/* A loop bound that overflows (n + 1), then the counter of step 2 past
 * it: one condition is kept, the one that implies the other. An unsigned
 * extent is at most an array's 2^31 - 1 (before, n <= 4294967294u, so
 * that n + 1 would not wrap). */
Test(preconditions, a_loop_bound_and_an_unsigned_extent_get_their_conditions) {
  NpgSession *s = open_ok("void lb(int n, float a[1000]) {\n  for (int i = 0; i < n + 1; i += 2)\n"
                          "    a[i % 1000] = 1.0f;\n}\n",
                          "");
  has(npg_errors(s), "k.c:2:3: note: npugen assumes n <= 2147483645 (loop counter 'i' must stay within int after "
                     "the last iteration)");
  lacks(npg_errors(s), "2147483646");
  npg_close(s);
  s = open_ok("void u(unsigned n, float a[n + 1]) {\n  for (unsigned i = 0; i <= n; i++)\n    a[i] = 1.0f;\n}\n", "");
  has(npg_errors(s), "k.c:1:28: note: npugen assumes n <= 2147483646u (array extent 'n + 1' must be at most 2147483647)");
  npg_close(s);
}

/* A size set that breaks a derived precondition names it as one, with
 * why npugen derived it (it read "breaks the assumption 'n <= 121'",
 * which the user never wrote; found by a new user's trial of issue 42). */
Test(preconditions, a_size_set_past_a_derived_precondition_names_it) {
  char src[1024];
  snprintf(src, sizeof src, "%s#pragma npu sizes(loc, n = 200)\n", local);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_expect_gt(npg_error_count(s), 0);
  has(npg_errors(s), "k.c:7:13: error: n = 200 breaks the precondition 'n <= 121' (line 4: index 'i' must stay within "
                     "dimension 1 of local array 'z' (extent 122)) of loc\n");
  npg_close(s);
}
