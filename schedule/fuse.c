/* fuse(outer, inner, fused): two perfectly nested loops become one loop over
 * their product, as in TVM and Halide: outer = lo_o + fused / n_inner,
 * inner = lo_i + fused % n_inner. The inner trip count must be a constant;
 * the inner bounds may be affine in the outer counter (`j = i; j < i +
 * 8`): lo_i then names outer, which becomes its value in turn.
 *
 * The fused counter runs to n_outer * n_inner, which the counters' own type
 * may not hold (16 x 16 uint8_t counters: 256): it gets the narrowest of
 * int, long and long long (unsigned for an unsigned counter, as C's
 * promotion makes it) that holds the product, and outer and inner are its
 * quotient and remainder converted back to their type (ir/fits.c proves
 * every expression written here fits). */
#include "ir/arith.h"
#include "ir/ranges.h"
#include "schedule/primitives.h"

/* The product's upper bound: exact for a constant outer trip count, else
 * every value the outer counter's type spans. */
static IrWide fused_count(Expr *oext, int64_t ni, const Type *t) {
  int64_t no;
  if (ir_const_int(oext, &no)) return no <= 0 ? 0 : (IrWide)no * ni;
  IrRange r = ir_range_type(t);
  IrWide span = r.hi - r.lo + 1, past = (IrWide)1 << 65; /* more than any counter type counts */
  return ni > past / span ? past : span * ni;
}

/* The fused counter's type: the counter's promoted type when it holds the
 * count, else long long (never long, which is 32 bits on ILP32 and LLP64
 * machines: the emitted C is portable C99). */
static const Type *fused_type(IrWide count, const Type *t) {
  const Type *p = type_promote(t);
  static const Type *const sig[] = {&ty_int, &ty_long, &ty_llong}, *const uns[] = {&ty_uint, &ty_ulong, &ty_ullong};
  const Type *const *ladder = p->is_signed ? sig : uns;
  for (int i = 0; i < 3; i++) {
    if (i == 1 && ladder[i] != p) continue; /* long only where the counter is one */
    if (ladder[i]->rank >= p->rank && ir_range_type(ladder[i]).hi >= count) return ladder[i]; /* `fused < count` ends */
  }
  return NULL;
}

/* (t)(lo + part), computed in w: lo converted to w, the result back to t
 * (shown only where w is wider than t's promotion: a narrower t is promoted
 * to w anyway wherever its value is used). */
static Expr *part_value(Sched *s, Expr *lo, Expr *part, const Type *t, const Type *w) {
  Expr *v = ir_add(s->a, ir_cast(s->a, lo, w, true), part, w);
  return ir_cast(s->a, v, t, w == type_promote(t));
}

bool prim_fuse(Sched *s, const SchedStep *st) {
  Stmt *o = sched_loop(s, &st->args[0]);
  if (!o || !sched_loop_unmarked(s, st, &st->args[0], o)) return false;
  Stmt *in = sched_loop(s, &st->args[1]);
  if (!in || !sched_loop_unmarked(s, st, &st->args[1], in)) return false;
  const char *name = sched_new_name(s, &st->args[2]);
  if (!name) return false;
  /* guards of counters and sizes between them (a tile's row guard, which
   * reorder leaves right under the row loop) sink into the inner loop, as
   * reorder sinks them: `if (g) for y B` is `for y if (g) B` */
  Stmt *last_guard = NULL;
  for (Stmt *g = o->body->body; g && g != in && !g->next && g->kind == ST_IF && !g->else_s && g->then_s->body &&
                                ir_expr_counters_only(s->k, g->cond);
       g = g->then_s->body)
    if (g->then_s->body == in) last_guard = g;
  if ((o->body->body != in && !last_guard) || in->next)
    return sched_error(s, &st->args[1], "loop %s must be the only statement in loop %s's body", in->name, o->name);
  if (o->var->type != in->var->type)
    return sched_error(s, &st->args[1], "loops %s and %s have counters of different types", o->name, in->name);
  Expr *olo, *oend, *ilo, *iend;
  if (!loop_unit_range(s, o, &st->args[0], &olo, &oend) || !loop_unit_range(s, in, &st->args[1], &ilo, &iend)) return false;
  const Type *t = o->var->type;
  int64_t ni;
  /* bounds affine in the outer counter with a constant difference
   * (`j = i; j < i + 8`): the same trip count in every outer iteration */
  Expr *iext = arith_simplify(s->a, ir_sub(s->a, ir_expr_copy(s->a, iend), ir_expr_copy(s->a, ilo), t), NULL, 0);
  if (!ir_const_int(iext, &ni))
    return sched_error(s, &st->args[1], "loop %s needs a constant trip count to be fused (its bounds may follow "
                       "loop %s when their difference is a constant)", in->name, o->name);
  if (ni <= 0) return sched_error(s, &st->args[1], "loop %s runs no iterations", in->name);
  Expr *oext = ir_sub(s->a, oend, ir_expr_copy(s->a, olo), t);
  const Type *w = fused_type(fused_count(oext, ni, t), t);
  if (!w)
    return sched_error(s, &st->args[2], "the fused loop %s would run more iterations than unsigned long long counts", name);
  if (!sched_begin_rewrite(s)) return false;
  if (last_guard) {
    last_guard->then_s->body = in->body->body;
    in->body->body = o->body->body;
    o->body->body = in;
  }
  Stmt **link = sched_link(s, o, NULL);
  Var *fv;
  Expr *wext = ir_sub(s->a, ir_cast(s->a, ir_expr_copy(s->a, oend), w, true), ir_cast(s->a, ir_expr_copy(s->a, olo), w, true), w);
  Stmt *f = sched_make_loop(s, name, w, ir_int(s->a, 0, w, o->loc), ir_mul_int(s->a, wext, ni, w), o->loc, &fv);
  Expr *ov = part_value(s, olo, ir_binary(s->a, OP_DIV, ir_var(s->a, fv, o->loc), ir_int(s->a, ni, w, o->loc), w, o->loc), t, w);
  Expr *iv = part_value(s, ilo, ir_binary(s->a, OP_MOD, ir_var(s->a, fv, o->loc), ir_int(s->a, ni, w, o->loc), w, o->loc), t, w);
  Stmt *body = in->body->body;
  for (Stmt *b = body; b; b = b->next) {
    ir_subst_stmt(s->a, b, in->var, iv);
    ir_subst_stmt(s->a, b, o->var, ov);
  }
  f->body->body = body;
  f->next = o->next;
  *link = f;
  return sched_legal(s);
}
