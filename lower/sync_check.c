/* The static check of the lowered IR's synchronisation (lower/lower.h).
 *
 * The lowered program is run abstractly: loop counters take their values
 * (the plans' tokens, copies and guards depend on counters only), on-chip
 * data is not computed, and each DMA in flight is kept with the token slot
 * it was started on, the buffers it writes and reads and which copy of
 * each. A condition that is not a counter's function runs both ways and
 * the DMAs in flight after it are those of either way. A loop that holds
 * no lowered node is one access of everything it reads and writes, and
 * one whose DMAs are all waited for where they start runs once for any
 * counter; a loop that holds tokens or copies named by counters runs its
 * iterations, all of them up to 2 * EDGE, else the
 * first and last EDGE (with an even count skipped between: the plans
 * repeat every two iterations), so the check stays fast on any size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

enum { EDGE = 8 };

typedef struct {
  DmaToken tok;         /* base and id as started */
  int64_t idx[2];       /* the slot: index values */
  const Buffer *dst, *src;
  int64_t dst_copy, src_copy; /* -1: not known (any copy) */
  int64_t dst_core, src_core; /* a bound loop's buffer: whose core's (-1: any) */
  const Stmt *leaf;     /* the copy's statement, for messages */
} Flight;

typedef struct {
  Flight *f;
  int n, cap;
} State;

typedef struct {
  const Kernel *k;
  int64_t max_tokens;
  int64_t *val;  /* by Var.id */
  bool *known;
  int64_t *view; /* by Buffer.id: the copy the buffer's name points to; -1 unknown */
  char *why;
  size_t nwhy;
  bool failed;
} Check;

static bool fail(Check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Check *c, const char *fmt, ...) {
  if (c->failed) return false;
  c->failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, c->nwhy, fmt, ap);
  va_end(ap);
  return false;
}

/* ---------------- values of counters ---------------- */

static bool eval(const Check *c, const Expr *e, int64_t *v) {
  int64_t x, y;
  switch (e->kind) {
  case EX_INT: return *v = e->ival, true;
  case EX_VAR: return e->var->id >= 0 && e->var->id < c->k->nvars && c->known[e->var->id] && (*v = c->val[e->var->id], true);
  case EX_CAST: return type_is_integer(e->type) && eval(c, e->a, v);
  case EX_UNARY:
    if (!eval(c, e->a, &x)) return false;
    if (e->op == OP_NEG) return x != INT64_MIN && (*v = -x, true);
    if (e->op == OP_LNOT) return *v = !x, true;
    if (e->op == OP_PLUS) return *v = x, true;
    return false;
  case EX_BINARY:
    if (!eval(c, e->a, &x) || !eval(c, e->b, &y)) return false;
    switch (e->op) {
    case OP_ADD: return !__builtin_add_overflow(x, y, v);
    case OP_SUB: return !__builtin_sub_overflow(x, y, v);
    case OP_MUL: return !__builtin_mul_overflow(x, y, v);
    case OP_DIV: return y != 0 && !(x == INT64_MIN && y == -1) && (*v = x / y, true);
    case OP_MOD: return y != 0 && !(x == INT64_MIN && y == -1) && (*v = x % y, true);
    case OP_LT: return *v = x < y, true;
    case OP_LE: return *v = x <= y, true;
    case OP_GT: return *v = x > y, true;
    case OP_GE: return *v = x >= y, true;
    case OP_EQ: return *v = x == y, true;
    case OP_NE: return *v = x != y, true;
    case OP_LAND: return *v = x && y, true;
    case OP_LOR: return *v = x || y, true;
    default: return false;
    }
  default: return false;
  }
}

/* ---------------- DMAs in flight ---------------- */

static const char *token_name(char *buf, size_t n, const Flight *f) {
  if (!f->tok.base) snprintf(buf, n, "%%dma%d", f->tok.id);
  else if (f->tok.nidx == 0) snprintf(buf, n, "%s", f->tok.base);
  else if (f->tok.nidx == 1) snprintf(buf, n, "%s[%lld]", f->tok.base, (long long)f->idx[0]);
  else snprintf(buf, n, "%s[%lld][%lld]", f->tok.base, (long long)f->idx[0], (long long)f->idx[1]);
  return buf;
}

static bool same_slot(const Flight *a, const Flight *b) {
  if (!a->tok.base || !b->tok.base) return !a->tok.base && !b->tok.base && a->tok.id == b->tok.id;
  if (strcmp(a->tok.base, b->tok.base) || a->tok.nidx != b->tok.nidx) return false;
  for (int i = 0; i < a->tok.nidx; i++)
    if (a->idx[i] != b->idx[i]) return false;
  return true;
}

