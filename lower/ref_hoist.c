/* Addresses the instrumented reference computes once (lower/ref_lower.h).
 *
 * tcc computes every address in full at every access. So the reference
 * hoists, out of the innermost loop, the part of a parameter array's
 * address that does not change in it: the row `A[i]` of `A[i][k]`, the
 * element `&C[i][j]` of `C[i][j] += ...` in a loop over k, declared at the
 * top of the body of the loop whose counter it last depends on. Only
 * indices of loop counters and constants that need no check are hoisted:
 * computed early, they are the same values and cannot fail (under an if
 * the row may be one the access never reaches: a pointer tcc computes and
 * never dereferences).
 *
 * In an unrolled body (lower/ref_plan.c), an element whose index is the
 * loop's counter itself is read through a pointer to it declared at the
 * top of each round: copy u reads it at u strides of that dimension. The
 * element at copy u is one the access as written reads, so in bounds. */
#include <stdlib.h>
#include <string.h>

#include "lower/ref_lower_state.h"

void lower_ck_push_level(CkLower *c, const Var *counter) {
  c->levels = realloc(c->levels, sizeof *c->levels * (size_t)(c->nlevels + 1));
  c->levels[c->nlevels++] = (CkLevel){counter, NULL};
}

CkPointer *lower_ck_pop_level(CkLower *c) { return c->levels[--c->nlevels].ptrs; }

/* e needs no check and reads loop counters and constants only. */
static bool checkless(const CkLower *c, const Expr *e, IrRange *r) {
  IrRange a = {0, 0}, b = {0, 0};
  unsigned ub = 0;
  switch (e->kind) {
  case EX_INT:
    *r = e->type->is_signed ? ir_range_const(e->ival) : ir_range_type(e->type);
    return true;
  case EX_VAR:
    *r = c->counter[e->var->id];
    return e->var->kind == VAR_LOOP;
  case EX_BINARY:
    if (!checkless(c, e->b, &b)) return false;
    /* fall through */
  case EX_CAST:
  case EX_UNARY:
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type) || !checkless(c, e->a, &a)) return false;
    *r = ir_range_op(e, a, e->kind == EX_BINARY ? b : a, &ub);
    return !ub;
  default:
    return false;
  }
}

/* Two checkless indices that read the same: one pointer serves both. */
static bool same_index(const Expr *x, const Expr *y) {
  if (x->kind != y->kind || strcmp(x->type->name, y->type->name)) return false;
  switch (x->kind) {
  case EX_INT: return x->ival == y->ival && (x->macro ? y->macro && !strcmp(x->macro, y->macro) : !y->macro);
  case EX_VAR: return !strcmp(x->var->name, y->var->name);
  case EX_BINARY: return x->op == y->op && same_index(x->a, y->a) && same_index(x->b, y->b);
  case EX_UNARY: return x->op == y->op && same_index(x->a, y->a);
  case EX_CAST: return same_index(x->a, y->a);
  default: return false;
  }
}

static bool uses_counter(const Expr *e, int n, const Var *v) {
  for (int d = 0; d < n; d++)
    if (ir_expr_uses(e->idx[d], v, NULL)) return true;
  return false;
}

/* How many leading indices of access e can be hoisted out of the
 * innermost loop: 0 when none, or e is not in a loop or not a parameter. */
static int hoistable(const CkLower *c, const Expr *e) {
  if (c->nlevels < 2 || e->buf->role == ROLE_LOCAL) return 0;
  const Var *inner = c->levels[c->nlevels - 1].counter;
  int p = 0;
  IrRange r;
  while (p < e->buf->ndim && !ir_expr_uses(e->idx[p], inner, NULL) && checkless(c, e->idx[p], &r)) p++;
  return p;
}

/* In an unrolled body (c->shifted): the dimension of access e whose index
 * is the loop's counter itself when every other index needs no check and
 * does not read it; -1 otherwise. */
static int stepped_dim(const CkLower *c, const Expr *e) {
  if (!c->shifted || e->buf->role == ROLE_LOCAL) return -1;
  int d = -1;
  IrRange r;
  for (int i = 0; i < e->buf->ndim; i++) {
    if (e->idx[i]->kind == EX_VAR && e->idx[i]->var == c->shifted && d < 0) d = i;
    else if (ir_expr_uses(e->idx[i], c->shifted, NULL) || !checkless(c, e->idx[i], &r)) return -1;
  }
  return d;
}

/* The pointer at level l to the first n indices of e (stepped: to its
 * element at the unrolled loop's counter), declared on first use. */
static const CkPointer *pointer(CkLower *c, int l, const Expr *e, int n, bool stepped) {
  for (CkPointer *p = c->levels[l].ptrs; p; p = p->next) {
    bool same = p->buf == e->buf && p->n == n && p->stepped == stepped;
    for (int d = 0; same && d < n; d++) same = same_index(p->idx[d]->e, e->idx[d]);
    if (same) return p;
  }
  CkPointer *p = ARENA_NEW(&c->out->arena, CkPointer);
  *p = (CkPointer){NULL, ++c->nptrs, e->buf, n, stepped, arena_alloc(&c->out->arena, sizeof(CkExpr *) * (size_t)n)};
  int64_t by = c->by; /* the element as written: copy 0's */
  c->by = 0;
  IrRange r;
  for (int d = 0; d < n; d++) p->idx[d] = lower_ck_expr(c, e->idx[d], &r);
  c->by = by;
  CkPointer **tail = &c->levels[l].ptrs;
  while (*tail) tail = &(*tail)->next;
  *tail = p;
  return p;
}

static void place_element(CkLower *c, CkPlace *pl, const Expr *e) {
  const Buffer *b = e->buf;
  int step = stepped_dim(c, e);
  if (step >= 0) {
    int64_t stride = 1;
    for (int d = step + 1; d < b->ndim; d++) stride *= b->shape[d];
    pl->ptr = pointer(c, c->nlevels - 1, e, b->ndim, true);
    pl->stepped = true;
    pl->offset = c->by * stride;
    return;
  }
  int p = hoistable(c, e);
  if (p) {
    int l = c->nlevels - 1;
    while (l > 0 && !uses_counter(e, p, c->levels[l].counter)) l--;
    pl->ptr = pointer(c, l, e, p, false);
  }
  pl->from = p;
  pl->idx = arena_alloc(&c->out->arena, sizeof(CkExpr *) * (size_t)b->ndim);
  IrRange r;
  for (int d = p; d < b->ndim; d++) pl->idx[d] = lower_ck_expr(c, e->idx[d], &r);
}

CkPlace *lower_ck_place(CkLower *c, const Expr *e) {
  CkPlace *pl = ARENA_NEW(&c->out->arena, CkPlace);
  pl->e = e;
  if (e->kind == EX_VAR) pl->by = e->var == c->shifted ? c->by : 0;
  else place_element(c, pl, e);
  return pl;
}
