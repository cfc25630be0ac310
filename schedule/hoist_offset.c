/* hoist_offset(update, offset, new_buffer): TFLite's input offset taken
 * out of a reduction, so that the reduction is a plain int8 product the
 * NU computes:
 *
 *     acc = 0;
 *     for k: update: acc += F[..][k] * (X[..][k] + offset);
 *   hoist_offset(update, input_offset, ofs)
 *     for j..: { ofs[j..] = 0; for k: ofs[j..] += input_offset * F[..][k]; }   (at the kernel's start)
 *     ...
 *     acc = 0;
 *     for k: update: acc += F[..][k] * X[..][k];
 *     ofs_add: acc += ofs[j..];
 *
 * ofs has one dimension per loop around the update (other than the
 * reduction's) whose counter F's indices use: one sum per output channel,
 * computed once.
 *
 * Legal (proven here, step by step): the offset is a constant or a scalar
 * parameter the kernel never assigns, F an array the kernel never writes,
 * so the sums at the start read what the update reads; the update is the
 * reduction loop's only statement and acc is 0 right before that loop, so
 * after it acc holds sum F*X; the loops ofs spans have constant bounds,
 * and so does the reduction, or (with sizes) it counts from a constant to
 * an expression of the sizes, the same at the start (the start's nest
 * reads F where the kernel does). Every
 * new value fits its type, from the types' ranges and the trip count:
 * each partial sum of F*X and of offset*F, over the most trips the
 * assumptions allow (refused otherwise: an int32_t
 * offset is any int32_t; a narrower type, such as TFLite's int16_t range
 * of -zero_point, bounds it), and acc + ofs is the kernel's own acc after
 * its loop, so it overflows only where the kernel as written does. */
#include <stdio.h>

#include "frontend/frontend.h"
#include "ir/affine.h"
#include "ir/ranges.h"
#include "schedule/primitives.h"

typedef struct {
  Stmt *update, *red;     /* the update, its reduction loop */
  Expr *offset;           /* as parsed at the update */
  Expr *mul;              /* the update's product */
  int sum_side;           /* its operand that is `X + offset`: 0 a, 1 b */
  Expr *f, *x;            /* F and X (X as converted to the sum's type) */
  const Type *t;          /* the product's type */
  Stmt *loops[64];        /* the loops ofs spans, outermost first */
  int nloops;
} Hoist;

static Expr *strip_implicit(Expr *e) {
  while (e->kind == EX_CAST && e->implicit) e = e->a;
  return e;
}

/* Whether a statement assigns the scalar v or an element of b. */
typedef struct {
  const Var *v;
  const Buffer *b;
  bool found;
} Writes;

static bool find_write(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Writes *w = ctx;
  if (st->kind == ST_ASSIGN)
    w->found |= st->lhs->kind == EX_VAR ? st->lhs->var == w->v : st->lhs->kind == EX_LOAD && st->lhs->buf == w->b;
  return !w->found;
}

static bool written(Sched *s, const Var *v, const Buffer *b) {
  Writes w = {v, b, false};
  ir_walk_stmts(s->k->body->body, find_write, &w);
  return w.found;
}

/* Step 1: a constant, or a scalar parameter no statement assigns. */
static bool offset_invariant(Sched *s, const SchedArg *at, Hoist *h) {
  Expr *o = strip_implicit(h->offset);
  if (type_is_integer(o->type) && ir_expr_constant(o)) return true;
  if (o->kind != EX_VAR || o->var->kind != VAR_PARAM || !type_is_integer(o->var->type))
    return sched_error(s, at, "the offset must be an integer constant or a scalar parameter");
  if (written(s, o->var, NULL))
    return sched_error(s, at, "the kernel assigns %s: its value at the start is not the one the update reads",
                       o->var->name);
  return true;
}

/* Step 2: the update is `acc += F * (X + offset)` (either order). */
static bool split_product(Sched *s, const SchedArg *at, Hoist *h) {
  Stmt *u = h->update;
  Expr *m = u->kind == ST_ASSIGN && u->op == OP_ADD ? strip_implicit(u->rhs) : NULL;
  if (!m || m->kind != EX_BINARY || m->op != OP_MUL || !type_is_integer(m->type))
    return sched_error(s, at, "%s (line %d) is not an update `acc += F * (X + offset)`", u->name, u->loc.line);
  for (int side = 0; side < 2; side++) {
    Expr *sum = strip_implicit(side ? m->b : m->a), *other = side ? m->a : m->b;
    if (sum->kind != EX_BINARY || sum->op != OP_ADD) continue;
    for (int o = 0; o < 2; o++)
      if (ir_expr_same(strip_implicit(o ? sum->b : sum->a), strip_implicit(h->offset))) {
        h->x = o ? sum->a : sum->b;
        h->mul = m, h->sum_side = side;
        h->f = strip_implicit(other);
        h->t = m->type;
        if (type_same(sum->type, m->type) && h->f->kind == EX_LOAD) return true;
      }
  }
  return sched_error(s, at, "%s (line %d) is not an update `acc += F[..] * (X + offset)` of an array F and "
                     "this offset, in the product's type", u->name, u->loc.line);
}

