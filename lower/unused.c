/* Pass (last): `unused NAME` nodes, printed `(void)NAME;`, for the names
 * the variant never reads, so the emitted C builds with -Wall -Wextra
 * -Werror: a parameter never used (at the top of the body), a local array
 * or scalar declared and never read (right after its declaration).
 * Reads are those of the scheduled IR: the lowering adds none (its nodes
 * name on-chip buffers and their tokens, which are not locals). */
#include <stdlib.h>

#include "lower/lower.h"

typedef struct {
  bool *var_read; /* by Var.id */
  bool *buf_used, *buf_read; /* by Buffer.id */
} Reads;

static bool read_visit(const Expr *e, void *ctx) {
  Reads *r = ctx;
  if (e->kind == EX_VAR) r->var_read[e->var->id] = true;
  if (e->kind == EX_LOAD) r->buf_used[e->buf->id] = r->buf_read[e->buf->id] = true;
  return true;
}

static void scan_expr(Reads *r, const Expr *e) { ir_walk_expr(e, read_visit, r); }

static bool scan_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Reads *r = ctx;
  scan_expr(r, s->lo);
  scan_expr(r, s->hi);
  scan_expr(r, s->cond);
  scan_expr(r, s->rhs);
  scan_expr(r, s->init);
  for (int i = 0; i < s->ninit; i++) scan_expr(r, s->init_list[i]);
  if (s->kind == ST_ASSIGN && s->lhs->kind == EX_LOAD) {
    r->buf_used[s->lhs->buf->id] = true;
    for (int i = 0; i < s->lhs->buf->ndim; i++) scan_expr(r, s->lhs->idx[i]);
    if (s->op != OP_NONE) r->buf_read[s->lhs->buf->id] = true;
  } else if (s->kind == ST_ASSIGN && s->op != OP_NONE) {
    r->var_read[s->lhs->var->id] = true;
  }
  return true;
}

/* The name declaration s declares and the variant never reads, or NULL
 * (an on-chip buffer is a pointer the lowering declares). */
static const char *unread(const Reads *r, const Stmt *s) {
  if (s->kind != ST_DECL || s->low) return NULL;
  if (s->buf) return !buffer_onchip(s->buf) && !r->buf_read[s->buf->id] ? s->buf->name : NULL;
  return !r->var_read[s->var->id] ? s->var->name : NULL;
}

typedef struct {
  const Reads *r;
  bool found;
} Find;

static bool find_unread(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  f->found |= unread(f->r, s) != NULL;
  return !f->found;
}

/* A declaration under s (s included) that needs its node. */
static bool holds_unread(const Reads *r, const Stmt *s) {
  Find f = {r, false};
  ir_walk_one(s, find_unread, &f);
  return f.found;
}

static Stmt *unused(Lower *lw, const char *name, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_UNUSED, loc);
  s->note = name;
  return s;
}

/* list with each unread declaration followed by its node; the statements
 * around them copied, the others shared. */
static Stmt *mark_list(Lower *lw, const Stmt *list, const void *ctx) {
  const Reads *r = ctx;
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) {
    tail = lower_append(tail, holds_unread(r, s) ? lower_rebuild(lw, s, mark_list, r) : lower_shallow(lw, s));
    if (unread(r, s)) tail = lower_append(tail, unused(lw, unread(r, s), s->loc));
  }
  return out;
}

Stmt *lower_unused(Lower *lw, const Stmt *body) {
  const Kernel *k = lw->k;
  Reads r = {calloc((size_t)k->nvars + 1, 1), calloc((size_t)k->nbufs + 1, 1), calloc((size_t)k->nbufs + 1, 1)};
  ir_walk_stmts(k->body, scan_stmt, &r);
  Stmt *out = NULL, **tail = &out;
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf ? !r.buf_used[p->buf->id] : !r.var_read[p->var->id])
      tail = lower_append(tail, unused(lw, p->buf ? p->buf->name : p->var->name, k->loc));
  lower_append(tail, mark_list(lw, body, &r));
  free(r.var_read);
  free(r.buf_used);
  free(r.buf_read);
  return out;
}
