/* unroll (schedule/unroll.c): an unrolled loop stays one loop while the
 * schedule goes on, so the legality model sees one statement, a mark set
 * inside it holds in every copy, reorder may move it, and the steps that
 * would replace it or anchor on it are refused; sched_finish makes the
 * copies once the schedule is done. Every accepted variant is JIT-run
 * against its kernel. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *mm =
    "void mm(const float A[16][32], const float B[32][12], float C[16][12]) {\n"
    "  for (int i = 0; i < 16; i++)\n"
    "    for (int j = 0; j < 12; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 32; k++)\n"
    "        update: C[i][j] += A[i][k] * B[k][j];\n"
    "    }\n"
    "}\n";

static const char *rows =
    "void rows(const float A[4][64], float B[4][64]) {\n"
    "  for (int r = 0; r < 4; r++)\n"
    "    for (int j = 0; j < 64; j++)\n"
    "      s: B[r][j] = A[r][j] * 2.0f;\n"
    "}\n";

static int count(const char *text, const char *part) {
  int n = 0;
  for (const char *p = strstr(text, part); p; p = strstr(p + 1, part)) n++;
  return n;
}

Test(unroll, a_mark_set_inside_an_unrolled_loop_holds_in_every_copy) {
  NpgSession *s = open_ok(rows, "#pragma npu schedule(rows, v)\n#pragma npu unroll(r)\n#pragma npu parallel(j)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_assert_eq(count(c, "#pragma omp parallel for"), 4, "each of the 4 copies of j is parallel:\n%s", c);
  lacks(c, "for (int r");
  npg_close(s);
}

Test(unroll, reorder_moves_an_unrolled_loop) {
  NpgSession *s = open_ok(rows, "#pragma npu schedule(rows, v)\n#pragma npu split(j, 16, jo, ji)\n#pragma npu unroll(r)\n"
                                "#pragma npu reorder(jo, r)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  /* 4 copies of the ji loop, one per row, inside jo */
  cr_assert_eq(count(c, "for (int ji"), 4, "4 copies of ji:\n%s", c);
  cr_assert(strstr(c, "for (int jo") < strstr(c, "for (int ji"), "jo is outside:\n%s", c);
  lacks(c, "for (int r");
  npg_close(s);
}

Test(unroll, a_step_that_would_replace_an_unrolled_loop_is_refused_naming_the_unroll) {
  const char *steps = "#pragma npu schedule(mm, v)\n#pragma npu split(k, 8, ko, ki)\n#pragma npu unroll(ki)\n";
  refused(mm, steps_then(steps, "#pragma npu split(ki, 2, k2, k1)\n"),
          "k.c:12:19: error: split: loop ki is unrolled (unroll(ki), line 11); split it before the unroll, or unroll less");
  refused(mm, steps_then(steps, "#pragma npu parallel(ki)\n"),
          "k.c:12:22: error: parallel: loop ki is unrolled (unroll(ki), line 11); parallel it before the unroll, or unroll less");
  refused(mm, steps_then(steps, "#pragma npu cache_read(A, dm, ki, A_dm)\n"),
          "k.c:12:31: error: cache_read: loop ki is unrolled (unroll(ki), line 11); cache_read it before the unroll, or "
          "unroll less");
}

Test(unroll, tensorize_over_an_unrolled_loop_is_refused) {
  refused(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(k, 8, ko, ki)\n#pragma npu unroll(ki)\n"
              "#pragma npu tensorize(j, npu_nu_matmul_f32)\n",
          "k.c:12:23: error: tensorize: loop ki under j is unrolled (unroll(ki), line 11), and one intrinsic call runs "
          "the whole nest; tensorize before the unroll");
}

/* A statement in an unrolled loop is still one statement: its label names
 * it, where the copies made it ambiguous before. */
Test(unroll, a_statement_in_an_unrolled_loop_keeps_its_name) {
  NpgSession *s = open_ok(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(i, 4, io, ii)\n#pragma npu unroll(ii)\n"
                              "#pragma npu decompose_reduction(init, j)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  lacks(c, "for (int ii");
  npg_close(s);
}

/* unroll(loop, f): the f copies are made at the end too, and a remainder
 * loop takes what f does not divide. */
Test(unroll, by_a_factor_with_a_remainder_runs_every_iteration) {
  NpgSession *s = open_ok(rows, "#pragma npu schedule(rows, v)\n#pragma npu unroll(j, 5)\n#pragma npu vectorize(j)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "j += 5");
  npg_close(s);
}
