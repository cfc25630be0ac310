/* split(loop, factor, outer, inner): loop i becomes outer x inner with
 * i = lo + outer * factor + inner (a loop that counts down or by a stride
 * is first counted up by 1, between constants or sizes: loop_normalize).
 * A trip count that factor divides gives plain loops; otherwise the inner
 * body is guarded (loop_partition can then peel the guarded tail into its
 * own loop).
 *
 * What split writes never overflows (docs/limits.md, ir/fits.c proves it):
 * the outer count of an extent n that is not a constant is `n / f + (n %
 * f > 0)`, not `(n + f - 1) / f`, and the tail guard is `inner < end -
 * (lo + outer * f)` wherever `lo + outer * f + inner < end` could pass the
 * counter's type in the last tile (every sum in it is then a value the loop
 * takes, or the distance to its end). */
#include <string.h>

#include "ir/arith.h"
#include "ir/ranges.h"
#include "schedule/primitives.h"

bool loop_unit_range(Sched *s, Stmt *loop, const SchedArg *at, Expr **lo, Expr **end) {
  if (loop->step != 1)
    return sched_error(s, at, "loop %s must count up by 1 (it counts by %lld)", loop->name, (long long)loop->step);
  const Type *t = loop->var->type;
  *lo = ir_expr_copy(s->a, loop->lo);
  *end = ir_expr_copy(s->a, loop->hi);
  if ((*lo)->type != t) *lo = ir_cast(s->a, *lo, t, true);
  if ((*end)->type != t) *end = ir_cast(s->a, *end, t, true);
  if (loop->cmp == OP_LE) *end = ir_add(s->a, *end, ir_int(s->a, 1, t, loop->loc), t);
  return true;
}

/* Comparison a < b in C's types (operands of type t); an unsigned counter's
 * is made in long long, where the affine model sees it (an unsigned
 * comparison may wrap, so the model leaves it opaque). */
static Expr *less_than(Sched *s, Expr *a, Expr *b, const Type *t) {
  const Type *ct = type_promote(t);
  if (!ct->is_signed && ct->size < ty_llong.size) ct = &ty_llong;
  return ir_binary(s->a, OP_LT, ir_cast(s->a, a, ct, true), ir_cast(s->a, b, ct, true), &ty_int, a->loc);
}

/* ceil(n / f) for f > 0 as `n / f + (n % f > 0)`: no sum that can pass
 * the type ((n + f - 1) / f overflows for n near its maximum), and 0 or
 * less for n <= 0, as many tiles as the loop runs. ir/affine.c reads the
 * form as ceil(n / f). */
static Expr *ceil_div(Sched *s, Expr *n, int64_t f, const Type *t) {
  SrcLoc at = n->loc;
  Expr *q = ir_binary(s->a, OP_DIV, n, ir_int(s->a, f, t, at), t, at);
  Expr *r = ir_binary(s->a, OP_MOD, ir_expr_copy(s->a, n), ir_int(s->a, f, t, at), t, at);
  Expr *some = ir_binary(s->a, OP_GT, r, ir_int(s->a, 0, t, at), &ty_int, at);
  return ir_binary(s->a, OP_ADD, q, ir_cast(s->a, some, t, true), t, at);
}

/* Does lo + (tiles * f - 1), the last value `lo + outer * f + inner` takes
 * in the last tile, fit the counter's type (the sum's type in the IR, and
 * in C for int and wider)? Known only for constant bounds (n the trip
 * count, else -1). */
static bool plain_guard_fits(Expr *lo, int64_t n, int64_t f, const Type *t) {
  int64_t l, tmin;
  uint64_t tmax;
  if (n < 0 || !ir_const_int(lo, &l)) return false;
  type_int_range(t, &tmin, &tmax);
  IrWide last = (IrWide)l + (IrWide)(n / f + (n % f != 0)) * f - 1;
  return last <= (IrWide)tmax;
}

/* The tail's guard: `lo + outer * f + inner < end` where its sum stays in
 * the type in the last tile (constant bounds), else `inner < end - (lo +
 * outer * f)`: lo + outer * f is a value the loop takes, and the
 * difference is at most the trip count. */
static Expr *tail_guard(Sched *s, Stmt *loop, Expr *lo, Expr *end, int64_t n, int64_t f, Var *ov, Var *iv) {
  const Type *t = loop->var->type;
  Expr *base = ir_add(s->a, ir_expr_copy(s->a, lo), ir_mul_int(s->a, ir_var(s->a, ov, loop->loc), f, t), t);
  Expr *inner = ir_var(s->a, iv, loop->loc);
  if (plain_guard_fits(lo, n, f, t)) return less_than(s, ir_add(s->a, base, inner, t), end, t);
  return less_than(s, inner, ir_sub(s->a, end, base, t), t);
}

