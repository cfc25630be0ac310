/* A nest's loop that runs to a size, `for (p = 0; p < k; p++) B`, as one
 * that runs to the size's largest value under the kernel's assumptions,
 * its body guarded: `for (p = 0; p < 4096; p++) if (p < k) B` under
 * `assume(k <= 4096)`. The same instances run in the same order at every
 * size the kernel may be entered with (its assumptions are tested at
 * entry, NPUGEN_ASSUME), and the guard keeps a prefix of the loop, which
 * tensorize turns into the call's run-time length as it does a split's
 * tail. So an intrinsic's reduction runs whole over a sized K (the NU's
 * own init, accumulate = 0, instead of a K-split's init on the CU), and
 * the bound the call needs lives in the IR, where the emitter's match
 * finds it again.
 *
 * tensorize tries it on a sized nest that does not match as written, on a
 * copy first; the nest is rewritten only when the copy matches. */
#include "schedule/expand.h"

#include <stdint.h>

#include "ir/affine.h"
#include "schedule/primitives.h"

/* The largest value of a size expression at the sizes the assumptions
 * allow, within the counter's type; false when none is known. */
static bool largest(Sched *s, const Expr *hi, const Type *t, int64_t *max) {
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  char why[300];
  int64_t lo;
  bool exact = false, empty = false;
  bool ok = aff_push_sizes(&a, why, sizeof why) && aff_range(&a, hi, &lo, max, &exact, &empty) && !empty;
  aff_free(&a);
  int64_t tmin;
  uint64_t tmax;
  type_int_range(t, &tmin, &tmax);
  return ok && *max >= 1 && (uint64_t)*max <= tmax;
}

/* Rewrites each loop to a size at and under u (u alone, not what follows
 * it), outermost first: the guard's body is walked as the loop's was. The
 * count rewritten, -1 when a loop to a size has no largest value. */
static int bound_loops(Sched *s, Stmt *u) {
  if (!u) return 0;
  int n = 0, more;
  int64_t lo, hi, max;
  switch (u->kind) {
  case ST_FOR:
    if (u->step == 1 && u->cmp == OP_LT && !ir_const_int(u->hi, &hi) && ir_expr_sizes_only(u->hi) &&
        ir_const_int(u->lo, &lo) && type_is_integer(u->var->type) && u->var->type->is_signed) {
      if (!largest(s, u->hi, u->var->type, &max) || max <= lo) return -1;
      Stmt *g = ir_stmt(s->a, ST_IF, u->loc);
      g->cond = ir_binary(s->a, OP_LT, ir_var(s->a, u->var, u->loc), u->hi, &ty_int, u->loc);
      g->then_s = sched_block(s, u->body->body, u->loc);
      u->body->body = g;
      u->hi = ir_int(s->a, max, u->var->type, u->loc);
      n = 1;
    }
    if ((more = bound_loops(s, u->body)) < 0) return -1;
    return n + more;
  case ST_BLOCK:
    for (Stmt *c = u->body; c; c = c->next) {
      if ((more = bound_loops(s, c)) < 0) return -1;
      n += more;
    }
    return n;
  case ST_IF:
    for (Stmt *c = u->then_s; c; c = c->next) {
      if ((more = bound_loops(s, c)) < 0) return -1;
      n += more;
    }
    for (Stmt *c = u->else_s; c; c = c->next) {
      if ((more = bound_loops(s, c)) < 0) return -1;
      n += more;
    }
    return n;
  default:
    return 0;
  }
}

bool sched_bound_to_match(Sched *s, Stmt *loop, SchedNestMatch matches, void *ctx) {
  if (!s->k->nsizes || sched_call_holding(s, loop)) return false;
  CloneMap cm = {0};
  Stmt *copy = ir_clone_stmt(s->a, loop, &cm);
  clone_map_free(&cm);
  if (bound_loops(s, copy) <= 0 || !matches(s, copy, ctx)) return false;
  bound_loops(s, loop);
  sched_model_drop(s); /* new statements: the next step's proof builds its model anew */
  return true;
}
