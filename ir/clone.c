/* Deep copies, substitution and folding constructors: the tools schedule
 * rewrites are built from. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/ranges.h"

/* ---------------- folding constructors ---------------- */

/* v converted to t as C converts it: modulo 2^bits for an unsigned type,
 * != 0 for _Bool (rank 0), and for a signed type only where it fits, unless
 * `wrap` (a cast, which gcc and tcc wrap). False where the value is not an
 * int64_t or a signed operation overflowed (undefined: not a constant). */
static uint64_t type_mask(const Type *t) { return t->size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * t->size)) - 1; }

static bool const_in_type(const Type *t, IrWide v, bool wrap, int64_t *out) {
  if (!type_is_integer(t)) return false;
  int bits = 8 * t->size;
  if (!t->is_signed && t->rank == 0) { /* _Bool */
    *out = v != 0;
    return true;
  }
  IrWide m = (IrWide)1 << bits;
  if (!t->is_signed || wrap) {
    v %= m;
    if (v < 0) v += m;
    if (t->is_signed && v >= m / 2) v -= m;
  } else if (v < -(m / 2) || v >= m / 2) {
    return false;
  }
  if (v > INT64_MAX || v < INT64_MIN) return false;
  *out = (int64_t)v;
  return true;
}

/* Value of a constant integer expression (literals, #define names, casts
 * and + - * / % on them), exactly as C computes it in each node's type:
 * unsigned arithmetic wraps, a narrowing cast wraps, a signed overflow or a
 * division by zero is no constant. Every bound read through here is the
 * value the kernel as compiled sees, never a literal's field alone. */
bool ir_const_int(const Expr *e, int64_t *v) {
  int64_t x, y;
  switch (e->kind) {
  case EX_INT:
    if (!e->type->is_signed && (uint64_t)e->ival > INT64_MAX) return false;
    *v = e->ival;
    return true;
  case EX_CAST:
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type) || !ir_const_int(e->a, &x)) return false;
    return const_in_type(e->type, x, true, v);
  case EX_UNARY:
    if (e->op != OP_NEG || !type_is_integer(e->type) || !ir_const_int(e->a, &x)) return false;
    return const_in_type(e->type, -(IrWide)x, false, v);
  case EX_BINARY: {
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type) || !type_is_integer(e->b->type) ||
        !ir_const_int(e->a, &x) || !ir_const_int(e->b, &y))
      return false;
    /* the operands as converted to the operation's type (usual conversions) */
    if (!const_in_type(e->type, x, true, &x) || !const_in_type(e->type, y, true, &y)) return false;
    if ((e->op == OP_DIV || e->op == OP_MOD) && !y) return false;
    IrWide r;
    if (!e->type->is_signed) { /* uint64_t wraps as the (narrower) type does, mod 2^64 */
      uint64_t a = (uint64_t)x & type_mask(e->type), b = (uint64_t)y & type_mask(e->type);
      switch (e->op) {
      case OP_ADD: r = (IrWide)(a + b); break;
      case OP_SUB: r = (IrWide)(a - b); break;
      case OP_MUL: r = (IrWide)(a * b); break;
      case OP_DIV: r = (IrWide)(a / b); break;
      case OP_MOD: r = (IrWide)(a % b); break;
      default: return false;
      }
    } else {
      IrWide a = x, b = y; /* int64_t operands: every result fits 128 bits */
      switch (e->op) {
      case OP_ADD: r = a + b; break;
      case OP_SUB: r = a - b; break;
      case OP_MUL: r = a * b; break;
      case OP_DIV: r = a / b; break;
      case OP_MOD: r = a % b; break;
      default: return false;
      }
    }
    return const_in_type(e->type, r, !e->type->is_signed, v);
  }
  default:
    return false;
  }
}

/* Folding constructors: a constant result is folded only where C gives
 * the same value in t (no signed overflow), else the operation is built. */
static bool fold_fits(IrWide r, const Type *t, int64_t *out) { return const_in_type(t, r, !t->is_signed, out); }

Expr *ir_add(Arena *a, Expr *x, Expr *y, const Type *t) {
  int64_t cx, cy, r;
  bool kx = ir_const_int(x, &cx), ky = ir_const_int(y, &cy);
  if (kx && ky && fold_fits((IrWide)cx + cy, t, &r)) return ir_int(a, r, t, x->loc);
  if (ky && cy == 0) return x;
  if (kx && cx == 0) return y;
  if (ky && cy < 0 && cy > INT64_MIN && t->is_signed) return ir_binary(a, OP_SUB, x, ir_int(a, -cy, t, y->loc), t, x->loc);
  return ir_binary(a, OP_ADD, x, y, t, x->loc);
}