static void push(State *s, const Flight *f) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->f = realloc(s->f, sizeof *s->f * (size_t)s->cap);
  }
  s->f[s->n++] = *f;
}

static void drop(State *s, int i) { s->f[i] = s->f[--s->n]; }

static State copy_state(const State *s) {
  State c = {NULL, 0, 0};
  for (int i = 0; i < s->n; i++) push(&c, &s->f[i]);
  return c;
}

/* The DMAs that may be in flight after either of two ways. */
static void merge(State *into, State *other) {
  for (int i = 0; i < other->n; i++) {
    bool have = false;
    for (int j = 0; j < into->n && !have; j++) have = same_slot(&into->f[j], &other->f[i]) && into->f[j].leaf == other->f[i].leaf;
    if (!have) push(into, &other->f[i]);
  }
  free(other->f);
}

static int64_t copy_of(const Check *c, const Buffer *b) {
  if (b->copies < 2) return 0;
  return b->id >= 0 && b->id < c->k->nbufs ? c->view[b->id] : -1;
}

/* Whose core's memory holds b now: a bound loop's buffer is each core's
 * own (-1: not known, any core). */
static int64_t core_of(const Check *c, const Buffer *b) {
  if (!b->core) return 0;
  int id = b->core->id;
  return id >= 0 && id < c->k->nvars && c->known[id] ? c->val[id] : -1;
}

static bool same_copy(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

/* ---------------- accesses ---------------- */

/* An access of on-chip buffer b (its copy now) at statement `at` may not
 * meet a DMA in flight: a read one that fills it, a write one that fills
 * or reads it. */
static bool touch(Check *c, const State *s, const Buffer *b, bool write, const Stmt *at) {
  if (!buffer_onchip(b)) return true;
  int64_t copy = copy_of(c, b), core = core_of(c, b);
  for (int i = 0; i < s->n; i++) {
    const Flight *f = &s->f[i];
    char tok[200];
    bool fills = f->dst == b && same_copy(f->dst_copy, copy) && same_copy(f->dst_core, core);
    bool reads = f->src == b && same_copy(f->src_copy, copy) && same_copy(f->src_core, core);
    if (fills)
      return fail(c, "%s of %s at line %d (%s) before the wait for the DMA that fills it (%s, line %d, token %s)",
                  write ? "write" : "read", b->name, at->loc.line, at->name ? at->name : "statement", f->leaf->name,
                  f->leaf->loc.line, token_name(tok, sizeof tok, f));
    if (write && reads)
      return fail(c, "write of %s at line %d (%s) while the DMA that reads it is in flight (%s, line %d, token %s)",
                  b->name, at->loc.line, at->name ? at->name : "statement", f->leaf->name, f->leaf->loc.line,
                  token_name(tok, sizeof tok, f));
  }
  return true;
}

typedef struct {
  Check *c;
  const State *s;
  const Stmt *at;
} Access;

static bool expr_reads(Access *a, const Expr *e) {
  if (!e) return true;
  if (e->kind == EX_LOAD) {
    if (!touch(a->c, a->s, e->buf, false, a->at)) return false;
    for (int i = 0; i < e->buf->ndim; i++)
      if (!expr_reads(a, e->idx[i])) return false;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!expr_reads(a, e->args[i])) return false;
  return expr_reads(a, e->a) && expr_reads(a, e->b) && expr_reads(a, e->c);
}

/* The accesses of one statement's own expressions (not its children). */
static bool stmt_accesses(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Access *a = ctx;
  if (st->low) return true;
  a->at = st;
  if (!expr_reads(a, st->lo) || !expr_reads(a, st->hi) || !expr_reads(a, st->cond) || !expr_reads(a, st->rhs) ||
      !expr_reads(a, st->init))
    return false;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD) {
    for (int i = 0; i < st->lhs->buf->ndim; i++)
      if (!expr_reads(a, st->lhs->idx[i])) return false;
    if (st->op != OP_NONE && !touch(a->c, a->s, st->lhs->buf, false, st)) return false;
    if (!touch(a->c, a->s, st->lhs->buf, true, st)) return false;
  }
  return true;
}

/* Everything statement st (alone) reads and writes, as one access. */
static bool summary(Check *c, const State *s, const Stmt *st) {
  Access a = {c, s, st};
  Stmt one = *st;
  one.next = NULL;
  ir_walk_stmts(&one, stmt_accesses, &a);
  return !c->failed;
}

