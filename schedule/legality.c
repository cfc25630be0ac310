/* Exact legality of a rewrite, with isl.
 *
 * One dependence model per variant (Sched.before): the IR's leaves are
 * numbered and modelled with their accesses once, and the memory conflicts
 * of that program (flow, anti and output, so every element keeps the order
 * of its writes and reads) are computed once. Steps that only move, copy or
 * mark instances (split, reorder, unroll, fission, ...: MODEL_KEPT in
 * schedule/sched.c) carry the model over: each rewritten leaf keeps its
 * instance's identity in Stmt.inst and Stmt.orig (the model's loop counters
 * as expressions of the new ones), which is the step's instance map. After
 * a rewrite only the schedule of the new program is built, and:
 *   1. it runs exactly the model's instances, each once (else: an npugen bug);
 *   2. every conflicting pair still runs in the model's order.
 * A step that adds statements or changes accesses drops the model; the next
 * proof builds a new one from the IR as it is then, in which the existing
 * statements keep their identities (MODEL_REBUILT: an unrolled statement's
 * copies stay one statement), or all restart (MODEL_RESET, after
 * compute_at and compute_inline).
 * Reductions are not reassociated: a float sum keeps its order per element. */
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/sched.h"

/* ---------------- the variant's model ---------------- */

static void conflict_pairs_free(ConflictPairs *t) {
  for (int i = 0; i < t->n; i++) {
    isl_map_free(t->v[i].pairs);
    isl_map_free(t->v[i].times);
  }
  free(t->v);
  t->v = NULL;
  t->n = 0;
}

static void now_drop(Sched *s) {
  s->ir_gen++;
  if (s->have_now) dep_model_free(&s->now);
  s->have_now = false;
  conflict_pairs_free(&s->conflict_times);
  s->conflict_times_of = NULL;
}

void sched_model_drop(Sched *s) {
  now_drop(s);
  s->nstale = 0;
  conflict_pairs_free(&s->deps);
  s->deps_listed = false;
  if (s->have_before) dep_model_free(&s->before);
  s->have_before = s->fresh = false;
}

/* Builds the model of the IR as it is, after numbering its leaves: all of
 * them anew (origins reset: the instances are the loops' own iterations) or
 * only the new ones (copies of a statement stay one statement). */
static bool model_build(Sched *s, bool reset) {
  sched_model_drop(s);
  s->first_new_leaf = 0;
  if (reset) dep_reset_origins(s->a, s->k);
  else s->first_new_leaf = dep_number_new_leaves(s->a, s->k);
  s->have_before = dep_model_build(&s->before, s->ctx, s->k, true);
  if (!s->have_before) {
    sched_error(s, NULL, "cannot analyse %s: %s", s->k->name, s->before.error);
    dep_model_free(&s->before);
  }
  s->fresh = s->have_before;
  s->reset_origins = !s->have_before;
  return s->have_before;
}

void sched_ir_rewritten(Sched *s) {
  now_drop(s);
  s->fresh = false; /* the copies' origins lead back to the model's */
}

bool sched_begin_fresh(Sched *s) { return model_build(s, true); }

bool sched_model_keep_renamed(Sched *s) {
  if (!s->have_before || s->nstale + 2 > (int)(sizeof s->stale / sizeof s->stale[0])) return false;
  now_drop(s); /* the IR changed: the next `now` is built from it */
  s->fresh = false;
  s->stale[s->nstale++] = s->step_renamed[0];
  s->stale[s->nstale++] = s->step_renamed[1];
  return true;
}

bool sched_model_knows(const Sched *s, const Buffer *b) {
  for (int i = 0; i < s->nstale; i++)
    if (s->stale[i] == b) return false;
  return true;
}

bool sched_begin_rewrite(Sched *s) {
  now_drop(s); /* the IR is about to change */
  return s->have_before || model_build(s, s->reset_origins);
}

