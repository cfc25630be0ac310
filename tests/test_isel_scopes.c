/* An intrinsic's `scopes:` line is data (schedule/intrinsics.c,
 * sched_intrinsic_scopes): each operand with its scope, read by name, for
 * tensorize's operand checks and for tune's choice of an NU matmul
 * (tune/contraction.c), not searched as text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "schedule/intrinsics.h"
#include "tune/tune.h"

Test(isel_scopes, the_scopes_line_is_each_operand_with_its_scope) {
  SchedScopes s;
  sched_intrinsic_scopes("/* x\n * scopes: C nu_ob, A nu_ib, B nu_wb\n * abi: f(C, A, B)\n */\n", &s);
  cr_assert_eq(s.n, 3);
  cr_expect_str_eq(sched_scope_of(&s, "C"), "nu_ob");
  cr_expect_str_eq(sched_scope_of(&s, "B"), "nu_wb");
  cr_expect_null(sched_scope_of(&s, "D"));
  sched_intrinsic_scopes("/* no such line */\n", &s);
  cr_expect_eq(s.n, 0);
}

/* npu_nu_matmul_i8's semantics with its scopes line replaced. */
static bool matmul_with_scopes(const char *scopes, TuneNuMatmul *mm) {
  size_t len;
  char *src = read_file("npu_intrinsics/npu_nu_matmul_i8.c", &len);
  cr_assert_not_null(src);
  const char *line = "scopes: C nu_ob, A nu_ib, B nu_wb";
  char *at = strstr(src, line);
  cr_assert_not_null(at);
  char *out = malloc(len + 256);
  int n = snprintf(out, len + 256, "%.*sscopes: %s%s", (int)(at - src), src, scopes, at + strlen(line));
  bool is = tune_nu_matmul("npu_mm.c", out, (size_t)n, mm);
  free(out);
  free(src);
  return is;
}

/* The output C must itself be in nu_ob. Before, tune/contraction.c looked
 * for the text "C nu_ob" in the line, and found it in "XC nu_ob": a
 * matmul whose C is in vu_vm passed for the NU's. */
Test(isel_scopes, an_nu_matmul_is_known_by_its_outputs_own_scope) {
  TuneNuMatmul mm = {true, true};
  cr_expect(matmul_with_scopes("C nu_ob, A nu_ib, B nu_wb", &mm));
  cr_expect(!mm.fp32 && !mm.bt);
  cr_expect(!matmul_with_scopes("C vu_vm, A nu_ib, B nu_wb, XC nu_ob", &mm));
}
