/* Standing marks. parallel, vectorize and bind mark a loop whose iterations
 * may run in any order or at once. Two properties make that safe:
 *   1. no dependence is carried by the loop (its iterations touch no element
 *      in common where one of them writes);
 *   2. each iteration owns the buffers declared in its body: a C local does
 *      (each iteration has its own), an on-chip buffer does not (one place
 *      in NPU memory), except a vu_vm buffer in a loop bound to the VU cores
 *      (each core has its own VM).
 * Both are proven when the mark is set, and again after every later step
 * (sched_apply calls sched_check_marks) by this one test, on the variant's
 * dependence model carried through the steps (schedule/legality.c): a step
 * that breaks a mark is refused naming the step that set it. */
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "schedule/sched.h"

static const char *mark_words(const Stmt *loop) {
  switch (loop->loop_kind) {
  case LOOP_PARALLEL: return "parallel";
  case LOOP_VECTORIZE: return "vectorized";
  case LOOP_VU: return "bound to the VU cores";
  default: return NULL;
  }
}

/* "loop j is parallel (parallel(j), line 7), and after this step": for a
 * mark set by an earlier step; NULL for one being set now. */
static const char *standing(Sched *s, const Stmt *loop, char *buf, size_t n) {
  if (!loop->mark_step || (s->step && loop->mark_step == s->step->text)) return NULL;
  char line[32] = "";
  if (loop->mark_loc.line > 0) snprintf(line, sizeof line, ", line %d", loop->mark_loc.line);
  snprintf(buf, n, "loop %s is %s (%s%s), and after this step", loop->name, mark_words(loop), loop->mark_step, line);
  return buf;
}

/* ---------------- 2. buffers owned per iteration ---------------- */

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

static bool owns_its_buffers(Sched *s, const Stmt *loop, const char *private_scope) {
  OnchipDecl f = {private_scope, NULL};
  ir_walk_stmts(loop->body, find_onchip_decl, &f);
  if (!f.found) return true;
  const Buffer *b = f.found->buf;
  char buf[256];
  const char *since = standing(s, loop, buf, sizeof buf);
  if (since)
    return sched_error(s, NULL, "%s its iterations would share on-chip buffer %s (%s, declared in its body)", since,
                       b->name, b->scope);
  return sched_error(s, NULL, "the iterations of loop %s would share on-chip buffer %s (%s, declared in its body)",
                     loop->name, b->name, b->scope);
}

/* ---------------- 1. no dependence carried ---------------- */

static const DepLoop *loop_in(const DepModel *now, const Stmt *loop) {
  for (int i = 0; i < now->nloops; i++)
    if (now->loops[i].loop == loop) return &now->loops[i];
  return NULL;
}

/* Time vectors of the instances inside loop l: its place in the program
 * (the block positions before its counter). */
static isl_set *inside_times(isl_ctx *ctx, int n, const DepLoop *l) {
  isl_set *t = isl_set_universe(isl_space_set_alloc(ctx, 0, (unsigned)n));
  for (int i = 0; i < l->dim; i++)
    if (l->prefix[i] != INT64_MIN) t = isl_set_fix_si(t, isl_dim_set, (unsigned)i, (int)l->prefix[i]);
  return t;
}

/* Quick test: some conflicting pair inside the loop whose times are equal
 * before the loop's counter and differ at it. */
static bool carries_any(Sched *s, const DepModel *now, const DepLoop *l) {
  int n = now->time_dims;
  isl_union_set *inside = isl_union_set_apply(isl_union_set_from_set(inside_times(s->ctx, n, l)),
                                              isl_union_map_reverse(isl_union_map_copy(now->sched)));
  isl_set *d = sched_conflict_deltas(s, now->sched, inside);
  if (!d) return false;
  for (int i = 0; i < l->dim; i++) d = isl_set_fix_si(d, isl_dim_set, (unsigned)i, 0);
  isl_set *pos = isl_set_lower_bound_si(isl_set_copy(d), isl_dim_set, (unsigned)l->dim, 1);
  isl_set *neg = isl_set_upper_bound_si(d, isl_dim_set, (unsigned)l->dim, -1);
  isl_set *hit = isl_set_union(pos, neg);
  bool any = !hit || isl_set_is_empty(hit) != isl_bool_true;
  isl_set_free(hit);
  return any;
}

