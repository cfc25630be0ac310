/* What the sketches need to know of a kernel: its arrays, and the chain of
 * loops from the top of its body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

int64_t tune_trip(const Stmt *loop) {
  int64_t n;
  return loop && ir_trip_count(loop, &n) ? n : -1;
}

typedef struct {
  const Buffer *b;
  bool written;
} Written;

static bool written_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Written *w = ctx;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == w->b) w->written = true;
  for (int i = 0; st->kind == ST_BLOCK && st->call && i < st->call->nparams; i++)
    w->written |= st->call->arg_buf[i] == w->b; /* a call may write what it is passed */
  return !w->written;
}

/* Does body (the kernel's, or one nest's: tune/sketch_nests.c) write b? */
static bool writes(Stmt *body, const Buffer *b) {
  Written w = {b, false};
  ir_walk_stmts(body, written_visit, &w);
  return w.written;
}

static void add_array(TuneShape *sh, Stmt *body, const Buffer *b, bool is_param) {
  if (sh->narr == TUNE_MAX_ARRAYS || b->ndim < 1) return;
  TuneArray *a = &sh->arr[sh->narr++];
  a->name = b->name;
  a->ndim = b->ndim;
  memcpy(a->shape, b->shape, sizeof a->shape);
  a->elem_size = b->elem->size;
  /* read only: declared const, or never written here (an array an
   * earlier nest writes is this nest's input: staged by a read cache) */
  a->is_const = b->is_const || (is_param && !writes(body, b));
  a->is_param = is_param;
}

typedef struct {
  TuneShape *sh;
  Stmt *body;
} Locals;

static bool local_arrays(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Locals *l = ctx;
  if (st->kind == ST_DECL && st->buf) add_array(l->sh, l->body, st->buf, false);
  return true;
}

typedef struct {
  const char *name;
  const Stmt *found;
} Named;

static bool find_named(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Named *n = ctx;
  if (st->kind == ST_FOR && st->name && !strcmp(st->name, n->name)) n->found = st;
  return !n->found;
}

const Stmt *tune_loop_named(const Kernel *k, const char *name) {
  Named n = {name, NULL};
  ir_walk_stmts(k->body, find_named, &n);
  return n.found;
}

const Stmt *tune_first_stmt(const Stmt *block) {
  const Stmt *c = block && block->kind == ST_BLOCK ? block->body : block;
  while (c && c->kind == ST_DECL) c = c->next;
  return c;
}

/* The block's only statement other than declarations, or NULL. */
static const Stmt *only_stmt(const Stmt *block) {
  const Stmt *one = NULL;
  for (const Stmt *c = block && block->kind == ST_BLOCK ? block->body : block; c; c = c->next) {
    if (c->kind == ST_DECL) continue;
    if (one) return NULL;
    one = c;
  }
  return one;
}

bool tune_shape(const Kernel *k, TuneShape *sh) {
  memset(sh, 0, sizeof *sh);
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf) add_array(sh, k->body, p->buf, true);
  Locals locals = {sh, k->body};
  ir_walk_stmts(k->body, local_arrays, &locals);
  for (const Stmt *c = k->body && k->body->kind == ST_BLOCK ? k->body->body : k->body; c; c = c->next)
    sh->ntop += c->kind != ST_DECL;
  const Stmt *l = only_stmt(k->body);
  while (l && l->kind == ST_FOR && sh->nchain < IR_MAX_DIMS) {
    sh->trip[sh->nchain] = tune_trip(l);
    sh->chain[sh->nchain++] = l;
    l = only_stmt(l->body);
  }
  return sh->nchain > 0;
}

static void add_size(long long *out, int *n, int max, long long v) {
  for (int i = 0; i < *n; i++)
    if (out[i] == v) return;
  if (*n < max) out[(*n)++] = v;
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

int tune_tile_sizes(int64_t extent, int64_t lo, long long *out, int max) {
  int n = 0;
  /* round sizes first (the NU's 32x32 array, vectors of 64 bytes), then the
   * divisors near them, so a tail is tried as well as an exact fit */
  for (long long v = 1024; v >= lo && n < max; v /= 2)
    if (v <= extent) add_size(out, &n, max, v);
  for (long long v = 3 * 64; v <= extent && v <= 768 && n < max; v += 64 * 2)
    if (v >= lo) add_size(out, &n, max, v);
  for (long long d = extent; d >= lo && n < max; d--)
    if (extent % d == 0 && d <= 1024) add_size(out, &n, max, d);
  qsort(out, (size_t)n, sizeof *out, cmp_ll);
  return n;
}
