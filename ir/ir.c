/* IR construction helpers and generic walks. */
#include <string.h>

#include "ir/ir.h"

Expr *ir_int(Arena *a, int64_t v, const Type *t, SrcLoc loc) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = EX_INT;
  e->ival = v;
  e->type = t;
  e->loc = loc;
  return e;
}

Expr *ir_npu_clamp(Arena *a, Expr *x, int64_t n) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = EX_CALL;
  e->text = "npu_clamp";
  e->type = &ty_int;
  e->loc = x->loc;
  e->nargs = 2;
  e->args = ARENA_ARRAY(a, Expr *, 2);
  e->args[0] = x;
  e->args[1] = ir_int(a, n, &ty_int, x->loc);
  return e;
}

Expr *ir_var(Arena *a, Var *v, SrcLoc loc) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = EX_VAR;
  e->var = v;
  e->type = v->type;
  e->loc = loc;
  return e;
}

Expr *ir_cast(Arena *a, Expr *e, const Type *t, bool implicit) {
  if (implicit && e->type->kind == t->kind) return e;
  Expr *c = ARENA_NEW(a, Expr);
  c->kind = EX_CAST;
  c->a = e;
  c->type = t;
  c->implicit = implicit;
  c->loc = e->loc;
  return c;
}

Expr *ir_binary(Arena *a, Op op, Expr *l, Expr *r, const Type *t, SrcLoc loc) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = EX_BINARY;
  e->op = op;
  e->a = l;
  e->b = r;
  e->type = t;
  e->loc = loc;
  return e;
}

Expr *ir_load(Arena *a, Buffer *b, Expr **idx) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = EX_LOAD;
  e->buf = b;
  e->type = b->elem;
  e->idx = idx;
  return e;
}

bool ir_expr_same(const Expr *x, const Expr *y) {
  if (!x || !y) return x == y;
  StrBuf a, b;
  sb_init(&a);
  sb_init(&b);
  ir_print_expr(&a, x);
  ir_print_expr(&b, y);
  bool same = !strcmp(a.data ? a.data : "", b.data ? b.data : "");
  sb_free(&a);
  sb_free(&b);
  return same;
}

Stmt *ir_stmt(Arena *a, StmtKind kind, SrcLoc loc) {
  Stmt *s = ARENA_NEW(a, Stmt);
  s->kind = kind;
  s->loc = loc;
  return s;
}

Expr *ir_expr_copy(Arena *a, const Expr *e) {
  if (!e) return NULL;
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->a = ir_expr_copy(a, e->a);
  c->b = ir_expr_copy(a, e->b);
  c->c = ir_expr_copy(a, e->c);
  if (e->kind == EX_LOAD) {
    c->idx = ARENA_ARRAY(a, Expr *, e->buf->ndim);
    for (int i = 0; i < e->buf->ndim; i++) c->idx[i] = ir_expr_copy(a, e->idx[i]);
  }
  if (e->kind == EX_CALL) {
    c->args = ARENA_ARRAY(a, Expr *, e->nargs);
    for (int i = 0; i < e->nargs; i++) c->args[i] = ir_expr_copy(a, e->args[i]);
  }
  return c;
}

/* The visitors below go on (true) while e's node is allowed: the walk
 * stops at the first node that is not. */
static bool not_load(const Expr *e, void *ctx) {
  (void)ctx;
  return e->kind != EX_LOAD;
}

bool ir_expr_has_load(const Expr *e) { return !ir_walk_expr(e, not_load, NULL); }

static bool no_var(const Expr *e, void *ctx) {
  (void)ctx;
  return e->kind != EX_VAR && e->kind != EX_LOAD && e->kind != EX_CALL;
}

bool ir_expr_constant(const Expr *e) { return ir_walk_expr(e, no_var, NULL); }

static bool counter_or_size(const Expr *e, void *ctx) {
  const Kernel *k = ctx;
  if (e->kind == EX_LOAD || e->kind == EX_CALL) return false;
  if (e->kind != EX_VAR || e->var->kind == VAR_LOOP) return true;
  for (int i = 0; k && i < k->nsizes; i++)
    if (k->sizes[i] == e->var) return true;
  return false;
}

bool ir_expr_counters_only(const Kernel *k, const Expr *e) { return ir_walk_expr(e, counter_or_size, (void *)k); }

static bool not_in_scope(const Expr *e, void *ctx) {
  const char *scope = ctx;
  return e->kind != EX_LOAD || !(scope ? e->buf->scope && !strcmp(e->buf->scope, scope) : buffer_onchip(e->buf));
}