const DepModel *sched_model_now(Sched *s) {
  if (!s->have_before && !model_build(s, s->reset_origins)) return NULL;
  if (s->fresh) return &s->before;
  if (s->have_now) return &s->now;
  if (dep_model_build(&s->now, s->ctx, s->k, false)) {
    s->have_now = true;
    return &s->now;
  }
  sched_error(s, NULL, "internal error: cannot model the rewritten loops: %s", s->now.error);
  dep_model_free(&s->now);
  return NULL;
}

/* ---------------- describing a dependence ---------------- */

typedef struct {
  isl_map *map;
} First;

static isl_stat take_first(isl_map *m, void *user) {
  First *f = user;
  if (!f->map) {
    f->map = m;
    return isl_stat_error; /* stop */
  }
  isl_map_free(m);
  return isl_stat_ok;
}

static isl_map *first_map(isl_union_map *u) {
  First f = {NULL};
  isl_union_map_foreach_map(u, take_first, &f);
  return f.map;
}

static int64_t coord(isl_point *p, enum isl_dim_type t, int i) {
  isl_val *v = isl_point_get_coordinate_val(p, t, i);
  int64_t r = isl_val_get_num_si(v);
  isl_val_free(v);
  return r;
}

static const char *var_name_by_id(const Kernel *k, int id);
static const char *buf_name_by_id(const Kernel *k, int id, int *ndim);

typedef struct {
  int id;
  const char *name;
  int ndim;
} NameQ;

static bool name_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  NameQ *q = ctx;
  if (q->ndim < 0 && st->var && st->var->id == q->id) q->name = st->var->name;
  if (q->ndim >= 0 && st->buf && st->buf->id == q->id) {
    q->name = st->buf->name;
    q->ndim = st->buf->ndim;
  }
  return !q->name;
}

static const char *var_name_by_id(const Kernel *k, int id) {
  for (const Param *p = k->params; p; p = p->next)
    if (p->var && p->var->id == id) return p->var->name;
  NameQ q = {id, NULL, -1};
  ir_walk_stmts(k->body, name_visit, &q);
  return q.name ? q.name : "?";
}

static const char *buf_name_by_id(const Kernel *k, int id, int *ndim) {
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf && p->buf->id == id) {
      *ndim = p->buf->ndim;
      return p->buf->name;
    }
  NameQ q = {id, NULL, 0};
  ir_walk_stmts(k->body, name_visit, &q);
  *ndim = q.ndim;
  return q.name ? q.name : "?";
}

/* An array of the model that a later cache renamed (no longer declared in
 * the IR): the model's accesses are still in its name and indices. */
static const char *renamed_name(const Sched *s, int id, int *ndim) {
  for (int i = 0; i < s->nstale; i++)
    if (s->stale[i]->id == id) {
      *ndim = s->stale[i]->ndim;
      return s->stale[i]->name;
    }
  return buf_name_by_id(s->k, id, ndim);
}

/* "C[0][3]" or "acc" for one element in an access tuple. */
static void element_text(Sched *s, StrBuf *sb, isl_set *elems) {
  isl_point *p = isl_set_sample_point(elems);
  isl_space *sp = isl_point_get_space(p);
  const char *tn = isl_point_is_void(p) ? NULL : isl_space_get_tuple_name(sp, isl_dim_set);
  if (!tn) {
    sb_puts(sb, "an element");
  } else if (tn[0] == 'V') {
    sb_puts(sb, var_name_by_id(s->k, atoi(tn + 1)));
  } else {
    int ndim = 0;
    sb_puts(sb, renamed_name(s, atoi(tn + 1), &ndim));
    isl_size n = isl_space_dim(sp, isl_dim_set);
    for (int i = (int)n - ndim; i < (int)n; i++) sb_printf(sb, "[%lld]", (long long)coord(p, isl_dim_set, i));
  }
  isl_space_free(sp);
  isl_point_free(p);
}

static void instance_text(StrBuf *sb, const DepLeaf *L, isl_point *p, int off) {
  sb_printf(sb, "%s (line %d)", L->stmt->name ? L->stmt->name : "declaration", L->stmt->loc.line);
  if (!L->depth) return;
  sb_puts(sb, " at ");
  for (int i = 0; i < L->depth; i++)
    sb_printf(sb, "%s%s=%lld", i ? ", " : "", L->vars[i]->name, (long long)coord(p, isl_dim_set, off + i));
}

