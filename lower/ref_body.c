/* The check's reference's body as lowered IR (docs/check.md): what
 * lower/ref_lower.c decided about its checks (ir/checked_ref.h) written
 * as ordinary statements and expressions, which emit/ prints as it
 * prints a variant's.
 *
 * Its spelling is its own: each operation of the kernel in parentheses
 * and each of its operands too, every conversion written out
 * (Expr.parens), so the text depends neither on C's precedence nor on the
 * compiler re-inserting the implicit conversions. A checked operation is
 * a comma expression: its operands bound to temporaries, then each test
 * (a failed one calls npg_ub, which stores the site's number and longjmps
 * out of the kernel), then the operation on the temporaries. */
#include <string.h>

#include "lower/ref_lower.h"

typedef struct {
  Arena *a;
  const CheckRef *ref;
  Var *ck; /* npg_ck, the checks' state */
} Body;

static Expr *node(Body *b, ExprKind kind, const Type *t, int parens) {
  Expr *e = ARENA_NEW(b->a, Expr);
  *e = (Expr){.kind = kind, .type = t, .parens = parens};
  return e;
}

static Expr *op2(Body *b, Op op, Expr *l, Expr *r, const Type *t, int parens) {
  Expr *e = node(b, EX_BINARY, t, parens);
  e->op = op;
  e->a = l;
  e->b = r;
  return e;
}

static Expr *op1(Body *b, ExprKind kind, Op op, Expr *a, const Type *t, int parens) {
  Expr *e = node(b, kind, t, parens);
  e->op = op;
  e->a = a;
  return e;
}

static Expr *number(Body *b, int64_t v) {
  Expr *e = node(b, EX_INT, &ty_int, 0);
  e->ival = v;
  return e;
}

static Expr *var(Body *b, Var *v, int parens) {
  Expr *e = node(b, EX_VAR, v->type, parens);
  e->var = v;
  return e;
}

/* A name of the reference's own (npg_t3, npg_set_x, npg_p1) of type t. */
static Var *own_var(Body *b, const Type *t, const char *name) {
  Var *v = ARENA_NEW(b->a, Var);
  *v = (Var){.name = name, .type = t, .kind = VAR_LOCAL, .id = -1};
  return v;
}

/* Array buf as seen through another name (a flag array, a hoisted
 * pointer) with its last ndim dimensions. */
static Buffer *renamed(Body *b, const Buffer *buf, const char *name, int ndim) {
  Buffer *r = ARENA_NEW(b->a, Buffer);
  *r = *buf;
  r->name = name;
  r->ndim = ndim;
  for (int d = 0; d < ndim; d++) r->shape[d] = buf->shape[buf->ndim - ndim + d];
  return r;
}

static Expr *load(Body *b, Buffer *buf, Expr **idx, int parens) {
  Expr *e = node(b, EX_LOAD, buf->elem, parens);
  e->buf = buf;
  e->idx = idx;
  return e;
}

/* `(void)0`, `npg_ub(npg_ck, site)` */
static Expr *nothing(Body *b) { return op1(b, EX_CAST, OP_NONE, number(b, 0), &ty_void, 0); }

static Expr *fail(Body *b, int site) {
  Expr *e = node(b, EX_CALL, &ty_void, 0);
  e->text = "npg_ub";
  e->nargs = 2;
  e->args = ARENA_ARRAY(b->a, Expr *, 2);
  e->args[0] = var(b, b->ck, 0);
  e->args[1] = number(b, site);
  return e;
}

/* `(p1, p2, ..., pn)`: n >= 2 parts in order, of pn's type. */
static Expr *sequence(Body *b, Expr **parts, int n, int parens) {
  Expr *e = parts[0];
  for (int i = 1; i < n; i++) e = op2(b, OP_COMMA, e, parts[i], parts[i]->type, 0);
  e->parens = parens;
  return e;
}

static Expr *expr(Body *b, const CkExpr *x, int parens);

static Expr *temp(Body *b, int t) { return var(b, b->ref->temps[t - 1], 0); }

/* ---------------- expressions ---------------- */

/* The parts of a checked operation: its bindings already in parts[0, n),
 * then its tests, then result; as one sequence. */
static Expr *checked(Body *b, const CkExpr *x, Expr **parts, int n, Expr *result, int parens) {
  for (int i = 0; i < x->ntests; i++) {
    const CkTest *t = &x->tests[i];
    Expr *fails = fail(b, t->site), *passes = nothing(b);
    Expr *c = node(b, EX_COND, &ty_void, 0);
    c->a = t->cond;
    c->b = x->e->kind == EX_CAST ? passes : fails; /* a conversion's test says where the value fits */
    c->c = x->e->kind == EX_CAST ? fails : passes;
    parts[n++] = c;
  }
  parts[n++] = result;
  return sequence(b, parts, n, parens);
}

