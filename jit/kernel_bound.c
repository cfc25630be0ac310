/* The kernel's own lower bound on the target: what the check's roofline
 * and tune's measure a variant against (docs/check.md, docs/tune.md).
 * No variant can beat it, so no roofline passes 100%. The largest of
 *   - its multiply-accumulates of int8 or float operands (`C += A * B`,
 *     `C = C + A * B`, further factors such as alpha aside) at the NU's
 *     MACs per cycle;
 *   - its other reductions (`s += x`, `m = fmaxf(m, x)`: an update that
 *     reads what it writes) at a vector's lanes of the statement's type on
 *     each VU core a cycle: each run takes in at least one element. Other
 *     statements are left out: an instruction may compute a whole
 *     expression, or a chain of them (a requantisation), in one lane-op,
 *     and a temporary may be inlined away, so counting their operations
 *     would bound what one form of the kernel does, not the kernel;
 *   - its least DDR traffic: each element of an array parameter it reads
 *     read once, each it writes written once (an array it writes before it
 *     reads it, as a matmul's init, is not read), at the DDR's bandwidth.
 *     The elements are those its accesses reach (isl: a diagonal, a
 *     triangle), not the whole array; an access whose index is not affine
 *     (a gather) adds none, and one under a condition on data (a mask)
 *     counts as reached.
 * It is not the variant's own DMA or unit time: a variant that leaves the
 * work on the CU, or moves data twice, is measured against what the kernel
 * needs, not against itself. Loops without a constant trip count count
 * one iteration; a statement under an `if` counts at every iteration (the
 * guards of padded windows hold almost everywhere: a small overcount).
 * A program is bounded as one kernel: its calls' statements (inlined in
 * its IR) counted like its own, its intermediates, which may stay on
 * chip, not in its DDR traffic. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <isl/aff.h>
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
  double nu_cycles, vu_cycles;
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

/* An update that reads what it writes as an operand (a max or min
 * reduction written `m = fmaxf(m, x)` or `m = x > m ? x : m`). */
static bool reads_own_target(const Stmt *s) {
  const Expr *r = s->rhs;
  if (!r || s->op != OP_NONE) return false;
  for (int i = 0; r->kind == EX_CALL && i < r->nargs; i++)
    if (ir_expr_same(r->args[i], s->lhs)) return true;
  return r->kind == EX_COND && (ir_expr_same(r->b, s->lhs) || ir_expr_same(r->c, s->lhs));
}

enum { BOUND_MAX_DEPTH = 64, BOUND_MAX_LOCALS = 256 };

/* Where count() is: the loops around it, and the depth each local was
 * declared at. */
typedef struct {
  const Var *loop[BOUND_MAX_DEPTH];
  int depth;
  const Var *local[BOUND_MAX_LOCALS];
  int local_depth[BOUND_MAX_LOCALS], nlocals;
} Place;

/* A reduction: its target stays while a loop around it runs (an array
 * element whose index leaves a loop's counter out; a local declared
 * outside a loop around the update). `acc += bias` after the loop, or a
 * clamp `acc = acc > lo ? acc : lo`, is a step of one element's chain. */
static bool reduces(const Place *pl, const Stmt *s) {
  if (s->lhs->kind == EX_VAR) {
    for (int i = pl->nlocals - 1; i >= 0; i--)
      if (pl->local[i] == s->lhs->var) return pl->depth > pl->local_depth[i];
    return pl->depth > 0; /* a scalar parameter: declared outside every loop */
  }
  if (s->lhs->kind != EX_LOAD || !s->lhs->idx) return false;
  for (int d = 0; d < pl->depth; d++) {
    bool used = false;
    for (int i = 0; i < s->lhs->buf->ndim && !used; i++) used = ir_expr_uses(s->lhs->idx[i], pl->loop[d], NULL);
    if (!used) return true;
  }
  return false;
}

static void count_stmt(Work *w, const Place *pl, const Stmt *s, double runs) {
  const NpuTarget *t = w->t;
  Op op = OP_NONE;
  const Expr *x = update_of(s, &op);
  int i8 = 0, f32 = 0;
  if (x && op == OP_ADD && uncast(x) && uncast(x)->kind == EX_BINARY && uncast(x)->op == OP_MUL) factors(x, &i8, &f32);
  if (i8 >= 2 || f32 >= 2) {
    int64_t rate = f32 >= 2 ? t->nu_macs_fp32 : t->nu_macs_int8;
    w->nu_cycles += runs / (double)(rate > 0 ? rate : 1);
    return;
  }
  if ((!x && !reads_own_target(s)) || !reduces(pl, s)) return; /* not a reduction: see the top */
  int size = s->lhs && s->lhs->type ? s->lhs->type->size : 4;
  int64_t lanes = t->vu_vector_bytes / (size > 0 ? size : 4);
  double rate = (double)(lanes > 0 ? lanes : 1) * (double)(t->vu_count > 0 ? t->vu_count : 1);
  w->vu_cycles += runs / rate;
}

static void count(Work *w, Place *pl, const Stmt *s, double runs) {
  for (; s; s = s->next) {
    int64_t n;
    switch (s->kind) {
    case ST_BLOCK: count(w, pl, s->body, runs); break; /* a call's statements too */
    case ST_FOR:
      if (pl->depth == BOUND_MAX_DEPTH) break; /* deeper than any kernel: left out, still a bound */
      pl->loop[pl->depth++] = s->var;
      count(w, pl, s->body, runs * (double)(ir_trip_count(s, &n) && n > 0 ? n : 1));
      pl->depth--;
      break;
    case ST_IF:
      count(w, pl, s->then_s, runs);
      count(w, pl, s->else_s, runs);
      break;
    case ST_ASSIGN: count_stmt(w, pl, s, runs); break;
    case ST_DECL:
      if (s->var && !s->buf && pl->nlocals < BOUND_MAX_LOCALS) {
        pl->local[pl->nlocals] = s->var;
        pl->local_depth[pl->nlocals++] = pl->depth;
      }
      break;
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
  Place pl = {.depth = 0};
  count(&w, &pl, k->body, 1);
  const char *name = "ddr";
  double most = least_traffic(k) / (double)(t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1);
  if (w.nu_cycles > most) most = w.nu_cycles, name = "nu";
  if (w.vu_cycles > most) most = w.vu_cycles, name = "vu";
  if (unit && n) snprintf(unit, n, "%s", name);
  return (uint64_t)ceil(most); /* a run takes whole cycles: the next whole one is still a bound */
}
