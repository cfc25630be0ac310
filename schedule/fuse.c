/* fuse(outer, inner, fused): two perfectly nested loops become one loop over
 * their product, as in TVM and Halide: outer = lo_o + fused / n_inner,
 * inner = lo_i + fused % n_inner. The inner trip count must be a constant;
 * the inner bounds may be affine in the outer counter (`j = i; j < i +
 * 8`): lo_i then names outer, which becomes its value in turn. */
#include "ir/arith.h"
#include "schedule/primitives.h"

bool prim_fuse(Sched *s, const SchedStep *st) {
  Stmt *o = sched_loop(s, &st->args[0]);
  if (!o || !sched_loop_unmarked(s, st, &st->args[0], o)) return false;
  Stmt *in = sched_loop(s, &st->args[1]);
  if (!in || !sched_loop_unmarked(s, st, &st->args[1], in)) return false;
  const char *name = sched_new_name(s, &st->args[2]);
  if (!name) return false;
  if (o->body->body != in || in->next)
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
  if (!sched_begin_rewrite(s)) return false;
  Stmt **link = sched_link(s, o, NULL);
  Var *fv;
  Stmt *f = sched_make_loop(s, name, t, ir_int(s->a, 0, t, o->loc), ir_mul_int(s->a, oext, ni, t), o->loc, &fv);
  Expr *ov = ir_add(s->a, olo, ir_binary(s->a, OP_DIV, ir_var(s->a, fv, o->loc), ir_int(s->a, ni, t, o->loc), t, o->loc), t);
  Expr *iv = ir_add(s->a, ilo, ir_binary(s->a, OP_MOD, ir_var(s->a, fv, o->loc), ir_int(s->a, ni, t, o->loc), t, o->loc), t);
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
