/* The static check of the lowered IR's synchronisation (lower/lower.h),
 * and first that every on-chip declaration has its place in its scope
 * and every call its arguments' casts (placed).
 *
 * The lowered program is run abstractly: loop counters take their values
 * (the plans' tokens, copies and guards depend on counters only), data is
 * not computed, and each DMA in flight is kept with the token slot it was
 * started on, the buffers it writes and reads, which copy and core of an
 * on-chip one, and the box of each array checked by box that it covers.
 *
 * Arrays checked by box (by_box: DDR arrays, parameters or locals a
 * call's DMAs may reach, and on-chip buffers of one copy for all cores,
 * such as a program's intermediate on chip): an access, or a DMA, of a
 * box of one may not meet a DMA in flight that writes an overlapping box
 * (nor, for a write, one that reads it). Double-buffered and per-core
 * buffers are checked whole, per copy and core: a DMA filling any part of
 * one may not meet any access of it. A box is each index's range over the counters not known where the
 * access is (those of a loop run as one access, a copy nest's), by
 * interval arithmetic; an index it cannot bound (not affine, a tail's
 * guard seen past) spans its whole dimension, so the check errs towards a
 * hazard, never away from one.
 *
 * What runs and what is sampled: a condition that is not a counter's
 * function runs both ways, and the DMAs in flight after it are those of
 * either way. A loop that holds no lowered node is one access of
 * everything it reads and writes (its counters over their ranges), and one
 * whose DMAs are all waited for where they start runs once for any
 * counter. A loop that holds tokens or copies named by counters runs its
 * iterations: all of them up to 2 * EDGE; beyond, only the first EDGE and
 * the last EDGE, the ones between skipped in an even number (the plans'
 * tokens and copies repeat every two iterations, and a DMA lives at most
 * two iterations, so the first and last ones see every pattern of them).
 * The boxes of the iterations skipped are not checked: after the skip,
 * the DMAs in flight carry the boxes of the last iteration run, a few
 * tiles away from those of the iterations that follow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sizes.h"
#include "lower/lower.h"

enum { EDGE = 8 };

/* The box of an array (by_box) an access or a DMA covers: index d in
 * [lo[d], hi[d]]. */
typedef struct {
  int64_t lo[IR_MAX_DIMS], hi[IR_MAX_DIMS];
} Box;

