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

/* Found in review: unroll of a tensorized loop changed nothing; unroll of
 * the loop a double buffer alternates over (before or after the
 * double_buffer) silently dropped the double buffering. Both refused. */
Test(unroll, refused_where_it_would_undo_a_tensorize_or_a_double_buffer) {
  static const char *nu =
      "#include <stdint.h>\n"
      "void mm(const int8_t A[64][128], const int8_t B[128][64], int32_t C[64][64]) {\n"
      "  for (int i = 0; i < 64; i++)\n"
      "    for (int j = 0; j < 64; j++) {\n"
      "      C[i][j] = 0;\n"
      "      for (int k = 0; k < 128; k++)\n"
      "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
      "    }\n"
      "}\n";
  const char *staged = "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                       "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                       "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n";
  refused(nu, steps_then(staged, "#pragma npu unroll(ii)\n"),
          "k.c:16:20: error: unroll: loop ii is computed by one intrinsic call (npu_nu_matmul_i8); unroll replaces it "
          "by new loops, which would not be: unroll before tensorize or vectorize, or apply it to a loop around the "
          "nest");
  /* the same for every step that replaces the loop (split dropped the
   * intrinsic without a word before) */
  refused(nu, steps_then(staged, "#pragma npu split(ii, 4, i4, i1)\n"),
          "k.c:16:19: error: split: loop ii is computed by one intrinsic call (npu_nu_matmul_i8); split replaces it "
          "by new loops, which would not be: split before tensorize or vectorize, or apply it to a loop around the "
          "nest");
  refused(nu, steps_then(staged, "#pragma npu double_buffer(B_wb)\n#pragma npu unroll(jo)\n"),
          "k.c:17:20: error: unroll: B_wb is double-buffered over loop jo: its copies alternate over the loop's "
          "iterations, which unroll would make straight-line code; unroll a loop inside or around jo");
  refused(nu, steps_then(staged, "#pragma npu unroll(jo)\n#pragma npu double_buffer(B_wb)\n"),
          "k.c:17:27: error: double_buffer: B_wb is declared in loop jo, which is unrolled (unroll(jo), line 16): its "
          "copies would have no iterations to alternate over; double_buffer before the unroll is refused too");
  refused(nu, steps_then(staged, "#pragma npu unroll(jo)\n#pragma npu unroll(jo)\n"),
          "k.c:17:20: error: unroll: loop jo is already unrolled (unroll(jo), line 16)");
  /* around the nest, it stays: two copies of the tensorized nest */
  NpgSession *s = open_ok(nu, steps_then(staged, "#pragma npu unroll(jo)\n"));
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_assert(strstr(c, "npu_nu_matmul_i8(") && strstr(strstr(c, "npu_nu_matmul_i8(") + 1, "npu_nu_matmul_i8("),
            "two calls:\n%s", c);
  npg_close(s);
}

/* decompose_reduction copies the loops around the init: each copy keeps
 * its loop's kind (as TVM's does). Before, the init's copy of an unrolled
 * or parallel loop silently ran as a plain loop. A mark on a copy is
 * proven like every standing mark. */
Test(unroll, decompose_reduction_keeps_the_kind_of_the_loops_it_copies) {
  NpgSession *s = open_ok(mm, "#pragma npu schedule(mm, v)\n#pragma npu unroll(j)\n"
                              "#pragma npu decompose_reduction(init, i)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_assert_eq(count(c, "C[i][11] = 0;"), 1, "the init's copy of j is unrolled too:\n%s", c);
  lacks(c, "for (int j");
  npg_close(s);
  s = open_ok(mm, "#pragma npu schedule(mm, v)\n#pragma npu parallel(j)\n#pragma npu decompose_reduction(init, i)\n");
  c = npg_emit_source(s, checked(s, "v"));
  cr_assert_eq(count(c, "#pragma omp parallel for"), 2, "both j loops are parallel:\n%s", c);
  npg_close(s);
}

/* The init's copy of a tensorized loop is not tensorized (before, the
 * copy kept the intrinsic and the emitted C said a tensorize the user
 * never wrote "no longer matches"). */
Test(unroll, decompose_reduction_does_not_copy_a_tensorize) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void mm(const int8_t A[128][512], const int8_t B[512][64], int32_t C[128][64]) {\n"
                          "  for (int i = 0; i < 128; i++)\n"
                          "    for (int j = 0; j < 64; j++) {\n"
                          "      init: C[i][j] = 0;\n"
                          "      for (int k = 0; k < 512; k++)\n"
                          "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 64, 32, io, jo, ii, ji)\n"
                          "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                          "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"
                          "#pragma npu decompose_reduction(init, ii)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  lacks(c, "no longer matches");
  has(c, "npu_nu_matmul_i8(");
  npg_close(s);
}

/* Nested unrolls multiply: four of 64 made 16.7 million copies and grew
 * past 12 GB before an abort (exit 134). The step that would pass the
 * limit is refused before anything is copied; up to it, the copies run. */
Test(unroll, nested_unrolls_past_the_size_limit_are_refused_at_their_step) {
  const char *k4 = "void k(const int A[64][64][64][64], int B[64][64][64][64]) {\n"
                   "  for (int a = 0; a < 64; a++)\n"
                   "    for (int b = 0; b < 64; b++)\n"
                   "      for (int c = 0; c < 64; c++)\n"
                   "        for (int d = 0; d < 64; d++)\n"
                   "          B[a][b][c][d] = A[a][b][c][d] + 1;\n"
                   "}\n";
  refused(k4, "#pragma npu schedule(k, v)\n#pragma npu unroll(a)\n#pragma npu unroll(b)\n#pragma npu unroll(c)\n"
              "#pragma npu unroll(d)\n",
          "k.c:11:13: error: unroll: the kernel is too large: once its unrolled loops are expanded it would hold more "
          "than 65536 statements; unroll fewer nested loops, or by a smaller factor (unroll(loop, f))");
  /* the same in the other order, and by factors: the step that passes it */
  refused(k4, "#pragma npu schedule(k, v)\n#pragma npu unroll(d)\n#pragma npu unroll(c, 32)\n#pragma npu unroll(b, 64)\n",
          "k.c:11:13: error: unroll: the kernel is too large: once its unrolled loops are expanded it would hold more "
          "than 65536 statements; unroll fewer nested loops, or by a smaller factor (unroll(loop, f))");
  const char *small = "void k(const int A[8][8][8], int B[8][8][8]) {\n"
                      "  for (int a = 0; a < 8; a++)\n"
                      "    for (int b = 0; b < 8; b++)\n"
                      "      for (int c = 0; c < 8; c++)\n"
                      "        B[a][b][c] = A[a][b][c] + 1;\n"
                      "}\n";
  NpgSession *s = open_ok(small, "#pragma npu schedule(k, v)\n#pragma npu unroll(b)\n#pragma npu unroll(c)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_expect_eq(count(c, "B[a]["), 64, "%s", c);
  npg_close(s);
}