/* Explains one pair of `pairs` (instances of the program before the step
 * whose order the rewrite breaks): kind, element, both instances. */
void sched_explain(Sched *s, isl_union_map *pairs, const char *verb) {
  isl_map *m = first_map(pairs);
  if (!m) {
    sched_error(s, NULL, "illegal: it would break a dependence");
    return;
  }
  isl_point *p = isl_set_sample_point(isl_set_lexmin(isl_map_wrap(isl_map_copy(m))));
  isl_space *sp = isl_map_get_space(m);
  int a = atoi(isl_space_get_tuple_name(sp, isl_dim_in) + 1);
  int b = atoi(isl_space_get_tuple_name(sp, isl_dim_out) + 1);
  isl_space_free(sp);
  const DepLeaf *A = &s->before.leaves[a], *B = &s->before.leaves[b];
  int na = A->depth;

  /* Which kind of dependence, and on what element. */
  static const struct {
    char kind;
    const char *name, *first, *second;
  } kinds[] = {{'f', "flow", "writes", "reads"}, {'a', "anti", "reads", "overwrites"}, {'o', "output", "writes", "overwrites"}};
  StrBuf pt;
  sb_init(&pt);
  sb_printf(&pt, "{ S%d[", a);
  for (int i = 0; i < na; i++) sb_printf(&pt, "%s%lld", i ? ", " : "", (long long)coord(p, isl_dim_set, i));
  sb_printf(&pt, "] -> S%d[", b);
  for (int i = 0; i < B->depth; i++) sb_printf(&pt, "%s%lld", i ? ", " : "", (long long)coord(p, isl_dim_set, na + i));
  sb_puts(&pt, "] }");
  isl_union_map *pair = isl_union_map_read_from_str(s->ctx, pt.data);
  sb_free(&pt);
  int ki = 0;
  for (int i = 0; i < 3; i++) {
    /* as plain maps of the pair's space (isl 0.25 leaks in the union test) */
    isl_map *pm = isl_map_from_union_map(isl_union_map_copy(pair));
    isl_union_map *d = dep_memory_kind(&s->before, kinds[i].kind);
    isl_map *dm = isl_union_map_extract_map(d, isl_map_get_space(pm));
    isl_union_map_free(d);
    bool hit = isl_map_is_subset(pm, dm) == isl_bool_true;
    isl_map_free(pm);
    isl_map_free(dm);
    if (hit) {
      ki = i;
      break;
    }
  }
  isl_union_map *acc_a = kinds[ki].kind == 'a' ? s->before.reads : s->before.writes;
  isl_union_map *acc_b = kinds[ki].kind == 'f' ? s->before.reads : s->before.writes;
  isl_union_set *ea = isl_union_set_apply(isl_union_map_domain(isl_union_map_copy(pair)), isl_union_map_copy(acc_a));
  isl_union_set *eb = isl_union_set_apply(isl_union_map_range(isl_union_map_copy(pair)), isl_union_map_copy(acc_b));
  isl_union_set *common = isl_union_set_intersect(ea, eb);
  isl_union_map_free(pair);
  StrBuf el;
  sb_init(&el);
  isl_set *cs = isl_union_set_is_empty(common) == isl_bool_false ? isl_set_from_union_set(isl_union_set_copy(common)) : NULL;
  /* several tuples: take any one */
  if (!cs) {
    sb_puts(&el, "an element");
  } else {
    element_text(s, &el, cs);
  }
  isl_union_set_free(common);
  char elem_name[128];
  snprintf(elem_name, sizeof elem_name, "%s", el.data);
  char *br = strchr(elem_name, '[');
  if (br) *br = 0;

  StrBuf dist;
  sb_init(&dist);
  int ns = s->k->nsizes; /* the sizes lead every instance (ir/deps.c): one run's pairs, distance 0 there */
  if (a == b && na > ns) {
    sb_puts(&dist, ", distance (");
    for (int i = ns; i < na; i++)
      sb_printf(&dist, "%s%lld", i > ns ? ", " : "", (long long)(coord(p, isl_dim_set, na + i) - coord(p, isl_dim_set, i)));
    sb_puts(&dist, ")");
  }
  sched_error(s, NULL, "illegal: %s the %s dependence on %s from %s (line %d) to %s (line %d)%s", verb,
              kinds[ki].name, elem_name, A->stmt->name ? A->stmt->name : "a declaration", A->stmt->loc.line,
              B->stmt->name ? B->stmt->name : "a declaration", B->stmt->loc.line, dist.data ? dist.data : "");
  StrBuf note;
  sb_init(&note);
  instance_text(&note, A, p, 0);
  sb_printf(&note, " %s %s, then ", kinds[ki].first, el.data);
  instance_text(&note, B, p, na);
  sb_printf(&note, " %s it", kinds[ki].second);
  sched_note(s, 0, "%s", note.data);
  if (s->before.nonaffine) {
    const Expr *e = s->before.nonaffine;
    if (e->buf && !strcmp(e->buf->name, elem_name))
      sched_note(s, 0, "an index of %s in %s (line %d) is not affine: npugen assumes it may touch the whole dimension",
                 e->buf->name, s->before.nonaffine_stmt->name ? s->before.nonaffine_stmt->name : "a statement",
                 s->before.nonaffine_stmt->loc.line);
  }
  sb_free(&note);
  sb_free(&dist);
  sb_free(&el);
  isl_point_free(p);
  isl_map_free(m);
}

