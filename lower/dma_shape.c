/* A copy nest's DMA (lower/lower.h, lower_dma_shape): what one
 * npu_dma_Nd call with its host loops copies, worked out once, so the
 * emitter only prints it.
 *
 * A copy nest (a LOOP_DMA loop: `for v0 < E0: ... dst[..] = src[..]` with
 * every index linear in the copy counters, each counter by 1 from a
 * constant, its extent the loop's trip count: cache.c's copies count from
 * 0, loop_partition's second part from its point) becomes one DMA from the
 * box's corner. Counters of extent 1 vanish, and counters that continue
 * the one inside them on both sides merge with it (a dense box is one 1-D
 * copy); what remains is a contiguous row and up to two strided
 * dimensions (1-D to 3-D). Counters beyond those stay as host loops
 * around the call (not for an async copy: one token is one DMA; nor from
 * a first value other than 0: a host loop counts from 0).
 *
 * An array whose rows are sized (`float a[n][m]`) has a run-time pitch:
 * its strides are C text of the sizes (`(ptrdiff_t)m * 4`, step_text)
 * and its address is written in full (flat_address); rows_apart proves
 * that such a destination's rows do not overlap.
 *
 * A tail tile's copy has a guard `start + v < N` inside loop v (cache.c):
 * that dimension's count is then min(extent, N - start), computed in the
 * emitted code; nothing outside it merges with it (its rows stop short).
 * Where the box may start at or past N (a VU core with no rows in the last
 * pass), the DMA is issued only when N - start > 0, and an async one's
 * token is 0 otherwise (waiting for token 0 returns at once). A nest of
 * another shape (after later steps rewrote it) is no DMA: it stays the
 * plain copy loop it is. */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"

enum { MAX_COPY = IR_MAX_DIMS };

static const char *take_text(Arena *a, StrBuf *sb) {
  const char *text = arena_strdup(a, sb->len ? sb->data : "");
  sb_free(sb);
  return text;
}

/* The region where counter var has value `value` (var NULL: as written). */
typedef struct {
  const Var *var;
  const Expr *value;
} At;

typedef struct {
  const Stmt *loops[MAX_COPY];
  int64_t first[MAX_COPY]; /* the counter's first value (the box's corner) */
  int64_t extent[MAX_COPY];
  const Expr *start[MAX_COPY]; /* a tail's `start` (of `start + v < end`), or NULL */
  const Expr *end[MAX_COPY];   /* and its `end` */
  bool may_be_empty[MAX_COPY]; /* the tail runs for no v in some iterations around */
  int n;
  const Stmt *copy; /* dst[..] = src[..] */
} Nest;

/* A tail's guard (ir_tail_guard) whose start is free of the nest's counters. */
static bool tail_guard(Arena *a, const Stmt *g, const Nest *n, const Var *v, const Expr **start, const Expr **end) {
  Expr *s;
  if (!ir_tail_guard(a, g, v, &s, end)) return false;
  for (int i = 0; i < n->n; i++)
    if (ir_expr_uses(s, n->loops[i]->var, NULL)) return false;
  *start = s;
  return true;
}

/* v's step through an access, in elements: elems, or, where the rows are
 * sized (`float a[n][m]`: a run-time pitch), elems times the pitch of
 * dimension dim (the product of the extents after it). */
typedef struct {
  int64_t elems;
  int dim;       /* -1: elems is the whole step */
  unsigned dims; /* the dimensions v indexes (a bit each) */
} Step;

/* v's step through an access (row-major). A run-time pitch is taken for
 * one dimension that v alone moves in, by at most that dimension's extent
 * (a coefficient past the extent would step outside the array): the step
 * is then at most the array's size, which ptrdiff_t holds. */
static bool stride(const Expr *access, const Var *v, Step *st) {
  const Buffer *b = access->buf;
  int64_t s = 0, pitch = 1;
  bool run_time = false; /* a sized extent lies inside dimension d */
  *st = (Step){.dim = -1};
  for (int d = b->ndim - 1; d >= 0; d--) {
    int64_t c;
    if (!ir_linear_coef(access->idx[d], v, &c)) return false;
    if (c) st->dims |= 1u << d;
    if (!run_time) s += c * pitch;
    else if (c) {
      if (st->dim >= 0 || c < 1 || (c > 1 && (b->extent[d] || c > b->shape[d]))) return false;
      st->dim = d;
      st->elems = c;
    }
    if (b->extent[d]) run_time = true;
    else pitch *= b->shape[d];
  }
  if (st->dim >= 0 && s) return false; /* a step of both kinds: no such DMA */
  if (st->dim < 0) st->elems = s;
  return true;
}

