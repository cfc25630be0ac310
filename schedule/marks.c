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
 * that breaks a mark is refused naming the step that set it.
 * And 3.: the marks nest as OpenMP allows (no parallel loop in a vectorized
 * one), since each is an OpenMP pragma in the emitted C. */
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

/* Pairs of times (of t) inside loop l (its place in the program: the
 * block positions before its counter, on the first side; equal prefixes
 * put the second there too) in one iteration of the loops around it and in
 * different iterations of it, the first earlier (lt) or later. */
static isl_map *across_iterations(isl_map *t, const DepLoop *l, bool lt) {
  for (int i = 0; i < l->dim; i++) {
    if (l->prefix[i] != INT64_MIN) t = isl_map_fix_si(t, isl_dim_in, (unsigned)i, (int)l->prefix[i]);
    t = isl_map_equate(t, isl_dim_in, i, isl_dim_out, i);
  }
  return lt ? isl_map_order_lt(t, isl_dim_in, l->dim, isl_dim_out, l->dim)
            : isl_map_order_gt(t, isl_dim_in, l->dim, isl_dim_out, l->dim);
}

typedef struct {
  isl_basic_map *across; /* across_iterations of l: one relation between times */
  int hit;               /* 1 a pair across iterations, -1 isl failed */
} Carry;

static isl_stat carry_piece(isl_basic_map *b, void *user) {
  Carry *c = user;
  isl_basic_map *x = isl_basic_map_intersect(b, isl_basic_map_copy(c->across)); /* one piece: no union */
  isl_bool empty = x ? isl_basic_map_is_empty(x) : isl_bool_error;
  isl_basic_map_free(x);
  if (empty == isl_bool_true) return isl_stat_ok;
  c->hit = empty == isl_bool_false ? 1 : -1;
  return isl_stat_error; /* stop */
}

/* Pair i is between leaves of `in`, one of them numbered from min_new on
 * (-1: any)? */
static bool pair_to_test(const Sched *s, int i, const bool *in, int min_new) {
  if (!sched_pair_within(s, i, in)) return false;
  return min_new < 0 || s->conflict_times.v[i].a >= min_new || s->conflict_times.v[i].b >= min_new;
}

/* 1 when some conflicting pair runs across iterations of l, 0 when none,
 * -1 when isl failed. Only pairs of the leaves inside the loop (`in`) can,
 * piece by piece, each met with the one relation across_iterations builds;
 * the pairs come in both directions, so one order is enough. */
static int carried(Sched *s, const DepModel *now, const ConflictPairs *t, const DepLoop *l, const bool *in, int min_new) {
  isl_space *time = isl_space_set_alloc(s->ctx, 0, (unsigned)now->time_dims);
  /* equalities, fixed positions and one order: a single basic map, whose
   * hull is itself (isl_map_intersect would compare every piece with it) */
  isl_map *rel = across_iterations(isl_map_universe(isl_space_map_from_set(time)), l, true);
  Carry c = {rel && isl_map_n_basic_map(rel) == 1 ? isl_map_simple_hull(isl_map_copy(rel)) : NULL, 0};
  isl_map_free(rel);
  if (!c.across) return -1;
  for (int i = 0; i < t->n && !c.hit; i++) {
    if (!pair_to_test(s, i, in, min_new)) continue;
    isl_map *tm = sched_pair_times(s, i);
    if (!tm || (isl_map_foreach_basic_map(tm, carry_piece, &c) < 0 && !c.hit)) c.hit = -1;
  }
  isl_basic_map_free(c.across);
  return c.hit;
}

/* The dependences (pairs of the model's instances, earlier -> later)
 * across iterations of l, for the message. */
static isl_union_map *carried_deps(Sched *s, const DepModel *now, const ConflictPairs *t, const DepLoop *l, const bool *in, int min_new) {
  isl_union_map *x = isl_union_map_empty_ctx(s->ctx);
  for (int i = 0; i < t->n; i++) {
    if (!pair_to_test(s, i, in, min_new)) continue;
    isl_map *tm = sched_pair_times(s, i);
    if (!tm) {
      isl_union_map_free(x);
      return NULL;
    }
    x = isl_union_map_add_map(x, across_iterations(isl_map_copy(tm), l, true));
    x = isl_union_map_add_map(x, across_iterations(isl_map_copy(tm), l, false));
  }
  isl_union_map *pairs = isl_union_map_apply_range(isl_union_map_copy(now->sched), x);
  pairs = isl_union_map_apply_range(pairs, isl_union_map_reverse(isl_union_map_copy(now->sched)));
  return isl_union_map_intersect(dep_memory(&s->before), pairs);
}

/* Is loop in the list of proofs, with the header it had when proven (its
 * proof may belong to an earlier IR: see proven_already)? */