/* ---------------- the checks ---------------- */

static int leaf_of(isl_map *m, enum isl_dim_type t) {
  const char *n = isl_map_get_tuple_name(m, t);
  return n && n[0] == 'S' ? atoi(n + 1) : -1;
}

typedef struct {
  ConflictPairs *out;
  int cap;
} PairList;

static isl_stat collect_pair(isl_map *c, void *user) {
  PairList *l = user;
  if (l->out->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->out->v = realloc(l->out->v, sizeof *l->out->v * (size_t)l->cap);
  }
  l->out->v[l->out->n++] = (ConflictPair){leaf_of(c, isl_dim_in), leaf_of(c, isl_dim_out), c, NULL};
  return isl_stat_ok;
}

/* The model's conflicting pairs, one map per pair of leaves. False when
 * isl failed. */
static bool conflict_list(Sched *s, ConflictPairs *out) {
  PairList l = {out, 0};
  isl_union_map *c = dep_conflicts(&s->before);
  bool ok = c && isl_union_map_foreach_map(c, collect_pair, &l) >= 0;
  isl_union_map_free(c);
  return ok;
}

/* The model's dependences for the order check after a step that may
 * reorder anything: each conflict map cut to the pairs that run in the
 * model's order (first -> second), listed once per model. Then a step's
 * test needs only the times of the IR it made, and the pairs a step
 * cannot have moved are not tested twice. The tests about one loop (marks,
 * reorder) keep the conflicts in both directions: their times are shared. */
static isl_stat direct_pair(isl_map *c, void *user) {
  Sched *s = user;
  isl_space *time = isl_space_set_alloc(s->ctx, 0, (unsigned)s->before.time_dims);
  isl_space *sp = isl_map_get_space(c);
  isl_map *ta = isl_union_map_extract_map(
      s->before.sched, isl_space_map_from_domain_and_range(isl_space_domain(isl_space_copy(sp)), isl_space_copy(time)));
  isl_map *tb = isl_union_map_extract_map(s->before.sched, isl_space_map_from_domain_and_range(isl_space_range(sp), time));
  int a = leaf_of(c, isl_dim_in), b = leaf_of(c, isl_dim_out);
  c = isl_map_coalesce(isl_map_intersect(c, isl_map_lex_lt_map(ta, tb)));
  isl_bool empty = c ? isl_map_is_empty(c) : isl_bool_error;
  if (empty != isl_bool_false) {
    isl_map_free(c);
    return empty == isl_bool_true ? isl_stat_ok : isl_stat_error;
  }
  ConflictPairs *d = &s->deps;
  d->v = realloc(d->v, sizeof *d->v * (size_t)(d->n + 1));
  d->v[d->n++] = (ConflictPair){a, b, c, NULL};
  return isl_stat_ok;
}

