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

/* One node's own fields; the walk goes on into what it holds, but for a
 * load without its buffer or indices. */
static IrVisit verify_node(const Expr *e, int depth, void *ctx) {
  (void)depth;
  Verify *v = ctx;
  if (!e->type) bad(v, e->loc, "expression without a type");
  switch (e->kind) {
  case EX_LOAD:
    if (!e->buf || !e->idx) {
      bad(v, e->loc, "load without buffer or indices");
      return IR_VISIT_SKIP;
    }
    for (int i = 0; i < e->buf->ndim; i++)
      if (!e->idx[i] || !type_is_integer(e->idx[i]->type)) bad(v, e->loc, "non-integer index");
    break;
  case EX_VAR:
    if (!e->var) bad(v, e->loc, "variable reference without a variable");
    break;
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
  default:
    break;
  }
  return IR_VISIT_ON;
}

static void verify_expr(Verify *v, const Expr *e) { ir_visit_expr(e, verify_node, v); }

/* A lowered node (lower/): an empty block with the fields its kind needs. */
static void verify_lowered(Verify *v, const Stmt *s) {
  const Lowered *l = s->low;
  if (s->kind != ST_BLOCK || s->body) bad(v, s->loc, "lowered node with children");
  for (int i = 0; i < l->token.nidx; i++) verify_expr(v, l->token.idx[i]);
  switch (l->kind) {
  case LOW_DMA_START:
    if (!l->copy || l->copy->kind != ST_FOR || !l->channel) bad(v, s->loc, "dma_start without its copy nest or channel");
    if (!l->at_var != !l->at_value) bad(v, s->loc, "dma_start: a counter without its value");
    verify_expr(v, l->channel);
    verify_expr(v, l->at_value);
    break;
  case LOW_DMA_WAIT:
    verify_expr(v, l->guard);
    break;
  case LOW_VIEW:
    if (!l->view_buf || (!l->decl && (l->view_buf->copies < 2 || !l->view_buf->db_name)))
      bad(v, s->loc, "view of a buffer with one copy");
    verify_expr(v, l->view_copy);
    break;
  case LOW_TOKENS:
    if (!l->token.base || l->ndims < 0 || l->ndims > 2) bad(v, s->loc, "malformed token declaration");
    break;
  case LOW_NOTE:
  case LOW_UNUSED:
    if (!s->note) bad(v, s->loc, "note without text");
    break;
  case LOW_POINTER:
    if (!l->view_buf || !l->ptr_name || !l->ptr_init) bad(v, s->loc, "pointer without its array, name or value");
    break;
  }
  if ((l->kind == LOW_DMA_START || l->kind == LOW_DMA_WAIT) && !l->token.base && !l->token.id)
    bad(v, s->loc, "DMA without a token");
}

static bool verify_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Verify *v = ctx;
  if (s->low) {
    verify_lowered(v, s);
    return true;
  }
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