/* The dependences (pairs of the model's instances, earlier -> later) whose
 * times inside the loop first differ at its counter: for the message. */
static isl_union_map *carried_deps(Sched *s, const DepModel *now, const DepLoop *l) {
  int n = now->time_dims;
  isl_map *x = isl_map_from_domain_and_range(inside_times(s->ctx, n, l), inside_times(s->ctx, n, l));
  for (int i = 0; i < l->dim; i++) x = isl_map_equate(x, isl_dim_in, i, isl_dim_out, i);
  isl_map *lt = isl_map_order_lt(isl_map_copy(x), isl_dim_in, l->dim, isl_dim_out, l->dim);
  x = isl_map_union(lt, isl_map_order_gt(x, isl_dim_in, l->dim, isl_dim_out, l->dim));
  isl_union_map *pairs = isl_union_map_apply_range(isl_union_map_copy(now->sched), isl_union_map_from_map(x));
  pairs = isl_union_map_apply_range(pairs, isl_union_map_reverse(isl_union_map_copy(now->sched)));
  return isl_union_map_intersect(dep_memory(&s->before), pairs);
}

static bool carries_nothing(Sched *s, const DepModel *now, const Stmt *loop) {
  const DepLoop *l = loop_in(now, loop);
  if (!l) return sched_error(s, NULL, "internal error: loop %s is not in the model", loop->name);
  if (l->dim < 0 || !carries_any(s, now, l)) return true; /* no statement inside, or nothing carried */
  isl_union_map *hit = carried_deps(s, now, l);
  bool ok = true;
  if (!hit) {
    ok = sched_error(s, NULL, "internal error: dependence analysis failed");
  } else if (isl_union_map_is_empty(hit) != isl_bool_true) {
    char buf[256], verb[320];
    const char *since = standing(s, loop, buf, sizeof buf);
    if (since) snprintf(verb, sizeof verb, "%s it would carry", since);
    else snprintf(verb, sizeof verb, "loop %s would run its iterations in any order, but it carries", loop->name);
    sched_explain(s, hit, verb);
    ok = false;
  }
  isl_union_map_free(hit);
  return ok;
}

/* ---------------- entry points ---------------- */

static const char *private_scope_of(const Stmt *loop) { return loop->loop_kind == LOOP_VU ? "vu_vm" : NULL; }

static bool loop_independent(Sched *s, const DepModel *now, const Stmt *loop, const char *private_scope) {
  return owns_its_buffers(s, loop, private_scope) && carries_nothing(s, now, loop);
}

bool sched_loop_is_parallel(Sched *s, const Stmt *loop) {
  if (!owns_its_buffers(s, loop, NULL)) return false;
  DepModel storage;
  const DepModel *now = sched_model_now(s, &storage);
  if (!now) return false;
  bool ok = carries_nothing(s, now, loop);
  if (now == &storage) dep_model_free(&storage);
  return ok;
}

typedef struct {
  const Stmt *loops[256];
  int n;
  bool overflow;
} Marked;

static bool collect_marked(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Marked *m = ctx;
  if (st->kind == ST_FOR && mark_words(st) && !st->intrin) {
    if (m->n < 256) m->loops[m->n++] = st;
    else m->overflow = true;
  }
  return true;
}

bool sched_check_marks(Sched *s) {
  Marked m = {.n = 0};
  ir_walk_stmts(s->k->body, collect_marked, &m);
  if (m.overflow) return sched_error(s, NULL, "more than 256 marked loops (parallel, vectorize, bind)");
  if (!m.n) return true;
  for (int i = 0; i < m.n; i++)
    if (!owns_its_buffers(s, m.loops[i], private_scope_of(m.loops[i]))) return false;
  DepModel storage;
  const DepModel *now = sched_model_now(s, &storage);
  if (!now) return false;
  bool ok = true;
  for (int i = 0; i < m.n && ok; i++) ok = loop_independent(s, now, m.loops[i], private_scope_of(m.loops[i]));
  if (now == &storage) dep_model_free(&storage);
  return ok;
}