Expr *ir_sub(Arena *a, Expr *x, Expr *y, const Type *t) {
  int64_t cx, cy, r;
  bool kx = ir_const_int(x, &cx), ky = ir_const_int(y, &cy);
  if (kx && ky && fold_fits((IrWide)cx - cy, t, &r)) return ir_int(a, r, t, x->loc);
  if (ky && cy == 0) return x;
  return ir_binary(a, OP_SUB, x, y, t, x->loc);
}

Expr *ir_mul_int(Arena *a, Expr *x, int64_t c, const Type *t) {
  int64_t cx, r;
  if (ir_const_int(x, &cx) && fold_fits((IrWide)cx * c, t, &r)) return ir_int(a, r, t, x->loc);
  if (c == 1) return x;
  if (c == 0) return ir_int(a, 0, t, x->loc);
  return ir_binary(a, OP_MUL, x, ir_int(a, c, t, x->loc), t, x->loc);
}

/* ---------------- clone maps ---------------- */

void clone_map_free(CloneMap *cm) {
  free(cm->from);
  free(cm->to);
  cm->from = NULL;
  cm->to = NULL;
  cm->n = cm->cap = 0;
}

static void map_put(CloneMap *cm, const void *from, void *to) {
  if (cm->n == cm->cap) {
    cm->cap = cm->cap ? 2 * cm->cap : 32;
    cm->from = realloc(cm->from, sizeof *cm->from * (size_t)cm->cap);
    cm->to = realloc(cm->to, sizeof *cm->to * (size_t)cm->cap);
  }
  cm->from[cm->n] = from;
  cm->to[cm->n++] = to;
}

void ir_clone_map_put(CloneMap *cm, const void *from, void *to) { map_put(cm, from, to); }

static void *map_get(const CloneMap *cm, const void *from) {
  for (int i = cm->n - 1; i >= 0; i--)
    if (cm->from[i] == from) return cm->to[i];
  return NULL;
}

Var *ir_new_var(Arena *a, Kernel *k, const char *name, const Type *t, VarKind kind, SrcLoc loc) {
  Var *v = ARENA_NEW(a, Var);
  v->name = name;
  v->type = t;
  v->kind = kind;
  v->loc = loc;
  v->id = k->nvars++;
  return v;
}

static Var *fresh_var(Arena *a, CloneMap *cm, const Var *v) {
  Var *c = ARENA_NEW(a, Var);
  *c = *v;
  if (cm->k) c->id = cm->k->nvars++;
  map_put(cm, v, c);
  return c;
}

static Buffer *fresh_buf(Arena *a, CloneMap *cm, const Buffer *b) {
  Buffer *c = ARENA_NEW(a, Buffer);
  *c = *b;
  if (cm->k) c->id = cm->k->nbufs++;
  /* a bound loop's buffer follows the loop's cloned counter (declared
   * inside it, so the counter is mapped by now) */
  if (c->core) {
    const Var *core = map_get(cm, c->core);
    if (core) c->core = core;
  }
  map_put(cm, b, c);
  return c;
}

static Var *mapped_var(const CloneMap *cm, Var *v) {
  Var *m = map_get(cm, v);
  return m ? m : v;
}

static Buffer *mapped_buf(const CloneMap *cm, Buffer *b) {
  Buffer *m = map_get(cm, b);
  return m ? m : b;
}

/* ---------------- cloning ---------------- */

Expr *ir_clone_expr(Arena *a, const Expr *e, CloneMap *cm) {
  if (!e) return NULL;
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  if (e->var) c->var = mapped_var(cm, e->var);
  if (e->buf) c->buf = mapped_buf(cm, e->buf);
  c->a = ir_clone_expr(a, e->a, cm);
  c->b = ir_clone_expr(a, e->b, cm);
  c->c = ir_clone_expr(a, e->c, cm);
  if (e->kind == EX_LOAD) {
    c->idx = ARENA_ARRAY(a, Expr *, e->buf->ndim);
    for (int i = 0; i < e->buf->ndim; i++) c->idx[i] = ir_clone_expr(a, e->idx[i], cm);
  }
  if (e->kind == EX_CALL) {
    c->args = ARENA_ARRAY(a, Expr *, e->nargs);
    for (int i = 0; i < e->nargs; i++) c->args[i] = ir_clone_expr(a, e->args[i], cm);
  }
  return c;
}

