/* The kernel's own lower bound on the target: what the check's roofline
 * and tune's measure a variant against (docs/check.md, docs/tune.md).
 * No variant can beat it, so no roofline passes 100%. The larger of
 *   - its multiply-accumulates of int8 or float operands (`C += A * B`,
 *     `C = C + A * B`, further factors such as alpha aside) at the NU's
 *     MACs per cycle, each counted as often as it runs: the points of its
 *     domain (isl), so a guard on loop counters, a triangle or a loop that
 *     runs no pass counts what runs; under a condition on data, none;
 *   - its least DDR traffic: each element of an array parameter it reads
 *     read once, each it writes written once (an array it writes before it
 *     reads it, as a matmul's init, is not read), at the DDR's bandwidth.
 *     The elements are those its accesses reach (isl: a diagonal, a
 *     triangle), not the whole array; an access whose index is not affine
 *     (a gather) adds none, and one under a condition on data (a mask)
 *     counts as reached.
 * The VU's arithmetic is no term: one instruction may compute a whole
 * expression, a requantisation chain or an overlapping window's
 * reduction (its cost is the input box, not each window's elements), and a
 * temporary may be inlined away; what any VU form must do at least, read
 * its inputs and write its outputs, the DDR term holds.
 * It is not the variant's own DMA or unit time: a variant that leaves the
 * work on the CU, or moves data twice, is measured against what the kernel
 * needs, not against itself. A program is bounded as one kernel: its
 * calls' statements (inlined in its IR) counted like its own, its
 * intermediates, which may stay on chip, not in its DDR traffic. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "ir/affine.h"
#include "jit/kernel_bound.h"

enum { BOUND_MAX_ARRAYS = 64 };

typedef struct {
  double nu_cycles;
  const NpuTarget *t;
} Work;

static const Expr *uncast(const Expr *e) {
  while (e && e->kind == EX_CAST) e = e->a;
  return e;
}

/* The load of `x + offset` (an integer offset that reads no array, TFLite's
 * input offset: hoist_offset takes it out of the NU's product), else e. */
static const Expr *offset_load(const Expr *e) {
  if (!e || e->kind != EX_BINARY || e->op != OP_ADD || !type_is_integer(e->type)) return e;
  const Expr *a = uncast(e->a), *b = uncast(e->b);
  if (a && a->kind == EX_LOAD && !ir_expr_has_load(e->b)) return a;
  if (b && b->kind == EX_LOAD && !ir_expr_has_load(e->a)) return b;
  return e;
}

/* The loads among the factors of product e, by element type: int8 ones
 * and float ones. */
static void factors(const Expr *e, int *i8, int *f32) {
  e = offset_load(uncast(e));
  if (!e) return;
  if (e->kind == EX_BINARY && e->op == OP_MUL) {
    factors(e->a, i8, f32);
    factors(e->b, i8, f32);
  } else if (e->kind == EX_LOAD) {
    const Type *t = e->buf->elem;
    if (t->kind == TY_FLOAT) (*f32)++;
    else if (type_is_integer(t) && t->size == 1) (*i8)++;
  }
}

/* What s adds to its target, when it is an update: `L op= X` gives X,
 * `L = L op X` (or X op L for + and *) gives X, else NULL. */
static const Expr *update_of(const Stmt *s, Op *op) {
  if (s->op != OP_NONE) return *op = s->op, s->rhs;
  const Expr *r = s->rhs;
  if (!r || r->kind != EX_BINARY) return NULL;
  if (ir_expr_same(r->a, s->lhs)) return *op = r->op, r->b;
  if ((r->op == OP_ADD || r->op == OP_MUL) && ir_expr_same(r->b, s->lhs)) return *op = r->op, r->a;
  return NULL;
}

enum { BOUND_MAX_DEPTH = 64 };

/* Where count() is: the loops and conditions around the statement, in
 * the affine model too (aff); a condition the model cannot hold (on data)
 * is counted in `opaque`. */
typedef struct {
  Work *w;
  AffCtx aff;
  const Stmt *loop[BOUND_MAX_DEPTH];
  int depth;
  const Expr *cond[BOUND_MAX_DEPTH];
  int nconds, opaque;
} Place;

