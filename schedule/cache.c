/* cache_read(BUF, scope, at_loop, NEW) and cache_write(BUF, scope, at_loop,
 * NEW): stage the region of BUF that one iteration of at_loop touches in a
 * new on-chip buffer NEW of `scope` (TVM's cache_read/cache_write followed
 * by compute_at, in one step).
 *
 * The region is computed exactly with isl: per dimension, its start as an
 * affine function of the loops around (and including) at_loop, and its
 * largest extent over all iterations, which gives NEW's shape. At the start
 * of each iteration a copy nest fills NEW (cache_read; cache_write too when
 * the iteration reads BUF or leaves part of the box unwritten); at its end
 * cache_write copies NEW back. Copy nests are plain loops marked LOOP_DMA,
 * so every later step and proof treats them as code; the emitter lowers
 * them to npu_dma_1d/2d/3d and a wait (emit/emit_dma.c). NEW gets its
 * offset in the scope from schedule/placement.c.
 *
 * at_loop `root` is the kernel's body, above every loop: one iteration,
 * the whole kernel; NEW is copied in once before its first statement and
 * out once after its last. */
#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "schedule/layout.h"
#include "schedule/primitives.h"
#include "schedule/region.h"


typedef struct {
  Sched *s;
  Buffer *b;
  AffCtx aff;
  int nouter;                        /* loops of an iteration [o]: the sizes, around at_loop, and at_loop */
  int nsizes;                        /* the first nsizes of [o] are the kernel's sizes (aff_push_sizes) */
  bool sizes_unmodelled;             /* aff_push_sizes failed: no region */
  isl_aff *extent[IR_MAX_DIMS];      /* a dimension of BUF sized by the sizes: its extent over [o] */
  const char *extent_text[IR_MAX_DIMS]; /* and as isl text over [o]'s names (c<id>) */
  const Stmt *oloops[AT_MAX_LOOPS];
  isl_set *odom;                     /* every iteration [o], whether it touches BUF or not */
  isl_map *all, *writes;             /* [o] -> [index] of every access, of the writes */
  isl_map *loose;                    /* of every access with the conditions under at_loop left out */
  bool ignore_conds;                 /* scanning for loose */
  bool reads;                        /* the iteration reads BUF (loads, compound assignments) */
  int opaque_conds;                  /* non-affine conditions around the statement being scanned */
  bool cond_writes;                  /* some write of BUF runs only under such a condition */
  const Stmt *writer;                /* a statement that writes BUF */
  const Expr *opaque;                /* an index isl cannot describe */
  const Stmt *const *skip;           /* other caches' copies in, not part of the region (head_fills) */
  int nskip;
} Region;

static isl_map *union_into(isl_map *acc, isl_map *m) { return acc ? isl_map_union(acc, m) : m; }

/* The largest (smallest) value a piecewise function takes; takes pa. */
static isl_val *pw_extreme(isl_pw_aff *pa, bool max) {
  isl_set *values = isl_map_range(isl_map_from_pw_aff(pa));
  return max ? isl_set_dim_max_val(values, 0) : isl_set_dim_min_val(values, 0);
}

/* iteration -> element of one access, with isl's API; NULL when an index
 * is not one aff_build makes (then its text is parsed). The tuples are
 * anonymous, as the text's are. */
static isl_map *access_by_api(Region *r, Expr *const *idx) {
  isl_ctx *ctx = r->s->ctx;
  isl_aff_list *list = isl_aff_list_alloc(ctx, r->b->ndim);
  for (int d = 0; d < r->b->ndim && list; d++) {
    isl_aff *a = aff_build(&r->aff, idx[d]);
    list = a ? isl_aff_list_add(list, a) : isl_aff_list_free(list);
  }
  isl_set *dom = list ? aff_domain(&r->aff) : NULL;
  if (!dom) {
    isl_aff_list_free(list);
    return NULL;
  }
  isl_space *sp = isl_space_map_from_domain_and_range(aff_space(&r->aff), isl_space_set_alloc(ctx, 0, (unsigned)r->b->ndim));
  isl_map *m = isl_map_from_multi_aff(isl_multi_aff_from_aff_list(sp, list));
  m = isl_map_intersect_domain(m, dom);
  m = isl_map_reset_tuple_id(isl_map_reset_tuple_id(m, isl_dim_in), isl_dim_out);
  return m;
}