static bool find_low(Stmt *st, int depth, void *ctx) {
  (void)depth;
  if (st->low && st->low->kind != LOW_NOTE && st->low->kind != LOW_TOKENS) *(bool *)ctx = true;
  return !*(bool *)ctx;
}

/* A DMA that outlives its statement: a token or a copy named by counters
 * (a start waited for at once needs no counter's value). */
static bool find_async(Stmt *st, int depth, void *ctx) {
  (void)depth;
  const Lowered *l = st->low;
  if (l && (l->token.base || (l->kind == LOW_VIEW && l->view_copy))) *(bool *)ctx = true;
  return !*(bool *)ctx;
}

static bool holds_async(const Stmt *st) {
  bool found = false;
  lower_walk_one(st, find_async, &found);
  return found;
}

static bool holds_dma(const Stmt *st) {
  bool found = false;
  Stmt one = *st;
  one.next = NULL;
  ir_walk_stmts(&one, find_low, &found);
  return found;
}

/* ---------------- the run ---------------- */

static bool run_list(Check *c, State *s, const Stmt *list);

static bool run_start(Check *c, State *s, const Stmt *st) {
  const Lowered *l = st->low;
  const Stmt *leaf = ir_nest_leaf(l->copy);
  if (!leaf) return fail(c, "dma_start at line %d: its copy nest is not a copy", st->loc.line);
  Flight f = {l->token, {0, 0}, NULL, NULL, 0, 0, 0, 0, leaf};
  for (int i = 0; i < l->token.nidx; i++)
    if (!eval(c, l->token.idx[i], &f.idx[i]))
      return fail(c, "dma_start of %s at line %d: its token's index is not a counter's function", leaf->name, leaf->loc.line);
  f.dst = leaf->lhs->buf;
  f.src = leaf->rhs->buf;
  f.dst_copy = copy_of(c, f.dst);
  f.src_copy = copy_of(c, f.src);
  f.dst_core = core_of(c, f.dst);
  f.src_core = core_of(c, f.src);
  char tok[200];
  for (int i = 0; i < s->n; i++)
    if (same_slot(&s->f[i], &f))
      return fail(c, "token %s started again at line %d (%s) while its DMA (%s, line %d) is in flight",
                  token_name(tok, sizeof tok, &f), leaf->loc.line, leaf->name, s->f[i].leaf->name,
                  s->f[i].leaf->loc.line);
  /* the DMA reads its source and writes its destination */
  if (!touch(c, s, f.src, false, leaf) || !touch(c, s, f.dst, true, leaf)) return false;
  push(s, &f);
  if (s->n > c->max_tokens)
    return fail(c, "%d DMAs in flight at line %d (%s), and the target allows %lld", s->n, leaf->loc.line, leaf->name,
                (long long)c->max_tokens);
  return true;
}

static bool run_wait(Check *c, State *s, const Stmt *st) {
  const Lowered *l = st->low;
  int64_t g;
  if (l->guard && eval(c, l->guard, &g) && !g) return true;
  if (l->guard && !eval(c, l->guard, &g)) return true; /* may not wait: what it waits for stays in flight */
  Flight w = {l->token, {0, 0}, NULL, NULL, 0, 0, 0, 0, NULL};
  for (int i = 0; i < l->token.nidx; i++)
    if (!eval(c, l->token.idx[i], &w.idx[i])) return fail(c, "dma_wait at line %d: its token's index is not a counter's function", st->loc.line);
  for (int i = 0; i < s->n; i++)
    if (same_slot(&s->f[i], &w)) drop(s, i--);
  return true;
}

static bool lowered(Check *c, State *s, const Stmt *st) {
  const Lowered *l = st->low;
  int64_t v;
  switch (l->kind) {
  case LOW_DMA_START: return run_start(c, s, st);
  case LOW_DMA_WAIT: return run_wait(c, s, st);
  case LOW_VIEW:
    if (l->view_copy && l->view_buf->id >= 0 && l->view_buf->id < c->k->nbufs)
      c->view[l->view_buf->id] = eval(c, l->view_copy, &v) ? v : -1;
    return true;
  case LOW_TOKENS:
  case LOW_NOTE: return true;
  }
  return true;
}

/* A block: the views it sets end with it (C scoping). */
static bool run_block(Check *c, State *s, const Stmt *list) {
  size_t bytes = sizeof *c->view * (size_t)(c->k->nbufs > 0 ? c->k->nbufs : 1);
  int64_t *saved = malloc(bytes);
  memcpy(saved, c->view, bytes);
  bool ok = run_list(c, s, list);
  memcpy(c->view, saved, bytes);
  free(saved);
  return ok;
}