/* "(ptrdiff_t)m * 4": the bytes of step st through b, C text. Its factors
 * are the extents after st->dim, each evaluated as the signature does. */
static const char *step_text(Arena *a, const Buffer *b, const Step *st, int64_t bytes) {
  if (st->dim < 0) return arena_printf(a, "%lld", (long long)bytes);
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "(ptrdiff_t)");
  for (int d = st->dim + 1; d < b->ndim; d++) {
    if (!b->extent[d]) {
      bytes *= b->shape[d];
      continue;
    }
    bool atom = b->extent[d]->kind == EX_VAR || b->extent[d]->kind == EX_INT;
    if (sb.len > strlen("(ptrdiff_t)")) sb_puts(&sb, " * ");
    sb_puts(&sb, atom ? "" : "(");
    ir_print_expr(&sb, b->extent[d]);
    sb_puts(&sb, atom ? "" : ")");
  }
  if (bytes != 1) sb_printf(&sb, " * %lld", (long long)bytes);
  return take_text(a, &sb);
}

static bool perfect_nest(Arena *a, const Stmt *loop, Nest *n) {
  n->n = 0;
  const Stmt *s = loop;
  while (s && s->kind == ST_FOR) {
    /* each counter runs by 1 from a constant, the box's corner (cache.c's
     * copies from 0; loop_partition's second part from its point), its
     * trip count times */
    if (n->n == MAX_COPY || s->step != 1 || (s->cmp != OP_LT && s->cmp != OP_LE)) return false;
    int64_t lo, count;
    if (!ir_const_int(s->lo, &lo) || !ir_trip_count(s, &count) || count <= 0) return false;
    n->loops[n->n] = s;
    n->first[n->n] = lo;
    n->start[n->n] = NULL;
    n->may_be_empty[n->n] = false;
    n->extent[n->n++] = count;
    const Stmt *body = s->body->body;
    if (!body || body->next) return false;
    if (body->kind == ST_IF) {
      /* only cache.c's copies: their boxes start inside the array (the count
       * is at least 1) unless the guard says they may not */
      if (loop->loop_kind != LOOP_DMA || lo != 0 || !tail_guard(a, body, n, s->var, &n->start[n->n - 1], &n->end[n->n - 1]))
        return false;
      n->may_be_empty[n->n - 1] = body->tail_may_be_empty;
      body = body->then_s->body;
      if (!body || body->next) return false;
    }
    s = body;
  }
  if (!s || s->kind != ST_ASSIGN || s->op != OP_NONE || s->lhs->kind != EX_LOAD || s->rhs->kind != EX_LOAD ||
      s->lhs->buf->elem != s->rhs->buf->elem)
    return false;
  n->copy = s;
  return true;
}

/* The address of element e of a buffer whose rows are sized: `(float *)a +
 * (ptrdiff_t)(io * 64) * m`, the same text whether a is declared `float
 * a[n][m]` (C99) or flat (tcc, emit/emit_cu_hooks.c). e is an element the
 * copy touches, inside the array, so each term is at most its size. */
static void flat_address(StrBuf *sb, const Expr *e) {
  const Buffer *b = e->buf;
  sb_printf(sb, "(%s%s *)%s", b->is_const ? "const " : "", b->elem->name, b->name);
  for (int d = 0; d < b->ndim; d++) {
    int64_t c;
    if (ir_const_int(e->idx[d], &c) && c == 0) continue;
    bool atom = e->idx[d]->kind == EX_VAR || e->idx[d]->kind == EX_INT;
    sb_puts(sb, d == b->ndim - 1 ? " + " : " + (ptrdiff_t)");
    sb_puts(sb, atom ? "" : "(");
    ir_print_expr(sb, e->idx[d]);
    sb_puts(sb, atom ? "" : ")");
    for (int p = d + 1; p < b->ndim; p++) {
      bool patom = !b->extent[p] || b->extent[p]->kind == EX_VAR || b->extent[p]->kind == EX_INT;
      sb_puts(sb, patom ? " * " : " * (");
      if (b->extent[p]) ir_print_expr(sb, b->extent[p]);
      else sb_printf(sb, "%lld", (long long)b->shape[p]);
      sb_puts(sb, patom ? "" : ")");
    }
  }
}

/* &B[idx with the copy counters from `from` on (and those of extent 1) set
 * to their first values, and a's counter (when given) set to its value] */