static bool in_proofs(const Sched *s, const Stmt *loop) {
  for (int i = 0; i < s->nproven; i++)
    if (s->proven[i].loop == loop) return s->proven[i].var == loop->var && s->proven[i].step == loop->step &&
                                          ir_expr_same(s->proven[i].lo, loop->lo) && ir_expr_same(s->proven[i].hi, loop->hi);
  return false;
}

/* Proven on this very IR already (a step that changed no dependence, or
 * one that kept every instance's order and the loop's header)? */
static bool proven_already(Sched *s, const Stmt *loop) { return s->proven_gen == s->ir_gen && in_proofs(s, loop); }

static void proven(Sched *s, const Stmt *loop) {
  if (s->proven_gen != s->ir_gen) {
    s->proven_gen = s->ir_gen;
    s->nproven = 0;
  }
  if (s->nproven < 64) s->proven[s->nproven++] = (ProvenMark){loop, loop->var, loop->lo, loop->hi, loop->step};
}

/* A loop L carries nothing when no conflicting pair runs in one iteration
 * of the loops around it and in two of its own. A step that keeps the
 * order and the model re-expresses loops: split and fuse map the counters
 * around L one to one onto new ones (the same pairs are in one iteration
 * of them), unroll and loop_partition give L's instances to copies (each
 * copy holds a subset of the pairs; the copies are new loops, proven
 * anew), and a step inside L keeps each instance's counter of L. So only
 * a change of L's own header (kept in the proof) needs a new proof. */
void sched_marks_carry(Sched *s, unsigned gen_before) {
  if (s->proven_gen == gen_before) s->proven_gen = s->ir_gen;
}

static bool inherit_proof(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Sched *s = ctx;
  if (st->kind == ST_FOR && mark_words(st) && st->clone_of && !in_proofs(s, st) && in_proofs(s, st->clone_of))
    proven(s, st);
  return true;
}

/* unroll and loop_partition copy the loops in the body they copy: a copy
 * of a marked loop runs a subset of its iterations, for one value of the
 * copied loop's counter (one copy) or a part of its range (one piece), with
 * the same loops around it otherwise. The pairs in one iteration of the
 * loops around the copy and in two of its own were such pairs of the loop
 * copied: a proof of the loop holds for each copy. */
typedef struct {
  const Sched *s;
  bool present[64];
} Present;

static bool proof_present(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Present *p = ctx;
  for (int i = 0; st->kind == ST_FOR && i < p->s->nproven; i++) p->present[i] |= p->s->proven[i].loop == st;
  return true;
}

void sched_marks_after_copies(Sched *s, unsigned gen_before) {
  if (s->proven_gen != gen_before) return;
  s->proven_gen = s->ir_gen;
  ir_walk_stmts(s->k->body, inherit_proof, s);
  /* the loops copied (unroll drops them) leave the list, which holds 64 */
  Present p = {s, {false}};
  ir_walk_stmts(s->k->body, proof_present, &p);
  int kept = 0;
  for (int i = 0; i < s->nproven; i++)
    if (p.present[i]) s->proven[kept++] = s->proven[i];
  s->nproven = kept;
}

static bool forget_clone(Stmt *st, int depth, void *ctx) {
  (void)depth;
  (void)ctx;
  st->clone_of = NULL;
  return true;
}

void sched_forget_copies(Sched *s) { ir_walk_stmts(s->k->body, forget_clone, NULL); }

/* reorder permutes the headers of its chain and moves nothing else: a
 * loop around the chain or beside it keeps every instance's iteration of
 * it and of the loops around it, and a loop below the chain has the same
 * loops around it, in another order; "one iteration of the loops around
 * it and two of its own" is the same set of pairs. A loop of the chain
 * may have others around it now, and is proven anew. */
void sched_marks_after_reorder(Sched *s, unsigned gen_before) {
  if (s->proven_gen != gen_before) return;
  s->proven_gen = s->ir_gen;
  int kept = 0;
  for (int i = 0; i < s->nproven; i++) {
    bool moved = false;
    for (int j = 0; j < s->reorder.nchain; j++) moved |= s->proven[i].loop == s->reorder.chain[j];
    if (!moved) s->proven[kept++] = s->proven[i];
  }
  s->nproven = kept;
}

void sched_marks_after_new_statements(Sched *s, unsigned gen_before) { s->marks_partial = s->proven_gen == gen_before; }


