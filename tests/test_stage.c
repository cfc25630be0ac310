/* stage (schedule/stage.c): a subexpression of a statement computed first
 * into a new local array, the inverse of compute_inline. Every accepted
 * variant is JIT-run against its kernel (bit-exact: each value is computed
 * as before); refusals name what is wrong, and a stage that would share
 * its array between the iterations of a parallel loop is refused by the
 * mark's standing proof. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *softmax_rows =
    "#include <math.h>\n"
    "#define R 16\n"
    "#define C 32\n"
    "void k(const float x[R][C], const float m[R], const float s[R], float y[R][C]) {\n"
    "  for (int i = 0; i < R; i++)\n"
    "    for (int j = 0; j < C; j++)\n"
    "      y_def: y[i][j] = expf(x[i][j] - m[i]) / s[i];\n"
    "}\n";

static const char *triangle =
    "#include <math.h>\n"
    "void k(const float x[16][16], const float m[16], float y[16][16]) {\n"
    "  for (int i = 0; i < 16; i++)\n"
    "    for (int j = 0; j <= i; j++)\n"
    "      y_def: y[i][j] = expf(x[i][j] - m[i]) * 2.0f;\n"
    "}\n";

Test(stage, a_subexpression_becomes_a_step_of_its_own) {
  NpgSession *s = open_ok(softmax_rows, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, \"expf(x[i][j] - m[i])\", e)\n"
                                        "#pragma npu fission(j, e)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float e[16][32];");
  has(c, "e[i][j] = expf(x[i][j] - m[i]);");
  has(c, "y[i][j] = e[i][j] / s[i];");
  /* fission made two j loops: the stage is a loop of its own */
  const char *first = strstr(c, "for (int j");
  cr_assert(first && strstr(first + 1, "for (int j"), "two j loops:\n%s", c);
  npg_close(s);
}

Test(stage, an_unquoted_expression_and_a_triangular_loop) {
  NpgSession *s = open_ok(triangle, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, x[i][j] - m[i], d)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float d[16][16];"); /* j's values over the triangle: 0 .. 15 */
  has(c, "y[i][j] = expf(d[i][j]) * 2.0f;");
  npg_close(s);
}

Test(stage, a_stage_shared_by_the_iterations_of_a_parallel_loop_is_refused) {
  refused(triangle, "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu stage(y_def, \"m[i]\", t)\n",
          "k.c:9:13: error: stage: illegal: loop j is parallel (parallel(j), line 8), and after this step it would "
          "carry the output dependence on t from t (line 5) to t (line 5), distance (0, 1)");
  NpgSession *s = open_ok(triangle, "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n"
                                    "#pragma npu stage(y_def, \"x[i][j] - m[i]\", t)\n");
  checked(s, "v");
  npg_close(s);
}

Test(stage, refusals_say_why) {
  refused(softmax_rows, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, \"x[i][j] + m[i]\", e)\n",
          "k.c:10:26: error: stage: 'x[i][j] + m[i]' does not occur in y_def (line 7), whose right-hand side is "
          "expf(x[i][j] - m[i]) / s[i]");
  refused(softmax_rows, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, \"x[i][q]\", e)\n",
          "k.c:10:32: error: 'q' is not declared");
  refused(softmax_rows, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, \"2.0f\", e)\n",
          "k.c:10:26: error: stage: '2.0f' is a name or a constant: staging it computes nothing");
  refused(softmax_rows, "#pragma npu schedule(k, v)\n#pragma npu stage(y_def, \"s[i]\", m)\n",
          "k.c:10:34: error: stage: the name 'm' is already used in v; new loops and buffers need fresh names");
}

/* Found in review: a value the kernel computes only under a condition
 * must not be computed first (here a read before x's first element, and
 * a division by zero where d[i] is 0). */
Test(stage, a_value_computed_only_under_a_condition_is_refused) {
  static const char *guarded =
      "#include <stdint.h>\n"
      "void k(const float x[16], const int32_t d[16], float y[16], int32_t z[16]) {\n"
      "  for (int i = 0; i < 16; i++) {\n"
      "    ydef: y[i] = i > 0 ? x[i - 1] * 2.0f : 0.0f;\n"
      "    zdef: z[i] = d[i] != 0 && 100 / d[i] > 3;\n"
      "  }\n"
      "}\n";
  refused(guarded, "#pragma npu schedule(k, v)\n#pragma npu stage(ydef, \"x[i - 1] * 2.0f\", e)\n",
          "k.c:9:25: error: stage: 'x[i - 1] * 2.0f' occurs in ydef (line 4) only where a condition guards it (a branch "
          "of ?:, the right of && or ||): computed first, it would run where the kernel does not");
  refused(guarded, "#pragma npu schedule(k, v)\n#pragma npu stage(zdef, \"100 / d[i]\", q)\n",
          "k.c:9:25: error: stage: '100 / d[i]' occurs in zdef (line 5) only where a condition guards it (a branch of "
          "?:, the right of && or ||): computed first, it would run where the kernel does not");
  /* the condition itself is always computed */
  NpgSession *s = open_ok(guarded, "#pragma npu schedule(k, v)\n#pragma npu stage(zdef, \"d[i] != 0\", nz)\n");
  checked(s, "v");
  npg_close(s);
}
