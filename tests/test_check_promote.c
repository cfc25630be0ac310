/* The check's C of a variant keeps an element that an innermost loop
 * accumulates into in a local (lower/variant_promote.c): which loops it
 * promotes, and that the promoted text checks exactly what the variant
 * computes. Each kernel is also checked end to end: a promotion that
 * changed the result would fail against the reference. */
#include <criterion/criterion.h>
#include <string.h>

#include "jit/session.h"
#include "lower/variant_promote.h"
#include "npugen.h"

static NpgSession *open_src(const char *src) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_errors(s)[0], '\0', "%s", npg_errors(s));
  return s;
}

/* The number of assignments to a local scalar named npg_acc... */
static int count_acc(const Stmt *s) {
  int n = 0;
  for (; s; s = s->next) {
    if (s->kind == ST_ASSIGN && s->lhs->kind == EX_VAR && !strncmp(s->lhs->var->name, "npg_acc", 7)) n++;
    n += count_acc(s->body) + (s->then_s ? count_acc(s->then_s) : 0) + (s->else_s ? count_acc(s->else_s) : 0);
  }
  return n;
}

/* Loops of variant 0 promoted for the check; it then passes the check. */
static int promoted(const char *src) {
  NpgSession *s = open_src(src);
  const Kernel *k = lower_check_promote(&s->m->arena, s->v[0].ir, s->v[0].low);
  int n = k == s->v[0].low ? 0 : count_acc(k->body);
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
  return n;
}

Test(check_promote, matmul_accumulation_is_promoted) {
  cr_expect_eq(promoted("#include <stdint.h>\n"
                        "void k(const int8_t A[16][32], const int8_t B[32][8], int32_t C[16][8]) {\n"
                        "  for (int i = 0; i < 16; i++)\n"
                        "    for (int j = 0; j < 8; j++) {\n"
                        "      C[i][j] = 0;\n"
                        "      for (int k = 0; k < 32; k++)\n"
                        "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
                        "    }\n"
                        "}\n"),
               1);
}

/* `y[i] = y[i] * 3 + x[k]`: the element read on the right is the local
 * too; a decreasing loop runs once at least as well. */
Test(check_promote, a_plain_assignment_reading_its_element_is_promoted) {
  cr_expect_eq(promoted("void k(const float x[16], float y[8]) {\n"
                        "  for (int i = 0; i < 8; i++)\n"
                        "    for (int k = 15; k >= 0; k--)\n"
                        "      y[i] = y[i] * 0.5f + x[k];\n"
                        "}\n"),
               1);
  /* read inside another read's index, `A[C[i] & 7]`, it is the local
   * there too: the array holds the value from before the loop until the
   * store back after it (the check read the stale value there and failed
   * a correct variant: "C[0]: expected 10, got 25") */
  cr_expect_eq(promoted("#include <stdint.h>\n"
                        "void k(const int32_t A[8], int32_t C[4]) {\n"
                        "  for (int i = 0; i < 4; i++)\n"
                        "    for (int k = 0; k < 8; k++)\n"
                        "      C[i] = C[i] + A[C[i] & 7];\n"
                        "}\n"
                        "#pragma npu inputs(k, A, 0, 3)\n"
                        "#pragma npu inputs(k, C, 0, 3)\n"),
               1);
}

/* Another element of y read in the loop keeps the loop as written: the
 * local stands for y[i] only (were y[7 - i] read as the local, the check
 * would fail), and another spelling of y[i] would read a stale value. */
Test(check_promote, another_read_of_the_same_array_keeps_the_loop) {
  cr_expect_eq(promoted("void k(const float x[16], float y[8]) {\n"
                        "  for (int i = 0; i < 8; i++)\n"
                        "    for (int k = 0; k < 16; k++)\n"
                        "      y[i] += y[7 - i] * x[k];\n"
                        "}\n"),
               0);
}

/* The element changes with the loop's counter: nothing to keep. */
Test(check_promote, an_element_indexed_by_the_loop_keeps_the_loop) {
  cr_expect_eq(promoted("void k(const float x[16], float y[16]) {\n"
                        "  for (int k = 0; k < 16; k++)\n"
                        "    y[k] += x[k];\n"
                        "}\n"),
               0);
}

/* A loop that may not run (k < i at i = 0): promoted, y[i] would be read
 * and written where the kernel never touches it. */
Test(check_promote, a_loop_that_may_not_run_keeps_the_loop) {
  cr_expect_eq(promoted("void k(const float x[16], float y[16]) {\n"
                        "  for (int i = 0; i < 16; i++)\n"
                        "    for (int k = 0; k < i; k++)\n"
                        "      y[i] += x[k];\n"
                        "}\n"),
               0);
}

/* Two statements in the loop: left as written. */
Test(check_promote, a_body_of_two_statements_keeps_the_loop) {
  cr_expect_eq(promoted("void k(const float x[16], float y[4], float z[4]) {\n"
                        "  for (int i = 0; i < 4; i++)\n"
                        "    for (int k = 0; k < 16; k++) {\n"
                        "      y[i] += x[k];\n"
                        "      z[i] += y[i];\n"
                        "    }\n"
                        "}\n"),
               0);
}

/* A variant that uses the NPU: its parameters' host accesses are timed by
 * the control unit's hook, so they stay as the variant makes them. */
Test(check_promote, a_hooked_array_of_an_npu_variant_keeps_the_loop) {
  NpgSession *s = open_src("void k(const float x[64], float y[4]) {\n"
                           "  for (int i = 0; i < 4; i++)\n"
                           "    for (int k = 0; k < 64; k++)\n"
                           "      y[i] += x[k];\n"
                           "}\n"
                           "#pragma npu schedule(k, k_vm)\n"
                           "#pragma npu cache_read(x, vu_vm, i, x_vm)\n");
  cr_assert_eq(npg_variant_count(s), 2, "%s", npg_errors(s));
  const Kernel *k = lower_check_promote(&s->m->arena, s->v[1].ir, s->v[1].low);
  cr_expect_eq(k, s->v[1].low);
  NpgCheckResult r;
  cr_expect(npg_check(s, 1, 1, &r), "%s", r.message);
  npg_close(s);
}