static Stmt *clone_list(Arena *a, const Stmt *s, CloneMap *cm) {
  Stmt *head = NULL, **tail = &head;
  for (; s; s = s->next) {
    *tail = ir_clone_stmt(a, s, cm);
    tail = &(*tail)->next;
  }
  return head;
}

/* A lowered node's own copy: its expressions in the clone's variables,
 * its copy nest cloned too (the nest's counters are its own). */
static Lowered *clone_lowered(Arena *a, const Lowered *l, CloneMap *cm) {
  Lowered *c = ARENA_NEW(a, Lowered);
  *c = *l;
  for (int i = 0; i < l->token.nidx; i++) c->token.idx[i] = ir_clone_expr(a, l->token.idx[i], cm);
  c->copy = ir_clone_stmt(a, l->copy, cm);
  if (l->at_var) c->at_var = mapped_var(cm, (Var *)l->at_var);
  c->at_value = ir_clone_expr(a, l->at_value, cm);
  c->channel = ir_clone_expr(a, l->channel, cm);
  c->guard = ir_clone_expr(a, l->guard, cm);
  if (l->view_buf) c->view_buf = mapped_buf(cm, l->view_buf);
  c->view_copy = ir_clone_expr(a, l->view_copy, cm);
  return c;
}

/* A call block's mark, its arguments in the clone's arrays and locals
 * (the block's declarations are cloned first). */
static CallSite *clone_call(Arena *a, const CallSite *cs, CloneMap *cm) {
  CallSite *c = ARENA_NEW(a, CallSite);
  *c = *cs;
  c->arg_buf = ARENA_ARRAY(a, Buffer *, cs->nparams ? cs->nparams : 1);
  c->arg_var = ARENA_ARRAY(a, Var *, cs->nparams ? cs->nparams : 1);
  for (int i = 0; i < cs->nparams; i++) {
    c->arg_buf[i] = cs->arg_buf[i] ? mapped_buf(cm, cs->arg_buf[i]) : NULL;
    c->arg_var[i] = cs->arg_var[i] ? mapped_var(cm, cs->arg_var[i]) : NULL;
  }
  return c;
}

Stmt *ir_clone_stmt(Arena *a, const Stmt *s, CloneMap *cm) {
  if (!s) return NULL;
  Stmt *c = ARENA_NEW(a, Stmt);
  *c = *s;
  c->next = NULL;
  c->clone_of = s;
  switch (s->kind) {
  case ST_BLOCK:
    c->body = clone_list(a, s->body, cm);
    if (s->call) c->call = clone_call(a, s->call, cm);
    break;
  case ST_FOR:
    c->lo = ir_clone_expr(a, s->lo, cm);
    c->hi = ir_clone_expr(a, s->hi, cm);
    c->var = fresh_var(a, cm, s->var);
    c->body = ir_clone_stmt(a, s->body, cm);
    break;
  case ST_IF:
    c->cond = ir_clone_expr(a, s->cond, cm);
    c->then_s = ir_clone_stmt(a, s->then_s, cm);
    c->else_s = ir_clone_stmt(a, s->else_s, cm);
    break;
  case ST_ASSIGN:
    c->lhs = ir_clone_expr(a, s->lhs, cm);
    c->rhs = ir_clone_expr(a, s->rhs, cm);
    break;
  case ST_DECL:
    c->init = ir_clone_expr(a, s->init, cm);
    if (s->ninit) {
      c->init_list = ARENA_ARRAY(a, Expr *, s->ninit);
      for (int i = 0; i < s->ninit; i++) c->init_list[i] = ir_clone_expr(a, s->init_list[i], cm);
    }
    if (s->var) c->var = fresh_var(a, cm, s->var);
    if (s->buf) c->buf = fresh_buf(a, cm, s->buf);
    break;
  }
  if (s->low) c->low = clone_lowered(a, s->low, cm);
  if (s->orig) { /* a copy is the same statement: same instances (ir/deps.h) */
    c->orig = ARENA_ARRAY(a, Expr *, s->norig ? s->norig : 1);
    for (int i = 0; i < s->norig; i++) c->orig[i] = ir_clone_expr(a, s->orig[i], cm);
  }
  return c;
}

