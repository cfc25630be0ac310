/* reorder of a triangular nest (schedule/reorder_bounds.c): isl computes
 * the bounds of the loops in their new order; what is not one affine bound
 * with a unit coefficient is refused, and so is a reorder that reverses a
 * dependence. Every accepted variant is JIT-run against its kernel. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *upper =
    "void k(const float A[16][16], float B[16][16]) {\n"
    "  for (int i = 0; i < 16; i++)\n"
    "    for (int j = i + 1; j < 16; j++)\n"
    "      B[i][j] = A[i][j] * 2.0f;\n"
    "}\n";

/* forward substitution, row by row: reordered, it sweeps by columns */
static const char *trsv =
    "void k(const float L[16][16], float x[16]) {\n"
    "  for (int i = 0; i < 16; i++)\n"
    "    for (int j = 0; j < i; j++)\n"
    "      s: x[i] -= L[i][j] * x[j];\n"
    "}\n";

Test(reorder_triangle, the_bounds_are_computed_for_the_new_order) {
  NpgSession *s = open_ok(upper, "#pragma npu schedule(k, v)\n#pragma npu reorder(j, i)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "for (int j = 1; j < 16; j++) {");
  has(c, "for (int i = 0; i < j; i++) {");
  npg_close(s);
}

Test(reorder_triangle, forward_substitution_becomes_a_column_sweep) {
  NpgSession *s = open_ok(trsv, "#pragma npu schedule(k, v)\n#pragma npu reorder(j, i)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "for (int j = 0; j < 15; j++) {");
  has(c, "for (int i = j + 1; i < 16; i++) {");
  npg_close(s);
}

Test(reorder_triangle, a_reversed_dependence_is_refused) {
  refused("void k(float A[16][16]) {\n"
          "  for (int i = 1; i < 16; i++)\n"
          "    for (int j = 0; j < i; j++)\n"
          "      s: A[i][j] = A[i - 1][j + 1] + 1;\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu reorder(j, i)\n",
          "k.c:7:13: error: reorder: illegal: it reverses the flow dependence on A from s (line 4) to s (line 4), "
          "distance (1, -1)");
}

Test(reorder_triangle, a_bound_with_a_coefficient_is_refused) {
  refused("void k(const float A[16][32], float B[16][32]) {\n"
          "  for (int i = 0; i < 16; i++)\n"
          "    for (int j = 0; j < 2 * i + 1; j++)\n"
          "      B[i][j] = A[i][j];\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu reorder(j, i)\n",
          "k.c:7:21: error: reorder: loop j's bounds depend on i, which would run inside it, and npugen cannot bound "
          "it in the new order: a new bound has a stride or a coefficient other than 1");
}
