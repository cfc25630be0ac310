/* fold(statement): a scalar local reassigned in sequence becomes one
 * expression. The statement assigns a local x; it and the assignments of
 * x right after it in the same block (each `x = f(x)` or `x op= e`) go,
 * and the first statement after them that reads x (the sink, which
 * assigns something else) reads the value they computed instead:
 *
 *     acc += output_offset;             s8
 *     acc = acc > -128 ? acc : -128;    s9
 *     acc = acc < 127 ? acc : 127;      s10
 *     out[p][oc] = (int8_t)acc;         s11
 *   fold(s8)
 *     out[p][oc] = (int8_t)((acc + output_offset > -128 ? acc + output_offset : -128) < 127 ? ... : 127);
 *
 * (TFLite's reference kernels end a convolution so: the requantisation,
 * the output offset and the activation clamp, each a reassignment of the
 * accumulator.) The sink's expression is then one tree the VU's
 * instructions can cover, and x is left with its value from before the
 * chain, the form expand and the contraction sketches take.
 *
 * Legal: by construction, with these checked. x is declared in the block
 * (a new object in each of its executions, dead at its end) and nothing
 * after the sink in it uses x, so no one reads the values the chain
 * stored. The chain and the sink are consecutive statements and the chain
 * writes x alone, so every other value the chain read is the same at the
 * sink; the kernel language has no side effects, so evaluating a value
 * where it is used, once per use, computes what the store kept. A
 * compound assignment folds only where C converts nothing (`x op= e` is
 * `x = x op e` in x's own type). */
#include <stdio.h>

#include "schedule/primitives.h"

enum { FOLD_MAX_NODES = 4096 }; /* a folded tree this large reads worse than the chain */

/* Is c an assignment to the scalar v? */
static bool assigns(const Stmt *c, const Var *v) {
  return c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == v;
}

/* v's declaration in the list that holds `from`, before it. */
static bool declared_before(const Stmt *list, const Stmt *from, const Var *v) {
  for (const Stmt *c = list; c && c != from; c = c->next)
    if (c->kind == ST_DECL && c->var == v) return true;
  return false;
}

typedef struct {
  const Var *v;
  bool used;
} Use;

static bool use_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  u->used = u->used || ir_stmt_uses(st, u->v, NULL);
  return !u->used;
}

/* Does a statement after `after` in its list use v, at any depth? */
static bool used_after(const Stmt *after, const Var *v) {
  Use u = {v, false};
  for (const Stmt *c = after->next; c && !u.used; c = c->next) ir_walk_one(c, use_visit, &u);
  return u.used;
}

static bool count_node(const Expr *e, void *ctx) {
  (void)e;
  return ++*(int *)ctx <= FOLD_MAX_NODES;
}

/* c's value of x, given x's value `cur` before it: `x = e` gives e with
 * x := cur, `x op= e` gives cur op e; NULL when C would convert. */
static Expr *value_after(Sched *s, const Stmt *c, Expr *cur) {
  const Var *v = c->lhs->var;
  Expr *e = ir_subst_expr(s->a, ir_expr_copy(s->a, c->rhs), v, cur);
  if (c->op == OP_NONE) return e;
  const Type *t = v->type;
  if (!type_same(t, c->rhs->type) || !type_same(type_promote(t), t)) return NULL;
  return ir_binary(s->a, c->op, ir_expr_copy(s->a, cur), e, t, c->loc);
}

/* x's value after the chain starting at `first`, and the sink after it;
 * NULL with the refusal reported. */
static Expr *chain_value(Sched *s, const SchedArg *at, const Stmt *first, Stmt **sink) {
  const Var *v = first->lhs->var;
  Expr *cur = ir_var(s->a, (Var *)v, first->loc);
  const Stmt *c = first;
  for (; c && assigns(c, v); c = c->next) {
    cur = value_after(s, c, cur);
    if (!cur)
      return sched_error(s, at, "%s (line %d) converts: `%s op= e` with e of type %s is not `%s = %s op e` in %s",
                         c->name, c->loc.line, v->name, c->rhs->type->name, v->name, v->name, v->type->name), NULL;
    int nodes = 0;
    if (!ir_walk_expr(cur, count_node, &nodes))
      return sched_error(s, at, "the value of %s after %s (line %d) would be a tree of more than %d nodes; "
                         "fold a shorter chain, or stage a part of it", v->name, c->name, c->loc.line, FOLD_MAX_NODES), NULL;
  }
  if (!c || c->kind != ST_ASSIGN || !ir_stmt_uses(c, v, NULL))
    return sched_error(s, at, "%s is not followed by a statement that reads %s after its reassignments "
                       "(the one their value goes to)", first->name, v->name), NULL;
  *sink = (Stmt *)c;
  return cur;
}

bool prim_fold(Sched *s, const SchedStep *st) {
  Stmt *first = sched_leaf(s, &st->args[0]);
  if (!first) return false;
  if (first->kind != ST_ASSIGN || first->lhs->kind != EX_VAR)
    return sched_error(s, &st->args[0], "%s (line %d) does not assign a scalar local", first->name, first->loc.line);
  const Var *v = first->lhs->var;
  Stmt *owner = NULL;
  Stmt **link = sched_link(s, first, &owner);
  const Stmt *list = owner && owner->kind == ST_BLOCK ? owner->body : s->k->body;
  if (list && list->kind == ST_BLOCK) list = list->body;
  if (!declared_before(list, first, v))
    return sched_error(s, &st->args[0], "%s is not declared in the block of %s (line %d): a value it holds may be "
                       "read after the block", v->name, first->name, first->loc.line);
  Stmt *sink = NULL;
  Expr *value = chain_value(s, &st->args[0], first, &sink);
  if (!value) return false;
  if (used_after(sink, v))
    return sched_error(s, &st->args[0], "%s is used after %s (line %d), which would read the value the chain "
                       "stores", v->name, sink->name, sink->loc.line);
  ir_subst_stmt(s->a, sink, v, value);
  *link = sink; /* the chain goes */
  return true;
}