/* Adds one access (its indices in the current domain) to the region. */
static void add_access(Region *r, Expr *const *idx, bool write) {
  if (r->opaque) return;
  isl_map *api = access_by_api(r, idx);
  if (api) {
    isl_map *m = isl_map_project_out(api, isl_dim_in, (unsigned)r->nouter, (unsigned)(r->aff.nloops - r->nouter));
    if (write && r->opaque_conds) r->cond_writes = true;
    else if (write) r->writes = union_into(r->writes, isl_map_copy(m));
    r->all = union_into(r->all, m);
    return;
  }
  char *space = aff_space_text(&r->aff), *cons = aff_cons_text(&r->aff);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{ %s -> [", space);
  for (int d = 0; d < r->b->ndim && !r->opaque; d++) {
    char *t = aff_text(&r->aff, idx[d]);
    if (!t) r->opaque = idx[d];
    else sb_printf(&sb, "%s%s", d ? ", " : "", t);
    free(t);
  }
  sb_printf(&sb, "] : %s }", cons);
  free(space);
  free(cons);
  if (!r->opaque) {
    isl_map *m = isl_map_read_from_str(r->s->ctx, sb.data);
    int inner = r->aff.nloops - r->nouter;
    m = isl_map_project_out(m, isl_dim_in, (unsigned)r->nouter, (unsigned)inner);
    /* a write under a condition isl cannot describe may not happen: it
     * covers nothing (the box must then be copied in) */
    if (write && r->opaque_conds) r->cond_writes = true;
    else if (write) r->writes = union_into(r->writes, isl_map_copy(m));
    r->all = union_into(r->all, m);
  }
  sb_free(&sb);
}

static bool read_visit(const Expr *e, void *ctx) {
  Region *r = ctx;
  if (e->kind == EX_LOAD && e->buf == r->b) {
    r->reads = true;
    add_access(r, e->idx, false);
  }
  return true;
}

static void scan_expr(Region *r, const Expr *e) { ir_walk_expr(e, read_visit, r); }

static bool skipped(const Stmt *st, const Stmt *const *skip, int n) {
  for (int i = 0; i < n; i++)
    if (skip[i] == st) return true;
  return false;
}

/* Conditions narrow the region where isl can describe them; otherwise the
 * region is that of both branches (a superset, still exact per access). */
static void scan_stmts(Region *r, const Stmt *st) {
  for (; st; st = st->next) {
    if (skipped(st, r->skip, r->nskip)) continue;
    switch (st->kind) {
    case ST_BLOCK:
      scan_stmts(r, st->body);
      break;
    case ST_FOR:
      aff_push_loop(&r->aff, st);
      scan_stmts(r, st->body);
      aff_pop_loop(&r->aff);
      break;
    case ST_IF: {
      scan_expr(r, st->cond);
      if (r->ignore_conds) {
        scan_stmts(r, st->then_s);
        scan_stmts(r, st->else_s);
        break;
      }
      bool pushed = aff_push_cond(&r->aff, st->cond, false);
      r->opaque_conds += !pushed;
      scan_stmts(r, st->then_s);
      r->opaque_conds -= !pushed;
      if (pushed) aff_pop_cond(&r->aff);
      pushed = aff_push_cond(&r->aff, st->cond, true);
      r->opaque_conds += !pushed;
      scan_stmts(r, st->else_s);
      r->opaque_conds -= !pushed;
      if (pushed) aff_pop_cond(&r->aff);
      break;
    }
    case ST_ASSIGN:
      scan_expr(r, st->rhs);
      if (st->lhs->kind == EX_LOAD) {
        for (int d = 0; d < st->lhs->buf->ndim; d++) scan_expr(r, st->lhs->idx[d]);
        if (st->lhs->buf == r->b) {
          if (!r->writer) r->writer = st;
          if (st->op != OP_NONE) r->reads = true;
          add_access(r, st->lhs->idx, true);
        }
      }
      break;
    case ST_DECL:
      scan_expr(r, st->init);
      for (int i = 0; i < st->ninit; i++) scan_expr(r, st->init_list[i]);
      break;
    }
  }
}

/* ---------------- the box ---------------- */

typedef struct {
  int n; /* loops of an iteration [o] */
  int64_t coef[AT_MAX_LOOPS], cst;
  int pieces;
  bool affine;
  isl_aff *aff; /* the one piece */
  bool tail;    /* the window passes the array's end in some iteration (a
                 * tail tile): the copies stop at the end */
  bool empty;   /* and starts at or past it in some: they copy nothing */
} Start;

static isl_stat start_piece(isl_set *set, isl_aff *aff, void *user) {
  Start *st = user;
  st->pieces++;
  isl_aff_free(st->aff);
  st->aff = isl_aff_copy(aff);
  st->affine = aff_int_terms(aff, st->n, st->coef, &st->cst);
  isl_set_free(set);
  isl_aff_free(aff);
  return isl_stat_ok;
}

/* A region whose start is a max or a min of affine pieces over the
 * iterations (a guard `if (i >= 7)` under a split: max(7, 256 * core)):
 * the hull, the box from the one piece that is at or below the start in
 * every iteration, the narrowest such. Its elements outside the guarded
 * iterations' own are copied too (inputs: read and unused; a cache_write
 * copies the box in first, as its writes do not cover it), and the guard
 * stays on the compute (hull_start below). */

/* cand <= lo wherever lo is defined: 1, 0, or -1 on an isl error; keeps both */
static int below_everywhere(isl_aff *cand, isl_pw_aff *lo) {
  isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(lo));
  isl_pw_aff *c = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(isl_aff_copy(cand)), isl_set_copy(dom));
  isl_set *le = isl_pw_aff_le_set(c, isl_pw_aff_copy(lo));
  isl_bool sub = isl_set_is_subset(dom, le);
  isl_set_free(dom);
  isl_set_free(le);
  return sub < 0 ? -1 : sub == isl_bool_true;
}

/* at or above 0 in every iteration of dom: 1, 0, or -1 on an isl error;
 * keeps both */
static int never_negative(isl_aff *cand, isl_set *dom) {
  isl_pw_aff *c = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(isl_aff_copy(cand)), isl_set_copy(dom));
  isl_val *v = pw_extreme(c, false);
  int ok = !v || isl_val_is_int(v) != isl_bool_true ? -1 : isl_val_is_neg(v) != isl_bool_true;
  isl_val_free(v);
  return ok;
}

/* The hull's start among the pieces of cands (lo's own, or the loose
 * region's): one at or below lo wherever lo is defined, integer affine,
 * and at or above 0 over every iteration when odom is given; the
 * narrowest box over hi. Into start, with its extent; keeps its
 * arguments; false when there is none. */
static bool hull_start(isl_pw_aff *cands, isl_pw_aff *lo, isl_pw_aff *hi, isl_set *odom, Start *start,
                       int64_t *extent) {
  RegionPieces p;
  region_pieces(cands, &p);
  int best = -1;
  int64_t best_ext = 0;
  for (int i = 0; i < p.n && !p.over; i++) {
    int64_t coef[AT_MAX_LOOPS], cst;
    if (!aff_int_terms(p.a[i], start->n, coef, &cst) || below_everywhere(p.a[i], lo) != 1 ||
        (odom && never_negative(p.a[i], odom) != 1))
      continue;
    isl_pw_aff *ext = isl_pw_aff_sub(isl_pw_aff_copy(hi), isl_pw_aff_from_aff(isl_aff_copy(p.a[i])));
    isl_val *mx = pw_extreme(ext, true);
    if (mx && isl_val_is_int(mx) == isl_bool_true && (best < 0 || isl_val_get_num_si(mx) + 1 < best_ext)) {
      best = i;
      best_ext = isl_val_get_num_si(mx) + 1;
    }
    isl_val_free(mx);
  }
  if (best >= 0) {
    start->pieces = 1;
    start->aff = isl_aff_copy(p.a[best]);
    start->affine = aff_int_terms(start->aff, start->n, start->coef, &start->cst);
    *extent = best_ext;
  }
  region_pieces_free(&p);
  return best >= 0;
}

/* The loop of an iteration [o], for messages; a cache at the root has
 * none (its one iteration is the kernel: the start is a constant, so the
 * messages that name it cannot occur there). */
static const char *innermost_name(const Region *r) {
  return r->nouter > r->nsizes ? r->oloops[r->nouter - 1]->name : "the root";
}

/* The smallest index of dimension d over each iteration's accesses in m. */
static isl_pw_aff *dim_min(isl_map *m, int d, int n) {
  isl_map *md = isl_map_copy(m);
  md = isl_map_project_out(md, isl_dim_out, (unsigned)(d + 1), (unsigned)(n - d - 1));
  md = isl_map_project_out(md, isl_dim_out, 0, (unsigned)d);
  return isl_map_dim_min(md, 0);
}

/* Where the box of dimension d starts when lo, the region's start, is not
 * one affine function over every iteration (keeps lo and hi; start holds
 * lo's last piece and extent its width). Some iterations touch nothing
 * (a guard keeps none of theirs, as `i >= 900` on the tiles before 768):
 * their box is where the loose region puts it, their own tile, not the
 * others' (a constant start would have every iteration copy the same
 * elements). Else, a max of pieces: the hull (hull_start). */
