/* decompose_reduction(init, loop): moves a reduction's init statement out
 * of the loop nest into its own nest, placed right before `loop`, over the
 * loops from `loop` down to the init's own loop (TVM's decompose_reduction;
 * in C the init is usually already a statement of its own). The ifs
 * between them go along: a tile's tail guard (`if (ii < m - io * 128)`,
 * split's form when no tile divides a size) guards the init's copy as it
 * guarded the init, so its instances are the init's own. */
#include "schedule/primitives.h"

enum { MAX_PATH = 256 };

/* The loops and ifs from list's statements down to target, outermost
 * first, in path; each if's branch that holds it in then_side. */
static bool path_rec(Stmt *list, const Stmt *target, Stmt **path, bool *then_side, int *n) {
  for (Stmt *c = list; c; c = c->next) {
    if (c == target) return true;
    if (*n == MAX_PATH) return false;
    path[*n] = c;
    (*n)++;
    if ((c->kind == ST_FOR || c->kind == ST_BLOCK) && path_rec(c->body, target, path, then_side, n)) return true;
    if (c->kind == ST_IF) {
      then_side[*n - 1] = true;
      if (path_rec(c->then_s, target, path, then_side, n)) return true;
      then_side[*n - 1] = false;
      if (path_rec(c->else_s, target, path, then_side, n)) return true;
    }
    (*n)--;
  }
  return false;
}

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
  /* The loops and ifs from `loop` down to init (blocks left out). */
  Stmt *all[MAX_PATH];
  bool then_side[MAX_PATH];
  int nall = 0;
  if (!path_rec(s->k->body->body, init, all, then_side, &nall))
    return sched_error(s, NULL, "loop nest too deep");
  int from = 0;
  while (from < nall && all[from] != loop) from++;
  Stmt *path[MAX_PATH];
  int n = 0;
  for (int i = from; i < nall; i++) {
    Stmt *c = all[i];
    if (c->kind == ST_BLOCK) continue;
    /* an if goes along when its condition means the same before `loop`
     * (counters and sizes): its then side only, an else would need the
     * condition negated */
    if (c->kind == ST_IF && (!then_side[i] || !ir_expr_counters_only(s->k, c->cond)))
      return sched_error(s, &st->args[0], "%s must sit directly in loops up to loop %s, or in the then branch of ifs "
                         "of loop counters and sizes (the if at line %d %s)", init->name, loop->name, c->loc.line,
                         then_side[i] ? "reads other values" : "holds it in its else branch");
    path[n++] = c;
  }
  if (!sched_begin_rewrite(s)) return false;
  /* Build the new nest outermost first, with fresh counters. */
  Stmt *outer = NULL, **slot = &outer;
  Stmt *body = init;
  Stmt **ilink = sched_link(s, init, NULL);
  *ilink = init->next;
  init->next = NULL;
  const Var *old_vars[MAX_PATH];
  Expr *new_vars[MAX_PATH];
  int nvars = 0;
  for (int i = 0; i < n; i++) {
    Stmt *l = path[i];
    if (l->kind == ST_IF) {
      Stmt *c = ir_stmt(s->a, ST_IF, l->loc);
      c->cond = ir_expr_copy(s->a, l->cond);
      c->then_s = sched_block(s, NULL, l->loc);
      *slot = c;
      slot = &c->then_s->body;
      continue;
    }
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
    old_vars[nvars] = l->var;
    new_vars[nvars++] = ir_var(s->a, c->var, l->loc);
  }
  *slot = body;
  /* Counters of the copied loops replace the originals: in the bounds,
   * the ifs' conditions and the init (the new nest is its own statement
   * list: nothing after it is touched). */
  for (int j = 0; j < nvars; j++) ir_subst_stmt(s->a, outer, old_vars[j], new_vars[j]);
  Stmt **llink = sched_link(s, loop, NULL);
  outer->next = loop;
  *llink = outer;
  sched_drop_empty(s);
  s->step_runs_once = true; /* the statement moved to one new nest */
  return sched_legal(s);
}