static bool constant_bounds(const Stmt *l, int64_t *lo, int64_t *trip) {
  return l->step == 1 && l->cmp == OP_LT && ir_const_int(l->lo, lo) && ir_trip_count(l, trip);
}

/* The reduction's bounds: constant, or on a kernel with sizes from a
 * constant to an expression of the sizes alone (the sums at the start
 * run it as it is); *trip is then the most trips at any size the
 * assumptions allow (isl), which bounds the sums. */
static bool reduction_bounds(Sched *s, const Stmt *l, int64_t *lo, int64_t *trip) {
  if (constant_bounds(l, lo, trip)) return true;
  if (!s->k->nsizes || l->step != 1 || l->cmp != OP_LT || !ir_const_int(l->lo, lo) || !ir_expr_sizes_only(l->hi))
    return false;
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  char why[300];
  int64_t hlo, hhi;
  bool exact, empty;
  bool ok = aff_push_sizes(&a, why, sizeof why) && aff_range(&a, l->hi, &hlo, &hhi, &exact, &empty) && !empty;
  aff_free(&a);
  *trip = ok && hhi > *lo ? hhi - *lo : 0;
  return ok;
}

/* Step 3: the reduction loop holds the update alone, acc is 0 right before
 * it, F is never written, and the loops F's indices use are of constant
 * bounds. */
static bool zero_before(const Stmt *prev, const Expr *acc) {
  int64_t v;
  if (!prev) return false;
  if (prev->kind == ST_DECL && acc->kind == EX_VAR && prev->var == acc->var)
    return prev->init && ir_const_int(strip_implicit(prev->init), &v) && v == 0;
  return prev->kind == ST_ASSIGN && prev->op == OP_NONE && ir_expr_same(prev->lhs, acc) &&
         ir_const_int(strip_implicit(prev->rhs), &v) && v == 0;
}

/* Whether e reads the accumulator (its scalar, or its array). */
static bool reads_acc(const Expr *e, const Expr *acc) {
  return acc->kind == EX_VAR ? ir_expr_uses(e, acc->var, NULL) : acc->kind != EX_LOAD || ir_expr_uses(e, NULL, acc->buf);
}

/* Why a loop ofs spans may not follow the kernel's sizes: the sums'
 * array has a constant shape. */
static const char *sized_why(const Sched *s, const Stmt *l) {
  if (!s->k->nsizes || !ir_expr_sizes_only(l->lo) || !ir_expr_sizes_only(l->hi)) return "";
  return " (its bounds follow the kernel's sizes, and the sums' array, one sum per iteration, has a constant shape)";
}

static bool reduction_shape(Sched *s, const SchedArg *at, Hoist *h) {
  Stmt *u = h->update, *owner = NULL;
  h->red = sched_parent_loop(s, u);
  Stmt *body = h->red ? (h->red->body->kind == ST_BLOCK ? h->red->body->body : h->red->body) : NULL;
  if (!h->red || body != u || u->next)
    return sched_error(s, at, "%s (line %d) is not the only statement of its reduction loop", u->name, u->loc.line);
  if (ir_expr_uses(u->lhs, h->red->var, NULL) || reads_acc(h->f, u->lhs) || reads_acc(h->x, u->lhs))
    return sched_error(s, at, "%s (line %d) does not reduce over loop %s", u->name, u->loc.line, h->red->name);
  sched_link(s, h->red, &owner);
  Stmt *prev = NULL;
  for (Stmt *c = owner ? owner->body : s->k->body->body; c && c != h->red; c = c->next) prev = c;
  if (!zero_before(prev, u->lhs))
    return sched_error(s, at, "the accumulator of %s (line %d) is not set to 0 right before loop %s", u->name,
                       u->loc.line, h->red->name);
  for (int d = 0; d < h->f->buf->ndim; d++)
    if (!ir_expr_counters_only(s->k, h->f->idx[d]))
      return sched_error(s, at, "an index of %s in %s (line %d) reads more than loop counters", h->f->buf->name,
                         u->name, u->loc.line);
  if (written(s, NULL, h->f->buf))
    return sched_error(s, at, "the kernel writes %s: its sums at the start would not be the ones the update reads",
                       h->f->buf->name);
  Stmt *around[64];
  int n = sched_loops_around(s, u, around, 64);
  int64_t lo, trip;
  if (n < 0 || !reduction_bounds(s, h->red, &lo, &trip))
    return sched_error(s, at, "loop %s has no constant bounds%s", h->red->name,
                       s->k->nsizes ? " (nor counts from a constant to an expression of the kernel's sizes)" : "");
  for (int i = 0; i < n; i++) {
    if (around[i] == h->red || !ir_expr_uses(h->f, around[i]->var, NULL)) continue;
    if (!constant_bounds(around[i], &lo, &trip))
      return sched_error(s, at, "loop %s, whose counter %s's index uses, has no constant bounds%s", around[i]->name,
                         h->f->buf->name, sized_why(s, around[i]));
    h->loops[h->nloops++] = around[i];
  }
  return true;
}