static void choose_hull(Region *r, int d, isl_pw_aff *lo, isl_pw_aff *hi, Start *start, int64_t *extent) {
  isl_set *touching = isl_pw_aff_domain(isl_pw_aff_copy(lo));
  bool some_idle = isl_set_is_subset(r->odom, touching) == isl_bool_false;
  isl_set_free(touching);
  isl_pw_aff *loose = some_idle && r->loose ? dim_min(r->loose, d, r->b->ndim) : NULL;
  Start alt = {.n = r->nouter};
  int64_t alt_ext;
  if (loose && hull_start(loose, lo, hi, r->odom, &alt, &alt_ext)) {
    isl_aff_free(start->aff);
    *start = alt;
    *extent = alt_ext;
  } else if (start->pieces > 1) {
    isl_aff_free(start->aff);
    start->aff = NULL;
    start->pieces = 0;
    hull_start(lo, lo, hi, NULL, start, extent);
  }
  isl_pw_aff_free(loose);
}

/* Does the box pass 1 GiB, the most any target's scope may hold
 * (sim/target.c)? */
static bool too_large(const int64_t *ext, const Buffer *b) {
  uint64_t bytes = (uint64_t)b->elem->size;
  for (int d = 0; d < b->ndim; d++)
    if (__builtin_mul_overflow(bytes, (uint64_t)ext[d], &bytes)) return true;
  return bytes > (uint64_t)1 << 30;
}

/* Where a bound fails for want of a bound on the kernel's sizes, say so. */
static const char *sizes_hint(const Region *r) {
  return r->nsizes ? " at every size allowed: assume an upper bound on the sizes (#pragma npu assume)" : "";
}

/* Is set (taken) empty over every iteration? 1, 0, or -1 on an isl error. */
static int never(Region *r, isl_set *set) {
  set = isl_set_intersect(set, isl_set_copy(r->odom));
  isl_bool e = isl_set_is_empty(set);
  isl_set_free(set);
  return e < 0 ? -1 : e == isl_bool_true;
}

/* A dimension sized by the sizes (r->extent[d], E): where the box
 * [start, start + extent) passes E in some iteration (a tail: the copies
 * stop at E, at run time) and where it starts at or past it (they copy
 * nothing). E must fit the box's int counters at every size allowed.
 * Takes st, the start. */
static bool sized_tail(Region *r, int d, Start *start, isl_aff *st, int64_t extent, const SchedArg *at) {
  isl_aff *e = r->extent[d];
  isl_aff *end = isl_aff_add_constant_si(isl_aff_copy(st), (int)extent);
  int passes = never(r, isl_aff_gt_set(end, isl_aff_copy(e)));
  int starts_past = never(r, isl_aff_ge_set(st, isl_aff_copy(e)));
  isl_val *top = pw_extreme(isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(isl_aff_copy(e)), isl_set_copy(r->odom)),
                            true);
  bool fits = top && isl_val_is_int(top) == isl_bool_true && isl_val_cmp_si(top, INT32_MAX) <= 0;
  isl_val_free(top);
  if (passes < 0 || starts_past < 0)
    return sched_error(r->s, at, "cannot tell where the region of %s along dimension %d meets its extent", r->b->name, d);
  if (!fits)
    return sched_error(r->s, at, "the extent of %s along dimension %d may pass 2147483647 at the sizes allowed; "
                       "assume a bound on the sizes that keeps it within int", r->b->name, d);
  start->tail = !passes;
  start->empty = !starts_past;
  return true;
}

/* Start (an affine function of [o]) and largest extent of dimension d. */
static bool box_dim(Region *r, int d, Start *start, int64_t *extent, const SchedArg *at) {
  Sched *s = r->s;
  isl_map *md = isl_map_copy(r->all);
  int n = r->b->ndim;
  md = isl_map_project_out(md, isl_dim_out, (unsigned)(d + 1), (unsigned)(n - d - 1));
  md = isl_map_project_out(md, isl_dim_out, 0, (unsigned)d);
  isl_pw_aff *lo = isl_map_dim_min(isl_map_copy(md), 0), *hi = isl_map_dim_max(md, 0);
  memset(start, 0, sizeof *start);
  start->n = r->nouter;
  isl_pw_aff_foreach_piece(lo, start_piece, start);
  isl_pw_aff *hi_all = isl_pw_aff_copy(hi);
  isl_pw_aff *ext = isl_pw_aff_sub(hi, isl_pw_aff_copy(lo));
  isl_val *mx = pw_extreme(ext, true);
  bool ok = mx && isl_val_is_int(mx) == isl_bool_true;
  *extent = ok ? isl_val_get_num_si(mx) + 1 : 0;
  isl_val_free(mx);
  if (ok) choose_hull(r, d, lo, hi_all, start, extent);
  isl_pw_aff_free(lo);
  isl_pw_aff_free(hi_all);
  if (!ok || start->pieces != 1 || !start->affine) {
    isl_aff_free(start->aff);
    start->aff = NULL;
    if (!ok) return sched_error(s, at, "cannot bound the region of %s along dimension %d%s", r->b->name, d, sizes_hint(r));
    return sched_error(s, at, "the region of %s along dimension %d starts at a piecewise or non-affine "
                       "position over the iterations of the loops down to %s, and no one piece of it lies at "
                       "or below the others in every iteration (a hull); cache a loop whose iterations touch "
                       "regions of one shape", r->b->name, d, innermost_name(r));
  }
  /* where the window [start, start + extent) lies over all iterations (the
   * copies run in those that touch nothing too): it may not start below
   * index 0; past the end it reaches only with copies that stop there (in
   * an iteration where it starts past the end, a VU core with no rows in
   * the last pass, they copy nothing) */
  isl_aff *start_aff = start->aff;
  start->aff = NULL;
  isl_pw_aff *all = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(isl_aff_copy(start_aff)), isl_set_copy(r->odom));
  isl_val *bottom = pw_extreme(isl_pw_aff_copy(all), false), *top = pw_extreme(all, true);
  bool known = bottom && top && isl_val_is_int(bottom) && isl_val_is_int(top);
  int64_t start_min = known ? isl_val_get_num_si(bottom) : 0, start_max = known ? isl_val_get_num_si(top) : 0;
  isl_val_free(bottom), isl_val_free(top);
  if (!known || start_min < 0) isl_aff_free(start_aff);
  if (!known)
    return sched_error(s, at, "cannot bound where the region of %s along dimension %d starts over the iterations of "
                       "the loops down to %s%s", r->b->name, d, innermost_name(r), sizes_hint(r));
  if (start_min < 0)
    return sched_error(s, at, "the region of %s along dimension %d starts before index 0 in some iteration of "
                       "the loops down to %s; a halo region is not cached (pad the array with transform_layout)",
                       r->b->name, d, innermost_name(r));
  /* a tail tile: the buffer keeps the full box, the copies stop at the end */
  if (r->extent[d]) return sized_tail(r, d, start, start_aff, *extent, at);
  isl_aff_free(start_aff);
  start->tail = start_max + *extent > r->b->shape[d];
  start->empty = start_max >= r->b->shape[d];
  return true;
}