/* `npg_tN = (a)` */
static Expr *bind(Body *b, int t, const CkExpr *a) {
  return op2(b, OP_ASSIGN, temp(b, t), expr(b, a, 1), temp(b, t)->type, 0);
}

static Expr *binary(Body *b, const CkExpr *x, int parens) {
  const Expr *e = x->e;
  Expr *parts[CK_NCHECKS + 3];
  if (!x->checked) return op2(b, e->op, expr(b, x->a, 1), expr(b, x->b, 1), e->type, 1 + parens);
  if (x->temp[1]) { /* / % << >>: both operands bound */
    parts[0] = bind(b, x->temp[0], x->a);
    parts[1] = bind(b, x->temp[1], x->b);
    return checked(b, x, parts, 2, op2(b, e->op, temp(b, x->temp[0]), temp(b, x->temp[1]), e->type, 0), 1 + parens);
  }
  if (x->helper) { /* + - * of a 64-bit type: (T)npg_add_ll(npg_ck, site, a, b) */
    Expr *call = node(b, EX_CALL, &ty_llong, 0);
    call->text = x->helper;
    call->nargs = 4;
    call->args = ARENA_ARRAY(b->a, Expr *, 4);
    call->args[0] = var(b, b->ck, 0);
    call->args[1] = number(b, x->site[CK_OVERFLOW]);
    call->args[2] = expr(b, x->a, 0);
    call->args[3] = expr(b, x->b, 0);
    return op1(b, EX_CAST, OP_NONE, call, e->type, 1 + parens);
  }
  /* + - * of int: in long long, then tested against int's range */
  Expr *wide = op2(b, e->op, op1(b, EX_CAST, OP_NONE, expr(b, x->a, 1), &ty_llong, 0),
                   op1(b, EX_CAST, OP_NONE, expr(b, x->b, 1), &ty_llong, 0), &ty_llong, 0);
  parts[0] = op2(b, OP_ASSIGN, temp(b, x->temp[0]), wide, &ty_llong, 0);
  return checked(b, x, parts, 1, op1(b, EX_CAST, OP_NONE, temp(b, x->temp[0]), e->type, 0), 1 + parens);
}

/* -x, and abs(x) (a call) */
static Expr *negating(Body *b, const CkExpr *x, int parens) {
  const Expr *e = x->e;
  bool call = e->kind == EX_CALL;
  Expr *operand = x->checked ? temp(b, x->temp[0]) : expr(b, x->a, call ? 0 : 1), *result;
  if (call) {
    result = node(b, EX_CALL, e->type, 0);
    result->text = e->text;
    result->nargs = 1;
    result->args = ARENA_ARRAY(b->a, Expr *, 1);
    result->args[0] = operand;
  } else {
    result = op1(b, EX_UNARY, e->op, operand, e->type, 0);
  }
  if (!x->checked) {
    result->parens = call ? parens : 1 + parens;
    return result;
  }
  Expr *parts[CK_NCHECKS + 2] = {bind(b, x->temp[0], x->a)};
  return checked(b, x, parts, 1, result, 1 + parens);
}

static Expr *cast(Body *b, const CkExpr *x, int parens) {
  const Type *to = x->e->type;
  if (x->checked) { /* a floating value to an integer: its range tested in double */
    Expr *parts[CK_NCHECKS + 2] = {op2(b, OP_ASSIGN, temp(b, x->temp[0]),
                                        op1(b, EX_CAST, OP_NONE, expr(b, x->a, 1), &ty_double, 0), &ty_double, 0)};
    return checked(b, x, parts, 1, op1(b, EX_CAST, OP_NONE, temp(b, x->temp[0]), to, 0), 1 + parens);
  }
  Expr *a = expr(b, x->a, 1);
  if (x->mask) { /* tcc's: ((T)((a) & 0xff)) */
    Expr *m = node(b, EX_INT, &ty_int, 0);
    m->text = x->mask;
    a = op2(b, OP_BAND, a, m, x->e->a->type, 1);
  }
  return op1(b, EX_CAST, OP_NONE, a, to, 1 + parens);
}

/* Where a scalar or an element is: `x`, `(k + 1)`, `A[i][j]`,
 * `npg_p1[k]`, `(*npg_p2)`, `npg_p3[128]`. */