/* The values a sum of up to n products of a and b takes. */
static IrRange sum_of(IrRange a, IrRange b, int64_t n) {
  IrWide c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}, lo = 0, hi = 0;
  for (int i = 0; i < 4; i++) lo = c[i] < lo ? c[i] : lo, hi = c[i] > hi ? c[i] : hi;
  return (IrRange){lo * n, hi * n};
}

/* Step 4: each partial sum of F*X and of offset*F fits the product's type. */
static bool sums_fit(Sched *s, const SchedArg *at, const Hoist *h) {
  int64_t lo, k, ov;
  bool sized = !constant_bounds(h->red, &lo, &k) && reduction_bounds(s, h->red, &lo, &k);
  const char *sizes = sized ? " (its trips at the largest sizes allowed; assume smaller sizes)" : "";
  Expr *o = strip_implicit(h->offset);
  IrRange rf = ir_range_type(h->f->type), rx = ir_range_type(strip_implicit(h->x)->type);
  IrRange ro = ir_const_int(o, &ov) ? ir_range_const(ov) : ir_range_type(o->type);
  if (!ir_range_within(sum_of(rf, rx, k), h->t))
    return sched_error(s, at, "a sum of %lld products %s * %s could leave %s%s", (long long)k, h->f->buf->name,
                       "X", h->t->name, sizes);
  if (!ir_range_within(sum_of(ro, rf, k), h->t)) {
    StrBuf e;
    sb_init(&e);
    ir_print_expr(&e, o);
    sched_error(s, at, "%s times a sum of %lld elements of %s could leave %s (%s is any %s; a narrower type, or "
                "a constant, bounds it)%s", e.data, (long long)k, h->f->buf->name, h->t->name, e.data, o->type->name,
                sizes);
    sb_free(&e);
    return false;
  }
  return true;
}

/* Step 5: the sums' array, its nest at the kernel's start, the update
 * without the offset, and acc += ofs after the reduction loop. */
static Buffer *sums_buffer(Sched *s, Hoist *h, const char *name, Expr **idx) {
  Buffer *b = ARENA_NEW(s->a, Buffer);
  for (int i = 0; i < h->nloops; i++) {
    int64_t lo, trip;
    constant_bounds(h->loops[i], &lo, &trip);
    b->shape[b->ndim] = trip;
    const Type *t = h->loops[i]->var->type;
    idx[b->ndim++] = ir_sub(s->a, ir_var(s->a, h->loops[i]->var, h->update->loc), ir_int(s->a, lo, t, h->update->loc), t);
  }
  if (!b->ndim) {
    b->shape[0] = 1;
    idx[b->ndim++] = ir_int(s->a, 0, &ty_int, h->update->loc);
  }
  b->name = name;
  b->elem = h->t;
  b->scope = "global";
  b->role = ROLE_LOCAL;
  b->loc = h->update->loc;
  return b;
}

static Stmt *assign(Sched *s, const char *name, Expr *lhs, Op op, Expr *rhs, SrcLoc loc) {
  Stmt *st = ir_stmt(s->a, ST_ASSIGN, loc);
  st->name = name;
  st->lhs = lhs;
  st->op = op;
  st->rhs = rhs;
  return st;
}

static Stmt *in_loop(Stmt *loop, Stmt *body) {
  loop->body->body = body;
  return loop;
}