/* sum coef[k] * o_k + cst, in type t. */
static Expr *start_expr(Region *r, const Start *st, const Type *t) {
  return affine_expr(r->s->a, r->oloops, r->nouter, st->coef, st->cst, t, (SrcLoc){0, 0});
}

/* ---------------- rewriting ---------------- */

typedef struct {
  Sched *s;
  Region *r;
  Buffer *from, *to;
  const Start *start; /* per dimension */
  bool reads_only;    /* a read cache of an array the iteration writes: its writes stay */
} Redirect;

/* index - start, in the index's type */
static Expr *shifted(Redirect *rd, Expr *ix, int d) {
  return ir_sub(rd->s->a, ix, start_expr(rd->r, &rd->start[d], ix->type), ix->type);
}

static void redirect_expr(Redirect *rd, Expr *e) {
  if (!e) return;
  if (e->kind == EX_LOAD)
    for (int d = 0; d < e->buf->ndim; d++) redirect_expr(rd, e->idx[d]);
  redirect_expr(rd, e->a);
  redirect_expr(rd, e->b);
  redirect_expr(rd, e->c);
  for (int i = 0; i < e->nargs; i++) redirect_expr(rd, e->args[i]);
  if (e->kind == EX_LOAD && e->buf == rd->from) {
    Expr **idx = ARENA_ARRAY(rd->s->a, Expr *, rd->to->ndim);
    for (int d = 0; d < rd->to->ndim; d++) idx[d] = shifted(rd, e->idx[d], d);
    e->idx = idx;
    e->buf = rd->to;
  }
}

/* A write of the array under a read cache: its indices and the value
 * are redirected, the element written stays; `L op= R` becomes
 * `L = L' op R`, its read from the cache (converting_update refused the
 * ones C would convert). */
static void redirect_reads_of_write(Redirect *rd, Stmt *st) {
  redirect_expr(rd, st->rhs);
  for (int d = 0; d < st->lhs->buf->ndim; d++) redirect_expr(rd, st->lhs->idx[d]);
  if (st->op == OP_NONE) return;
  Expr *old = ir_expr_copy(rd->s->a, st->lhs);
  redirect_expr(rd, old);
  st->rhs = ir_binary(rd->s->a, st->op, old, st->rhs, st->lhs->type, st->loc);
  st->op = OP_NONE;
}

static bool redirect_stmt(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Redirect *rd = ctx;
  if (rd->reads_only && st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == rd->from) {
    redirect_reads_of_write(rd, st);
    return true;
  }
  redirect_expr(rd, st->lo);
  redirect_expr(rd, st->hi);
  redirect_expr(rd, st->cond);
  redirect_expr(rd, st->rhs);
  redirect_expr(rd, st->lhs);
  redirect_expr(rd, st->init);
  for (int i = 0; i < st->ninit; i++) redirect_expr(rd, st->init_list[i]);
  return true;
}


/* Dimension d's extent of b: its constant, or its expression in the
 * kernel's sizes, which the box's int counters compare with as it is when
 * it is signed (a long n: C compares in long; the value fits int at every
 * allowed size, sized_tail), and cast to int when unsigned (the copies
 * are then no tail DMA: ir_tail_guard takes signed arithmetic only). */
static Expr *extent_of(Sched *s, const Buffer *b, int d, SrcLoc loc) {
  if (!b->extent[d]) return ir_int(s->a, b->shape[d], &ty_int, loc);
  Expr *e = ir_expr_copy(s->a, b->extent[d]);
  return e->type->is_signed ? e : ir_cast(s->a, e, &ty_int, false);
}

/* for v0 < E0: for v1 < E1: ... dst[..] = src[..], with the BUF side at
 * start + v; marked LOOP_DMA on its outermost loop. */

/* The copy of the box, one loop per dimension; along a dimension with a
 * tail, the rest of the nest is guarded by `start + counter < extent`. */
static Stmt *copy_nest(Redirect *rd, bool into_cache, const char *name, SrcLoc loc) {
  Sched *s = rd->s;
  Buffer *c = rd->to;
  Stmt *outer = NULL, **slot = &outer;
  Expr **cidx = ARENA_ARRAY(s->a, Expr *, c->ndim), **bidx = ARENA_ARRAY(s->a, Expr *, c->ndim);
  for (int d = 0; d < c->ndim; d++) {
    Var *v;
    char dim[16];
    snprintf(dim, sizeof dim, "_%s%d", into_cache ? "" : "w", d);
    Stmt *l = sched_make_loop(s, sched_derived_name(s, c->name, dim), &ty_int, ir_int(s->a, 0, &ty_int, loc),
                              ir_int(s->a, c->shape[d], &ty_int, loc), loc, &v);
    cidx[d] = ir_var(s->a, v, loc);
    bidx[d] = ir_add(s->a, start_expr(rd->r, &rd->start[d], &ty_int), ir_var(s->a, v, loc), &ty_int);
    *slot = l;
    slot = &l->body->body;
    if (rd->start[d].tail) {
      Stmt *g = ir_stmt(s->a, ST_IF, loc);
      Expr *extent = extent_of(s, rd->from, d, loc);
      int64_t n;
      /* an extent in the sizes: split's form, `v < extent - start`, which
       * cannot overflow where `start + v` would past the last tile (a
       * factor of 100 at n near INT_MAX) */
      if (ir_const_int(extent, &n))
        g->cond = ir_binary(s->a, OP_LT, ir_expr_copy(s->a, bidx[d]), extent, &ty_int, loc);
      else
        g->cond = ir_binary(s->a, OP_LT, ir_var(s->a, v, loc),
                            ir_sub(s->a, extent, start_expr(rd->r, &rd->start[d], &ty_int), &ty_int), &ty_int, loc);
      g->then_s = sched_block(s, NULL, loc);
      g->tail_may_be_empty = rd->start[d].empty;
      *slot = g;
      slot = &g->then_s->body;
    }
  }
  Stmt *as = ir_stmt(s->a, ST_ASSIGN, loc);
  as->name = name;
  as->op = OP_NONE;
  as->lhs = into_cache ? ir_load(s->a, c, cidx) : ir_load(s->a, rd->from, bidx);
  as->rhs = into_cache ? ir_load(s->a, rd->from, bidx) : ir_load(s->a, c, cidx);
  *slot = as;
  outer->loop_kind = LOOP_DMA;
  return outer;
}