static Expr *place(Body *b, const CkPlace *p) {
  const Expr *e = p->e;
  if (e->kind == EX_VAR && !p->by) return var(b, e->var, 0);
  if (e->kind == EX_VAR) return op2(b, OP_ADD, var(b, e->var, 0), number(b, p->by), e->type, 1);
  const Buffer *buf = e->buf;
  const char *ptr = p->ptr ? arena_printf(b->a, "npg_p%d", p->ptr->id) : NULL;
  if (p->stepped) {
    Expr **idx = ARENA_ARRAY(b->a, Expr *, 1);
    idx[0] = number(b, p->offset);
    return load(b, renamed(b, buf, ptr, 1), idx, 0);
  }
  if (ptr && p->from == buf->ndim) /* a pointer to the element itself */
    return op1(b, EX_UNARY, OP_DEREF, var(b, own_var(b, buf->elem, ptr), 0), buf->elem, 1);
  int n = buf->ndim - p->from;
  Expr **idx = ARENA_ARRAY(b->a, Expr *, n ? n : 1);
  for (int d = 0; d < n; d++) idx[d] = expr(b, p->idx[p->from + d], 0);
  return load(b, ptr ? renamed(b, buf, ptr, n) : (Buffer *)buf, idx, 0);
}

/* A place's "set" flag: the same place with "npg_set_" before its name. */
static Expr *flag(Body *b, const Expr *at) {
  if (at->kind == EX_VAR)
    return var(b, own_var(b, &ty_uchar, arena_printf(b->a, "npg_set_%s", at->var->name)), 0);
  Buffer *f = renamed(b, at->buf, arena_printf(b->a, "npg_set_%s", at->buf->name), at->buf->ndim);
  f->elem = &ty_uchar;
  f->is_const = false;
  return load(b, f, at->idx, 0);
}

/* A read: its flag tested first where lower/ref_lower.c made that check. */
static Expr *read(Body *b, const CkExpr *x, int parens) {
  Expr *at = place(b, x->place);
  int s = x->site[CK_UNSET];
  if (!s) {
    at->parens += parens;
    return at;
  }
  Expr *test = node(b, EX_COND, &ty_void, 0);
  test->a = flag(b, at);
  test->b = nothing(b);
  test->c = fail(b, s);
  Expr *parts[2] = {test, at};
  return sequence(b, parts, 2, 1 + parens);
}

static Expr *expr(Body *b, const CkExpr *x, int parens) {
  const Expr *e = x->e;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT: {
    Expr *c = ARENA_NEW(b->a, Expr);
    *c = *e;
    c->parens = parens;
    return c;
  }
  case EX_VAR:
  case EX_LOAD: return read(b, x, parens);
  case EX_COND: {
    Expr *c = node(b, EX_COND, e->type, 1 + parens);
    c->a = expr(b, x->a, 1);
    c->b = expr(b, x->b, 1);
    c->c = expr(b, x->c, 1);
    return c;
  }
  case EX_CALL: {
    if (!x->args) return negating(b, x, parens); /* abs */
    Expr *c = node(b, EX_CALL, e->type, parens);
    c->text = e->text;
    c->nargs = e->nargs;
    c->args = ARENA_ARRAY(b->a, Expr *, e->nargs ? e->nargs : 1);
    for (int i = 0; i < e->nargs; i++) c->args[i] = expr(b, x->args[i], 0);
    return c;
  }
  case EX_CAST: return cast(b, x, parens);
  case EX_UNARY: return negating(b, x, parens);
  case EX_BINARY: return binary(b, x, parens);
  }
  return NULL;
}

/* ---------------- statements ---------------- */

static Stmt *stmt(Body *b, StmtKind kind, const Stmt *of) {
  Stmt *s = ir_stmt(b->a, kind, of ? of->loc : (SrcLoc){0});
  return s;
}

static Stmt *block(Body *b, Stmt *list) {
  Stmt *s = stmt(b, ST_BLOCK, NULL);
  s->body = list;
  return s;
}

/* `T (*npg_pN)[..] = A[i];`, `T (*npg_pN) = &C[i][j];`, `T *npg_pN = &B[k][j];` */
static Stmt *pointer(Body *b, const CkPointer *p) {
  Buffer *buf = (Buffer *)p->buf;
  Expr **idx = ARENA_ARRAY(b->a, Expr *, p->n ? p->n : 1);
  for (int d = 0; d < p->n; d++) idx[d] = expr(b, p->idx[d], 0);
  Expr *at = load(b, p->n == buf->ndim ? buf : renamed(b, buf, buf->name, p->n), idx, 0);
  if (p->n == buf->ndim) at = op1(b, EX_UNARY, OP_ADDR, at, buf->elem, 0);
  Stmt *s = stmt(b, ST_BLOCK, NULL);
  Lowered *l = ARENA_NEW(b->a, Lowered);
  *l = (Lowered){.kind = LOW_POINTER, .view_buf = buf, .ptr_name = arena_printf(b->a, "npg_p%d", p->id),
                 .ptr_from = p->n + 1, .ptr_stepped = p->stepped, .ptr_init = at};
  s->low = l;
  return s;
}