static void base_address(StrBuf *sb, Arena *a, const Expr *access, const Nest *n, int from, const At *as) {
  Expr *e = ir_expr_copy(a, access);
  for (int i = 0; i < n->n; i++)
    if (i >= from || n->extent[i] == 1)
      e = ir_subst_expr(a, e, n->loops[i]->var, ir_int(a, n->first[i], &ty_int, (SrcLoc){0, 0}));
  if (as && as->var) e = ir_subst_expr(a, e, as->var, as->value);
  if (buffer_rows_symbolic(e->buf)) {
    flat_address(sb, e);
    return;
  }
  sb_puts(sb, "&");
  ir_print_expr(sb, e);
}

/* One DMA dimension: its byte strides and count (the row: its bytes). A
 * stride through an array with sized rows is dst (src) bytes times the
 * run-time pitch of dimension dst_dim (src_dim; -1: a constant). */
typedef struct {
  int64_t dst, src, count;
  int dst_dim, src_dim;
  int64_t mul;      /* with a tail: the count is mul * tail */
  const char *tail; /* C text of a tail's count, or NULL */
  int64_t known;    /* the tail's count when it is a constant, else -1 */
} Dim;

/* Where tail counter i starts, with async's counter set to its value (a
 * load ahead is the next tile's). */
static const Expr *tail_start(Arena *a, const Nest *n, int i, const At *as) {
  const Expr *start = n->start[i];
  if (as && as->var) start = ir_subst_expr(a, ir_expr_copy(a, start), as->var, as->value);
  return start;
}

/* The count of tail counter i (ir_tail_count: at least 1, as the DMA runs
 * only where the box starts inside the array); *known as there. */
static const char *tail_count(Arena *a, const Nest *n, int i, const At *as, int64_t *known) {
  return ir_tail_count(a, tail_start(a, n, i, as), n->end[i], n->extent[i], true, known);
}

/* The condition (C text in sb, empty when always) under which the copy runs
 * at all: every tail that may be empty runs. */
static void copy_runs(StrBuf *sb, Arena *a, const Nest *n, const At *as) {
  for (int i = 0; i < n->n; i++) {
    const char *runs = n->start[i] && n->may_be_empty[i] ? ir_tail_runs(a, tail_start(a, n, i, as), n->end[i]) : NULL;
    if (runs) sb_printf(sb, "%s%s", sb->len ? " && " : "", runs);
  }
}

static const char *dim_text(char *buf, size_t size, const Dim *d) {
  if (!d->tail) snprintf(buf, size, "%lld", (long long)d->count);
  else if (d->known >= 0) snprintf(buf, size, "%lld", (long long)(d->mul * d->known));
  else if (d->mul == 1) snprintf(buf, size, "%s", d->tail);
  else snprintf(buf, size, "%lld * %s", (long long)d->mul, d->tail);
  return buf;
}


/* Counter i steps through dst by a run-time pitch, that of dimension d:
 * its rows are apart when every counter inside it indexes only the
 * dimensions after d, as then a row, inside the array, spans less than
 * one step of d. */
static bool rows_apart(const Nest *n, const Step *ds, int i) {
  unsigned up_to_d = (2u << ds[i].dim) - 1;
  for (int j = i + 1; j < n->n; j++)
    if ((n->extent[j] > 1 || n->start[j]) && (ds[j].dims & up_to_d)) return false;
  return true;
}

/* The DMA's dimensions, innermost first, in bytes: the row and up to two
 * strided ones; counters before first_dim are host loops. */
typedef struct {
  Dim row, dim[MAX_COPY];
  int ndims, first_dim;
} Box;

/* Counters of extent 1 add nothing; a dimension whose stride on both
 * sides is the span of the one inside it continues it (rows back to back
 * are one longer row, and so on), so a dense box of any rank is one 1-D
 * copy. A tail's count is C text (tail_count), times the extents merged
 * inside it (mul). False when the nest is no DMA. */
