/* decompose_reduction(init, loop): moves a reduction's init statement out
 * of the loop nest into its own nest, placed right before `loop`, over the
 * loops from `loop` down to the init's own loop (TVM's decompose_reduction;
 * in C the init is usually already a statement of its own). */
#include "schedule/primitives.h"

/* Does e read the array (or scalar) that lhs stores to? */
static bool reads_target(const Expr *e, const Expr *lhs) {
  return ir_expr_uses(e, lhs->kind == EX_VAR ? lhs->var : NULL, lhs->kind == EX_LOAD ? lhs->buf : NULL);
}

bool prim_decompose_reduction(Sched *s, const SchedStep *st) {
  Stmt *init = sched_leaf(s, &st->args[0]);
  if (!init) return false;
  Stmt *loop = sched_loop(s, &st->args[1]);
  if (!loop) return false;
  if (init->kind != ST_ASSIGN || init->op != OP_NONE)
    return sched_error(s, &st->args[0], "%s (line %d) is not a reduction's init: it must be a plain assignment (=)", init->name, init->loc.line);
  if (reads_target(init->rhs, init->lhs))
    return sched_error(s, &st->args[0], "%s (line %d) is not a reduction's init: it reads %s, which it writes",
                       init->name, init->loc.line, init->lhs->kind == EX_LOAD ? init->lhs->buf->name : init->lhs->var->name);
  if (!sched_encloses(loop, init))
    return sched_error(s, &st->args[1], "%s (line %d) is not inside loop %s", init->name, init->loc.line, loop->name);
  /* The loops from `loop` down to init's parent, each directly nested. */
  Stmt *chain[256];
  int n = 0;
  for (Stmt *p = sched_parent_loop(s, init); p; p = sched_parent_loop(s, p)) {
    if (n == 256) return sched_error(s, NULL, "loop nest too deep");
    chain[n++] = p;
    if (p == loop) break;
  }
  if (!n || chain[n - 1] != loop)
    return sched_error(s, &st->args[0], "%s must sit directly in loops (not inside an if) up to loop %s", init->name, loop->name);
  if (!sched_begin_rewrite(s)) return false;
  /* Build the new nest outermost first, with fresh counters. */
  Stmt *outer = NULL, **slot = &outer;
  Stmt *body = init;
  Stmt **ilink = sched_link(s, init, NULL);
  *ilink = init->next;
  init->next = NULL;
  Stmt *copies[256];
  for (int i = n - 1; i >= 0; i--) {
    Stmt *l = chain[i];
    Stmt *c = ir_stmt(s->a, ST_FOR, l->loc);
    *c = *l;
    c->next = NULL;
    c->annots = NULL;
    c->intrin = NULL; /* a tensorize of the nest is the update's, not the init's */
    c->intrin_call = NULL;
    c->vec_note = NULL;
    /* the copy keeps the loop's kind, as TVM's does: unroll holds anyway,
     * and a mark (parallel, vectorize, bind) is proven for the copy after
     * this step like every standing mark (schedule/marks.c) */
    c->var = ir_new_var(s->a, s->k, l->var->name, l->var->type, VAR_LOOP, l->loc);
    c->lo = ir_expr_copy(s->a, l->lo);
    c->hi = ir_expr_copy(s->a, l->hi);
    c->name = sched_fresh_name(s, l->var->name);
    c->labeled = false;
    c->body = sched_block(s, NULL, l->loc);
    *slot = c;
    slot = &c->body->body;
    copies[i] = c;
  }
  *slot = body;
  /* Counters of the copied loops replace the originals (in bounds too). */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      Expr *v = ir_var(s->a, copies[j]->var, chain[j]->loc);
      copies[i]->lo = ir_subst_expr(s->a, copies[i]->lo, chain[j]->var, v);
      copies[i]->hi = ir_subst_expr(s->a, copies[i]->hi, chain[j]->var, v);
    }
  for (int j = 0; j < n; j++) ir_subst_stmt(s->a, body, chain[j]->var, ir_var(s->a, copies[j]->var, chain[j]->loc));
  Stmt **llink = sched_link(s, loop, NULL);
  outer->next = loop;
  *llink = outer;
  sched_drop_empty(s);
  s->step_runs_once = true; /* the statement moved to one new nest */
  return sched_legal(s);
}
