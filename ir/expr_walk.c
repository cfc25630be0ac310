/* The expression walkers (ir/ir.h): a visitor whose callback can skip a
 * subtree or stop the walk, and a map that rebuilds an expression bottom
 * up. One order for both: a load's indices, a call's arguments, then the
 * operands a, b, c (a node holds either indices, arguments or operands). */
#include <string.h>

#include "ir/ir.h"

static bool visit(const Expr *e, int depth, ExprVisitFn fn, void *ctx) {
  if (!e) return true;
  IrVisit say = fn(e, depth, ctx);
  if (say != IR_VISIT_ON) return say == IR_VISIT_SKIP;
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++)
      if (!visit(e->idx[i], depth + 1, fn, ctx)) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!visit(e->args[i], depth + 1, fn, ctx)) return false;
  return visit(e->a, depth + 1, fn, ctx) && visit(e->b, depth + 1, fn, ctx) && visit(e->c, depth + 1, fn, ctx);
}

bool ir_visit_expr(const Expr *e, ExprVisitFn fn, void *ctx) { return visit(e, 0, fn, ctx); }

typedef struct {
  ExprVisitor fn;
  void *ctx;
} WhileTrue;

static IrVisit while_true(const Expr *e, int depth, void *ctx) {
  (void)depth;
  WhileTrue *w = ctx;
  return w->fn(e, w->ctx) ? IR_VISIT_ON : IR_VISIT_STOP;
}

bool ir_walk_expr(const Expr *e, ExprVisitor fn, void *ctx) {
  WhileTrue w = {fn, ctx};
  return ir_visit_expr(e, while_true, &w);
}

/* list[0..n) mapped: list itself when every element came back unchanged,
 * else a new array (list is never written). */
static Expr **map_list(Arena *a, Expr **list, int n, ExprMapFn fn, void *ctx) {
  Expr **out = list;
  for (int i = 0; i < n; i++) {
    Expr *m = ir_map_expr(a, list[i], fn, ctx);
    if (m == list[i]) continue;
    if (out == list) {
      out = ARENA_ARRAY(a, Expr *, n);
      memcpy(out, list, sizeof *list * (size_t)n);
    }
    out[i] = m;
  }
  return out;
}

Expr *ir_map_expr(Arena *a, Expr *e, ExprMapFn fn, void *ctx) {
  if (!e) return NULL;
  Expr **idx = e->kind == EX_LOAD ? map_list(a, e->idx, e->buf->ndim, fn, ctx) : e->idx;
  Expr **args = map_list(a, e->args, e->nargs, fn, ctx);
  Expr *x = ir_map_expr(a, e->a, fn, ctx), *y = ir_map_expr(a, e->b, fn, ctx), *z = ir_map_expr(a, e->c, fn, ctx);
  if (idx == e->idx && args == e->args && x == e->a && y == e->b && z == e->c) return fn(a, e, ctx);
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->idx = idx;
  c->args = args;
  c->a = x;
  c->b = y;
  c->c = z;
  return fn(a, c, ctx);
}