typedef struct {
  DmaToken tok;         /* base and id as started */
  int64_t idx[2];       /* the slot: index values */
  const Buffer *dst, *src;
  int64_t dst_copy, src_copy; /* -1: not known (any copy) */
  int64_t dst_core, src_core; /* a bound loop's buffer: whose core's (-1: any) */
  Box dst_box, src_box; /* of an array checked by box */
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
  int64_t *rlo, *rhi; /* by Var.id: a counter's range where it is not known */
  bool *ranged;
  const Var *at;      /* while a DMA's box is worked out: its counter set ahead */
  int64_t at_lo, at_hi;
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
  case EX_VAR:
    if (e->var == c->at) return c->at_lo == c->at_hi && (*v = c->at_lo, true);
    return e->var->id >= 0 && e->var->id < c->k->nvars && c->known[e->var->id] && (*v = c->val[e->var->id], true);
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

/* ---------------- ranges of counters, boxes of arrays ---------------- */

static bool min_max4(int64_t a, int64_t b, int64_t c2, int64_t d, int64_t *lo, int64_t *hi) {
  int64_t v[4] = {a, b, c2, d};
  *lo = *hi = a;
  for (int i = 1; i < 4; i++) {
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
  return true;
}

/* e's values where the counters not known range over theirs: [*lo, *hi];
 * false when not bounded so (interval arithmetic, checked). */
static bool span(const Check *c, const Expr *e, int64_t *lo, int64_t *hi) {
  int64_t v, al, ah, bl, bh, p[4];
  if (eval(c, e, &v)) return *lo = *hi = v, true;
  switch (e->kind) {
  case EX_VAR:
    if (e->var == c->at) return *lo = c->at_lo, *hi = c->at_hi, true;
    if (e->var->id < 0 || e->var->id >= c->k->nvars || !c->ranged[e->var->id]) return false;
    return *lo = c->rlo[e->var->id], *hi = c->rhi[e->var->id], true;
  case EX_CAST: return type_is_integer(e->type) && span(c, e->a, lo, hi);
  case EX_BINARY:
    if (!span(c, e->a, &al, &ah) || !span(c, e->b, &bl, &bh)) return false;
    switch (e->op) {
    case OP_ADD: return !__builtin_add_overflow(al, bl, lo) && !__builtin_add_overflow(ah, bh, hi);
    case OP_SUB: return !__builtin_sub_overflow(al, bh, lo) && !__builtin_sub_overflow(ah, bl, hi);
    case OP_MUL:
      if (__builtin_mul_overflow(al, bl, &p[0]) || __builtin_mul_overflow(al, bh, &p[1]) ||
          __builtin_mul_overflow(ah, bl, &p[2]) || __builtin_mul_overflow(ah, bh, &p[3]))
        return false;
      return min_max4(p[0], p[1], p[2], p[3], lo, hi);
    case OP_DIV: /* by a positive constant: monotonic */
      return bl == bh && bl > 0 && (*lo = al / bl, *hi = ah / bl, true);
    case OP_MOD:
      if (bl != bh || bl <= 0 || al < 0) return false;
      if (ah - al < bl && al % bl <= ah % bl) return *lo = al % bl, *hi = ah % bl, true;
      return *lo = 0, *hi = bl - 1, true;
    default: return false;
    }
  default: return false;
  }
}

/* Counter L->var over L's iterations (none: not bounded, any value). */
static void set_range(Check *c, const Stmt *L) {
  int id = L->var->id;
  int64_t ll, lh, hl, hh;
  if (id < 0 || id >= c->k->nvars) return;
  bool up = L->step > 0, open = L->cmp == OP_LT || L->cmp == OP_GT;
  c->ranged[id] = span(c, L->lo, &ll, &lh) && span(c, L->hi, &hl, &hh) &&
                  (up ? !__builtin_sub_overflow(hh, open, &c->rhi[id]) : !__builtin_add_overflow(hl, open, &c->rlo[id]));
  if (!c->ranged[id]) return;
  if (up) c->rlo[id] = ll;
  else c->rhi[id] = lh;
}

/* An array checked by box: one in DDR (a parameter, or a local a
 * called function's DMAs may reach), or on chip with one copy for all
 * cores (a program's intermediate holds the regions of several DMAs in
 * flight at once). A double-buffered or per-core buffer is checked whole,
 * per copy and core. */
static bool by_box(const Buffer *b) { return !buffer_onchip(b) || (b->copies < 2 && !b->core); }

/* The box access (of an array checked by box) covers; an index not bounded spans its
 * dimension. Clipped to the array. */
static Box box_of(const Check *c, const Expr *access) {
  const Buffer *b = access->buf;
  Box box;
  for (int d = 0; d < b->ndim; d++) {
    if (!span(c, access->idx[d], &box.lo[d], &box.hi[d])) box.lo[d] = 0, box.hi[d] = b->shape[d] - 1;
    if (box.lo[d] < 0) box.lo[d] = 0;
    if (box.hi[d] > b->shape[d] - 1) box.hi[d] = b->shape[d] - 1;
  }
  return box;
}

static bool overlap(const Buffer *b, const Box *x, const Box *y) {
  for (int d = 0; d < b->ndim; d++)
    if (x->lo[d] > y->hi[d] || y->lo[d] > x->hi[d]) return false;
  return true;
}

/* "C[0..127][128..255]" */
static const char *box_text(char *buf, size_t n, const Buffer *b, const Box *x) {
  int len = snprintf(buf, n, "%s", b->name);
  for (int d = 0; d < b->ndim && len < (int)n; d++)
    len += x->lo[d] == x->hi[d] ? snprintf(buf + len, n - (size_t)len, "[%lld]", (long long)x->lo[d])
                                : snprintf(buf + len, n - (size_t)len, "[%lld..%lld]", (long long)x->lo[d],
                                           (long long)x->hi[d]);
  return buf;
}

/* The boxes DMA f (copy nest `nest`, its region where counter at has
 * value `value`) covers in its arrays checked by box: each counter of the nest over
 * its extent. */
static void dma_boxes(Check *c, Flight *f, const Stmt *nest, const Var *at, const Expr *value) {
  int64_t lo = 0, hi = -1;
  if (at && !span(c, value, &lo, &hi)) lo = INT64_MIN, hi = INT64_MAX; /* any: boxes span whole dimensions */
  for (const Stmt *l = nest; l && l->kind == ST_FOR; l = ir_nest_inner(l)) set_range(c, l);
  c->at = at;
  c->at_lo = lo;
  c->at_hi = hi;
  if (by_box(f->dst)) f->dst_box = box_of(c, f->leaf->lhs);
  if (by_box(f->src)) f->src_box = box_of(c, f->leaf->rhs);
  c->at = NULL;
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

static const char *stmt_name(const Stmt *at) { return at->name ? at->name : "statement"; }

/* "B_ib", or an array's box "C[0..127][128..255]" */
static const char *where(char *buf, size_t n, const Buffer *b, const Box *x) {
  if (by_box(b)) return box_text(buf, n, b, x);
  snprintf(buf, n, "%s", b->name);
  return buf;
}

/* An access of buffer b (checked whole: its copy now; by box: box x) at
 * statement `at` may not meet a DMA in flight: a read one that writes it,
 * a write one that writes or reads it. */
static bool touch(Check *c, const State *s, const Buffer *b, const Box *x, bool write, const Stmt *at) {
  int64_t copy = copy_of(c, b), core = core_of(c, b);
  for (int i = 0; i < s->n; i++) {
    const Flight *f = &s->f[i];
    bool fills = f->dst == b && (by_box(b) ? overlap(b, &f->dst_box, x)
                                        : same_copy(f->dst_copy, copy) && same_copy(f->dst_core, core));
    bool reads = f->src == b && (by_box(b) ? overlap(b, &f->src_box, x)
                                        : same_copy(f->src_copy, copy) && same_copy(f->src_core, core));
    if (!fills && !(write && reads)) continue;
    char tok[200], what[300];
    where(what, sizeof what, b, x);
    token_name(tok, sizeof tok, f);
    if (fills)
      return fail(c, "%s of %s at line %d (%s) before the wait for the DMA that %s it (%s, line %d, token %s)",
                  write ? "write" : "read", what, at->loc.line, stmt_name(at), by_box(b) ? "writes" : "fills",
                  f->leaf->name, f->leaf->loc.line, tok);
    return fail(c, "write of %s at line %d (%s) while the DMA that reads it is in flight (%s, line %d, token %s)", what,
                at->loc.line, stmt_name(at), f->leaf->name, f->leaf->loc.line, tok);
  }
  return true;
}

/* An access expression (EX_LOAD) as touch sees it. */
static bool touch_access(Check *c, const State *s, const Expr *access, bool write, const Stmt *at) {
  if (!by_box(access->buf)) return touch(c, s, access->buf, NULL, write, at);
  Box x = box_of(c, access);
  return touch(c, s, access->buf, &x, write, at);
}

typedef struct {
  Check *c;
  const State *s;
  const Stmt *at;
} Access;

static bool read_one(const Expr *e, void *ctx) {
  Access *a = ctx;
  return e->kind != EX_LOAD || touch_access(a->c, a->s, e, false, a->at);
}

static bool expr_reads(Access *a, const Expr *e) { return ir_walk_expr(e, read_one, a); }

/* The accesses of one statement's own expressions (not its children); a
 * loop's counter ranges over its iterations for those under it. */
static bool stmt_accesses(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Access *a = ctx;
  if (st->low) return true;
  a->at = st;
  if (!expr_reads(a, st->lo) || !expr_reads(a, st->hi) || !expr_reads(a, st->cond) || !expr_reads(a, st->rhs) ||
      !expr_reads(a, st->init))
    return false;
  if (st->kind == ST_FOR) set_range(a->c, st);
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD) {
    for (int i = 0; i < st->lhs->buf->ndim; i++)
      if (!expr_reads(a, st->lhs->idx[i])) return false;
    if (st->op != OP_NONE && !touch_access(a->c, a->s, st->lhs, false, st)) return false;
    if (!touch_access(a->c, a->s, st->lhs, true, st)) return false;
  }
  return true;
}

/* Everything statement st (alone) reads and writes, as one access. */
static bool summary(Check *c, const State *s, const Stmt *st) {
  Access a = {c, s, st};
  ir_walk_one(st, stmt_accesses, &a);
  return !c->failed;
}

/* What a statement holds: a lowered node that acts (dma), and a DMA that
 * outlives its statement: a token or a copy named by counters (async; a
 * start waited for at once needs no counter's value). */
typedef struct {
  bool dma, async;
} Holds;

static bool find_holds(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Holds *h = ctx;
  const Lowered *l = st->low;
  if (l && (l->kind == LOW_DMA_START || l->kind == LOW_DMA_WAIT || l->kind == LOW_VIEW)) h->dma = true;
  if (l && (l->token.base || (l->kind == LOW_VIEW && l->view_copy))) h->async = true;
  return !(h->dma && h->async);
}

static Holds holds(const Stmt *st) {
  Holds h = {false, false};
  ir_walk_one(st, find_holds, &h);
  return h;
}

/* ---------------- the run ---------------- */

static bool run_list(Check *c, State *s, const Stmt *list);

static bool run_start(Check *c, State *s, const Stmt *st) {
  const Lowered *l = st->low;
  const Stmt *leaf = ir_nest_leaf(l->copy);
  if (!leaf) return fail(c, "dma_start at line %d: its copy nest is not a copy", st->loc.line);
  Flight f = {.tok = l->token, .leaf = leaf};
  for (int i = 0; i < l->token.nidx; i++)
    if (!eval(c, l->token.idx[i], &f.idx[i]))
      return fail(c, "dma_start of %s at line %d: its token's index is not a counter's function", leaf->name, leaf->loc.line);
  f.dst = leaf->lhs->buf;
  f.src = leaf->rhs->buf;
  f.dst_copy = copy_of(c, f.dst);
  f.src_copy = copy_of(c, f.src);
  f.dst_core = core_of(c, f.dst);
  f.src_core = core_of(c, f.src);
  dma_boxes(c, &f, l->copy, l->at_var, l->at_value);
  char tok[200];
  for (int i = 0; i < s->n; i++)
    if (same_slot(&s->f[i], &f))
      return fail(c, "token %s started again at line %d (%s) while its DMA (%s, line %d) is in flight",
                  token_name(tok, sizeof tok, &f), leaf->loc.line, leaf->name, s->f[i].leaf->name,
                  s->f[i].leaf->loc.line);
  /* the DMA reads its source and writes its destination */
  if (!touch(c, s, f.src, &f.src_box, false, leaf) || !touch(c, s, f.dst, &f.dst_box, true, leaf)) return false;
  push(s, &f);
  if (s->n > c->max_tokens)
    return fail(c, "%d DMAs in flight at line %d (%s), and the target allows %lld", s->n, leaf->loc.line, leaf->name,
                (long long)c->max_tokens);
  return true;
}

static bool run_wait(Check *c, State *s, const Stmt *st) {
  const Lowered *l = st->low;
  int64_t g;
  /* not here, or not known to be: what it waits for stays in flight */
  if (l->guard && (!eval(c, l->guard, &g) || !g)) return true;
  Flight w = {.tok = l->token};
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
  case LOW_NOTE:
  case LOW_UNUSED:
  case LOW_POINTER: return true;
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

static bool run_loop(Check *c, State *s, const Stmt *L) {
  int64_t lo, hi, trips;
  Holds h = holds(L);
  if (!h.dma) return summary(c, s, L);
  if (!h.async) { /* copies waited for where they start: one iteration, any counter */
    c->known[L->var->id] = false;
    set_range(c, L);
    return run_block(c, s, L->body->body);
  }
  if (!eval(c, L->lo, &lo) || !eval(c, L->hi, &hi) || !ir_trip_count_between(L->cmp, L->step, lo, hi, &trips))
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
  if (!holds(st).dma) return summary(c, s, st);
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

/* The check at one size set (NULL: a kernel without sizes). */
static bool check_at(const Kernel *k, int64_t max_tokens, const SizeSet *set, char *why, size_t n) {
  size_t nv = (size_t)k->nvars + 1;
  Check c = {.k = k, .max_tokens = max_tokens, .val = calloc(nv, sizeof(int64_t)), .known = calloc(nv, 1),
             .rlo = calloc(nv, sizeof(int64_t)), .rhi = calloc(nv, sizeof(int64_t)), .ranged = calloc(nv, 1),
             .view = malloc(sizeof(int64_t) * (size_t)(k->nbufs + 1)), .why = why, .nwhy = n};
  for (int i = 0; i <= k->nbufs; i++) c.view[i] = -1;
  for (int i = 0; set && i < k->nsizes; i++) {
    c.val[k->sizes[i]->id] = set->val[i];
    c.known[k->sizes[i]->id] = true;
  }
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
  free(c.rlo);
  free(c.rhi);
  free(c.ranged);
  free(c.view);
  return ok;
}

/* A kernel with sizes is run at the size sets the check runs it at
 * (ir_size_sets) and at the largest sizes allowed, when there are such:
 * its loops' trip counts, the tails and whether a loop runs at all change
 * with the sizes. */
/* An on-chip buffer declared past its scope's base says where
 * (Stmt.scope_at, lower_onchip_decl): without it the C would put it at
 * the base, over another buffer. A call block's statements are not
 * printed (its function is lowered on its own); the block itself went
 * through lower_call, which decided its arguments' casts. */
static bool placed(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Check *c = ctx;
  if (s->kind == ST_BLOCK && s->call && !s->arg_casts)
    return fail(c, "the call of %s (line %d) was not lowered: its arguments' casts are not decided", s->call->fn,
                s->loc.line);
  if (s->kind != ST_DECL || !s->buf || !buffer_onchip(s->buf) || !s->buf->offset || s->scope_at) return true;
  return fail(c, "the declaration of %s (line %d) has no place in %s (byte %lld): it would print at the scope's base",
              s->buf->name, s->loc.line, s->buf->scope, (long long)s->buf->offset);
}

bool lower_check_sync(const Kernel *k, int64_t max_tokens, char *why, size_t n) {
  Check unplaced = {.k = k, .why = why, .nwhy = n};
  ir_walk_outside_calls(k->body, placed, &unplaced);
  if (unplaced.failed) return false;
  if (!k->nsizes) return check_at(k, max_tokens, NULL, why, n);
  SizeSet sets[IR_MAX_SIZE_SETS + 1];
  int ns = ir_size_sets_and_largest(k, sets, IR_MAX_SIZE_SETS + 1);
  for (int i = 0; i < ns; i++) {
    char at[200], inner[600];
    if (check_at(k, max_tokens, &sets[i], inner, sizeof inner)) continue;
    ir_size_set_text(k, &sets[i], at, sizeof at);
    snprintf(why, n, "at %s: %s", at, inner);
    return false;
  }
  return true;
}
