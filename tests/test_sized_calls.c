/* Programs calling kernels with symbolic sizes (docs/programs.md, "Calls
 * of kernels with sizes"): the call's sizes are constants or the caller's
 * own sizes, the callee's assumptions and derived preconditions hold at
 * them (or the call is refused, naming the one that does not), and use
 * and inline work on such a call. Each program variant is JIT-run
 * against the program as written. Before: "calls of such kernels are not
 * supported yet". */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* scale(n, x[n], y[n], s), and a variant of it split by 16. */
#define SCALE                                                    \
  "void scale(int n, const float x[n], float y[n], float s) {\n" \
  "  for (int i = 0; i < n; i++)\n"                              \
  "    mul: y[i] = x[i] * s;\n"                                  \
  "}\n"                                                          \
  "#pragma npu assume(scale, n <= 4096)\n"                       \
  "#pragma npu schedule(scale, scale_t)\n"                       \
  "#pragma npu split(i, 16, io, ii)\n"

/* src is refused, and its messages hold want. */
static void refused_with(const char *src, const char *want) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_gt(npg_error_count(s), 0, "accepted:\n%s", src);
  has(npg_errors(s), want);
  npg_close(s);
}

/* A program of constant sizes calls scale twice at n = 64: as written,
 * through use of the split variant, and inlined. The emitted program
 * holds scale_t as a static function of its own sizes, called with 64;
 * the inlined call's loop runs to 64. */
static void a_program_calls_a_sized_kernel_at_constant_sizes(void) {
  NpgSession *s = open_ok(SCALE "void net(const float a[64], float b[64]) {\n"
                                "  float t[64];\n"
                                "  s1: scale(64, a, t, 2.0f);\n"
                                "  s2: scale(64, t, b, 0.5f);\n"
                                "}\n",
                          "#pragma npu schedule(net, net_t)\n#pragma npu use(s1, scale_t)\n#pragma npu inline(s2)\n");
  const char *c = npg_emit_source(s, checked_once(s, "net_t"));
  has(c, "static void scale_t(int n, const float x[NPUGEN_FIRST_EXTENT(n)], float y[NPUGEN_FIRST_EXTENT(n)], float s) {\n  NPUGEN_ASSUME(n <= 4096);");
  has(c, "  scale_t(64, a, t, 2.0f); /* s1, line 10 */\n  float s2_s = 0.5f;\n");
  has(c, "  for (int i = 0; i < 64; i++) {\n    b[i] = t[i] * s2_s; /* s2_mul */");
  npg_close(s);
}

/* A program with a size of its own passes it through, to a callee whose
 * rows are sized too (a flat pointer in tcc's C): its assumption m <= 64
 * follows from the program's (isl); a call inside a called kernel takes
 * the outer call's constant. */
static void a_sized_program_passes_its_sizes_through(void) {
  NpgSession *s = open_ok("void sc2(int n, int m, float a[n][m], float s) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < m; j++)\n"
                          "      a[i][j] = a[i][j] * s;\n"
                          "}\n"
                          "#pragma npu assume(sc2, m <= 64)\n"
                          "#pragma npu schedule(sc2, sc2_t)\n#pragma npu split(j, 4, jo, ji)\n"
                          "void inner(int n, float b[n][8]) {\n"
                          "  sc2(n, 8, b, 3.0f);\n"
                          "}\n"
                          "void net(int r, float A[r][8], float B[6][8]) {\n"
                          "  sc2(r, 8, A, 2.0f);\n"
                          "  inner(6, B);\n"
                          "}\n"
                          "#pragma npu sizes(net, r = 5)\n",
                          "#pragma npu schedule(net, net_t)\n#pragma npu use(sc2, sc2_t)\n"
                          "#pragma npu inline(inner)\n#pragma npu use(inner_sc2, sc2_t)\n");
  const char *c = npg_emit_source(s, checked_once(s, "net_t"));
  has(c, "  sc2_t(r, 8, A, 2.0f); /* sc2, line 13 */\n");
  has(c, "  sc2_t(6, 8, B, 3.0f); /* inner_sc2, line 10 */\n");
  npg_close(s);
}

/* The callee's assumptions and preconditions at the call: an assumption
 * a constant breaks, a precondition npugen derived (z[121] indexed up to
 * n), one the caller's assumptions do not imply; a size that is not an
 * integer expression of constants and the caller's parameters (a loop
 * counter, a float); an array of another extent. */
static void a_call_that_breaks_the_callees_assumptions_is_refused(void) {
  refused_with(SCALE "void net(const float a[8000], float b[8000]) {\n  scale(8000, a, b, 2.0f);\n}\n",
               "k.c:9:3: error: call scale of 'scale' passes n = 8000: that breaks its assumption 'n <= 4096' (line 5)");
  refused_with("void sz(int n, const float x[n], float y[n]) {\n"
               "  float z[121];\n"
               "  for (int i = 0; i < n; i++)\n"
               "    z[i] = x[i];\n"
               "  for (int i = 0; i < n; i++)\n"
               "    y[i] = z[i];\n"
               "}\n"
               "void net(const float a[200], float b[200]) {\n  sz(200, a, b);\n}\n",
               "k.c:9:3: error: call sz of 'sz' passes n = 200: that breaks its precondition 'n <= 121' (line 4: index "
               "'i' must stay within dimension 1 of local array 'z' (extent 121))");
  refused_with(SCALE "#pragma npu assume(scale, n % 4 == 0)\n"
                     "void net(int m, const float a[m], float b[m]) {\n  scale(m, a, b, 2.0f);\n}\n"
                     "#pragma npu assume(net, m <= 1000)\n",
               "k.c:10:3: error: call scale of 'scale': its assumption 'n % 4 == 0' (line 8) does not follow from net's "
               "assumptions at this call ('m % 4 == 0'); assume it (#pragma npu assume(net, ...))");
  refused_with(SCALE "void net(const float a[64], float b[64]) {\n"
                     "  for (int k = 1; k < 3; k++)\n    scale(k, a, b, 2.0f);\n}\n",
               "k.c:10:11: error: argument 1 of 'scale' is its size 'n', which sizes its arrays or bounds its loops: "
               "pass an integer constant or an integer expression of net's integer parameters, not 'k'");
  refused_with(SCALE "void net(const float a[64], float b[64]) {\n  scale(64.0f, a, b, 2.0f);\n}\n",
               "k.c:9:9: error: argument 1 of 'scale' is its size 'n', which sizes its arrays or bounds its loops: "
               "pass an integer constant or an integer expression of net's integer parameters, not '64.0f'");
  refused_with(SCALE "void net(const float a[64], float b[64]) {\n  scale(32, a, b, 2.0f);\n}\n",
               "k.c:9:13: error: argument 2 of 'scale': array 'a' is const float [64], but parameter 'x' of 'scale' "
               "(line 1) is const float [n] ([32] at this call)");
}

/* The parts above run as one test (one process: under ASan a process
 * costs more than the checks themselves). */
Test(sized_calls, programs_call_kernels_with_sizes) {
  a_program_calls_a_sized_kernel_at_constant_sizes();
  a_sized_program_passes_its_sizes_through();
  a_call_that_breaks_the_callees_assumptions_is_refused();
}
