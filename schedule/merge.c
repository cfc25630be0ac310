/* merge(first, second): two sibling loops with the same bounds become one
 * loop running first's body then second's body in each iteration (TVM's
 * merge, Exo's fuse). Refused where a dependence from a later iteration of
 * first to an earlier iteration of second would reverse. */
#include <string.h>

#include "schedule/primitives.h"


bool prim_merge(Sched *s, const SchedStep *st) {
  Stmt *a = sched_loop(s, &st->args[0]);
  if (!a) return false;
  Stmt *b = sched_loop(s, &st->args[1]);
  if (!b) return false;
  if (a == b) return sched_error(s, &st->args[1], "cannot merge loop %s with itself", a->name);
  if (a->next != b)
    return sched_error(s, &st->args[1], "loop %s must directly follow loop %s (sibling loops, nothing in between)", b->name, a->name);
  if (a->step != b->step || a->cmp != b->cmp || !ir_expr_same(a->lo, b->lo) || !ir_expr_same(a->hi, b->hi) ||
      a->var->type != b->var->type)
    return sched_error(s, &st->args[1], "loops %s and %s have different bounds", a->name, b->name);
  if (!sched_begin_rewrite(s)) return false;
  Expr *v = ir_var(s->a, a->var, a->loc);
  Stmt **tail = &a->body->body;
  while (*tail) tail = &(*tail)->next;
  *tail = b->body->body;
  for (Stmt *x = b->body->body; x; x = x->next) ir_subst_stmt(s->a, x, b->var, v);
  a->next = b->next;
  return sched_legal(s);
}
