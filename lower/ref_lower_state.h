/* The state shared by the instrumented reference's lowering
 * (lower/ref_lower.c) and its address hoisting (lower/ref_hoist.c). */
#ifndef NPG_REF_LOWER_STATE_H
#define NPG_REF_LOWER_STATE_H

#include "lower/ref_plan.h"
#include "lower/ref_lower.h"

/* The function's body or a loop's, outermost first: where hoisted
 * addresses are declared. */
typedef struct {
  const Var *counter; /* NULL: the function */
  CkPointer *ptrs;
} CkLevel;

typedef struct {
  CheckRef *out;
  IrRange *counter;        /* by Var.id: a loop counter's range in its loop */
  bool *unset_var, *unset_buf; /* by id: a local declared without an initializer */
  CkLevel *levels;
  int nlevels, nptrs;
  CheckPlan plan;          /* the loops unrolled (lower/ref_plan.c) */
  /* in an unrolled copy of a body: its loop's counter, read as
   * (counter + by) */
  const Var *shifted;
  int64_t by;
  /* in an unrolled accumulation: the running value, read as sum_expr
   * with its range */
  const Var *sum;
  CkExpr *sum_expr;
  IrRange sum_range;
} CkLower;

/* lower/ref_lower.c: e lowered, *r its value's range. */
CkExpr *lower_ck_expr(CkLower *c, const Expr *e, IrRange *r);
CkExpr *lower_ck_new_expr(CkLower *c, const Expr *e);
/* lower/ref_check_tests.c: the tests (CkExpr.tests, helper) of the checks
 * checked operation x makes, its sites and temporaries given. */
void lower_ck_tests(CkLower *c, CkExpr *x);

/* lower/ref_hoist.c */
void lower_ck_push_level(CkLower *c, const Var *counter);
/* Pops the innermost level: its pointers, to declare in its body. */
CkPointer *lower_ck_pop_level(CkLower *c);
/* The place of a scalar or an element (EX_VAR, EX_LOAD), with its
 * address hoisted or stepped where it can be. */
CkPlace *lower_ck_place(CkLower *c, const Expr *e);

#endif