/* min_new: only the pairs with a leaf numbered from it on (-1: all). */
static bool carries_nothing(Sched *s, const DepModel *now, const Stmt *loop, int min_new) {
  if (proven_already(s, loop)) return true;
  const DepLoop *l = dep_loop(now, loop);
  if (!l) return sched_error(s, NULL, "internal error: loop %s is not in the model", loop->name);
  if (l->dim < 0) return true; /* no statement inside: nothing is carried */
  const ConflictPairs *t = sched_conflict_times(s, now);
  bool *in = sched_leaves_in(s, loop);
  int c = t ? carried(s, now, t, l, in, min_new) : -1;
  if (c <= 0) free(in);
  if (c < 0) return sched_error(s, NULL, "internal error: dependence analysis failed");
  if (!c) {
    proven(s, loop);
    return true;
  }
  isl_union_map *hit = carried_deps(s, now, t, l, in, min_new);
  free(in);
  if (!hit || isl_union_map_is_empty(hit) != isl_bool_false) {
    isl_union_map_free(hit);
    return sched_error(s, NULL, "internal error: dependence analysis failed");
  }
  char buf[256], verb[320];
  const char *since = standing(s, loop, buf, sizeof buf);
  if (since) snprintf(verb, sizeof verb, "%s it would carry", since);
  else snprintf(verb, sizeof verb, "loop %s would run its iterations in any order, but it carries", loop->name);
  sched_explain(s, hit, verb);
  isl_union_map_free(hit);
  return false;
}

/* ---------------- entry points ---------------- */

static const char *private_scope_of(const Stmt *loop) { return loop->loop_kind == LOOP_VU ? "vu_vm" : NULL; }

bool sched_loop_is_parallel(Sched *s, const Stmt *loop) {
  if (!owns_its_buffers(s, loop, NULL)) return false;
  const DepModel *now = sched_model_now(s);
  return now && carries_nothing(s, now, loop, -1);
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

/* A statement the step made (no origin yet: ir/deps.c numbers it when the
 * next model is built)? */
static bool is_new_leaf(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if ((st->kind == ST_ASSIGN || st->kind == ST_DECL) && !st->orig) *found = true;
  return !*found;
}

static bool holds_new_statement(const Stmt *loop) {
  bool found = false;
  ir_walk_stmts(loop->body, is_new_leaf, &found);
  return found;
}

/* ---------------- 3. marks nest as OpenMP allows ---------------- */

/* "parallel(j), line 8" */
static const char *set_by(const Stmt *loop, char *buf, size_t n) {
  if (loop->mark_loc.line > 0) snprintf(buf, n, "%s, line %d", loop->mark_step, loop->mark_loc.line);
  else snprintf(buf, n, "%s", loop->mark_step ? loop->mark_step : "this step");
  return buf;
}

/* A parallel loop inside a vectorized one would be `omp parallel for`
 * inside `omp simd`, which OpenMP forbids (gcc -fopenmp refuses the file):
 * refused, whichever step made the nest. */
static bool omp_nesting_ok(Sched *s, const Marked *m) {
  for (int i = 0; i < m->n; i++) {
    const Stmt *simd = m->loops[i];
    if (simd->loop_kind != LOOP_VECTORIZE) continue;
    for (int j = 0; j < m->n; j++) {
      const Stmt *par = m->loops[j];
      if (par->loop_kind != LOOP_PARALLEL || !sched_encloses(simd, par)) continue;
      char a[160], b[160];
      return sched_error(s, NULL,
                         "loop %s is parallel (%s) inside loop %s, vectorized (%s): OpenMP allows no 'parallel for' "
                         "inside a 'simd' loop (gcc -fopenmp refuses the file); parallelize the outer loop and "
                         "vectorize the inner one",
                         par->name, set_by(par, a, sizeof a), simd->name, set_by(simd, b, sizeof b));
    }
  }
  return true;
}

bool sched_check_marks(Sched *s) {
  bool partial = s->marks_partial;
  s->marks_partial = false;
  Marked m = {.n = 0};
  ir_walk_stmts(s->k->body, collect_marked, &m);
  if (m.overflow) return sched_error(s, NULL, "more than 256 marked loops (parallel, vectorize, bind)");
  if (!omp_nesting_ok(s, &m)) return false;
  int unproven = 0, nstands = 0;
  bool only_new[256];
  const Stmt *stands[256];
  for (int i = 0; i < m.n; i++) {
    if (!owns_its_buffers(s, m.loops[i], private_scope_of(m.loops[i]))) return false;
    if (proven_already(s, m.loops[i])) continue;
    only_new[unproven] = partial && in_proofs(s, m.loops[i]); /* proven before the step */
    /* a pair to test has both statements in the loop, one of them new:
     * with no new statement inside, the proof stands, and no model is built */
    if (only_new[unproven] && !holds_new_statement(m.loops[i])) stands[nstands++] = m.loops[i];
    else m.loops[unproven++] = m.loops[i];
  }
  bool ok = true;
  if (unproven) {
    const DepModel *now = sched_model_now(s);
    ok = now != NULL;
    for (int i = 0; i < unproven && ok; i++) ok = carries_nothing(s, now, m.loops[i], only_new[i] ? s->first_new_leaf : -1);
  }
  /* after the model is built (that starts a new list of proofs) */
  for (int i = 0; ok && i < nstands; i++) proven(s, stands[i]);
  return ok;
}
