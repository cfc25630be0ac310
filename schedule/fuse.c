/* fuse(outer, inner, fused): two perfectly nested loops become one loop over
 * their product, as in TVM and Halide: outer = lo_o + fused / n_inner,
 * inner = lo_i + fused % n_inner. The inner trip count must be a constant. */
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
  Expr *iext = ir_sub(s->a, iend, ilo, t);
  if (!ir_const_int(iext, &ni))
    return sched_error(s, &st->args[1], "loop %s needs a constant trip count to be fused", in->name);
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
