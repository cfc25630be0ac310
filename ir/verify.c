/* IR invariants, checked after the frontend and after every pass in debug and
 * test builds. A violation is a bug in npugen, reported as an internal error. */
#include "ir/ir.h"

typedef struct {
  DiagList *d;
  const char *file;
  bool ok;
} Verify;

static void bad(Verify *v, SrcLoc loc, const char *what) {
  diag_error(v->d, v->file, NULL, loc.line, loc.col, "internal error: invalid IR: %s", what);
  v->ok = false;
}

static void verify_expr(Verify *v, const Expr *e) {
  if (!e) return;
  if (!e->type) bad(v, e->loc, "expression without a type");
  switch (e->kind) {
  case EX_LOAD:
    if (!e->buf || !e->idx) {
      bad(v, e->loc, "load without buffer or indices");
      return;
    }
    for (int i = 0; i < e->buf->ndim; i++) {
      if (!e->idx[i] || !type_is_integer(e->idx[i]->type)) bad(v, e->loc, "non-integer index");
      verify_expr(v, e->idx[i]);
    }
    return;
  case EX_VAR:
    if (!e->var) bad(v, e->loc, "variable reference without a variable");
    return;
  case EX_UNARY:
  case EX_CAST:
    if (!e->a) bad(v, e->loc, "missing operand");
    break;
  case EX_BINARY:
    if (!e->a || !e->b) bad(v, e->loc, "missing operand");
    break;
  case EX_COND:
    if (!e->a || !e->b || !e->c) bad(v, e->loc, "missing operand");
    break;
  case EX_CALL:
    for (int i = 0; i < e->nargs; i++) verify_expr(v, e->args[i]);
    return;
  default:
    return;
  }
  verify_expr(v, e->a);
  verify_expr(v, e->b);
  verify_expr(v, e->c);
}

static bool verify_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Verify *v = ctx;
  switch (s->kind) {
  case ST_FOR:
    if (!s->var || !s->lo || !s->hi || !s->body || s->body->kind != ST_BLOCK) bad(v, s->loc, "malformed loop");
    else if (s->step == 0 || (s->step > 0) != (s->cmp == OP_LT || s->cmp == OP_LE)) bad(v, s->loc, "loop step and condition disagree");
    else if (!s->name) bad(v, s->loc, "unnamed loop");
    verify_expr(v, s->lo);
    verify_expr(v, s->hi);
    break;
  case ST_IF:
    if (!s->cond || !s->then_s) bad(v, s->loc, "malformed if");
    verify_expr(v, s->cond);
    break;
  case ST_ASSIGN:
    if (!s->lhs || !s->rhs || (s->lhs->kind != EX_LOAD && s->lhs->kind != EX_VAR)) bad(v, s->loc, "malformed assignment");
    else if (!s->name) bad(v, s->loc, "unnamed statement");
    verify_expr(v, s->lhs);
    verify_expr(v, s->rhs);
    break;
  case ST_DECL:
    if (!s->var == !s->buf) bad(v, s->loc, "declaration must declare one variable or array");
    verify_expr(v, s->init);
    break;
  case ST_BLOCK:
    break;
  }
  return true;
}

bool ir_verify_kernel(const Kernel *k, DiagList *d, const char *file) {
  Verify v = {d, file, true};
  if (!k->body || k->body->kind != ST_BLOCK) bad(&v, k->loc, "kernel body is not a block");
  else ir_walk_stmts(k->body, verify_stmt, &v);
  return v.ok;
}