bool ir_expr_in_scope(const Expr *e, const char *scope) { return !ir_walk_expr(e, not_in_scope, (void *)scope); }

bool ir_stmt_in_scope(const Stmt *st, const char *scope) {
  if (ir_expr_in_scope(st->lhs, scope) || ir_expr_in_scope(st->rhs, scope) || ir_expr_in_scope(st->cond, scope) ||
      ir_expr_in_scope(st->lo, scope) || ir_expr_in_scope(st->hi, scope) || ir_expr_in_scope(st->init, scope))
    return true;
  for (int i = 0; i < st->ninit; i++)
    if (ir_expr_in_scope(st->init_list[i], scope)) return true;
  return false;
}

typedef struct {
  const Var *v;
  const Buffer *b;
} Uses;

static bool not_a_use(const Expr *e, void *ctx) {
  const Uses *u = ctx;
  return !((u->v && e->kind == EX_VAR && e->var == u->v) || (u->b && e->kind == EX_LOAD && e->buf == u->b));
}

bool ir_expr_uses(const Expr *e, const Var *v, const Buffer *b) {
  Uses u = {v, b};
  return !ir_walk_expr(e, not_a_use, &u);
}

bool ir_stmt_uses(const Stmt *s, const Var *v, const Buffer *b) {
  for (int i = 0; i < s->ninit; i++)
    if (ir_expr_uses(s->init_list[i], v, b)) return true;
  return ir_expr_uses(s->lo, v, b) || ir_expr_uses(s->hi, v, b) || ir_expr_uses(s->cond, v, b) ||
         ir_expr_uses(s->lhs, v, b) || ir_expr_uses(s->rhs, v, b) || ir_expr_uses(s->init, v, b);
}

Kernel *module_kernel(const Module *m, const char *name) {
  for (Kernel *k = m->kernels; k; k = k->next)
    if (strcmp(k->name, name) == 0) return k;
  return NULL;
}

bool ir_trip_count_between(Op cmp, int64_t step, int64_t lo, int64_t hi, int64_t *n) {
  int64_t span;
  bool up = cmp == OP_LT || cmp == OP_LE, closed = cmp == OP_LE || cmp == OP_GE;
  if (up ? __builtin_sub_overflow(hi, lo, &span) : __builtin_sub_overflow(lo, hi, &span)) return false;
  if (closed && __builtin_add_overflow(span, 1, &span)) return false;
  if (step == 0 || step == INT64_MIN) return false;
  int64_t st = step > 0 ? step : -step;
  *n = span <= 0 ? 0 : span / st + (span % st != 0);
  return true;
}

bool ir_trip_count(const Stmt *loop, int64_t *n) {
  int64_t lo, hi;
  if (loop->kind != ST_FOR || !ir_const_int(loop->lo, &lo) || !ir_const_int(loop->hi, &hi)) return false;
  return ir_trip_count_between(loop->cmp, loop->step, lo, hi, n);
}

/* x as type t: an explicit conversion where its type differs (C computes
 * the count in t only then), a literal converted implicitly. */
static Expr *in_type(Arena *a, Expr *x, const Type *t) {
  if (x->type->kind == t->kind) return x;
  return ir_cast(a, x, t, x->kind == EX_INT);
}

/* The count where the loop runs (IrTrips.count), built from the bounds. */
static Expr *count_where_runs(Arena *a, bool inclusive, uint64_t mag, Expr *from, Expr *to, const Type *t) {
  SrcLoc at = to->loc;
  Expr *one = in_type(a, ir_int(a, 1, &ty_int, at), t);
  int64_t f;
  Expr *d = in_type(a, ir_expr_copy(a, to), t); /* to - 0 is to as written, even a constant */
  if (!ir_const_int(from, &f) || f) d = ir_sub(a, d, in_type(a, ir_expr_copy(a, from), t), t);
  if (mag == 1) return inclusive ? ir_add(a, d, one, t) : d;
  Expr *q = ir_binary(a, OP_DIV, inclusive ? d : ir_sub(a, d, one, t), ir_int(a, (int64_t)mag, t, at), t, at);
  return ir_add(a, q, in_type(a, ir_int(a, 1, &ty_int, at), t), t);
}

