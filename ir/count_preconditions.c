/* A local counter past its type at some sizes (docs/limits.md,
 * "Preconditions"): `int c = 0; for (i < n) for (j < m) c++;` holds n * m
 * after the nest, undefined in C once that passes INT_MAX. The count is a
 * product of sizes, which isl's affine sets cannot hold, so the condition
 * is derived here, from the nest's shape: a counter of a signed type,
 * declared with a constant, whose one write is an increment by a positive
 * constant under loops from 0 (or from a constant to a constant) with no
 * guard between, takes at most c0 + K * trips, the trips the product of
 * the loops' counts. The condition, `n <= 0 || m <= 0 || n <= 2147483647 /
 * m` (exact, and its own arithmetic cannot overflow), is tested at entry
 * (Kernel.entry_need); the proofs do not need it. */
#include <string.h>

#include "ir/preconditions.h"

enum { MAX_NEST = 16 };

/* The loops around a statement, from the counter's declaration in. */
typedef struct {
  const Stmt *loop[MAX_NEST];
  int nloops;
  bool guarded; /* under an if, or too deep: the count is not exact */
} Around;

/* One counter under study: its declaration, and its one write. */
typedef struct {
  const Var *var;
  int64_t start;      /* its initial value */
  int decl_depth;     /* loops around its declaration */
  int writes;         /* writes of any kind */
  int64_t step;       /* the increment's constant */
  Around at;          /* the increment's loops, from the declaration in */
  const Stmt *site;   /* the increment */
} Counter;

/* s increments v by a positive constant (`v++`, `v += 3`, `v = v + 3`)? */
static bool increment(const Stmt *s, const Var *v, int64_t *k) {
  if (s->kind != ST_ASSIGN || s->lhs->kind != EX_VAR || s->lhs->var != v) return false;
  const Expr *r = s->rhs;
  while (r->kind == EX_CAST && r->implicit) r = r->a;
  if (s->op == OP_ADD) return ir_const_int(r, k) && *k > 0;
  if (s->op != OP_NONE || r->kind != EX_BINARY || r->op != OP_ADD) return false;
  const Expr *x = r->a;
  while (x->kind == EX_CAST && x->implicit) x = x->a;
  return x->kind == EX_VAR && x->var == v && ir_const_int(r->b, k) && *k > 0;
}

static void visit(Counter *c, const Stmt *s, Around *at, int depth);

static void visit_list(Counter *c, const Stmt *s, Around *at, int depth) {
  for (; s; s = s->next) visit(c, s, at, depth);
}

static void visit(Counter *c, const Stmt *s, Around *at, int depth) {
  switch (s->kind) {
  case ST_BLOCK:
    visit_list(c, s->body, at, depth);
    return;
  case ST_FOR: {
    Around in = *at;
    if (in.nloops == MAX_NEST) in.guarded = true;
    else in.loop[in.nloops++] = s;
    visit_list(c, s->body, &in, depth + 1);
    return;
  }
  case ST_IF: {
    Around in = *at;
    in.guarded = true;
    if (s->then_s) visit(c, s->then_s, &in, depth);
    if (s->else_s) visit(c, s->else_s, &in, depth);
    return;
  }
  case ST_DECL:
    if (s->var == c->var) {
      c->decl_depth = depth;
      *at = (Around){0}; /* the loops that count start here */
    }
    return;
  case ST_ASSIGN:
    if (s->lhs->kind != EX_VAR || s->lhs->var != c->var) return;
    c->writes++;
    if (increment(s, c->var, &c->step)) {
      c->at = *at;
      c->site = s;
    }
    return;
  }
}

/* One loop's count as a constant (*n) or a size it runs to from 0 (*size). */
static bool loop_count(const Stmt *l, int64_t *n, const Var **size) {
  int64_t lo, hi;
  *size = NULL;
  if (l->step != 1 || (l->cmp != OP_LT && l->cmp != OP_LE) || !ir_const_int(l->lo, &lo)) return false;
  if (ir_const_int(l->hi, &hi)) {
    int64_t end = hi + (l->cmp == OP_LE);
    *n = end > lo ? end - lo : 0;
    return true;
  }
  const Expr *h = l->hi;
  while (h->kind == EX_CAST && h->implicit) h = h->a;
  if (lo != 0 || l->cmp != OP_LT || h->kind != EX_VAR || !h->var->is_size) return false;
  *size = h->var;
  return true;
}