static Stmt *list(Body *b, const CkStmt *n);

/* A body's hoisted pointers, then its statements. */
static Stmt *body(Body *b, const CkBody *in) {
  Stmt *out = NULL, **tail = &out;
  for (const CkPointer *p = in->ptrs; p; p = p->next) {
    *tail = pointer(b, p);
    tail = &(*tail)->next;
  }
  *tail = list(b, in->list);
  return out;
}

/* A bound: its expression, or the unrolled loop's `mid`. */
static Expr *bound(Body *b, const CkExpr *x, int64_t mid) { return x ? expr(b, x, 0) : number(b, mid); }

static Stmt *loop(Body *b, const CkStmt *n) {
  Stmt *s = stmt(b, ST_FOR, n->s);
  s->var = n->s->var;
  s->lo = bound(b, n->lo, n->mid);
  s->hi = bound(b, n->hi, n->mid);
  s->cmp = n->cmp;
  s->step = n->step;
  s->body = block(b, body(b, &n->body));
  return s;
}

static Stmt *branch(Body *b, const CkStmt *n) {
  Stmt *s = stmt(b, ST_IF, n->s);
  s->cond = expr(b, n->value, 0);
  s->then_s = block(b, list(b, n->body.list));
  if (n->has_else) s->else_s = block(b, list(b, n->else_list));
  return s;
}

/* An assignment, then the place's flag set where it has one. */
static Stmt *assign(Body *b, const CkStmt *n) {
  Stmt *s = stmt(b, ST_ASSIGN, n->s);
  s->lhs = place(b, n->lhs);
  s->rhs = expr(b, n->value, 0);
  if (n->unset) {
    Stmt *set = stmt(b, ST_ASSIGN, n->s);
    set->lhs = flag(b, s->lhs);
    set->rhs = number(b, 1);
    s->next = set;
  }
  return s;
}

/* A declaration, then its flag's (all 0) where it has one. */
static Stmt *decl(Body *b, const CkStmt *n) {
  const Stmt *of = n->s;
  Stmt *s = stmt(b, ST_DECL, of), *f = NULL;
  s->var = of->var;
  s->buf = of->buf;
  if (of->var) {
    if (n->value) s->init = expr(b, n->value, 0);
    if (n->unset) {
      f = stmt(b, ST_DECL, of);
      f->var = flag(b, var(b, of->var, 0))->var;
      f->init = number(b, 0);
    }
  } else {
    s->ninit = of->ninit;
    s->init_list = ARENA_ARRAY(b->a, Expr *, of->ninit ? of->ninit : 1);
    for (int i = 0; i < of->ninit; i++) s->init_list[i] = expr(b, n->init_list[i], 0);
    if (n->unset) {
      f = stmt(b, ST_DECL, of);
      f->buf = flag(b, load(b, of->buf, NULL, 0))->buf;
      f->ninit = 1;
      f->init_list = ARENA_ARRAY(b->a, Expr *, 1);
      f->init_list[0] = number(b, 0);
    }
  }
  s->next = f;
  return s;
}

static Stmt *one(Body *b, const CkStmt *n) {
  switch (n->kind) {
  case CK_BLOCK: return block(b, list(b, n->body.list));
  case CK_FOR: return loop(b, n);
  case CK_IF: return branch(b, n);
  case CK_ASSIGN: return assign(b, n);
  case CK_DECL: return decl(b, n);
  }
  return NULL;
}

static Stmt *list(Body *b, const CkStmt *n) {
  Stmt *out = NULL, **tail = &out;
  for (; n; n = n->next) {
    *tail = one(b, n);
    while (*tail) tail = &(*tail)->next;
  }
  return out;
}

Stmt *lower_ref_body(Arena *a, const CheckRef *ref) {
  Body b = {.a = a, .ref = ref};
  b.ck = own_var(&b, &ty_void, "npg_ck");
  Stmt *out = NULL, **tail = &out;
  for (int i = 0; i < ref->ntemps; i++) {
    *tail = stmt(&b, ST_DECL, NULL);
    (*tail)->var = ref->temps[i];
    tail = &(*tail)->next;
  }
  *tail = body(&b, &ref->body);
  return out;
}