static bool box_dims(Arena *a, const Nest *n, const At *as, Box *box) {
  const Expr *dst = n->copy->lhs, *src = n->copy->rhs;
  int64_t size = dst->buf->elem->size;
  Step ds[MAX_COPY], ss[MAX_COPY];
  for (int i = 0; i < n->n; i++)
    if (!stride(dst, n->loops[i]->var, &ds[i]) || !stride(src, n->loops[i]->var, &ss[i]) || ds[i].elems < 0 ||
        ss[i].elems < 0)
      return false;
  box->row = (Dim){.count = size, .mul = 1, .dst_dim = -1, .src_dim = -1};
  int outer[MAX_COPY]; /* the outermost counter each dimension covers */
  int ndims = 0;
  for (int i = n->n - 1; i >= 0; i--) {
    if (n->extent[i] == 1 && !n->start[i]) continue;
    int64_t d = ds[i].elems * size, s2 = ss[i].elems * size;
    Dim *last = ndims ? &box->dim[ndims - 1] : &box->row;
    bool constant = ds[i].dim < 0 && ss[i].dim < 0 && last->dst_dim < 0 && last->src_dim < 0;
    int64_t span = ndims ? last->dst * last->count : box->row.count;
    bool continues =
        constant && !last->tail && d == span && s2 == (ndims ? last->src * last->count : box->row.count);
    if (!continues) {
      if (ds[i].dim >= 0 && !rows_apart(n, ds, i)) return false;
      last = &box->dim[ndims++];
      *last = (Dim){.dst = d, .src = s2, .count = 1, .mul = 1, .dst_dim = ds[i].dim, .src_dim = ss[i].dim};
    }
    if (n->start[i]) {
      last->mul = last->count;
      last->tail = tail_count(a, n, i, as, &last->known);
      if (last->known == 0) return false; /* nothing to copy: not a DMA */
    }
    last->count *= n->extent[i];
    if (ndims) outer[ndims - 1] = i;
  }
  /* at most two strided dimensions in one DMA; counters of the others
   * become host loops around it */
  box->first_dim = ndims > 2 ? outer[1] : 0;
  box->ndims = ndims > 2 ? 2 : ndims;
  const Dim *row = &box->row, *dim = box->dim;
  if (row->count > INT32_MAX || (ndims > 0 && dim[0].count > INT32_MAX) || (ndims > 1 && dim[1].count > INT32_MAX))
    return false;
  /* the DMA may not write a row twice: rows must not overlap in dst (a
   * run-time stride: rows_apart said so) */
  if (ndims >= 1 && dim[0].dst_dim < 0 && dim[0].dst < row->count) return false;
  if (ndims >= 2 && dim[1].dst_dim < 0 && (dim[0].dst_dim >= 0 || dim[1].dst < dim[0].dst * dim[0].count))
    return false;
  return true;
}

const DmaShape *lower_dma_shape(Arena *a, const Stmt *loop, const Var *at_var, const Expr *at_value, bool async) {
  Nest n;
  At at = {at_var, at_value}, *as = at_var ? &at : NULL;
  Box box;
  if (!perfect_nest(a, loop, &n)) return NULL;
  if (n.copy->lhs->buf == n.copy->rhs->buf) return NULL; /* a loop that reads what it wrote is no block copy */
  if (!box_dims(a, &n, as, &box)) return NULL;
  DmaShape *shape = ARENA_NEW(a, DmaShape);
  memset(shape, 0, sizeof *shape);
  for (int i = 0; i < box.first_dim; i++) {
    if (n.start[i] && n.extent[i] > 1) return NULL; /* a host loop would need the guard */
    if (n.extent[i] == 1) continue;
    if (n.first[i] != 0) return NULL; /* a host loop counts from 0 (emit/emit_dma.c) */
    shape->host_var[shape->nhost] = n.loops[i]->var->name;
    shape->host_extent[shape->nhost++] = n.extent[i];
  }
  if (async && shape->nhost > 0) return NULL; /* one token: one DMA */
  shape->copy = n.copy;
  shape->ndims = box.ndims;
  StrBuf d, s, runs;
  sb_init(&d);
  sb_init(&s);
  sb_init(&runs);
  base_address(&d, a, n.copy->lhs, &n, box.first_dim, as);
  base_address(&s, a, n.copy->rhs, &n, box.first_dim, as);
  shape->dst = take_text(a, &d);
  shape->src = take_text(a, &s);
  char text[256];
  shape->row = arena_strdup(a, dim_text(text, sizeof text, &box.row));
  for (int i = 0; i < box.ndims; i++) {
    const Step dst_step = {.dim = box.dim[i].dst_dim}, src_step = {.dim = box.dim[i].src_dim};
    shape->dst_stride[i] = step_text(a, n.copy->lhs->buf, &dst_step, box.dim[i].dst);
    shape->src_stride[i] = step_text(a, n.copy->rhs->buf, &src_step, box.dim[i].src);
    shape->count[i] = arena_strdup(a, dim_text(text, sizeof text, &box.dim[i]));
  }
  /* a box that may start past the array's end: no DMA there */
  copy_runs(&runs, a, &n, as);
  shape->runs = runs.len ? take_text(a, &runs) : (sb_free(&runs), NULL);
  return shape;
}