/* for each loop ofs spans { ofs[..] = 0; for k: ofs[..] += offset * F; } over fresh counters */
static Stmt *sums_nest(Sched *s, Hoist *h, Buffer *b, Expr *const *idx) {
  SrcLoc loc = h->update->loc;
  Stmt *new_loops[65];
  Expr *f = ir_expr_copy(s->a, h->f);
  Expr **ix = ARENA_ARRAY(s->a, Expr *, b->ndim);
  for (int i = 0; i < b->ndim; i++) ix[i] = ir_expr_copy(s->a, idx[i]);
  int n = h->nloops;
  Stmt *const *old = h->loops;
  for (int i = 0; i <= n; i++) {
    const Stmt *l = i < n ? old[i] : h->red;
    int64_t lo, trip;
    bool constant = constant_bounds(l, &lo, &trip); /* else the reduction's end in the sizes */
    const Type *t = l->var->type;
    Var *v;
    new_loops[i] = sched_make_loop(s, sched_derived_name(s, b->name, arena_printf(s->a, "_%s", l->name)), t,
                                   ir_int(s->a, lo, t, loc),
                                   constant ? ir_int(s->a, lo + trip, t, loc) : ir_expr_copy(s->a, l->hi), loc, &v);
    Expr *nv = ir_var(s->a, v, loc);
    f = ir_subst_expr(s->a, f, l->var, nv);
    for (int d = 0; d < b->ndim; d++) ix[d] = ir_subst_expr(s->a, ix[d], l->var, nv);
  }
  Expr *o = ir_expr_copy(s->a, strip_implicit(h->offset));
  Expr *term = ir_binary(s->a, OP_MUL, type_same(o->type, h->t) ? o : ir_cast(s->a, o, h->t, true),
                         ir_cast(s->a, f, h->t, true), h->t, loc);
  Stmt *sum = assign(s, b->name, ir_load(s->a, b, ix), OP_ADD, term, loc);
  Expr **ix0 = ARENA_ARRAY(s->a, Expr *, b->ndim);
  for (int d = 0; d < b->ndim; d++) ix0[d] = ir_expr_copy(s->a, ix[d]);
  Stmt *init = assign(s, sched_derived_name(s, b->name, "_init"), ir_load(s->a, b, ix0), OP_NONE,
                      ir_int(s->a, 0, h->t, loc), loc);
  init->next = in_loop(new_loops[n], sum);
  Stmt *nest = init;
  for (int i = n - 1; i >= 0; i--) nest = in_loop(new_loops[i], nest);
  return nest;
}

bool prim_hoist_offset(Sched *s, const SchedStep *st) {
  Hoist h = {.update = sched_leaf(s, &st->args[0])};
  if (!h.update) return false;
  if (h.update->kind != ST_ASSIGN)
    return sched_error(s, &st->args[0], "%s is a declaration; hoist_offset takes an update", st->args[0].text);
  const SchedArg *oa = &st->args[1];
  const char *text = oa->kind == SA_STR ? oa->name : oa->text;
  SrcLoc at = oa->loc;
  if (oa->kind == SA_STR && at.line) at.col++; /* inside the quotes */
  const char *name = sched_new_name(s, &st->args[2]);
  if (!name) return false;
  h.offset = frontend_expr_at((Module *)s->m, s->k, h.update, text, s->file, s->src, at, s->d);
  if (!h.offset) return false;
  if (!offset_invariant(s, oa, &h) || !split_product(s, &st->args[0], &h) || !reduction_shape(s, &st->args[0], &h) ||
      !sums_fit(s, &st->args[0], &h))
    return false;
  Expr *idx[IR_MAX_DIMS];
  if (h.nloops > IR_MAX_DIMS)
    return sched_error(s, &st->args[0], "%s's index uses more than %d loops", h.f->buf->name, IR_MAX_DIMS);
  Buffer *b = sums_buffer(s, &h, name, idx);
  int64_t bytes = h.t->size;
  for (int i = 0; i < b->ndim; i++)
    if (__builtin_mul_overflow(bytes, b->shape[i], &bytes) || bytes > IR_MAX_LOCAL_BYTES)
      return sched_error(s, &st->args[2], "the array %s would take more than %d bytes (the limit of a kernel's local "
                         "arrays)", name, IR_MAX_LOCAL_BYTES);
  b->id = s->k->nbufs++;
  Stmt *nest = sums_nest(s, &h, b, idx);
  if (h.sum_side) h.mul->b = h.x;
  else h.mul->a = h.x;
  Expr **at_j = ARENA_ARRAY(s->a, Expr *, b->ndim); /* the load keeps its index array */
  for (int d = 0; d < b->ndim; d++) at_j[d] = idx[d];
  Stmt *add = assign(s, sched_derived_name(s, name, "_add"), ir_expr_copy(s->a, h.update->lhs), OP_ADD,
                     ir_load(s->a, b, at_j), h.update->loc);
  add->next = h.red->next;
  h.red->next = add;
  Stmt *last = nest; /* the init and its loop when ofs spans no loop */
  while (last->next) last = last->next;
  last->next = s->k->body->body;
  Stmt *decl = ir_stmt(s->a, ST_DECL, st->loc);
  decl->buf = b;
  decl->next = nest;
  s->k->body->body = decl;
  return true;
}
