/* Exact legality of a rewrite, with isl. Before a primitive rewrites, the
 * IR's leaves are numbered and modelled with their accesses; the memory
 * dependences of that program (flow, anti and output, so every element keeps
 * the order of its writes and reads) are what any rewrite must keep. After
 * the rewrite, the new program is modelled over the same instances, and:
 *   1. it runs exactly the same instances, each once (else: an npugen bug);
 *   2. every dependence still runs source before sink.
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

bool sched_begin_rewrite(Sched *s) {
  if (s->have_before) dep_model_free(&s->before);
  dep_reset_origins(s->a, s->k);
  s->have_before = dep_model_build(&s->before, s->ctx, s->k, true);
  if (!s->have_before) {
    sched_error(s, NULL, "cannot analyse %s: %s", s->k->name, s->before.error);
    dep_model_free(&s->before);
  }
  return s->have_before;
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
    sb_puts(sb, buf_name_by_id(s->k, atoi(tn + 1), &ndim));
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
static void explain(Sched *s, isl_union_map *pairs, const char *verb) {
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
  if (a == b && na) {
    sb_puts(&dist, ", distance (");
    for (int i = 0; i < na; i++)
      sb_printf(&dist, "%s%lld", i ? ", " : "", (long long)(coord(p, isl_dim_set, na + i) - coord(p, isl_dim_set, i)));
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

/* The difference vectors (later - earlier time) of conflicting instance
 * pairs, with both times given by `times` (instance -> time vector). Working
 * on differences keeps isl's work to one set instead of one lexicographic
 * order per pair of statements. NULL when isl fails. */
static isl_set *conflict_deltas(Sched *s, isl_union_map *times, isl_union_set *restrict_to) {
  isl_union_map *c = dep_conflicts(&s->before);
  if (restrict_to) {
    c = isl_union_map_intersect_domain(c, isl_union_set_copy(restrict_to));
    c = isl_union_map_intersect_range(c, restrict_to);
  }
  isl_union_map *t = isl_union_map_apply_domain(c, isl_union_map_copy(times));
  t = isl_union_map_apply_range(t, isl_union_map_copy(times));
  if (!t) return NULL;
  if (isl_union_map_is_empty(t) == isl_bool_true) {
    isl_union_map_free(t);
    return NULL;
  }
  return isl_map_deltas(isl_map_from_union_map(t));
}

static void lex_sign_text(StrBuf *sb, const char *v, int from, int n, const char *sign) {
  sb_putc(sb, '(');
  for (int i = 0; i < n; i++) {
    sb_printf(sb, "%s(", i ? " or " : "");
    for (int j = 0; j < i; j++) sb_printf(sb, "%s%d = 0 and ", v, from + j);
    sb_printf(sb, "%s%d %s 0)", v, from + i, sign);
  }
  if (!n) sb_puts(sb, "1 = 0");
  sb_putc(sb, ')');
}

/* True when some conflicting pair runs in one order before the rewrite and
 * in the other after it (then the slow exact path explains which). */
static bool order_broken(Sched *s, const DepModel *after) {
  int kb = s->before.time_dims, ka = after->time_dims;
  isl_union_map *both = isl_union_map_flat_range_product(isl_union_map_copy(s->before.sched), isl_union_map_copy(after->sched));
  isl_set *d = conflict_deltas(s, both, NULL);
  isl_union_map_free(both);
  if (!d) return false; /* no conflicts at all */
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int i = 0; i < kb + ka; i++) sb_printf(&sb, "%sd%d", i ? ", " : "", i);
  sb_puts(&sb, "] : ");
  lex_sign_text(&sb, "d", 0, kb, ">");
  sb_puts(&sb, " and ");
  lex_sign_text(&sb, "d", kb, ka, "<");
  sb_puts(&sb, " }");
  isl_set *bad = isl_set_read_from_str(s->ctx, sb.data);
  sb_free(&sb);
  bad = isl_set_intersect(bad, d);
  bool broken = !bad || isl_set_is_empty(bad) != isl_bool_true;
  isl_set_free(bad);
  return broken;
}

bool sched_legal(Sched *s) {
  if (!s->have_before) return sched_error(s, NULL, "internal error: no model of the program before this step");
  DepModel after;
  if (!dep_model_build(&after, s->ctx, s->k, false)) {
    bool r = sched_error(s, NULL, "internal error: cannot model the rewritten loops: %s", after.error);
    dep_model_free(&after);
    return r;
  }
  bool ok = true;
  /* 1. the same instances, each exactly once */
  if (isl_union_set_is_equal(after.domain, s->before.domain) != isl_bool_true ||
      isl_union_map_is_single_valued(after.sched) != isl_bool_true) {
    ok = sched_error(s, NULL, "internal error: the rewritten loops do not run every statement instance exactly once (an npugen bug; the variant is not emitted)");
  }
  /* 2. dependences in order: a quick test, then the exact pair for a message */
  if (ok && order_broken(s, &after)) {
    isl_union_map *deps = dep_memory(&s->before);
    isl_union_map *order = isl_union_map_lex_lt_union_map(isl_union_map_copy(after.sched), isl_union_map_copy(after.sched));
    isl_union_map *broken = isl_union_map_subtract(deps, order);
    if (!broken) {
      ok = sched_error(s, NULL, "internal error: dependence analysis failed");
    } else if (isl_union_map_is_empty(broken) != isl_bool_true) {
      explain(s, broken, "it reverses");
      ok = false;
    }
    isl_union_map_free(broken);
  }
  dep_model_free(&after);
  return ok;
}