Kernel *ir_clone_kernel(Arena *a, const Kernel *k) {
  CloneMap cm = {0};
  Kernel *c = ARENA_NEW(a, Kernel);
  *c = *k;
  c->next = NULL;
  Param *head = NULL, **tail = &head;
  for (const Param *p = k->params; p; p = p->next) {
    Param *q = ARENA_NEW(a, Param);
    if (p->buf) q->buf = fresh_buf(a, &cm, p->buf);
    if (p->var) q->var = fresh_var(a, &cm, p->var);
    *tail = q;
    tail = &q->next;
  }
  c->params = head;
  /* the sizes, the extents they give and the assumptions, in the copy's
   * own parameters */
  for (int i = 0; i < k->nsizes; i++) c->sizes[i] = mapped_var(&cm, (Var *)k->sizes[i]);
  for (Param *q = c->params; q; q = q->next)
    for (int d = 0; q->buf && d < q->buf->ndim; d++)
      if (q->buf->extent[d]) q->buf->extent[d] = ir_clone_expr(a, q->buf->extent[d], &cm);
  for (int i = 0; i < k->nassume; i++) c->assume[i] = ir_clone_expr(a, k->assume[i], &cm);
  for (int i = 0; i < k->nentry_need; i++) c->entry_need[i].cond = ir_clone_expr(a, k->entry_need[i].cond, &cm);
  c->body = ir_clone_stmt(a, k->body, &cm);
  clone_map_free(&cm);
  return c;
}

/* ---------------- substitution ---------------- */

/* x + 0, x - 0, x * 1 and constant arithmetic left by a substitution
 * (unroll puts constants in) fold away when the type stays the same. */
static Expr *fold(Arena *a, Expr *e) {
  if (e->kind != EX_BINARY || !type_is_integer(e->type) || e->macro) return e;
  int64_t x, y;
  bool kx = e->a->kind == EX_INT && !e->a->macro && ir_const_int(e->a, &x);
  bool ky = e->b->kind == EX_INT && !e->b->macro && ir_const_int(e->b, &y);
  if (kx && ky && e->a->type == e->type && e->b->type == e->type && e->type->size >= 4 &&
      x > -(1 << 30) && x < (1 << 30) && y > -(1 << 30) && y < (1 << 30)) {
    if (e->op == OP_ADD) return ir_int(a, x + y, e->type, e->loc);
    if (e->op == OP_SUB) return ir_int(a, x - y, e->type, e->loc);
    if (e->op == OP_MUL) return ir_int(a, x * y, e->type, e->loc);
  }
  if (ky && e->a->type == e->type && ((y == 0 && (e->op == OP_ADD || e->op == OP_SUB)) || (y == 1 && e->op == OP_MUL)))
    return e->a;
  if (kx && e->b->type == e->type && ((x == 0 && e->op == OP_ADD) || (x == 1 && e->op == OP_MUL))) return e->b;
  return e;
}

Expr *ir_subst_expr(Arena *a, Expr *e, const Var *v, const Expr *r) {
  if (!e) return NULL;
  if (e->kind == EX_VAR && e->var == v) return ir_expr_copy(a, r);
  e->a = ir_subst_expr(a, e->a, v, r);
  e->b = ir_subst_expr(a, e->b, v, r);
  e->c = ir_subst_expr(a, e->c, v, r);
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) e->idx[i] = ir_subst_expr(a, e->idx[i], v, r);
  if (e->kind == EX_CALL)
    for (int i = 0; i < e->nargs; i++) e->args[i] = ir_subst_expr(a, e->args[i], v, r);
  return fold(a, e);
}

static bool subst_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  void **c = ctx;
  Arena *a = c[0];
  const Var *v = c[1];
  const Expr *r = c[2];
  s->lo = ir_subst_expr(a, s->lo, v, r);
  s->hi = ir_subst_expr(a, s->hi, v, r);
  s->cond = ir_subst_expr(a, s->cond, v, r);
  s->lhs = ir_subst_expr(a, s->lhs, v, r);
  s->rhs = ir_subst_expr(a, s->rhs, v, r);
  s->init = ir_subst_expr(a, s->init, v, r);
  for (int i = 0; i < s->ninit; i++) s->init_list[i] = ir_subst_expr(a, s->init_list[i], v, r);
  for (int i = 0; i < s->norig; i++) s->orig[i] = ir_subst_expr(a, s->orig[i], v, r);
  return true;
}

void ir_subst_stmt(Arena *a, Stmt *s, const Var *v, const Expr *r) {
  Stmt *next = s->next;
  s->next = NULL;
  void *ctx[3] = {a, (void *)v, (void *)r};
  ir_walk_stmts(s, subst_visit, ctx);
  s->next = next;
}