static const ConflictPairs *model_deps(Sched *s) {
  if (!s->deps_listed) {
    isl_union_map *c = dep_conflicts(&s->before);
    bool ok = c && isl_union_map_foreach_map(c, direct_pair, s) >= 0;
    isl_union_map_free(c);
    if (!ok) {
      conflict_pairs_free(&s->deps);
      return NULL;
    }
    s->deps_listed = true;
  }
  return &s->deps;
}

/* One conflict map (S_a -> S_b) as pairs of times by `times` (time vectors
 * of ndims components): its two statements' time maps looked up by space
 * (isl's union composition would try every time map against every
 * conflict map). */
static isl_map *times_of_pairs(isl_union_map *times, int ndims, isl_map *c) {
  isl_space *time = isl_space_set_alloc(isl_map_get_ctx(c), 0, (unsigned)ndims);
  isl_space *sp = isl_map_get_space(c);
  isl_space *a = isl_space_map_from_domain_and_range(isl_space_domain(isl_space_copy(sp)), isl_space_copy(time));
  isl_space *b = isl_space_map_from_domain_and_range(isl_space_range(sp), time);
  isl_map *ta = isl_union_map_extract_map(times, a);
  isl_map *tb = isl_union_map_extract_map(times, b);
  return isl_map_apply_range(isl_map_apply_domain(isl_map_copy(c), ta), tb);
}

const ConflictPairs *sched_conflict_times(Sched *s, const DepModel *now) {
  if (s->conflict_times_of != now) {
    conflict_pairs_free(&s->conflict_times);
    if (!conflict_list(s, &s->conflict_times)) {
      conflict_pairs_free(&s->conflict_times);
      s->conflict_times_of = NULL;
      return NULL;
    }
    s->conflict_times_of = now;
  }
  return &s->conflict_times;
}

isl_map *sched_pair_times(Sched *s, int i) {
  ConflictPair *p = &s->conflict_times.v[i];
  if (!p->times) p->times = times_of_pairs(s->conflict_times_of->sched, s->conflict_times_of->time_dims, p->pairs);
  return p->times;
}

typedef struct {
  bool *flags;
  int n;
} LeafSet;

static bool mark_leaf(Stmt *st, int depth, void *ctx) {
  (void)depth;
  LeafSet *l = ctx;
  if ((st->kind == ST_ASSIGN || st->kind == ST_DECL) && st->inst >= 0 && st->inst < l->n) l->flags[st->inst] = true;
  return true;
}

bool *sched_leaves_in(Sched *s, const Stmt *loop) {
  LeafSet l = {calloc((size_t)s->before.nleaves + 1, sizeof(bool)), s->before.nleaves};
  ir_walk_stmts(loop->body, mark_leaf, &l);
  return l.flags;
}

bool sched_pair_within(const Sched *s, int i, const bool *in) {
  int a = s->conflict_times.v[i].a, b = s->conflict_times.v[i].b, n = s->before.nleaves;
  return a < 0 || a >= n || b < 0 || b >= n || (in[a] && in[b]); /* not a leaf of the model: kept */
}

/* Some vector of d is lexicographically positive in the components
 * first[0..kb) and negative in the components second[0..ka): level by level
 * in the first order (zeros, then > 0), and only where that part is not
 * empty, in the second (zeros, then < 0). The two may name the same
 * components in two orders. Consumes d. */
static bool reversed_somewhere(isl_set *d, const int *first, int kb, const int *second, int ka) {
  bool found = false;
  for (int i = 0; i < kb && !found; i++) {
    isl_set *x = isl_set_lower_bound_si(isl_set_copy(d), isl_dim_set, (unsigned)first[i], 1);
    int empty = x ? isl_set_is_empty(x) : -1;
    for (int j = 0; j < ka && empty == 0 && !found; j++) {
      isl_set *y = isl_set_upper_bound_si(isl_set_copy(x), isl_dim_set, (unsigned)second[j], -1);
      found = !y || isl_set_is_empty(y) != isl_bool_true;
      isl_set_free(y);
      x = isl_set_fix_si(x, isl_dim_set, (unsigned)second[j], 0);
    }
    found = found || empty < 0;
    isl_set_free(x);
    d = isl_set_fix_si(d, isl_dim_set, (unsigned)first[i], 0);
  }
  isl_set_free(d);
  return found;
}

