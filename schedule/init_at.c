/* init_at(init, loop): a reduction's init statement, right before `loop`
 * (a loop of the reduction), moves into the loop's first pass, guarded by
 * `if (v == lo)`: the inverse of decompose_reduction. An intrinsic whose
 * init is its accumulate flag (the NU matmul: `if (accumulate == 0) C =
 * 0`) then computes it, with accumulate the nest's own test, and no init
 * runs on the CU before a K-split's tiles. The init still runs once for
 * each of its instances, before the loop's first pass reads what it wrote;
 * sched_legal proves every dependence kept. The loop must run at least
 * once, or the init would not run. */
#include "schedule/primitives.h"

bool prim_init_at(Sched *s, const SchedStep *st) {
  Stmt *init = sched_leaf(s, &st->args[0]);
  if (!init) return false;
  Stmt *loop = sched_loop(s, &st->args[1]);
  if (!loop) return false;
  if (init->kind != ST_ASSIGN || init->op != OP_NONE)
    return sched_error(s, &st->args[0], "%s (line %d) is not a reduction's init: it must be a plain assignment (=)",
                       init->name, init->loc.line);
  if (ir_expr_uses(init->rhs, init->lhs->kind == EX_VAR ? init->lhs->var : NULL,
                   init->lhs->kind == EX_LOAD ? init->lhs->buf : NULL))
    return sched_error(s, &st->args[0], "%s (line %d) is not a reduction's init: it reads what it writes", init->name,
                       init->loc.line);
  if (init->next != loop)
    return sched_error(s, &st->args[1], "loop %s must directly follow %s (line %d), in the same list", loop->name,
                       init->name, init->loc.line);
  int64_t trips;
  if (!ir_trip_count(loop, &trips) || trips < 1)
    return sched_error(s, &st->args[1], "loop %s must run at least once, a constant number of times: the init would "
                       "not run in a loop that runs no pass", loop->name);
  if (ir_expr_uses(init->rhs, loop->var, NULL) || ir_expr_uses(init->lhs, loop->var, NULL))
    return sched_error(s, &st->args[0], "%s (line %d) reads counter %s of loop %s", init->name, init->loc.line,
                       loop->var->name, loop->name);
  if (!sched_begin_rewrite(s)) return false;
  Stmt **link = sched_link(s, init, NULL);
  *link = loop;
  init->next = NULL;
  Stmt *guard = ir_stmt(s->a, ST_IF, init->loc);
  guard->cond = ir_binary(s->a, OP_EQ, ir_var(s->a, loop->var, init->loc), ir_expr_copy(s->a, loop->lo), &ty_int,
                          init->loc);
  guard->then_s = sched_block(s, init, init->loc);
  guard->next = loop->body->body;
  loop->body->body = guard;
  return sched_legal(s);
}