/* Are all of box's elements written in every iteration? Then a cache_write
 * need not copy the region in first. */
static bool writes_cover_box(Region *r, const Start *st, const int64_t *ext) {
  if (!r->writes) return false;
  isl_set *iters = isl_set_copy(r->odom);
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int k = 0; k < r->nouter; k++) sb_printf(&sb, "%sc%d", k ? ", " : "", r->oloops[k]->var->id);
  sb_puts(&sb, "] -> [");
  for (int d = 0; d < r->b->ndim; d++) sb_printf(&sb, "%sx%d", d ? ", " : "", d);
  sb_puts(&sb, "] : ");
  for (int d = 0; d < r->b->ndim; d++) {
    StrBuf lo;
    sb_init(&lo);
    for (int k = 0; k < r->nouter; k++)
      if (st[d].coef[k]) sb_printf(&lo, "%lld * c%d + ", (long long)st[d].coef[k], r->oloops[k]->var->id);
    sb_printf(&lo, "%lld", (long long)st[d].cst);
    sb_printf(&sb, "%s%s <= x%d < %s + %lld and x%d < ", d ? " and " : "", lo.data, d, lo.data, (long long)ext[d], d);
    if (r->extent_text[d]) sb_puts(&sb, r->extent_text[d]); /* its extent in the sizes */
    else sb_printf(&sb, "%lld", (long long)r->b->shape[d]);
    sb_free(&lo);
  }
  sb_puts(&sb, " }");
  isl_map *box = isl_map_read_from_str(r->s->ctx, sb.data);
  sb_free(&sb);
  box = isl_map_intersect_domain(box, iters);
  isl_bool sub = isl_map_is_subset(box, r->writes);
  isl_map_free(box);
  return sub == isl_bool_true;
}

/* ---------------- reads of values the iteration wrote ---------------- */

/* Times (t -> t') in one iteration of loop l and the loops around it
 * (equal up to its counter), t' earlier than t. */
static isl_map *earlier_in_iteration(isl_ctx *ctx, int ndims, int equal_dims) {
  isl_map *m = isl_map_lex_gt(isl_space_set_alloc(ctx, 0, (unsigned)ndims));
  for (int k = 0; k < equal_dims; k++) m = isl_map_equate(m, isl_dim_in, k, isl_dim_out, k);
  return m;
}

typedef struct {
  const char *tuple;
  isl_union_map *found;
} AccessesTo;

static isl_stat keep_access_to(isl_map *map, void *user) {
  AccessesTo *a = user;
  const char *n = isl_map_get_tuple_name(map, isl_dim_out);
  if (n && !strcmp(n, a->tuple)) a->found = isl_union_map_add_map(a->found, map);
  else isl_map_free(map);
  return isl_stat_ok;
}

/* The accesses in acc to the array whose element tuple is named `tuple`,
 * whatever its rank: a buffer declared in loops has those loops' counters
 * first in its tuple (one copy per iteration, ir/deps.c). */
static isl_union_map *accesses_to(isl_union_map *acc, const char *tuple) {
  AccessesTo a = {tuple, isl_union_map_empty(isl_union_map_get_space(acc))};
  if (isl_union_map_foreach_map(acc, keep_access_to, &a) < 0) a.found = isl_union_map_free(a.found);
  return a.found;
}

/* ---- the same, by the statements' places alone (a kernel with sizes) ---- */

typedef struct {
  const Buffer *b;
  bool *varies;                    /* by Var.id: a counter of, or assigned in, the statements walked */
  const Stmt *lists[AT_MAX_LOOPS]; /* the statement lists around, outermost first */
  const Stmt *at[AT_MAX_LOOPS];    /* in each, the statement being walked */
  const Var *counters[AT_MAX_LOOPS];
  int depth, ncounters;
  bool unseen;
} Sibling;

/* Marks each variable the walked statements count or assign. */
static bool varies_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *varies = ctx;
  if (st->kind == ST_FOR || (st->kind == ST_DECL && st->var)) varies[st->var->id] = true;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_VAR) varies[st->lhs->var->id] = true;
  return true;
}

/* Are e's variables all counters of the loops around list `ncounters`
 * counts, or values the walked region never changes (the counters of the
 * loops around it, the sizes, parameters it does not assign): one element
 * for everything under that list's statements? */
typedef struct {
  const Sibling *w;
  int ncounters;
} Fixed;

static bool fixed_node(const Expr *e, void *ctx) {
  const Fixed *f = ctx;
  if (e->kind == EX_LOAD || e->kind == EX_CALL) return false;
  if (e->kind != EX_VAR) return true;
  for (int i = 0; i < f->ncounters; i++)
    if (f->w->counters[i] == e->var) return true;
  return !f->w->varies[e->var->id];
}

static bool fixed_above(const Sibling *w, const Expr *e, int ncounters) {
  Fixed f = {w, ncounters};
  return ir_walk_expr(e, fixed_node, &f);
}

/* Is the element `load` reads written, before it in every run, by a plain
 * assignment that is an earlier sibling of a statement around the read
 * (or of the read's own), in a list whose loops fix the element? That
 * write runs whenever the read does. */
static bool written_before(const Sibling *w, const Expr *load, const int *counters_at) {
  for (int d = w->depth - 1; d >= 0; d--) {
    bool fixed = true;
    for (int i = 0; i < load->buf->ndim; i++) fixed &= fixed_above(w, load->idx[i], counters_at[d]);
    if (!fixed) continue;
    for (const Stmt *x = w->lists[d]; x && x != w->at[d]; x = x->next)
      if (x->kind == ST_ASSIGN && x->op == OP_NONE && x->lhs->kind == EX_LOAD && x->lhs->buf == w->b &&
          ir_expr_same(x->lhs, load))
        return true;
  }
  return false;
}

typedef struct {
  Sibling *w;
  const int *counters_at;
} SiblingRead;

/* Stops at the first read of w->b that no earlier sibling wrote. */
static bool sibling_read(const Expr *e, void *ctx) {
  SiblingRead *r = ctx;
  if (e->kind == EX_LOAD && e->buf == r->w->b && !written_before(r->w, e, r->counters_at)) r->w->unseen = true;
  return !r->w->unseen;
}

static void sibling_reads(Sibling *w, const Expr *e, const int *counters_at) {
  SiblingRead r = {w, counters_at};
  if (!w->unseen) ir_walk_expr(e, sibling_read, &r);
}