typedef struct {
  const int *first, *second;
  int kb, ka;
  bool found;
} Reversed;

static isl_stat reversed_piece(isl_basic_set *b, void *user) {
  Reversed *r = user;
  r->found = reversed_somewhere(isl_set_from_basic_set(b), r->first, r->kb, r->second, r->ka);
  return r->found ? isl_stat_error : isl_stat_ok; /* stop at the first */
}

/* After reorder (Sched.reorder): 1 when some conflicting pair changes its
 * order, 0 when none, -1 when this test cannot tell. The program before
 * the step was proven, and the step only moved loop headers in the chain
 * under `top`: pairs not both inside top, or in different iterations of
 * the loops around it, kept their order; for the others, the time vectors
 * before the step are the ones after it with the moved headers'
 * components permuted back. So one set of differences (of the times now,
 * which the marks' proofs share) is tested in both orders. */
static int reorder_broken(Sched *s, const DepModel *now) {
  const DepLoop *top = dep_loop(now, s->reorder.top);
  if (!top) return -1;
  if (top->dim < 0) return 0; /* no statement inside */
  /* components below the deepest moved header keep their places: where the
   * chain's components are all equal, they order a pair alike before and
   * after; so the pairs are tested on top's component to the deepest
   * header's (the others projected out, the outer ones once equal) */
  int deepest = top->dim;
  for (int i = 0; i < s->reorder.nchain; i++) {
    const DepLoop *c = dep_loop(now, s->reorder.chain[i]);
    if (c && c->dim > deepest) deepest = c->dim;
  }
  int n = deepest + 1 - top->dim, below = now->time_dims - deepest - 1;
  int *before = malloc(sizeof(int) * (size_t)(n + 1)), *after = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) before[i] = after[i] = i;
  int res = 0;
  for (int i = 0; i < s->reorder.n && !res; i++) {
    const DepLoop *from = dep_loop(now, s->reorder.from[i]), *to = dep_loop(now, s->reorder.to[i]);
    if (!from || !to || from->dim < top->dim || to->dim < top->dim) res = -1;
    else before[from->dim - top->dim] = to->dim - top->dim;
  }
  const ConflictPairs *t = res ? NULL : sched_conflict_times(s, now);
  if (!res && !t) res = -1;
  bool *in = res ? NULL : sched_leaves_in(s, s->reorder.top);
  Reversed r = {before, after, n, n, false};
  /* one iteration of the loops around top: equalities made once on the
   * universe (each isl_map_equate on a pair's map simplifies all of it), of
   * the components up to the deepest header: those below are projected
   * out first, which the equalities do not name, on a map twice smaller */
  isl_map *same = isl_map_universe(isl_space_map_from_set(isl_space_set_alloc(s->ctx, 0, (unsigned)deepest + 1)));
  for (int d = 0; d < top->dim; d++) same = isl_map_equate(same, isl_dim_in, d, isl_dim_out, d);
  for (int i = 0; !res && i < t->n; i++) {
    if (!sched_pair_within(s, i, in)) continue;
    isl_map *m = sched_pair_times(s, i);
    m = m ? isl_map_copy(m) : NULL;
    if (m && below > 0)
      m = isl_map_project_out(isl_map_project_out(m, isl_dim_in, (unsigned)deepest + 1, (unsigned)below), isl_dim_out,
                              (unsigned)deepest + 1, (unsigned)below);
    m = m ? isl_map_intersect(m, isl_map_copy(same)) : NULL;
    if (m && top->dim > 0)
      m = isl_map_project_out(isl_map_project_out(m, isl_dim_in, 0, (unsigned)top->dim), isl_dim_out, 0, (unsigned)top->dim);
    isl_set *d = isl_map_deltas(m);
    if (!d) res = -1;
    else if (isl_set_foreach_basic_set(d, reversed_piece, &r) < 0) res = r.found ? 1 : -1;
    isl_set_free(d);
  }
  isl_map_free(same);
  free(in);
  free(before);
  free(after);
  return res;
}