/* The trip count of a loop that counts by step from lo towards hi, its
 * bounds not both constants: with d the distance from its start to its
 * end (hi - lo up, lo - hi down), d past an inclusive end (`<=`, `>=`)
 * reaches one step further, and the count is ceil(d / |step|) in the
 * form ir/affine.c reads exactly, `d / s + (d % s > 0)`, 0 or less where
 * the loop runs no iteration. No sum in it passes what the loop counts:
 * ir/fits.c proves d (and d + 1) fit the counter's type after the step,
 * or the step is refused. */
static Expr *trip_count_expr(Sched *s, const Stmt *loop, bool up) {
  const Type *t = loop->var->type;
  Expr *from = ir_expr_copy(s->a, loop->lo), *to = ir_expr_copy(s->a, loop->hi);
  if (from->type != t) from = ir_cast(s->a, from, t, true);
  if (to->type != t) to = ir_cast(s->a, to, t, true);
  /* an end that is the start moved by y (`j = n - 1; j > n - 1 - y`, a
   * triangle's bound once its outer loop is split) is y away */
  Op moved = up ? OP_ADD : OP_SUB;
  Expr *d = to->kind == EX_BINARY && to->op == moved && to->type == t && ir_expr_same(to->a, from) ? to->b
            : up ? ir_sub(s->a, to, from, t) : ir_sub(s->a, from, to, t);
  if (d->type != t) d = ir_cast(s->a, d, t, true);
  if (loop->cmp == OP_LE || loop->cmp == OP_GE) d = ir_add(s->a, d, ir_int(s->a, 1, t, loop->loc), t);
  d = arith_simplify(s->a, d, NULL, 0); /* `n - 1 - 0 + 1` reads as n */
  int64_t stride = up ? loop->step : -loop->step;
  return stride == 1 ? d : ceil_div(s, d, stride, t);
}

/* A loop that counts down or by a stride as one that counts 0, 1, ...
 * T - 1 (its trip count) with the counter's value lo + step * k in its
 * body: the same iterations in the same order, so split and unroll see a
 * loop that counts up by 1. Its name and counter name stay. Between
 * constants T is a constant; between bounds in the sizes or outer
 * counters (`for (i = n - 1; i >= 0; i--)`, `i += 2` to n) it is
 * trip_count_expr's form, and every value lo + step * k is one the loop
 * takes. A loop that counts up by 1 is left as it is. */
bool loop_normalize(Sched *s, Stmt *loop, const SchedArg *at) {
  if (loop->step == 1 && (loop->cmp == OP_LT || loop->cmp == OP_LE)) return true;
  const Type *t = loop->var->type;
  int64_t lo, hi, n, last, span, tlo;
  uint64_t thi;
  type_int_range(t, &tlo, &thi);
  bool down = loop->step < 0 && (loop->cmp == OP_GT || loop->cmp == OP_GE);
  bool up = loop->step > 0 && (loop->cmp == OP_LT || loop->cmp == OP_LE);
  bool constant = ir_const_int(loop->lo, &lo) && ir_const_int(loop->hi, &hi);
  const char *why = !(up || down) ? "away from its end" : !t->is_signed ? "with an unsigned counter" : NULL;
  if (why)
    return sched_error(s, at, "loop %s counts by %lld %s; it is counted up by 1 only with a signed counter, towards "
                       "its end", loop->name, (long long)loop->step, why);
  Expr *count;
  if (constant) {
    int64_t gap; /* the trip count's arithmetic stays in int64 */
    if (loop->step == INT64_MIN || __builtin_sub_overflow(up ? hi : lo, up ? lo : hi, &gap) || gap == INT64_MAX ||
        !ir_trip_count(loop, &n))
      return sched_error(s, at, "loop %s spans more values than its counter type %s holds", loop->name, t->name);
    /* every value lo + step * k, k < n, is one the loop takes; their span must fit the counter's type */
    if (n > 0 && (__builtin_mul_overflow(loop->step, n - 1, &last) || __builtin_add_overflow(lo, last, &last) ||
                  __builtin_sub_overflow(last, lo, &span) || span == INT64_MIN ||
                  (uint64_t)(span < 0 ? -span : span) > thi || (uint64_t)n > thi))
      return sched_error(s, at, "loop %s spans more values than its counter type %s holds", loop->name, t->name);
    count = ir_int(s->a, n, t, loop->loc);
  } else {
    /* the step is a constant of the counter's type in the count's form */
    if (loop->step == INT64_MIN || (uint64_t)(loop->step < 0 ? -loop->step : loop->step) > thi)
      return sched_error(s, at, "loop %s's step %lld does not fit its counter type %s", loop->name,
                         (long long)loop->step, t->name);
    count = trip_count_expr(s, loop, up);
  }
  Var *v = ir_new_var(s->a, s->k, loop->var->name, t, VAR_LOOP, loop->var->loc);
  Expr *k = ir_var(s->a, v, loop->loc), *base = constant ? ir_int(s->a, lo, t, loop->loc) : ir_expr_copy(s->a, loop->lo);
  if (base->type != t) base = ir_cast(s->a, base, t, true);
  Expr *value = loop->step > 0 ? ir_add(s->a, base, ir_mul_int(s->a, k, loop->step, t), t)
                               : ir_sub(s->a, base, ir_mul_int(s->a, k, -loop->step, t), t);
  for (Stmt *b = loop->body->body; b; b = b->next) ir_subst_stmt(s->a, b, loop->var, value);
  loop->var = v;
  loop->lo = ir_int(s->a, 0, t, loop->loc);
  loop->hi = count;
  loop->cmp = OP_LT;
  loop->step = 1;
  return true;
}