IrTrips ir_trips_between(Arena *a, Op cmp, int64_t step, Expr *lo, Expr *hi, const Type *t) {
  bool up = step > 0, inclusive = cmp == OP_LE || cmp == OP_GE;
  uint64_t mag = up ? (uint64_t)step : 0ull - (uint64_t)step;
  Expr *from = up ? lo : hi, *to = up ? hi : lo;
  Expr *d = count_where_runs(a, inclusive, mag, from, to, t);
  int64_t l, h, n, v;
  if (ir_const_int(lo, &l) && ir_const_int(hi, &h) && ir_trip_count_between(cmp, step, l, h, &n)) {
    /* a count that is a bound as written keeps its spelling (`C / OB`) */
    Expr *c = ir_const_int(d, &v) && v == n ? d : ir_int(a, n, t, hi->loc);
    return (IrTrips){NULL, c, c};
  }
  SrcLoc at = hi->loc;
  IrTrips r = {ir_binary(a, inclusive ? OP_GE : OP_GT, ir_expr_copy(a, to), ir_expr_copy(a, from), &ty_int, at), d, NULL};
  r.trips = ARENA_NEW(a, Expr);
  *r.trips = (Expr){.kind = EX_COND, .type = t, .loc = at, .a = r.runs, .b = ir_expr_copy(a, d),
                    .c = in_type(a, ir_int(a, 0, &ty_int, at), t)};
  return r;
}

IrTrips ir_trips(Arena *a, const Stmt *loop) {
  return ir_trips_between(a, loop->cmp, loop->step, loop->lo, loop->hi, loop->var->type);
}

Expr *ir_trip_expr(Arena *a, const Stmt *loop) { return ir_trips(a, loop).trips; }

bool buffer_symbolic(const Buffer *b) {
  for (int i = 0; i < b->ndim; i++)
    if (b->extent[i]) return true;
  return false;
}

bool buffer_rows_symbolic(const Buffer *b) {
  for (int i = 1; i < b->ndim; i++)
    if (b->extent[i]) return true;
  return false;
}

int64_t buffer_elems(const Buffer *b) {
  int64_t n = 1;
  for (int i = 0; i < b->ndim; i++) n *= b->shape[i];
  return n;
}

static bool walk(Stmt *s, StmtVisitor fn, void *ctx, int depth) {
  for (; s; s = s->next) {
    if (!fn(s, depth, ctx)) return false;
    switch (s->kind) {
    case ST_BLOCK:
    case ST_FOR:
      if (!walk(s->body, fn, ctx, depth + 1)) return false;
      break;
    case ST_IF:
      if (!walk(s->then_s, fn, ctx, depth + 1)) return false;
      if (!walk(s->else_s, fn, ctx, depth + 1)) return false;
      break;
    default:
      break;
    }
  }
  return true;
}

void ir_walk_stmts(Stmt *s, StmtVisitor fn, void *ctx) { walk(s, fn, ctx, 0); }

void ir_walk_one(const Stmt *s, StmtVisitor fn, void *ctx) {
  Stmt one = *s; /* a copy without its siblings: the visitor sees the copy at the top */
  one.next = NULL;
  walk(&one, fn, ctx, 0);
}

typedef struct {
  const Buffer *b;
  Stmt *decl;
} FindDecl;

static bool find_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  FindDecl *f = ctx;
  if (st->kind == ST_DECL && st->buf == f->b) f->decl = st;
  return !f->decl;
}

Stmt *ir_buffer_decl(Stmt *body, const Buffer *b) {
  FindDecl f = {b, NULL};
  ir_walk_stmts(body, find_decl, &f);
  return f.decl;
}

bool ir_linear_coef(const Expr *e, const Var *v, int64_t *c) {
  int64_t x, y, k;
  if (!ir_expr_uses(e, v, NULL)) return *c = 0, true;
  switch (e->kind) {
  case EX_VAR: return *c = 1, true;
  case EX_CAST: return type_is_integer(e->type) && e->type->size >= 4 && ir_linear_coef(e->a, v, c);
  case EX_UNARY:
    if ((e->op != OP_NEG && e->op != OP_PLUS) || !ir_linear_coef(e->a, v, &x)) return false;
    return *c = e->op == OP_NEG ? -x : x, true;
  case EX_BINARY:
    if (e->op == OP_ADD || e->op == OP_SUB) {
      if (!ir_linear_coef(e->a, v, &x) || !ir_linear_coef(e->b, v, &y)) return false;
      return *c = e->op == OP_ADD ? x + y : x - y, true;
    }
    if (e->op == OP_MUL && ir_const_int(e->b, &k) && ir_linear_coef(e->a, v, &x)) return *c = k * x, true;
    if (e->op == OP_MUL && ir_const_int(e->a, &k) && ir_linear_coef(e->b, v, &x)) return *c = k * x, true;
    return false;
  default: return false;
  }
}