/* Does any condition around, or any loop's bound below loop d, read d's counter? */
static bool dim_tied(const Place *pl, int d) {
  const Var *v = pl->loop[d]->var;
  for (int i = 0; i < pl->nconds; i++)
    if (ir_expr_uses(pl->cond[i], v, NULL)) return true;
  for (int i = d + 1; i < pl->depth; i++)
    if (ir_expr_uses(pl->loop[i]->lo, v, NULL) || ir_expr_uses(pl->loop[i]->hi, v, NULL)) return true;
  return false;
}

/* isl_set_count_val scans a set row by row (its innermost dimension's
 * runs): past this many rows the count would cost seconds, so a MAC there
 * counts none (the figure stays a bound). */
enum { BOUND_MAX_ROWS = 1 << 16 };

/* The rows of set: the product of its outer dimensions' extents (their
 * bounding box), all but the innermost. */
static double count_rows(isl_set *set) {
  int n = (int)isl_set_dim(set, isl_dim_set);
  double rows = 1;
  for (int d = 0; d + 1 < n; d++) {
    isl_aff *obj = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(set)), isl_dim_set, (unsigned)d);
    isl_val *lo = isl_set_min_val(set, obj), *hi = isl_set_max_val(set, obj);
    bool known = lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi);
    rows *= known ? isl_val_get_d(hi) - isl_val_get_d(lo) + 1 : 1e30;
    isl_val_free(lo);
    isl_val_free(hi);
    isl_aff_free(obj);
  }
  return rows;
}

/* How many times the statement here runs: the points of its domain (isl),
 * a loop of constant trip count that nothing else reads counted by that
 * count. Under a condition on data, 0: a variant may skip those instances
 * (the figure stays a bound). */
static double instances(Place *pl) {
  if (pl->opaque) return 0;
  double free_runs = 1;
  bool tied[BOUND_MAX_DEPTH] = {false}, any_tied = false;
  for (int d = 0; d < pl->depth; d++) {
    int64_t n;
    if (ir_trip_count(pl->loop[d], &n) && !dim_tied(pl, d)) {
      free_runs *= (double)(n > 0 ? n : 0);
    } else {
      tied[d] = true;
      any_tied = true;
    }
  }
  if (!any_tied && !pl->nconds) return free_runs;
  isl_set *dom = aff_domain(&pl->aff);
  if (!dom) return 0; /* not in the model: no count, still a bound */
  for (int d = pl->depth - 1; d >= 0; d--)
    if (!tied[d]) dom = isl_set_project_out(dom, isl_dim_set, (unsigned)d, 1);
  if (count_rows(dom) > BOUND_MAX_ROWS) { /* isl counts row by row: too many to count, none counted */
    isl_set_free(dom);
    return 0;
  }
  isl_val *v = isl_set_count_val(dom);
  double n = v && isl_val_is_int(v) ? isl_val_get_d(v) : 0;
  isl_val_free(v);
  isl_set_free(dom);
  return free_runs * n;
}

static void count_stmt(Place *pl, const Stmt *s) {
  const NpuTarget *t = pl->w->t;
  Op op = OP_NONE;
  const Expr *x = update_of(s, &op);
  int i8 = 0, f32 = 0;
  if (x && op == OP_ADD && uncast(x) && uncast(x)->kind == EX_BINARY && uncast(x)->op == OP_MUL) factors(x, &i8, &f32);
  if (i8 < 2 && f32 < 2) return; /* not a MAC: see the top */
  int64_t rate = f32 >= 2 ? t->nu_macs_fp32 : t->nu_macs_int8;
  pl->w->nu_cycles += instances(pl) / (double)(rate > 0 ? rate : 1);
}