typedef struct {
  const char *private_scope;
  const Stmt *found;
} OnchipDecl;

static bool find_onchip_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  OnchipDecl *f = ctx;
  if (!f->found && st->kind == ST_DECL && st->buf && buffer_onchip(st->buf) &&
      !(f->private_scope && !strcmp(st->buf->scope, f->private_scope)))
    f->found = st;
  return !f->found;
}

bool sched_loop_is_parallel(Sched *s, const Stmt *loop) { return sched_loop_iterations_independent(s, loop, NULL); }

bool sched_loop_iterations_independent(Sched *s, const Stmt *loop, const char *private_scope) {
  /* a buffer declared in the body is private to an iteration in C, but an
   * on-chip one is one place in NPU memory: the iterations would share it */
  OnchipDecl f = {private_scope, NULL};
  ir_walk_stmts(loop->body, find_onchip_decl, &f);
  const Stmt *decl = f.found;
  if (decl)
    return sched_error(s, NULL, "the iterations of loop %s would share on-chip buffer %s (%s, declared in its body)",
                       loop->name, decl->buf->name, decl->buf->scope);
  if (!s->have_before && !sched_begin_rewrite(s)) return false;
  int dim = -2;
  const int64_t *prefix = NULL;
  for (int i = 0; i < s->before.nloops; i++)
    if (s->before.loops[i].loop == loop) {
      dim = s->before.loops[i].dim;
      prefix = s->before.loops[i].prefix;
    }
  if (dim == -2) return sched_error(s, NULL, "internal error: loop %s is not in the model", loop->name);
  if (dim < 0) return true; /* no statement inside: nothing is carried */
  int n = s->before.time_dims;
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int i = 0; i < n; i++) sb_printf(&sb, "%st%d", i ? ", " : "", i);
  sb_puts(&sb, "] -> [");
  for (int i = 0; i < n; i++) sb_printf(&sb, "%su%d", i ? ", " : "", i);
  sb_puts(&sb, "] : ");
  /* both instances inside this loop (its place in the program), in the
   * same iteration of the loops around it, in different iterations of it */
  for (int i = 0; i < dim; i++) {
    sb_printf(&sb, "t%d = u%d and ", i, i);
    if (prefix[i] != INT64_MIN) sb_printf(&sb, "t%d = %lld and ", i, (long long)prefix[i]);
  }
  sb_printf(&sb, "t%d != u%d }", dim, dim);
  isl_union_map *carried = isl_union_map_read_from_str(s->ctx, sb.data);
  sb_free(&sb);
  /* Quick test on differences: instances inside this loop (its place in
   * the program) whose times first differ at its counter. */
  {
    StrBuf in;
    sb_init(&in);
    sb_puts(&in, "{ [");
    for (int i = 0; i < n; i++) sb_printf(&in, "%st%d", i ? ", " : "", i);
    sb_puts(&in, "] : 0 = 0");
    for (int i = 0; i < dim; i++)
      if (prefix[i] != INT64_MIN) sb_printf(&in, " and t%d = %lld", i, (long long)prefix[i]);
    sb_puts(&in, " }");
    isl_union_set *inside = isl_union_set_apply(isl_union_set_read_from_str(s->ctx, in.data),
                                                isl_union_map_reverse(isl_union_map_copy(s->before.sched)));
    sb_free(&in);
    isl_set *d = conflict_deltas(s, s->before.sched, inside);
    bool any = false;
    if (d) {
      StrBuf c;
      sb_init(&c);
      sb_puts(&c, "{ [");
      for (int i = 0; i < n; i++) sb_printf(&c, "%sd%d", i ? ", " : "", i);
      sb_puts(&c, "] : ");
      for (int i = 0; i < dim; i++) sb_printf(&c, "d%d = 0 and ", i);
      sb_printf(&c, "d%d != 0 }", dim);
      isl_set *hit = isl_set_intersect(isl_set_read_from_str(s->ctx, c.data), d);
      sb_free(&c);
      any = !hit || isl_set_is_empty(hit) != isl_bool_true;
      isl_set_free(hit);
    }
    if (!any) {
      isl_union_map_free(carried);
      return true;
    }
  }
  /* instance pairs whose times differ first at this loop's counter */
  isl_union_map *x = isl_union_map_apply_range(isl_union_map_copy(s->before.sched), carried);
  x = isl_union_map_apply_range(x, isl_union_map_reverse(isl_union_map_copy(s->before.sched)));
  isl_union_map *hit = isl_union_map_intersect(dep_memory(&s->before), x);
  bool ok = true;
  if (!hit) {
    ok = sched_error(s, NULL, "internal error: dependence analysis failed");
  } else if (isl_union_map_is_empty(hit) != isl_bool_true) {
    char verb[160];
    snprintf(verb, sizeof verb, "loop %s would run its iterations in any order, but it carries", loop->name);
    explain(s, hit, verb);
    ok = false;
  }
  isl_union_map_free(hit);
  return ok;
}