bool split_loop(Sched *s, Stmt *loop, int64_t f, const char *outer, const char *inner, const SchedArg *at) {
  Expr *lo, *end;
  if (!loop_normalize(s, loop, at) || !loop_unit_range(s, loop, at, &lo, &end)) return false;
  const Type *t = loop->var->type;
  Stmt **link = sched_link(s, loop, NULL);
  if (!link) return sched_error(s, at, "internal error: loop %s not found", loop->name);
  Expr *extent = ir_sub(s->a, ir_expr_copy(s->a, end), ir_expr_copy(s->a, lo), t);
  int64_t n, lo_c, end_c;
  bool constant = ir_const_int(extent, &n);
  /* outer * factor runs up to the trip count: past the type, no form of
   * i = lo + outer * factor + inner fits it */
  if (!constant && ir_const_int(lo, &lo_c) && ir_const_int(end, &end_c) && end_c > lo_c)
    return sched_error(s, at, "loop %s runs more iterations (%lld to %lld) than its counter type %s holds: outer * "
                       "%lld would pass it; use a wider counter", loop->name, (long long)lo_c, (long long)end_c,
                       t->name, (long long)f);
  if (constant && f > n && n > 0)
    return sched_error(s, at, "the factor %lld is larger than loop %s's trip count %lld", (long long)f, loop->name, (long long)n);
  int64_t tlo;
  uint64_t thi;
  type_int_range(t, &tlo, &thi);
  if ((uint64_t)f > thi) return sched_error(s, at, "the factor %lld does not fit loop %s's counter type %s", (long long)f, loop->name, t->name);
  bool divisible = constant && n % f == 0;
  Expr *outer_hi = constant ? ir_int(s->a, n <= 0 ? 0 : n / f + (n % f != 0), t, loop->loc) : ceil_div(s, extent, f, t);
  Var *ov, *iv;
  Stmt *o = sched_make_loop(s, outer, t, ir_int(s->a, 0, t, loop->loc), outer_hi, loop->loc, &ov);
  Stmt *in = sched_make_loop(s, inner, t, ir_int(s->a, 0, t, loop->loc), ir_int(s->a, f, t, loop->loc), loop->loc, &iv);
  o->body->body = in;
  /* i = lo + outer * f + inner */
  Expr *value = ir_add(s->a, ir_add(s->a, ir_expr_copy(s->a, lo), ir_mul_int(s->a, ir_var(s->a, ov, loop->loc), f, t), t),
                       ir_var(s->a, iv, loop->loc), t);
  Stmt *body = loop->body->body;
  for (Stmt *b = body; b; b = b->next) ir_subst_stmt(s->a, b, loop->var, value);
  if (divisible) {
    in->body->body = body;
  } else {
    Stmt *g = ir_stmt(s->a, ST_IF, loop->loc);
    g->cond = tail_guard(s, loop, lo, end, constant ? n : -1, f, ov, iv);
    g->then_s = sched_block(s, body, loop->loc);
    in->body->body = g;
  }
  o->annots = loop->annots;
  o->next = loop->next;
  *link = o;
  return true;
}

bool prim_split(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  int64_t f;
  if (!loop || !sched_loop_unmarked(s, st, &st->args[0], loop) || !sched_positive(s, &st->args[1], "the split factor", &f))
    return false;
  const char *outer = sched_new_name(s, &st->args[2]);
  if (!outer) return false;
  const char *inner = sched_new_name(s, &st->args[3]);
  if (!inner) return false;
  if (!strcmp(outer, inner)) return sched_error(s, &st->args[3], "the two new loops need different names");
  if (!sched_begin_rewrite(s)) return false;
  if (!split_loop(s, loop, f, outer, inner, &st->args[0])) return false;
  return sched_legal(s);
}