static void sibling_list(Sibling *w, const Stmt *list, int *counters_at) {
  if (w->depth == AT_MAX_LOOPS) {
    w->unseen = true;
    return;
  }
  int d = w->depth++;
  w->lists[d] = list;
  counters_at[d] = w->ncounters;
  for (const Stmt *st = list; st && !w->unseen; st = st->next) {
    w->at[d] = st;
    switch (st->kind) {
    case ST_BLOCK: sibling_list(w, st->body, counters_at); break;
    case ST_FOR:
      sibling_reads(w, st->lo, counters_at);
      sibling_reads(w, st->hi, counters_at);
      if (w->ncounters == AT_MAX_LOOPS) {
        w->unseen = true;
        break;
      }
      w->counters[w->ncounters++] = st->var;
      sibling_list(w, st->body->body, counters_at);
      w->ncounters--;
      break;
    case ST_IF:
      sibling_reads(w, st->cond, counters_at);
      sibling_list(w, st->then_s ? st->then_s->body : NULL, counters_at);
      if (st->else_s) sibling_list(w, st->else_s->body, counters_at);
      break;
    case ST_ASSIGN:
      sibling_reads(w, st->rhs, counters_at);
      if (st->lhs->kind == EX_LOAD) {
        for (int i = 0; i < st->lhs->buf->ndim; i++) sibling_reads(w, st->lhs->idx[i], counters_at);
        if (st->lhs->buf == w->b && st->op != OP_NONE) sibling_reads(w, st->lhs, counters_at); /* L op= X reads L */
      }
      break;
    case ST_DECL:
      sibling_reads(w, st->init, counters_at);
      for (int i = 0; i < st->ninit; i++) sibling_reads(w, st->init_list[i], counters_at);
      break;
    }
  }
  w->depth--;
}

/* Does every read of b in list see a value written earlier in the same
 * run of the list, by the rule of written_before? Sound without a model:
 * `init: C[ii][ji] = 0; for (k ...) C[ii][ji] += ...` under the loops of
 * ii and ji (and a tail's guard) has each read after its element's write. */
static bool reads_follow_sibling_writes(const Kernel *k, Stmt *list, const Buffer *b) {
  Sibling w = {.b = b, .varies = calloc((size_t)k->nvars + 1, sizeof(bool))};
  for (Stmt *st = list; st; st = st->next) ir_walk_one(st, varies_visit, w.varies); /* the list's, not what follows it */
  int counters_at[AT_MAX_LOOPS];
  sibling_list(&w, list, counters_at);
  free(w.varies);
  return !w.unseen;
}

/* The pairs (read time -> write time) of one element of b under `at`, the
 * write earlier in the same iteration, and the times of every read there
 * (into *read_times); NULL when the model does not describe them. At the
 * root (at NULL) the iteration is the whole kernel. */
static isl_union_map *reads_after_writes(Sched *s, Stmt *at, const Buffer *b, isl_union_set **read_times) {
  if (!sched_model_knows(s, b)) sched_model_drop(s); /* b's accesses are needed as they are */
  const DepModel *now = sched_model_now(s);
  if (!now) return NULL;
  const DepLoop *l = at ? dep_loop(now, at) : NULL;
  if (at && (!l || l->dim < 0)) return NULL;
  const DepModel *m = &s->before;
  /* the accesses of b first (few statements), then as times, those inside
   * the loop kept (a set of times: no inverse of the schedule) */
  const char *tuple = arena_printf(s->a, "B%d", b->id);
  isl_union_map *reads = accesses_to(m->reads, tuple), *writes = accesses_to(m->writes, tuple);
  isl_set *times = l ? dep_times_inside(now, l) : isl_set_universe(isl_space_set_alloc(s->ctx, 0, (unsigned)now->time_dims));
  isl_union_set *inside = isl_union_set_from_set(times);
  /* read time -> write time, one element */
  isl_union_map *read_t = isl_union_map_intersect_domain(isl_union_map_apply_domain(reads, isl_union_map_copy(now->sched)),
                                                         isl_union_set_copy(inside));
  isl_union_map *write_t = isl_union_map_intersect_domain(isl_union_map_apply_domain(writes, isl_union_map_copy(now->sched)),
                                                          inside);
  *read_times = isl_union_map_domain(isl_union_map_copy(read_t));
  isl_union_map *pairs = isl_union_map_apply_range(read_t, isl_union_map_reverse(write_t));
  return isl_union_map_intersect(pairs, isl_union_map_from_map(earlier_in_iteration(s->ctx, now->time_dims, l ? l->dim + 1 : 0)));
}

/* Does every read of b under `at` see a value written earlier in the same
 * iteration? Then the region need not be copied in. Exact, without a
 * last-writer dataflow: the last write before a read lies between an
 * earlier write of the same iteration and the read, so in that iteration
 * too; it suffices that every read has some earlier write of its element
 * in its iteration (in the order the loops run now). */
static bool reads_see_own_writes(Sched *s, Stmt *at, const Buffer *b) {
  /* the model over-approximates a kernel with sizes (a bound in them is no
   * bound): more writes than run, so "every read sees a write" would not
   * follow from it; the rule by siblings does */
  if (s->k->nsizes) return reads_follow_sibling_writes(s->k, at ? at->body->body : s->k->body->body, b);
  isl_union_set *read_times = NULL;
  isl_union_map *pairs = reads_after_writes(s, at, b, &read_times);
  if (!pairs) {
    isl_union_set_free(read_times);
    return false;
  }
  isl_union_set *unseen = isl_union_set_subtract(read_times, isl_union_map_domain(pairs));
  bool ok = unseen && isl_union_set_is_empty(unseen) == isl_bool_true;
  isl_union_set_free(unseen);
  return ok;
}

/* Does no read of b under `at` see a value written earlier in the same
 * iteration (an element read, then written, as in `a[i] = a[i] * s`)?
 * Then a read cache filled at the iteration's start holds what every read
 * sees, though the iteration writes b: the writes go to b, the next
 * iteration's fill copies them. The model over-approximates a kernel with
 * sizes (more writes than run), where "no read sees one" is then only
 * sufficient; the pairs are empty there too for an in-place kernel. */
static bool reads_precede_writes(Sched *s, Stmt *at, const Buffer *b) {
  isl_union_set *read_times = NULL;
  isl_union_map *pairs = reads_after_writes(s, at, b, &read_times);
  isl_union_set_free(read_times);
  bool ok = pairs && isl_union_map_is_empty(pairs) == isl_bool_true;
  isl_union_map_free(pairs);
  return ok;
}

/* A compound assignment to b whose `L op= R` is not `L = L op R` in L's
 * type (C converts through a promoted type): a read cache of b cannot
 * take its read apart from its write. */
