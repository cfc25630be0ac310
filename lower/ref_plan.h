/* How the instrumented reference (lower/ref_body.c) runs a kernel as
 * written faster without checking less (lower/ref_plan.c): the loops it
 * unrolls, with their accumulation as one expression, and the values an
 * accumulator is proven to keep, so that its adds need no check. */
#ifndef NPG_REF_PLAN_H
#define NPG_REF_PLAN_H

#include "ir/ranges.h"

/* An innermost loop `for (k = LO; k < HI; k++) P += e;` with constant
 * bounds, P's place the same at every iteration and e not reading P's
 * array: run `unroll` iterations at a time as P = (...((P + e(k)) +
 * e(k + 1)) ... + e(k + unroll - 1)), then the rest one at a time. The
 * same adds in the same order, each converted as `P += e` converts it, so
 * the same values, for floats too, and the same checks. */
typedef struct {
  const Stmt *loop;
  int unroll;
  /* every value P holds in the loop, when `P = INIT;` just before it and
   * the types' ranges prove it (acc_proven): then no add of the
   * accumulation can overflow, so none is checked */
  bool acc_proven;
  IrRange acc;
} CheckPlanLoop;

typedef struct {
  CheckPlanLoop *loops;
  int n;
} CheckPlan;

void check_plan(const Kernel *k, CheckPlan *out);
/* loop's plan, NULL when it runs as written. */
const CheckPlanLoop *check_plan_find(const CheckPlan *p, const Stmt *loop);
void check_plan_free(CheckPlan *p);

#endif