/* Does some vector of d (consumed) run backwards: zero up to a component
 * that is negative, or zero throughout (two instances at one time, which
 * no program does: the exact test decides)? */
static bool backwards(isl_set *d, int n) {
  bool found = false;
  for (int i = 0; i < n && !found && d; i++) {
    isl_set *x = isl_set_upper_bound_si(isl_set_copy(d), isl_dim_set, (unsigned)i, -1);
    found = !x || isl_set_is_empty(x) != isl_bool_true;
    isl_set_free(x);
    d = isl_set_fix_si(d, isl_dim_set, (unsigned)i, 0);
  }
  found = found || !d || isl_set_is_empty(d) != isl_bool_true;
  isl_set_free(d);
  return found;
}

/* True when some dependence of the model runs backwards after the rewrite
 * (then the slow exact path explains which), pair by pair. */
static bool order_broken(Sched *s, const DepModel *after) {
  if (s->reorder.top) {
    int r = reorder_broken(s, after);
    if (r >= 0) return r;
  }
  const ConflictPairs *d = model_deps(s);
  bool found = !d;
  for (int i = 0; d && i < d->n && !found; i++) {
    isl_map *t = times_of_pairs(after->sched, after->time_dims, d->v[i].pairs);
    found = !t || backwards(isl_map_deltas(t), after->time_dims);
  }
  return found;
}

bool sched_legal(Sched *s) {
  if (!s->have_before) return sched_error(s, NULL, "internal error: no model of the program before this step");
  s->fresh = false; /* the IR was rewritten: its origins now lead back to the model's */
  /* A step that keeps the order (schedule/sched.c) runs the same instances,
   * each once, in order, by construction: taken at its word, with no
   * schedule of the new IR built for it (the next step that needs one
   * builds it); the random tester proves it (prove_kept_order). */
  bool trusted = s->step_keeps_order && !s->prove_kept_order;
  if (trusted) return true;
  const DepModel *after = sched_model_now(s);
  if (!after) return false;
  /* 1. the same instances, each exactly once */
  /* reorder moves headers whose bounds only use counters outside them,
   * fission and decompose_reduction give each statement one loop of the
   * same header: each instance runs once by construction too (Sched.step_runs_once) */
  bool once = trusted || ((s->reorder.top || s->step_runs_once) && !s->prove_kept_order);
  if (isl_union_set_is_equal(after->domain, s->before.domain) != isl_bool_true ||
      (!once && isl_union_map_is_single_valued(after->sched) != isl_bool_true))
    return sched_error(s, NULL, "internal error: the rewritten loops do not run every statement instance exactly once (an npugen bug; the variant is not emitted)");
  /* 2. dependences in order: a quick test, then the exact pair for a message;
   * none to test after a step that keeps the order (schedule/sched.c) */
  if (trusted) return true;
  if (!order_broken(s, after)) return true;
  isl_union_map *deps = dep_memory(&s->before);
  isl_union_map *order = isl_union_map_lex_lt_union_map(isl_union_map_copy(after->sched), isl_union_map_copy(after->sched));
  isl_union_map *broken = isl_union_map_subtract(deps, order);
  bool ok = false;
  if (!broken) {
    sched_error(s, NULL, "internal error: dependence analysis failed");
  } else if (isl_union_map_is_empty(broken) != isl_bool_true && s->step_keeps_order) {
    sched_error(s, NULL, "internal error: %s reversed a dependence, which it never may (an npugen bug; the variant is not emitted)",
                s->step->prim);
  } else if (isl_union_map_is_empty(broken) != isl_bool_true) {
    sched_explain(s, broken, "it reverses");
  } else {
    ok = true; /* the quick test over-approximates: no pair is broken */
  }
  isl_union_map_free(broken);
  return ok;
}