typedef struct {
  const Buffer *b;
  const Stmt *found;
} Update;

static bool converts_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Update *u = ctx;
  if (st->kind == ST_ASSIGN && st->op != OP_NONE && st->lhs->kind == EX_LOAD && st->lhs->buf == u->b &&
      (!type_same(st->lhs->type, st->rhs->type) || !type_same(type_promote(st->lhs->type), st->lhs->type)))
    u->found = st;
  return !u->found;
}

static const Stmt *converting_update(Stmt *under, const Buffer *b) {
  Update u = {b, NULL};
  ir_walk_stmts(under, converts_visit, &u);
  return u.found;
}

/* ---------------- local arrays ---------------- */

typedef struct {
  const Buffer *b;
  const Stmt *at, *outside;
} Outside;

/* a statement outside loop `at` that uses b (its declaration aside);
 * nothing is outside the root (at NULL) */
static bool find_outside(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Outside *o = ctx;
  if (o->at && st != o->at && !sched_encloses(o->at, st) && !(st->kind == ST_DECL && st->buf == o->b) &&
      ir_stmt_uses(st, NULL, o->b))
    o->outside = st;
  return !o->outside;
}

/* ---------------- where the cache lives ---------------- */

static bool loop_named(Stmt *st, int depth, void *ctx) {
  (void)depth;
  const Stmt **found = ctx;
  if (st->kind == ST_FOR && !strcmp(st->name, "root")) *found = st;
  return !*found;
}

/* The at_loop argument: a loop, or `root`, the kernel's body above every
 * loop (*at NULL): its one iteration is the whole kernel, so the region
 * is every element the kernel touches, copied in once before the first
 * statement and out once after the last. */
static bool cache_point(Sched *s, const SchedArg *arg, Stmt **at) {
  *at = NULL;
  if (arg->kind != SA_NAME || strcmp(arg->name, "root")) return (*at = sched_loop(s, arg)) != NULL;
  const Stmt *clash = NULL;
  ir_walk_stmts(s->k->body, loop_named, &clash);
  if (clash)
    return sched_error(s, arg, "'root' names both loop root (line %d) and the kernel's root, above every loop; "
                       "rename the loop in the kernel", clash->loc.line);
  return true;
}

/* The copies in of other caches of b at the head of under's list (after
 * declarations): they run before any statement that writes b, so what a
 * cache_write copies out at the iteration's end does not change what they
 * read; they are neither in its region nor redirected to it. A read cache
 * of an array the iteration writes then pairs with a write cache of it,
 * and each can be double-buffered. */
static int head_fills(Stmt *under, const Buffer *b, const Stmt **fills, int max) {
  int n = 0;
  for (const Stmt *x = under->body; x && n < max; x = x->next) {
    if (x->kind == ST_DECL) continue;
    const Stmt *leaf = x->kind == ST_FOR && x->loop_kind == LOOP_DMA ? ir_nest_leaf(x) : NULL;
    if (!leaf || leaf->rhs->buf != b || !buffer_onchip(leaf->lhs->buf)) break;
    fills[n++] = x;
  }
  return n;
}

/* Is decl directly in the kernel's body, under no loop? */
static bool at_top(const Kernel *k, const Stmt *decl) {
  for (const Stmt *t = k->body->body; t; t = t->next)
    if (t == decl) return true;
  return false;
}

/* Every access of r->b under `under`, over the iterations [o] of the
 * loops down to at (none at the root: its one iteration is the kernel). */
static void scan_region(Region *r, const AtFrame *frames, int nf, Stmt *at, Stmt *under) {
  aff_init(&r->aff, r->s->ctx, r->s->k);
  /* the sizes first, under the assumptions: the box holds at every size */
  char why[300];
  r->sizes_unmodelled = !aff_push_sizes(&r->aff, why, sizeof why);
  for (int i = 0; i < r->aff.nsize_dims; i++) {
    Stmt *l = ARENA_NEW(r->s->a, Stmt); /* outlives the context: start_expr names its counter */
    *l = r->aff.size_loops[i];
    l->lo = l->hi = NULL;
    l->name = l->var->name;
    r->oloops[r->nouter++] = l;
  }
  r->nsizes = r->nouter;
  for (int i = 0; i < nf; i++) {
    if (frames[i].st->kind == ST_FOR) {
      aff_push_loop(&r->aff, frames[i].st);
      r->oloops[r->nouter++] = frames[i].st;
    } else {
      aff_push_cond(&r->aff, frames[i].st->cond, frames[i].neg);
    }
  }
  if (at) {
    aff_push_loop(&r->aff, at);
    r->oloops[r->nouter++] = at;
  }
  for (int d = 0; d < r->b->ndim && !r->sizes_unmodelled; d++)
    if (r->b->extent[d]) {
      r->extent[d] = aff_build(&r->aff, r->b->extent[d]);
      char *t = aff_text(&r->aff, r->b->extent[d]);
      r->extent_text[d] = t ? arena_printf(r->s->a, "%s", t) : NULL;
      free(t);
      if (!r->extent[d] || !t) r->sizes_unmodelled = true;
    }
  char *space = aff_space_text(&r->aff), *cons = aff_cons_text(&r->aff);
  char *dom = arena_printf(r->s->a, "{ %s : %s }", space, cons);
  free(space);
  free(cons);
  r->odom = isl_set_read_from_str(r->s->ctx, dom);
  scan_stmts(r, under);
  aff_free(&r->aff);
}

