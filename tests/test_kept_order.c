/* Steps that keep the order of instances (split, fuse, unroll,
 * loop_partition: KEEPS_ORDER in schedule/sched.c) cannot reverse a
 * dependence, so their dependences are not checked again, except where
 * Sched.prove_kept_order asks it (the random-schedule tester): there a
 * reversal is an npugen bug, reported as such. The check is shown to fail
 * on what it catches: a hand-made "split" that runs the loop backwards. */
#include <criterion/criterion.h>
#include <string.h>

#include "frontend/frontend.h"
#include "schedule/sched.h"

/* Each iteration reads what the one before wrote. */
static const char *chain =
    "void k(int A[64]) {\n"
    "  for (int i = 1; i < 64; i++)\n"
    "    s: A[i] = A[i - 1] + 1;\n"
    "}\n";

/* Applies a bug as if a step that keeps the order made it: the loop runs
 * the same instances from the last down (twice: each instance runs twice).
 * Returns sched_legal's verdict. */
static bool broken_by_a_kept_order_step(bool prove, bool twice, char *err, size_t n) {
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse("k.c", chain, strlen(chain), &d);
  cr_assert_not_null(m);
  Sched *s = sched_new(&m->arena, m, m->kernels, "v", &d, "k.c", chain, NULL);
  SchedStep st = {0};
  st.prim = "split";
  st.text = "split(i, 8, io, ii)";
  s->step = &st;
  s->prove_kept_order = prove;
  cr_assert(sched_begin_rewrite(s));
  Stmt *loop = s->k->body->body;
  cr_assert_eq(loop->kind, ST_FOR);
  loop->lo = ir_int(s->a, 63, loop->lo->type, loop->lo->loc);
  loop->hi = ir_int(s->a, 1, loop->hi->type, loop->hi->loc);
  loop->cmp = OP_GE;
  loop->step = -1;
  if (twice) { /* the statement again after itself, the same instances */
    CloneMap cm = {0};
    Stmt *leaf = loop->body->body, *copy = ir_clone_stmt(s->a, leaf, &cm);
    clone_map_free(&cm);
    copy->next = leaf->next;
    leaf->next = copy;
  }
  s->step_keeps_order = true;
  bool ok = sched_legal(s);
  char *text = diag_render(&d);
  snprintf(err, n, "%s", text ? text : "");
  free(text);
  sched_free(s);
  module_free(m);
  diag_free(&d);
  return ok;
}

Test(kept_order, a_reversal_is_reported_as_a_bug_when_proven) {
  char err[2048];
  cr_assert(!broken_by_a_kept_order_step(true, false, err, sizeof err));
  cr_assert(strstr(err, "split: internal error: split reversed a dependence, which it never may (an npugen bug; the "
                        "variant is not emitted)"),
            "%s", err);
  /* not asked: the step is taken at its word (what npugen does for users) */
  cr_assert(broken_by_a_kept_order_step(false, false, err, sizeof err), "%s", err);
}

Test(kept_order, an_instance_run_twice_is_reported_as_a_bug_when_proven) {
  char err[2048];
  cr_assert(!broken_by_a_kept_order_step(true, true, err, sizeof err));
  cr_assert(strstr(err, "split: internal error: the rewritten loops do not run every statement instance exactly once"),
            "%s", err);
  cr_assert(broken_by_a_kept_order_step(false, true, err, sizeof err), "%s", err);
}