static bool run_iteration(Check *c, State *s, const Stmt *L, int64_t v) {
  c->val[L->var->id] = v;
  c->known[L->var->id] = true;
  return run_block(c, s, L->body->body);
}

/* How many times L runs from lo to hi (its step and comparison). */
static bool trip_count(const Stmt *L, int64_t lo, int64_t hi, int64_t *n) {
  int64_t span, st = L->step > 0 ? L->step : -L->step;
  if (L->step == 0 || L->step == INT64_MIN) return false;
  bool up = L->step > 0;
  if (__builtin_sub_overflow(up ? hi : lo, up ? lo : hi, &span)) return false;
  if (L->cmp == OP_LE || L->cmp == OP_GE) {
    *n = span < 0 ? 0 : span / st + 1;
  } else {
    *n = span <= 0 ? 0 : (span - 1) / st + 1;
  }
  return true;
}

static bool run_loop(Check *c, State *s, const Stmt *L) {
  int64_t lo, hi, trips;
  if (!holds_dma(L)) return summary(c, s, L);
  if (!holds_async(L)) { /* copies waited for where they start: one iteration, any counter */
    c->known[L->var->id] = false;
    return run_block(c, s, L->body->body);
  }
  if (!eval(c, L->lo, &lo) || !eval(c, L->hi, &hi) || !trip_count(L, lo, hi, &trips))
    return fail(c, "loop %s at line %d holds DMAs but its iterations are not known", L->name, L->loc.line);
  if (!expr_reads(&(Access){c, s, L}, L->lo) || !expr_reads(&(Access){c, s, L}, L->hi)) return false;
  int64_t skip_from = trips, skip_to = trips; /* iterations [skip_from, skip_to) not run */
  if (trips > 2 * EDGE) {
    skip_from = EDGE;
    skip_to = trips - EDGE;
    if ((skip_to - skip_from) % 2) skip_to--; /* an even count skipped: the same parity */
  }
  bool ok = true;
  for (int64_t i = 0; i < trips && ok; i = i + 1 == skip_from ? skip_to : i + 1)
    ok = run_iteration(c, s, L, lo + i * L->step);
  c->known[L->var->id] = false;
  return ok;
}

static bool run_if(Check *c, State *s, const Stmt *st) {
  int64_t v;
  if (!expr_reads(&(Access){c, s, st}, st->cond)) return false;
  if (eval(c, st->cond, &v)) return v ? run_block(c, s, st->then_s->body) : !st->else_s || run_block(c, s, st->else_s->body);
  if (!holds_dma(st)) return summary(c, s, st);
  State other = copy_state(s);
  bool ok = run_block(c, s, st->then_s->body) && (!st->else_s || run_block(c, &other, st->else_s->body));
  merge(s, &other);
  return ok;
}

static bool run_list(Check *c, State *s, const Stmt *list) {
  for (const Stmt *st = list; st && !c->failed; st = st->next) {
    if (st->low) {
      if (!lowered(c, s, st)) return false;
      continue;
    }
    switch (st->kind) {
    case ST_BLOCK:
      if (!run_block(c, s, st->body)) return false;
      break;
    case ST_FOR:
      if (!run_loop(c, s, st)) return false;
      break;
    case ST_IF:
      if (!run_if(c, s, st)) return false;
      break;
    case ST_DECL:
      /* a double-buffered one declared as it is uses copy 0 */
      if (st->buf && st->buf->id >= 0 && st->buf->id < c->k->nbufs) c->view[st->buf->id] = 0;
      if (!summary(c, s, st)) return false;
      break;
    case ST_ASSIGN:
      if (!summary(c, s, st)) return false;
      break;
    }
  }
  return !c->failed;
}

bool lower_check_sync(const Kernel *k, int64_t max_tokens, char *why, size_t n) {
  Check c = {k, max_tokens, calloc((size_t)k->nvars + 1, sizeof(int64_t)), calloc((size_t)k->nvars + 1, 1),
             malloc(sizeof(int64_t) * (size_t)(k->nbufs + 1)), why, n, false};
  for (int i = 0; i <= k->nbufs; i++) c.view[i] = -1;
  State s = {NULL, 0, 0};
  bool ok = run_list(&c, &s, k->body->body);
  if (ok && s.n) {
    char tok[200];
    ok = fail(&c, "the DMA of %s (line %d, token %s) is never waited for", s.f[0].leaf->name, s.f[0].leaf->loc.line,
              token_name(tok, sizeof tok, &s.f[0]));
  }
  free(s.f);
  free(c.val);
  free(c.known);
  free(c.view);
  return ok;
}
