/* A guard that keeps a window of a loop's iterations, for the VU matcher
 * (schedule/tensorize.c): `if (i >= 7)`, `if (lo <= i && i < hi)` or
 * `if (i == 5)` on a loop an instruction runs, where i is the loop's
 * counter plus a start that does not vary in the nest (core * 256 + ii
 * after a split). The instruction then runs over the window alone: its
 * operands start at the window's first iteration and its length is the
 * window's, both computed at run time. A prefix tail (`start + v < end`,
 * ir_tail_guard) is the window that starts at 0; this is the tail that is
 * not a prefix, and it costs no wasted lanes and no mask register.
 *
 * Only arithmetic that is signed all through (no unsigned wrap-around
 * hides in a step, so `start + v >= lo` is `v >= lo - start`), like
 * ir/dma.c's tail guards. */
#include <stdint.h>
#include <stdio.h>

#include "ir/arith.h"
#include "schedule/tensorize.h"

static const Expr *bare(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit) e = e->a;
  return e;
}

/* c's side with v, the constant, and the comparison as `side OP k`. */
static bool one_bound(const Expr *c, const Expr **side, int64_t *k, Op *op) {
  c = bare(c);
  if (c->kind != EX_BINARY) return false;
  static const struct { Op op, mirror; } ops[] = {
      {OP_LT, OP_GT}, {OP_LE, OP_GE}, {OP_GT, OP_LT}, {OP_GE, OP_LE}, {OP_EQ, OP_EQ}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (c->op != ops[i].op) continue;
    if (ir_const_int(c->b, k)) return *side = c->a, *op = c->op, true;
    if (ir_const_int(c->a, k)) return *side = c->b, *op = ops[i].mirror, true;
  }
  return false;
}

/* `side OP k` into w's bounds (side is start + v): false when it is not one. */
static bool add_bound(Arena *a, SchedWindow *w, const Expr *side, int64_t k, Op op, const Var *v, SrcLoc loc) {
  int64_t coef;
  if (!ir_signed_affine(side) || side->type->size > ty_int.size || !ir_linear_coef(side, v, &coef) || coef != 1)
    return false;
  Expr *start = arith_simplify(a, ir_subst_expr(a, ir_expr_copy(a, side), v, ir_int(a, 0, v->type, loc)), NULL, 0);
  if (w->start && !ir_expr_same(w->start, start)) return false; /* two starts: not one window */
  w->start = start;
  int64_t lo = k, hi = k; /* start + v >= lo, start + v < hi */
  if ((op == OP_GT && __builtin_add_overflow(k, 1, &lo)) || ((op == OP_LE || op == OP_EQ) && __builtin_add_overflow(k, 1, &hi)))
    return false;
  if (op == OP_GT || op == OP_GE || op == OP_EQ) {
    w->lo = w->has_lo && w->lo > lo ? w->lo : lo;
    w->has_lo = true;
  }
  if (op == OP_LT || op == OP_LE || op == OP_EQ) {
    w->hi = w->has_hi && w->hi < hi ? w->hi : hi;
    w->has_hi = true;
  }
  return true;
}

static bool conjuncts(Arena *a, SchedWindow *w, const Expr *c, const Var *v, SrcLoc loc) {
  c = bare(c);
  if (c->kind == EX_BINARY && c->op == OP_LAND)
    return conjuncts(a, w, c->a, v, loc) && conjuncts(a, w, c->b, v, loc);
  const Expr *side;
  int64_t k;
  Op op;
  return one_bound(c, &side, &k, &op) && add_bound(a, w, side, k, op, v, loc);
}

bool sched_window_guard(Arena *a, const Stmt *g, const Var *v, SchedWindow *w) {
  if (!g || g->kind != ST_IF || g->else_s || !g->then_s || !g->then_s->body || !v->type->is_signed) return false;
  /* int all through: the call's offsets and length are int (npu_clamp) */
  *w = (SchedWindow){0};
  return conjuncts(a, w, g->cond, v, g->loc) && w->start;
}

/* npu_clamp(x, n) (npu_intrinsics.h): x clamped to [0, n]. */
static Expr *clamp(Arena *a, Expr *x, int64_t n) {
  int64_t c;
  if (ir_const_int(x, &c)) return ir_int(a, c <= 0 ? 0 : c < n ? c : n, x->type, x->loc);
  return ir_npu_clamp(a, x, n);
}

/* k - start, clamped to [0, n]: the iterations below the bound k. */
static Expr *below(Arena *a, const SchedWindow *w, int64_t k, int64_t n) {
  Expr *start = ir_expr_copy(a, w->start);
  return clamp(a, arith_simplify(a, ir_sub(a, ir_int(a, k, &ty_int, start->loc), start, &ty_int), NULL, 0), n);
}

Expr *sched_window_first(Arena *a, const SchedWindow *w, int64_t n) {
  return w->has_lo ? below(a, w, w->lo, n) : ir_int(a, 0, &ty_int, w->start->loc);
}

/* end - first, both in [0, n]: n - first without an upper bound, end
 * without a lower one, else clamped at 0 too (a guard may keep nothing) */
Expr *sched_window_count(Arena *a, const SchedWindow *w, int64_t n) {
  SrcLoc loc = w->start->loc;
  Expr *first = sched_window_first(a, w, n), *end = w->has_hi ? below(a, w, w->hi, n) : ir_int(a, n, &ty_int, loc);
  Expr *left = arith_simplify(a, ir_sub(a, end, first, &ty_int), NULL, 0);
  return w->has_lo && w->has_hi ? clamp(a, left, n) : left;
}

/* `x % m == r` or `(x & k) == r` (either side): the index mask the lane
 * instructions take (npu_vu_store_lane_f32 ...); when it does not match,
 * the matcher's reason is the nearer one. */
static bool lane_mask(const Expr *c) {
  c = bare(c);
  if (c->kind != EX_BINARY || c->op != OP_EQ) return false;
  const Expr *a = bare(c->a), *b = bare(c->b);
  return (a->kind == EX_BINARY && (a->op == OP_MOD || a->op == OP_BAND)) ||
         (b->kind == EX_BINARY && (b->op == OP_MOD || b->op == OP_BAND));
}

bool sched_window_refusal(Arena *a, const Stmt *loop, char *why, size_t n) {
  const Stmt *g = loop->body->body;
  while (g && g->kind == ST_BLOCK && !g->next) g = g->body;
  if (ir_tail_guard(a, g, loop->var, NULL, NULL)) g = g->then_s->body;
  while (g && g->kind == ST_BLOCK && !g->next) g = g->body;
  SchedWindow w;
  if (!g || g->kind != ST_IF || ir_expr_has_load(g->cond) || !ir_expr_uses(g->cond, loop->var, NULL) ||
      lane_mask(g->cond) || sched_window_guard(a, g, loop->var, &w))
    return false;
  StrBuf t;
  sb_init(&t);
  ir_print_expr(&t, g->cond);
  snprintf(why, n, "the guard '%s' (line %d) on loop %s is neither a window a VU instruction takes (i >= lo, i < hi, "
           "i == k or their &&, on a signed int counter with coefficient 1) nor an index mask (i %% m == r, (i & k) == "
           "r with k + 1 a power of two, or i odd: i %% 2 != 0, i & 1); the loop stays scalar and exact (a mask that "
           "keeps several remainders, i %% 3 != 0, can be an array of bytes: if (m[i]))",
           t.data, g->loc.line, loop->name);
  sb_free(&t);
  return true;
}