/* `size <= 0` (`size == 0` when unsigned): the loop does not run. */
static Expr *empty_loop(Arena *a, const Var *v, SrcLoc loc) {
  Expr *x = ir_var(a, (Var *)v, loc);
  return ir_binary(a, v->type->is_signed ? OP_LE : OP_EQ, x, ir_int(a, 0, v->type, loc), &ty_int, loc);
}

/* The condition that c's count stays within its type, or NULL (no size
 * in its count, or a shape this does not read). */
static Expr *count_condition(Arena *a, const Counter *c, SrcLoc loc) {
  int64_t tmin;
  uint64_t tmax;
  type_int_range(c->var->type, &tmin, &tmax);
  if (c->start < 0 && (uint64_t)(-(c->start + 1)) + 1 > tmax) return NULL;
  uint64_t room = c->start < 0 ? tmax + (uint64_t)(-(c->start + 1)) + 1 : tmax - (uint64_t)c->start;
  uint64_t bound = room / (uint64_t)c->step; /* trips <= bound */
  const Var *sizes[MAX_NEST];
  int nsizes = 0;
  for (int i = 0; i < c->at.nloops; i++) {
    int64_t n;
    const Var *size;
    if (!loop_count(c->at.loop[i], &n, &size)) return NULL;
    if (size) sizes[nsizes++] = size;
    else if (n == 0) return NULL; /* never runs */
    else bound /= (uint64_t)n;
  }
  if (!nsizes || bound > INT64_MAX) return NULL;
  /* sizes[0] <= bound / sizes[1] / ...: floor division keeps it exact */
  const Type *t = bound > INT32_MAX ? &ty_llong : &ty_int;
  Expr *limit = ir_int(a, (int64_t)bound, t, loc);
  for (int i = 1; i < nsizes; i++) {
    Expr *d = ir_var(a, (Var *)sizes[i], loc);
    limit = ir_binary(a, OP_DIV, limit, d, type_common(type_promote(t), type_promote(d->type)), loc);
  }
  Expr *cond = empty_loop(a, sizes[0], loc); /* left to right: `n <= 0 || m <= 0 || ...` */
  for (int i = 1; i < nsizes; i++) cond = ir_binary(a, OP_LOR, cond, empty_loop(a, sizes[i], loc), &ty_int, loc);
  Expr *fits = ir_binary(a, OP_LE, ir_var(a, (Var *)sizes[0], loc), limit, &ty_int, loc);
  return ir_binary(a, OP_LOR, cond, fits, &ty_int, loc);
}

/* Each local counter declared in s's tree (a block's statements). */
typedef struct {
  Kernel *k;
  Arena *a;
} Finder;

static bool add_need(Finder *f, const Stmt *decl) {
  const Var *v = decl->var;
  int64_t start;
  if (!v || v->kind != VAR_LOCAL || !type_is_integer(v->type) || !v->type->is_signed || !decl->init ||
      !ir_const_int(decl->init, &start) || f->k->nentry_need == IR_MAX_ASSUME)
    return true;
  Counter c = {.var = v, .start = start};
  Around at = {0};
  visit(&c, f->k->body, &at, 0);
  if (c.writes != 1 || !c.site || c.at.guarded) return true;
  Expr *cond = count_condition(f->a, &c, c.site->loc);
  if (!cond) return true;
  EntryNeed *n = &f->k->entry_need[f->k->nentry_need++];
  n->cond = cond;
  n->loc = c.site->loc;
  n->why = arena_printf(f->a, "counter '%s' must stay within %s after %s", v->name, v->type->name,
                        c.at.nloops > 1 ? "the loops around it" : "its loop");
  return true;
}

static bool find_decl(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->kind == ST_DECL && s->var && !s->buf) return add_need(ctx, s);
  return true;
}

void ir_derive_count_needs(Kernel *k, Arena *a) {
  if (!k->nsizes) return;
  Finder f = {k, a};
  ir_walk_stmts(k->body, find_decl, &f);
}
