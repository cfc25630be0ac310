/* Uninitialized reads a kernel certainly makes, found at generation.
 *
 * The statements are walked in program order, marking each local written
 * when a write to it (any element, for an array) is met; a write is never
 * unmarked. A read of a local that is not marked yet is certain to read an
 * indeterminate value when the read certainly runs on the kernel's first
 * pass over it: then nothing textually later has run, and nothing earlier
 * wrote it. It certainly runs when it is not under an if or in a branch of
 * ?:, && or || (within the kernel), and every loop around it runs its first
 * iteration, with the loops around that one at theirs: their bounds are
 * evaluated at those first values, and an unknown one gives up. So a read
 * in `for (j = 0; j < i; j++)` is not certain (at i = 0 the loop is empty),
 * and the run-time check of the reference decides it. */
#include "ir/uninit.h"

#include <stdlib.h>

typedef struct {
  DiagList *d;
  const char *file, *src;
  bool *var_written, *buf_written; /* by Var.id, Buffer.id */
  /* the first value of each loop counter around the statement walked,
   * while it certainly runs */
  const Var *first_var[IR_MAX_DIMS * 4];
  int64_t first_val[IR_MAX_DIMS * 4];
  int nfirst;
  bool ok;
} Uninit;

static bool first_value(const Uninit *u, const Expr *e, int64_t *v);

/* e's value at the first iterations of the loops around (false: unknown,
 * or past e's type, where C would wrap it). */
static bool first_value_in_type(const Uninit *u, const Expr *e, int64_t *v) {
  int64_t lo;
  uint64_t hi;
  if (!type_is_integer(e->type) || !first_value(u, e, v)) return false;
  type_int_range(e->type, &lo, &hi);
  return *v >= lo && (*v < 0 || (uint64_t)*v <= hi);
}

static bool first_value(const Uninit *u, const Expr *e, int64_t *v) {
  int64_t a, b;
  switch (e->kind) {
  case EX_INT:
    *v = e->ival;
    return true;
  case EX_VAR:
    for (int i = u->nfirst - 1; i >= 0; i--)
      if (u->first_var[i] == e->var) return *v = u->first_val[i], true;
    return false;
  case EX_CAST:
    return type_is_integer(e->a->type) && first_value_in_type(u, e->a, v);
  case EX_UNARY:
    if (!first_value_in_type(u, e->a, &a) || a == INT64_MIN) return false;
    if (e->op == OP_NEG) return *v = -a, true;
    return e->op == OP_PLUS && (*v = a, true);
  case EX_BINARY:
    if (!first_value_in_type(u, e->a, &a) || !first_value_in_type(u, e->b, &b)) return false;
    switch (e->op) {
    case OP_ADD: return !__builtin_add_overflow(a, b, v);
    case OP_SUB: return !__builtin_sub_overflow(a, b, v);
    case OP_MUL: return !__builtin_mul_overflow(a, b, v);
    case OP_DIV: return b > 0 && (*v = a / b, true);
    case OP_MOD: return b > 0 && (*v = a % b, true);
    default: return false;
    }
  default:
    return false;
  }
}

/* The loop's first iteration runs when the walk gets to it: its counter's
 * first value is pushed. */
static bool first_iteration(Uninit *u, const Stmt *loop) {
  int64_t lo, hi;
  if (u->nfirst == (int)(sizeof u->first_var / sizeof u->first_var[0]) || !first_value_in_type(u, loop->lo, &lo) ||
      !first_value_in_type(u, loop->hi, &hi))
    return false;
  bool runs = loop->cmp == OP_LT ? lo < hi : loop->cmp == OP_LE ? lo <= hi : loop->cmp == OP_GT ? lo > hi : lo >= hi;
  if (!runs) return false;
  u->first_var[u->nfirst] = loop->var;
  u->first_val[u->nfirst++] = lo;
  return true;
}

static bool *written(Uninit *u, const Expr *e) {
  if (e->kind == EX_VAR && e->var->kind == VAR_LOCAL) return &u->var_written[e->var->id];
  if (e->kind == EX_LOAD && e->buf->role == ROLE_LOCAL && !buffer_onchip(e->buf)) return &u->buf_written[e->buf->id];
  return NULL;
}

static void read_local(Uninit *u, const Expr *e, bool sure) {
  bool *w = written(u, e);
  if (!w || *w || !sure) return;
  StrBuf t;
  sb_init(&t);
  ir_print_expr(&t, e);
  if (e->kind == EX_VAR)
    diag_error(u->d, u->file, u->src, e->loc.line, e->loc.col,
               "'%s' is read here before any value is written to it (uninitialized)", t.data);
  else
    diag_error(u->d, u->file, u->src, e->loc.line, e->loc.col,
               "'%s' is read here before any element of '%s' is written (uninitialized)", t.data, e->buf->name);
  sb_free(&t);
  *w = true; /* one message per local */
  u->ok = false;
}

static void reads(Uninit *u, const Expr *e, bool sure) {
  if (!e) return;
  switch (e->kind) {
  case EX_LOAD:
    for (int i = 0; i < e->buf->ndim; i++) reads(u, e->idx[i], sure);
    read_local(u, e, sure);
    return;
  case EX_VAR:
    read_local(u, e, sure);
    return;
  case EX_COND:
    reads(u, e->a, sure);
    reads(u, e->b, false);
    reads(u, e->c, false);
    return;
  case EX_BINARY:
    reads(u, e->a, sure);
    reads(u, e->b, sure && e->op != OP_LAND && e->op != OP_LOR);
    return;
  case EX_CALL:
    for (int i = 0; i < e->nargs; i++) reads(u, e->args[i], sure);
    return;
  default:
    reads(u, e->a, sure);
    return;
  }
}

static void walk(Uninit *u, const Stmt *s, bool sure) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      walk(u, s->body, sure);
      break;
    case ST_DECL:
      reads(u, s->init, sure);
      for (int i = 0; i < s->ninit; i++) reads(u, s->init_list[i], sure);
      if (s->var && s->init) u->var_written[s->var->id] = true;
      if (s->buf && s->init_list) u->buf_written[s->buf->id] = true;
      break;
    case ST_ASSIGN: {
      reads(u, s->rhs, sure);
      if (s->lhs->kind == EX_LOAD)
        for (int i = 0; i < s->lhs->buf->ndim; i++) reads(u, s->lhs->idx[i], sure);
      if (s->op != OP_NONE) read_local(u, s->lhs, sure);
      bool *w = written(u, s->lhs);
      if (w) *w = true;
      break;
    }
    case ST_IF:
      reads(u, s->cond, sure);
      walk(u, s->then_s, false);
      walk(u, s->else_s, false);
      break;
    case ST_FOR: {
      int depth = u->nfirst;
      walk(u, s->body, sure && first_iteration(u, s));
      u->nfirst = depth;
      break;
    }
    }
  }
}

bool ir_check_uninit(const Kernel *k, DiagList *d, const char *file, const char *src) {
  Uninit u = {d, file, src, calloc((size_t)k->nvars + 1, sizeof(bool)), calloc((size_t)k->nbufs + 1, sizeof(bool)),
              {0}, {0}, 0, true};
  walk(&u, k->body, true);
  free(u.var_written);
  free(u.buf_written);
  return u.ok;
}
