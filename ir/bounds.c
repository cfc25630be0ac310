/* Static bounds check: every array index, over the exact iteration domain of
 * its statement (loops, affine if-conditions, short-circuit and ?: guards),
 * must stay inside its dimension's extent. Affine indices are decided exactly
 * with isl; others need a provable interval (types, masks, modulo). */
#include <isl/ctx.h>
#include <isl/options.h>
#include <string.h>

#include "ir/affine.h"

typedef struct {
  AffCtx aff;
  DiagList *d;
  const char *file, *src;
  bool ok;
} Bounds;

static void check_expr(Bounds *b, const Expr *e);

static void check_access(Bounds *b, const Expr *e) {
  for (int i = 0; i < e->buf->ndim; i++) {
    const Expr *ix = e->idx[i];
    check_expr(b, ix);
    if (!b->ok) return;
    int64_t lo, hi, ext = e->buf->shape[i];
    bool exact, empty;
    StrBuf text;
    sb_init(&text);
    ir_print_expr(&text, ix);
    if (!aff_range(&b->aff, ix, &lo, &hi, &exact, &empty)) {
      diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                 "cannot prove that index '%s' stays within dimension %d of '%s' (extent %lld); "
                 "clamp it, e.g. with '%% %lld' or a mask",
                 text.data, i + 1, e->buf->name, (long long)ext, (long long)ext);
      b->ok = false;
    } else if (!empty && (lo < 0 || hi >= ext)) {
      if (exact)
        diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                   "index '%s' is out of bounds: it ranges over [%lld, %lld] but dimension %d of '%s' has extent %lld",
                   text.data, (long long)lo, (long long)hi, i + 1, e->buf->name, (long long)ext);
      else
        diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                   "cannot prove that index '%s' stays within dimension %d of '%s' (extent %lld): "
                   "its value can range over [%lld, %lld]; clamp it, e.g. with '%% %lld' or a mask",
                   text.data, i + 1, e->buf->name, (long long)ext, (long long)lo, (long long)hi,
                   (long long)ext);
      b->ok = false;
    }
    sb_free(&text);
    if (!b->ok) return;
  }
}

static void check_expr(Bounds *b, const Expr *e) {
  if (!e || !b->ok) return;
  switch (e->kind) {
  case EX_LOAD:
    check_access(b, e);
    return;
  case EX_BINARY:
    if (e->op == OP_LAND || e->op == OP_LOR) {
      /* The right operand runs only when the left one allows it. */
      check_expr(b, e->a);
      bool pushed = aff_push_cond(&b->aff, e->a, e->op == OP_LOR);
      check_expr(b, e->b);
      if (pushed) aff_pop_cond(&b->aff);
      return;
    }
    break;
  case EX_COND: {
    check_expr(b, e->a);
    bool pushed = aff_push_cond(&b->aff, e->a, false);
    check_expr(b, e->b);
    if (pushed) aff_pop_cond(&b->aff);
    pushed = aff_push_cond(&b->aff, e->a, true);
    check_expr(b, e->c);
    if (pushed) aff_pop_cond(&b->aff);
    return;
  }
  default:
    break;
  }
  check_expr(b, e->a);
  check_expr(b, e->b);
  check_expr(b, e->c);
  for (int i = 0; i < e->nargs; i++) check_expr(b, e->args[i]);
}

static void check_stmts(Bounds *b, const Stmt *s) {
  for (; s && b->ok; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      check_stmts(b, s->body);
      break;
    case ST_FOR:
      check_expr(b, s->lo);
      check_expr(b, s->hi);
      aff_push_loop(&b->aff, s);
      check_stmts(b, s->body);
      aff_pop_loop(&b->aff);
      break;
    case ST_IF: {
      check_expr(b, s->cond);
      bool pushed = aff_push_cond(&b->aff, s->cond, false);
      check_stmts(b, s->then_s);
      if (pushed) aff_pop_cond(&b->aff);
      pushed = aff_push_cond(&b->aff, s->cond, true);
      check_stmts(b, s->else_s);
      if (pushed) aff_pop_cond(&b->aff);
      break;
    }
    case ST_ASSIGN:
      check_expr(b, s->rhs);
      check_expr(b, s->lhs);
      break;
    case ST_DECL:
      check_expr(b, s->init);
      for (int i = 0; i < s->ninit; i++) check_expr(b, s->init_list[i]);
      break;
    }
  }
}

bool ir_check_bounds(const Kernel *k, DiagList *d, const char *file, const char *src) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  Bounds b = {.d = d, .file = file, .src = src, .ok = true};
  aff_init(&b.aff, ctx, k);
  check_stmts(&b, k->body);
  aff_free(&b.aff);
  isl_ctx_free(ctx);
  return b.ok;
}