static void count(Place *pl, const Stmt *s) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK: count(pl, s->body); break; /* a call's statements too */
    case ST_FOR:
      if (pl->depth == BOUND_MAX_DEPTH) break; /* deeper than any kernel: left out, still a bound */
      pl->loop[pl->depth++] = s;
      aff_push_loop(&pl->aff, s);
      count(pl, s->body);
      aff_pop_loop(&pl->aff);
      pl->depth--;
      break;
    case ST_IF:
      for (int side = 0; side < 2; side++) {
        const Stmt *branch = side ? s->else_s : s->then_s;
        if (!branch || pl->nconds == BOUND_MAX_DEPTH) continue;
        bool affine = aff_push_cond(&pl->aff, s->cond, side);
        if (affine) pl->cond[pl->nconds++] = s->cond;
        else pl->opaque++;
        count(pl, branch);
        if (affine) {
          aff_pop_cond(&pl->aff);
          pl->nconds--;
        } else pl->opaque--;
      }
      break;
    case ST_ASSIGN: count_stmt(pl, s); break;
    case ST_DECL: break;
    }
  }
}

/* How each array is touched: read before it is first written (its values
 * come in), and written at all. */
typedef struct {
  const Buffer *buf[BOUND_MAX_ARRAYS];
  bool read_first[BOUND_MAX_ARRAYS], written[BOUND_MAX_ARRAYS];
  int n;
} Touch;

static int touch(Touch *f, const Buffer *b, bool read) {
  for (int i = 0; i < f->n; i++)
    if (f->buf[i] == b) return i;
  if (f->n == BOUND_MAX_ARRAYS) return -1;
  f->buf[f->n] = b;
  f->read_first[f->n] = read;
  f->written[f->n] = false;
  return f->n++;
}

static bool read_load(const Expr *e, void *ctx) {
  if (e->kind == EX_LOAD && e->buf) touch(ctx, e->buf, true);
  return true;
}

static void reads(Touch *f, const Expr *e) {
  if (e) ir_walk_expr(e, read_load, f);
}

static void touches(Touch *f, const Stmt *s) {
  for (; s; s = s->next) {
    if (s->kind == ST_BLOCK || s->kind == ST_FOR) touches(f, s->body);
    if (s->kind == ST_IF) {
      reads(f, s->cond);
      touches(f, s->then_s);
      touches(f, s->else_s);
    }
    if (s->kind == ST_DECL) reads(f, s->init);
    if (s->kind != ST_ASSIGN) continue;
    reads(f, s->rhs);
    for (int i = 0; s->lhs->kind == EX_LOAD && s->lhs->idx && i < s->lhs->buf->ndim; i++) reads(f, s->lhs->idx[i]);
    if (s->lhs->kind != EX_LOAD || !s->lhs->buf) continue;
    int i = touch(f, s->lhs->buf, s->op != OP_NONE);
    if (i >= 0) f->written[i] = true;
  }
}

/* The elements of each array parameter the kernel's affine accesses
 * reach: a union of images of the accesses' domains, in `reached`. */
typedef struct {
  AffCtx aff;
  const Kernel *k;
  isl_set *reached[BOUND_MAX_ARRAYS]; /* by parameter index; NULL: none yet */
} Reach;

static int param_index(const Kernel *k, const Buffer *b) {
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++)
    if (p->buf == b) return i < BOUND_MAX_ARRAYS ? i : -1;
  return -1;
}

static void reach_access(Reach *r, const Expr *e) {
  int pi = param_index(r->k, e->buf);
  if (pi < 0 || !e->idx) return;
  isl_set *dom = aff_domain(&r->aff);
  if (!dom) return;
  isl_space *range = isl_space_set_alloc(isl_set_get_ctx(dom), 0, (unsigned)e->buf->ndim);
  isl_multi_aff *ma = isl_multi_aff_zero(isl_space_map_from_domain_and_range(isl_set_get_space(dom), range));
  for (int d = 0; ma && d < e->buf->ndim; d++) {
    isl_aff *a = aff_build(&r->aff, e->idx[d]);
    if (!a) ma = isl_multi_aff_free(ma); /* not affine: this access adds nothing */
    else ma = isl_multi_aff_set_aff(ma, d, a);
  }
  if (!ma) {
    isl_set_free(dom);
    return;
  }
  isl_set *img = isl_set_apply(dom, isl_map_from_multi_aff(ma));
  r->reached[pi] = r->reached[pi] ? isl_set_union(r->reached[pi], img) : img;
}

static bool reach_load(const Expr *e, void *ctx) {
  if (e->kind == EX_LOAD && e->buf) reach_access(ctx, e);
  return true;
}