static bool cache(Sched *s, const SchedStep *st, bool write) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  const char *scope = sched_onchip_scope(s, &st->args[1]);
  if (!scope) return false;
  Stmt *at;
  if (!cache_point(s, &st->args[2], &at)) return false;
  Stmt *under = at ? at->body : s->k->body; /* the block NEW is declared in */
  const char *where = at ? arena_printf(s->a, "loop %s", at->name) : "the root";
  const char *name = sched_new_name(s, &st->args[3]);
  if (!name) return false;
  bool is_param = false;
  for (const Param *p = s->k->params; p; p = p->next) is_param |= p->buf == b;
  if (write && b->is_const) return sched_error(s, &st->args[0], "%s is const: nothing to write back", b->name);
  /* a local array: the cache replaces it, when nothing outside one
   * iteration of `at` sees it */
  Stmt *local = is_param || buffer_onchip(b) ? NULL : ir_buffer_decl(s->k->body, b);
  if (local) {
    Outside u = {b, at, NULL};
    ir_walk_stmts(s->k->body, find_outside, &u);
    const Stmt *outside = u.outside;
    if (!write)
      return sched_error(s, &st->args[0], "%s is a local array; stage it with cache_write, which replaces it", b->name);
    if (outside)
      return sched_error(s, &st->args[0], "%s is a local array used outside %s (%s, line %d); its cache can "
                         "replace it only when every use is under the loop", b->name, where,
                         outside->name ? outside->name : "a statement", outside->loc.line);
    if (local->ninit)
      return sched_error(s, &st->args[0], "%s is a local array with an initializer list; initialize it with "
                         "statements to stage it", b->name);
  }

  AtFrame frames[AT_MAX_LOOPS];
  int nf = 0;
  if (at && !at_frames(s->k, at, frames, AT_MAX_LOOPS - 1 - s->k->nsizes, &nf))
    return sched_error(s, &st->args[2], "loop nest too deep");
  /* a parallel or vectorized loop around: its iterations would share the
   * buffer, refused after the step with the marks (schedule/marks.c) */
  /* a bound loop's iterations run at once on the VU cores: only a VM buffer is per core */
  for (int i = 0; i < nf + (at != NULL); i++) {
    const Stmt *l = i < nf ? frames[i].st : at;
    if (l->kind == ST_FOR && l->loop_kind == LOOP_VU && strcmp(scope, "vu_vm"))
      return sched_error(s, &st->args[1], "%s would be in %s, one buffer for the VU cores that loop %s (bound to them) "
                         "runs at once; only a vu_vm buffer has a copy per core", name, scope, l->name);
  }

  const Stmt *fills[8];
  int nfills = write ? head_fills(under, b, fills, 8) : 0;
  Region r = {.s = s, .b = b, .skip = fills, .nskip = nfills};
  scan_region(&r, frames, nf, at, under);
  Region loose = {.s = s, .b = b, .ignore_conds = true, .skip = fills, .nskip = nfills};
  scan_region(&loose, frames, nf, at, under);
  r.loose = loose.opaque ? isl_map_free(loose.all) : loose.all;
  isl_map_free(loose.writes);
  isl_set_free(loose.odom);
  for (int d = 0; d < b->ndim; d++) isl_aff_free(loose.extent[d]);

  bool ok = true;
  const Stmt *conv = NULL;
  Start start[IR_MAX_DIMS];
  int64_t ext[IR_MAX_DIMS];
  if (r.sizes_unmodelled || loose.sizes_unmodelled) {
    ok = sched_error(s, &st->args[0], "the kernel's sizes or assumptions are not affine: the region of %s is unknown",
                     b->name);
  } else if (r.opaque) {
    StrBuf t;
    sb_init(&t);
    ir_print_expr(&t, r.opaque);
    ok = sched_error(s, &st->args[0], "index '%s' of %s (line %d) is not affine: the region to copy is unknown",
                     t.data, b->name, r.opaque->loc.line);
    sb_free(&t);
  } else if (!r.all) {
    ok = sched_error(s, &st->args[2], "nothing under %s accesses %s", where, b->name);
  } else if (!write && r.writer && !reads_precede_writes(s, at, b)) {
    ok = sched_error(s, &st->args[0], "%s (line %d) writes %s under %s: a read cache would go stale; "
                     "use cache_write", r.writer->name, r.writer->loc.line, b->name, where);
  } else if (!write && r.writer && (conv = converting_update(under, b))) {
    ok = sched_error(s, &st->args[0], "%s (line %d) updates %s with a compound assignment that C computes in a "
                     "promoted type: a read cache cannot take its read apart from its write; use cache_write",
                     conv->name, conv->loc.line, b->name);
  }
  for (int d = 0; ok && d < b->ndim; d++) ok = box_dim(&r, d, &start[d], &ext[d], &st->args[0]);
  if (ok && r.nsizes && too_large(ext, b)) /* sized from the sizes' bounds, and those are their types' */
    ok = sched_error(s, &st->args[0], "the region of %s spans more than 1 GiB, more than any on-chip scope holds, at "
                     "the largest sizes allowed: assume an upper bound on the sizes (#pragma npu assume)", b->name);
  bool copy_in = ok && (!write || r.cond_writes || !writes_cover_box(&r, start, ext) ||
                        (r.reads && !reads_see_own_writes(s, at, b)));
  if (ok && local && copy_in)
    ok = sched_error(s, &st->args[0], "local array %s is read under %s where an iteration has not written it "
                     "first; its cache would have to keep values across iterations", b->name, where);
  for (int d = 0; d < b->ndim; d++) isl_aff_free(r.extent[d]);
  isl_map_free(r.all);
  isl_map_free(r.loose);
  isl_map_free(r.writes);
  isl_set_free(r.odom);
  if (!ok) return false;

  /* NEW: the box's shape, in `scope` */
  Buffer *c = ARENA_NEW(s->a, Buffer);
  c->name = name;
  c->elem = b->elem;
  c->ndim = b->ndim;
  memcpy(c->shape, ext, sizeof ext[0] * (size_t)b->ndim);
  c->scope = scope;
  c->role = b->role;
  c->loc = st->loc;
  c->id = s->k->nbufs++;
  /* A parameter has one copy of each element, its cache one per iteration
   * of `at` (and the loops around), and one iteration's accesses map one
   * to one onto the cache: two statements that were there conflict on the
   * cache only where they conflicted on b, and the marks need new proofs
   * for the copies' pairs only. So does a local array declared outside
   * `at` (one copy per iteration of loops that are all around `at`); one
   * declared inside it had a copy per iteration of loops that its cache
   * would share. */
  s->step_keeps_pairs = is_param || (local && (at ? !ir_buffer_decl(at->body, b) : at_top(s->k, local)));
  Redirect rd = {s, &r, b, c, start, !write && r.writer};
  for (Stmt *x = under->body; x; x = x->next)
    if (!skipped(x, fills, nfills)) ir_walk_one(x, redirect_stmt, &rd);

  Stmt *decl = ir_stmt(s->a, ST_DECL, st->loc);
  decl->buf = c;
  Stmt *first = decl, **tail = &decl->next;
  if (copy_in) {
    *tail = copy_nest(&rd, true, sched_derived_name(s, name, "_load"), st->loc);
    tail = &(*tail)->next;
  }
  *tail = under->body;
  if (write && !local) {
    while (*tail) tail = &(*tail)->next;
    *tail = copy_nest(&rd, false, sched_derived_name(s, name, "_store"), st->loc);
  }
  s->step_adds_no_access = !copy_in && !(write && !local);
  s->step_renamed[0] = b;
  s->step_renamed[1] = c;
  under->body = first;
  if (local) *sched_link(s, local, NULL) = local->next; /* the cache replaced it */
  return true;
}

bool prim_cache_read(Sched *s, const SchedStep *st) { return cache(s, st, false); }
bool prim_cache_write(Sched *s, const SchedStep *st) { return cache(s, st, true); }