static void reach_expr(Reach *r, const Expr *e) {
  if (e) ir_walk_expr(e, reach_load, r);
}

static void reach_stmts(Reach *r, const Stmt *s) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK: reach_stmts(r, s->body); break;
    case ST_FOR:
      aff_push_loop(&r->aff, s);
      reach_stmts(r, s->body);
      aff_pop_loop(&r->aff);
      break;
    case ST_IF: {
      /* a condition on data (a mask) reaches what either branch may: a
       * variant cannot know in advance which elements it will skip */
      reach_expr(r, s->cond);
      bool affine = aff_push_cond(&r->aff, s->cond, false);
      reach_stmts(r, s->then_s);
      if (affine) aff_pop_cond(&r->aff);
      if (!s->else_s) break;
      affine = aff_push_cond(&r->aff, s->cond, true);
      reach_stmts(r, s->else_s);
      if (affine) aff_pop_cond(&r->aff);
      break;
    }
    case ST_ASSIGN:
      reach_expr(r, s->rhs);
      reach_expr(r, s->lhs);
      break;
    case ST_DECL: reach_expr(r, s->init); break;
    }
  }
}

/* How many elements of b the accesses reach (set: reach's, taken). */
static double reached_elems(const Buffer *b, isl_set *set) {
  if (!set) return 0;
  isl_set *box = isl_set_universe(isl_set_get_space(set));
  for (int d = 0; d < b->ndim; d++) {
    box = isl_set_lower_bound_si(box, isl_dim_set, (unsigned)d, 0);
    box = isl_set_upper_bound_si(box, isl_dim_set, (unsigned)d, (int)(b->shape[d] - 1 < INT32_MAX ? b->shape[d] - 1 : INT32_MAX));
  }
  set = isl_set_intersect(set, isl_set_copy(box));
  double n = 0;
  if (isl_set_is_equal(set, box) == isl_bool_true) n = (double)buffer_elems(b);
  else {
    isl_val *v = isl_set_count_val(set);
    n = v && isl_val_is_int(v) ? isl_val_get_d(v) : 0;
    isl_val_free(v);
  }
  isl_set_free(box);
  isl_set_free(set);
  return n;
}

/* Bytes the array parameters move at least: an array read read once, an
 * array written written once, both for one read first and written; of
 * each, the elements its accesses reach. */
static double least_traffic(const Kernel *k) {
  Touch f = {.n = 0};
  touches(&f, k->body);
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  Reach r = {.k = k};
  aff_init(&r.aff, ctx, k);
  reach_stmts(&r, k->body);
  aff_free(&r.aff);
  double bytes = 0;
  int pi = -1;
  for (const Param *p = k->params; p; p = p->next) {
    pi++;
    if (!p->buf) continue;
    double elems = pi < BOUND_MAX_ARRAYS ? reached_elems(p->buf, r.reached[pi]) : (double)buffer_elems(p->buf);
    double b = elems * (double)p->buf->elem->size;
    bool read = false, written = false, seen = false;
    for (int i = 0; i < f.n; i++)
      if (f.buf[i] == p->buf) read = f.read_first[i], written = f.written[i], seen = true;
    if (!seen && f.n == BOUND_MAX_ARRAYS) /* past the table: as declared */
      read = p->buf->role != ROLE_OUTPUT, written = p->buf->role != ROLE_INPUT;
    bytes += (read ? b : 0) + (written ? b : 0);
  }
  isl_ctx_free(ctx);
  return bytes;
}

uint64_t kernel_bound(const Kernel *k, const NpuTarget *t, char *unit, size_t n) {
  Work w = {.t = t};
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  Place pl = {.w = &w};
  aff_init(&pl.aff, ctx, k);
  count(&pl, k->body);
  aff_free(&pl.aff);
  isl_ctx_free(ctx);
  const char *name = "ddr";
  double most = least_traffic(k) / (double)(t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1);
  if (w.nu_cycles > most) most = w.nu_cycles, name = "nu";
  if (unit && n) snprintf(unit, n, "%s", name);
  return (uint64_t)ceil(most); /* a run takes whole cycles: the next whole one is still a bound */
}
