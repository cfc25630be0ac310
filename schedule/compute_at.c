/* compute_at(producer, loop) and reverse_compute_at(consumer, loop), as in
 * TVM TensorIR, for C loop nests.
 *
 * compute_at moves the producer's nest (a statement with the loops around it
 * that hold nothing else, or a loop) to the top of a later consumer loop's
 * body, narrowed to the instances that write the region of its array the
 * statements under that loop read in the current iteration (isl: reads with
 * the inner loops projected out, composed with the producer's writes).
 * When each producer instance then still runs exactly once, sched_legal
 * proves the step. When iterations need overlapping regions (stencil halos)
 * or leave some elements out, the producer is recomputed or skipped, which
 * sched_legal cannot judge (it compares orders of instances that run once):
 * recompute_ok checks it instead, with a dataflow argument (each iteration's
 * rerun gets every value it reads from within itself, and nothing it reads
 * from outside changes in between) over the model of the program before the
 * step. The model must be exact where that argument relies on it: moves into
 * loops under ifs it cannot describe are refused (movable).
 *
 * reverse_compute_at moves a consumer's nest to the end of an earlier
 * producer loop's body, narrowed to the consumer instances whose inputs
 * that iteration has just completed (each instance at the first iteration
 * after which no later one writes what it reads); sched_legal proves it. */
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "schedule/primitives.h"
#include "schedule/region.h"

/* ---------------- which nest moves ---------------- */

/* The statement to move for target: the outermost loop around it whose
 * bodies hold nothing else, or target itself. */
static Stmt *nest_root(Sched *s, Stmt *target) {
  Stmt *r = target;
  for (Stmt *p = sched_parent_loop(s, r); p && p->body->body == r && !r->next; p = sched_parent_loop(s, p)) r = p;
  return r;
}

typedef struct {
  const Stmt *a, *b;
  int pos, pa, pb;
} Order;

static bool order_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Order *o = ctx;
  if (st == o->a) o->pa = o->pos;
  if (st == o->b) o->pb = o->pos;
  o->pos++;
  return true;
}

/* Checks that the nest of `what` (named by arg) can move into loop L, which
 * must come after it (compute_at) or before it (reverse); sets *root. */
static bool movable(Sched *s, const SchedStep *st, Stmt *what, Stmt *L, bool into_later, Stmt **root) {
  const SchedArg *arg = &st->args[0];
  const char *n = what->name;
  if (what == L)
    return sched_error(s, &st->args[1], "%s (line %d) is the loop itself", n, what->loc.line);
  if (sched_encloses(what, L))
    return sched_error(s, &st->args[1], "loop %s (line %d) is inside %s (line %d)", L->name, L->loc.line, n, what->loc.line);
  if (sched_encloses(L, what))
    return sched_error(s, arg, "%s (line %d) is already inside loop %s (line %d)", n, what->loc.line, L->name, L->loc.line);
  /* Iterations of L would share the moved nest's arrays: checked for a
   * serial order only (sched_legal), so L must run in order. */
  AtFrame lf[AT_MAX_LOOPS];
  int nlf;
  if (!at_frames(s->k, L, lf, AT_MAX_LOOPS - 1, &nlf)) return sched_error(s, arg, "loop nest too deep");
  lf[nlf++] = (AtFrame){L, false};
  for (int i = 0; i < nlf; i++)
    if (lf[i].st->kind == ST_FOR && (lf[i].st->loop_kind == LOOP_PARALLEL || lf[i].st->loop_kind == LOOP_VECTORIZE ||
                                     lf[i].st->loop_kind == LOOP_VU))
      return sched_error(s, &st->args[1], "loop %s (line %d) is %s; move %s first, then mark the loop", lf[i].st->name, lf[i].st->loc.line,
                         lf[i].st->loop_kind == LOOP_PARALLEL ? "parallel" : lf[i].st->loop_kind == LOOP_VU ? "bound to the VU cores"
                         : "vectorized", n);
  /* The model of an iteration of L (region.c) is exact only when each if
   * around L has an affine condition: with an unmodelled one, the moved nest
   * would run only where the condition holds, which nothing proves. (The
   * nest itself sits under no if: checked below.) */
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  const Stmt *bad_if = NULL;
  for (int i = 0; i < nlf && !bad_if; i++) {
    if (lf[i].st->kind == ST_FOR) aff_push_loop(&a, lf[i].st);
    else if (!aff_push_cond(&a, lf[i].st->cond, lf[i].neg)) bad_if = lf[i].st;
  }
  aff_free(&a);
  if (bad_if)
    return sched_error(s, &st->args[1], "loop %s (line %d) is inside an if (line %d) whose condition is not affine; %s would run only when it holds, which cannot be checked",
                       L->name, L->loc.line, bad_if->loc.line, n);
  Stmt *r = nest_root(s, what);
  AtFrame f[AT_MAX_LOOPS];
  int nf;
  if (!at_frames(s->k, r, f, AT_MAX_LOOPS, &nf)) return sched_error(s, arg, "loop nest too deep");
  for (int i = 0; i < nf; i++)
    if (f[i].st->kind == ST_IF)
      return sched_error(s, arg, "%s (line %d) sits inside an if (line %d); only a nest outside any if can be moved",
                         n, what->loc.line, f[i].st->loc.line);
  if (nf && !sched_encloses(f[nf - 1].st, L)) {
    const Stmt *p = f[nf - 1].st;
    return sched_error(s, arg, "%s (line %d) shares loop %s (line %d) with other statements, and %s does not enclose loop %s; split it off with fission first",
                       n, what->loc.line, p->name, p->loc.line, p->name, L->name);
  }
  if (sched_encloses(r, L))
    return sched_error(s, arg, "loop %s (line %d) is inside the nest of %s (line %d)", L->name, L->loc.line, n, r->loc.line);
  Order o = {r, L, 0, -1, -1};
  ir_walk_stmts(s->k->body, order_visit, &o);
  if (into_later && o.pb < o.pa)
    return sched_error(s, arg, "loop %s (line %d) runs before %s (line %d); compute_at moves a producer into a later consumer's loop (reverse_compute_at moves a consumer into an earlier producer's loop)",
                       L->name, L->loc.line, n, what->loc.line);
  if (!into_later && o.pb > o.pa)
    return sched_error(s, arg, "loop %s (line %d) runs after %s (line %d); reverse_compute_at moves a consumer into an earlier producer's loop (compute_at moves a producer into a later consumer's loop)",
                       L->name, L->loc.line, n, what->loc.line);
  *root = r;
  return true;
}

/* ---------------- isl helpers ---------------- */

static isl_stat first_map(isl_map *m, void *user) {
  isl_map **out = user;
  if (!*out) *out = m;
  else isl_map_free(m);
  return isl_stat_ok;
}

/* The leaf of some pair of u (taken): its input tuple. */
static const Stmt *some_leaf(const AtRegion *r, isl_union_map *u) {
  isl_map *m = NULL;
  isl_union_map_foreach_map(u, first_map, &m);
  const Stmt *st = m ? at_leaf_stmt(r, isl_map_get_tuple_name(m, isl_dim_in)) : NULL;
  isl_map_free(m);
  isl_union_map_free(u);
  return st;
}

/* 1 when u is empty, 0 when not, -1 when isl failed. */
static int empty3(isl_union_map *u) {
  isl_bool e = isl_union_map_is_empty(u);
  return e == isl_bool_true ? 1 : e == isl_bool_false ? 0 : -1;
}

static bool isl_failed(Sched *s, const char *what) {
  return sched_error(s, NULL, "internal error: isl failed while checking %s", what);
}

/* ---------------- the producer's array ---------------- */

enum { MAX_LOCALS = 256 };

/* Variables and arrays declared inside the moved nest: its own. */
typedef struct {
  const Var *vars[MAX_LOCALS];
  const Buffer *bufs[MAX_LOCALS];
  int nv, nb;
  bool over; /* more than MAX_LOCALS of either */
} Locals;

static bool locals_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Locals *l = ctx;
  if (st->kind == ST_DECL && st->var) {
    if (l->nv < MAX_LOCALS) l->vars[l->nv++] = st->var;
    else l->over = true;
  }
  if (st->kind == ST_DECL && st->buf) {
    if (l->nb < MAX_LOCALS) l->bufs[l->nb++] = st->buf;
    else l->over = true;
  }
  return true;
}

static bool local_var(const Locals *l, const Var *v) {
  for (int i = 0; i < l->nv; i++)
    if (l->vars[i] == v) return true;
  return false;
}

static bool local_buf(const Locals *l, const Buffer *b) {
  for (int i = 0; i < l->nb; i++)
    if (l->bufs[i] == b) return true;
  return false;
}

/* A model tuple name ("V3", "B2") of a local of the nest. */
static bool local_tuple(const Locals *l, const char *t) {
  int id = atoi(t + 1);
  for (int i = 0; t[0] == 'V' && i < l->nv; i++)
    if (l->vars[i]->id == id) return true;
  for (int i = 0; t[0] == 'B' && i < l->nb; i++)
    if (l->bufs[i]->id == id) return true;
  return false;
}

static void subtree_walk(Stmt *root, StmtVisitor fn, void *ctx) {
  Stmt *next = root->next;
  root->next = NULL;
  ir_walk_stmts(root, fn, ctx);
  root->next = next;
}

/* ---------------- declarations ---------------- */

typedef struct {
  const Stmt *root;
  const Var *v;
  const Buffer *b;
  const Stmt *user;
} Use;

static bool use_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  if (u->user || st == u->root || sched_encloses(u->root, st)) return !u->user;
  if (ir_stmt_uses(st, u->v, u->b)) u->user = st;
  return !u->user;
}

/* A local declared in the moved nest must not be used outside it: its
 * declaration would move out of the users' scope. */
static bool no_escape(Sched *s, const SchedArg *arg, Stmt *root) {
  Locals *own = calloc(1, sizeof *own);
  subtree_walk(root, locals_visit, own);
  if (own->over) {
    free(own);
    return sched_error(s, arg, "%s (line %d) declares too many variables to check", root->name ? root->name : "the nest", root->loc.line);
  }
  Use u = {root, NULL, NULL, NULL};
  const char *name = NULL;
  for (int i = 0; i < own->nv + own->nb && !u.user; i++) {
    u.v = i < own->nv ? own->vars[i] : NULL;
    u.b = i < own->nv ? NULL : own->bufs[i - own->nv];
    name = u.v ? u.v->name : u.b->name;
    ir_walk_stmts(s->k->body, use_visit, &u);
  }
  free(own);
  if (!u.user) return true;
  return sched_error(s, arg, "%s (line %d) declares %s, which %s (line %d) uses outside the moved nest", root->name ? root->name : "the nest",
                     root->loc.line, name, u.user->name ? u.user->name : "a statement", u.user->loc.line);
}

typedef struct {
  const Locals *loc;
  Buffer *T;
  const Stmt *other; /* writes something else besides T */
  const char *other_name;
} Outputs;

static bool outputs_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Outputs *o = ctx;
  if (st->kind != ST_ASSIGN || o->other) return true;
  if (st->lhs->kind == EX_LOAD) {
    if (local_buf(o->loc, st->lhs->buf)) return true;
    if (!o->T) o->T = st->lhs->buf;
    else if (st->lhs->buf != o->T) o->other = st, o->other_name = st->lhs->buf->name;
  } else if (st->lhs->kind == EX_VAR && !local_var(o->loc, st->lhs->var)) {
    o->other = st;
    o->other_name = st->lhs->var->name;
  }
  return true;
}

typedef struct {
  const Stmt *root;
  const Buffer *T;
  const Stmt *found;
} Writer;

static bool writer_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Writer *w = ctx;
  if (w->found || st == w->root || sched_encloses(w->root, st)) return true;
  if ((st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == w->T) ||
      (st->kind == ST_DECL && st->buf == w->T && st->ninit))
    w->found = st;
  return true;
}

/* The one array the producer computes (T): written only by the producer. */
static bool producer_array(Sched *s, const SchedStep *st, Stmt *p, Stmt *root, Locals *loc, Buffer **T) {
  const SchedArg *arg = &st->args[0];
  subtree_walk(root, locals_visit, loc);
  if (loc->over) return sched_error(s, arg, "%s (line %d) declares too many variables to check", p->name, p->loc.line);
  Outputs o = {loc, NULL, NULL, NULL};
  subtree_walk(root, outputs_visit, &o);
  if (!o.T)
    return sched_error(s, arg, "%s (line %d) writes no array; compute_at moves the producer of an array that the loop reads", p->name, p->loc.line);
  if (o.other)
    return sched_error(s, arg, "%s (line %d) writes %s and also %s (line %d); compute_at moves the producer of one array",
                       p->name, p->loc.line, o.T->name, o.other_name, o.other->loc.line);
  Writer w = {root, o.T, NULL};
  ir_walk_stmts(s->k->body, writer_visit, &w);
  if (w.found)
    return sched_error(s, arg, "%s is also written by %s (line %d); compute_at needs %s to be its only writer",
                       o.T->name, w.found->name ? w.found->name : "a declaration", w.found->loc.line, p->name);
  *T = o.T;
  return true;
}

/* ---------------- recomputation ---------------- */

typedef struct {
  char names[64][24];
  int n;
  bool over;
} Tuples;

static isl_stat range_name(isl_map *m, void *user) {
  Tuples *t = user;
  const char *n = isl_map_get_tuple_name(m, isl_dim_out);
  bool seen = !n;
  for (int i = 0; !seen && i < t->n; i++) seen = !strcmp(t->names[i], n);
  if (!seen && t->n == 64) t->over = true;
  else if (!seen) snprintf(t->names[t->n++], sizeof t->names[0], "%s", n);
  isl_map_free(m);
  return isl_stat_ok;
}

static isl_union_map *within_extent(Sched *s, isl_union_map *rd, const Buffer *T, const char *tn);

/* The largest leaf number (Stmt.inst) in st's subtree, -1 if none. */
typedef struct {
  int max;
} MaxLeaf;

static bool max_leaf_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  MaxLeaf *m = ctx;
  if ((st->kind == ST_ASSIGN || st->kind == ST_DECL) && st->inst > m->max) m->max = st->inst;
  return true;
}

/* Which leaves of the nest write exactly what the model says they write (a
 * must-write for isl's dataflow): not under an if whose condition is not
 * affine (the model keeps them as if they always ran) and with affine
 * indices (the model widens the others to the whole dimension). */
typedef struct {
  AffCtx a;
  bool *exact; /* by Stmt.inst */
  int nleaves;
} Exact;

static void exact_list(Exact *x, const Stmt *st, bool ok);

static void exact_stmt(Exact *x, const Stmt *st, bool ok) {
  switch (st->kind) {
  case ST_BLOCK: exact_list(x, st->body, ok); break;
  case ST_FOR:
    aff_push_loop(&x->a, st);
    exact_list(x, st->body->body, ok);
    aff_pop_loop(&x->a);
    break;
  case ST_IF:
    for (int b = 0; b < 2; b++) {
      const Stmt *body = b ? st->else_s : st->then_s;
      if (!body) continue;
      bool pushed = aff_push_cond(&x->a, st->cond, b == 1);
      exact_list(x, body->body, ok && pushed);
      if (pushed) aff_pop_cond(&x->a);
    }
    break;
  case ST_ASSIGN:
  case ST_DECL: {
    bool e = ok;
    if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD)
      for (int i = 0; e && i < st->lhs->buf->ndim; i++) {
        char *t = aff_text(&x->a, st->lhs->idx[i]);
        e = t != NULL;
        free(t);
      }
    if (st->inst >= 0 && st->inst < x->nleaves) x->exact[st->inst] = e;
    break;
  }
  default: break;
  }
}

static void exact_list(Exact *x, const Stmt *st, bool ok) {
  for (; st; st = st->next) exact_stmt(x, st, ok);
}

/* ins -> (must, may) writes of the nest's leaves to tuple tn. */
static void nest_writes(const AtRegion *r, const bool *exact, const char *tn, isl_union_map **must, isl_union_map **may) {
  const DepModel *m = &r->s->before;
  int *ex = malloc(sizeof(int) * (size_t)(r->nmove + 1)), *in = malloc(sizeof(int) * (size_t)(r->nmove + 1)), nex = 0, nin = 0;
  for (int i = 0; i < r->nmove; i++) {
    if (exact[r->move[i]]) ex[nex++] = r->move[i];
    else in[nin++] = r->move[i];
  }
  *must = at_only_tuple(isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, ex, nex)), tn);
  *may = at_only_tuple(isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, in, nin)), tn);
  free(ex);
  free(in);
}

/* The name of a model tuple: T, or a local of the nest. */
static const char *tuple_var_name(const Locals *loc, const Buffer *T, const char *tn, const char *x) {
  if (!strcmp(x, tn)) return T->name;
  int id = atoi(x + 1);
  for (int i = 0; x[0] == 'V' && i < loc->nv; i++)
    if (loc->vars[i]->id == id) return loc->vars[i]->name;
  for (int i = 0; x[0] == 'B' && i < loc->nb; i++)
    if (loc->bufs[i]->id == id) return loc->bufs[i]->name;
  return x;
}

/* Where iterations of L need overlapping regions of T (the producer runs
 * again for them) or no iteration needs some element (it is skipped), the
 * new program is right when (checked here, not by sched_legal):
 *   - nothing but the statements under L reads T, and T is a local when
 *     elements are skipped (a parameter's elements are all results);
 *   - what the producer reads besides T and its own locals is not written
 *     between its old place and the end of the loop around L that it does
 *     not share (the last point where a rerun can happen);
 *   - the instances an iteration [o] runs, box([o]), form a closed rerun: for
 *     every read of T or of a local of the nest by an instance of box([o]),
 *     and for every read of T under L in iteration [o], each write that can
 *     supply the value in the program as written (isl dataflow: the last
 *     writer, or every possible one when the model of a write is inexact) is
 *     an instance of box([o]), and some write always precedes the read. By
 *     induction over box([o]) in its (unchanged) order, every rerun instance
 *     then computes the value it computed before, and every read under L sees
 *     the value it saw before. A value carried in from another iteration of
 *     the shared loops (an accumulator across them) or from an instance the
 *     box leaves out (a running sum in a scalar) is refused;
 *   - when T is a parameter and instances run more than once, each box
 *     writes only complete elements: with every write of them (in that
 *     iteration of the shared loops), so the last box to touch an element
 *     leaves its final value.
 * T is written by the producer only (checked before). */
static bool recompute_ok(Sched *s, AtRegion *r, const Stmt *p, const Buffer *T, const char *tn, const Locals *loc,
                         isl_union_map *rd, isl_union_map *wt, isl_union_map *box, bool once, bool all) {
  const DepModel *m = &s->before;
  const char *pn = p->name, *ln = r->target->name;
  char why[512];
  if (!once)
    snprintf(why, sizeof why, "iterations of loop %s read overlapping parts of %s, so %s would compute some elements more than once", ln, T->name, pn);
  else
    snprintf(why, sizeof why, "no iteration of loop %s reads some elements of %s, so %s would not compute them", ln, T->name, pn);

  isl_union_set *ours = isl_union_set_union(at_leaves(r, r->at, r->nat), at_leaves(r, r->move, r->nmove));
  isl_union_map *others = at_only_tuple(isl_union_map_subtract_domain(isl_union_map_copy(m->reads), ours), tn);
  int e = empty3(others);
  if (e < 0) {
    isl_union_map_free(others);
    return isl_failed(s, "the readers of T");
  }
  if (!e) {
    const Stmt *o = some_leaf(r, others);
    return sched_error(s, NULL, "%s; that is only correct when nothing else reads %s, but %s (line %d) does", why, T->name,
                       o && o->name ? o->name : "a statement", o ? o->loc.line : 0);
  }
  isl_union_map_free(others);
  if (!all && T->role != ROLE_LOCAL)
    return sched_error(s, NULL, "%s; %s is a parameter of %s, so every element %s writes must still be computed", why, T->name,
                       s->k->name, pn);

  /* what the producer reads, besides T and its own locals */
  isl_union_map *rp = isl_union_map_intersect_domain(isl_union_map_copy(m->reads), at_leaves(r, r->move, r->nmove));
  Tuples in = {.n = 0};
  isl_union_map_foreach_map(rp, range_name, &in);
  if (in.over) {
    isl_union_map_free(rp);
    return sched_error(s, NULL, "%s; that needs %s to be pure, but it reads too many variables to check", why, pn);
  }
  /* Writers that can run between a producer instance's old place and a
   * rerun: the statements after the producer up to the end of the first
   * loop around L that does not enclose the producer (later iterations of
   * the shared loops rerun their own instances). */
  int last = 0;
  for (int i = 0; i < r->nmove; i++)
    if (r->move[i] > last) last = r->move[i];
  MaxLeaf ml = {-1};
  subtree_walk((Stmt *)r->oloops[r->nsh], max_leaf_visit, &ml);
  int *after = malloc(sizeof(int) * (size_t)(m->nleaves + 1)), nafter = 0;
  for (int i = last + 1; i <= ml.max && i < m->nleaves; i++) after[nafter++] = i;
  isl_union_map *later = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, after, nafter));
  free(after);
  for (int i = 0; i < in.n; i++) {
    const char *x = in.names[i];
    if (!strcmp(x, tn) || local_tuple(loc, x)) continue;
    isl_union_map *w = at_only_tuple(isl_union_map_copy(later), x);
    e = empty3(w);
    if (e < 0) {
      isl_union_map_free(w);
      isl_union_map_free(later);
      isl_union_map_free(rp);
      return isl_failed(s, "the inputs of the producer");
    }
    if (!e) {
      const Stmt *o = some_leaf(r, w);
      const char *what = x;
      if (o && o->kind == ST_ASSIGN) what = o->lhs->kind == EX_LOAD ? o->lhs->buf->name : o->lhs->var->name;
      else if (o && o->kind == ST_DECL) what = o->var ? o->var->name : o->buf->name;
      isl_union_map_free(later);
      isl_union_map_free(rp);
      return sched_error(s, NULL, "%s; that needs %s to be pure, but it reads %s, which %s (line %d) writes after it", why, pn, what,
                         o && o->name ? o->name : "a declaration", o ? o->loc.line : 0);
    }
    isl_union_map_free(w);
  }
  isl_union_map_free(later);

  /* reads of T: only what the same instance writes */
  isl_union_map *rt = at_only_tuple(isl_union_map_copy(rp), tn);
  isl_union_map *bad = isl_union_map_subtract(rt, isl_union_map_copy(wt));
  e = empty3(bad);
  if (e < 0) {
    isl_union_map_free(bad);
    isl_union_map_free(rp);
    return isl_failed(s, "the reads of T");
  }
  if (!e) {
    const Stmt *o = some_leaf(r, bad);
    isl_union_map_free(rp);
    return sched_error(s, NULL, "%s; that needs %s to be pure, but %s (line %d) reads elements of %s that it does not write itself", why, pn,
                       o && o->name ? o->name : "a statement", o ? o->loc.line : 0, T->name);
  }
  isl_union_map_free(bad);

  /* the rerun is closed: dataflow of T and of the nest's locals */
  Exact ex;
  ex.nleaves = m->nleaves;
  ex.exact = calloc((size_t)m->nleaves + 1, sizeof(bool));
  aff_init(&ex.a, s->ctx, s->k);
  AtFrame rf[AT_MAX_LOOPS];
  int nrf = 0;
  bool ok = at_frames(s->k, r->root, rf, AT_MAX_LOOPS, &nrf);
  for (int i = 0; ok && i < nrf; i++)
    if (rf[i].st->kind == ST_FOR) aff_push_loop(&ex.a, rf[i].st);
  if (ok) exact_stmt(&ex, r->root, true);
  aff_free(&ex.a);
  if (!ok) {
    free(ex.exact);
    isl_union_map_free(rp);
    return sched_error(s, NULL, "loop nest too deep");
  }
  isl_union_map *at_iter = at_by_iter(r, m, r->at, r->nat);
  if (!at_iter) {
    free(ex.exact);
    isl_union_map_free(rp);
    return sched_error(s, NULL, "internal error: loop %s is not in the model", ln);
  }
  /* [o] -> the instances whose reads must be served within box([o]) */
  isl_union_map *users = isl_union_map_union(isl_union_map_copy(box), at_iter);
  isl_union_map *rc = at_only_tuple(isl_union_map_intersect_domain(isl_union_map_copy(m->reads), at_leaves(r, r->at, r->nat)), tn);
  for (int i = 0; ok && i < in.n; i++) {
    const char *x = in.names[i];
    bool isT = !strcmp(x, tn);
    if (!isT && !local_tuple(loc, x)) continue;
    isl_union_map *sink = at_only_tuple(isl_union_map_copy(rp), x);
    /* reads the model over-approximates can fall outside T (the bounds
     * check proved the real ones inside) */
    if (isT) sink = within_extent(s, isl_union_map_union(sink, isl_union_map_copy(rc)), T, tn);
    isl_union_map *must, *may;
    nest_writes(r, ex.exact, x, &must, &may);
    isl_union_access_info *ai = isl_union_access_info_from_sink(sink);
    ai = isl_union_access_info_set_must_source(ai, must);
    ai = isl_union_access_info_set_may_source(ai, may);
    ai = isl_union_access_info_set_schedule_map(ai, isl_union_map_copy(m->sched));
    isl_union_flow *fl = isl_union_access_info_compute_flow(ai);
    isl_union_map *dep = fl ? isl_union_flow_get_may_dependence(fl) : NULL;
    isl_union_map *nos = fl ? isl_union_flow_get_may_no_source(fl) : NULL;
    isl_union_flow_free(fl);
    const char *vn = tuple_var_name(loc, T, tn, x);
    /* reads (by instances that run in some iteration) with no write before */
    isl_union_map *orphan = nos ? isl_union_map_intersect_range(isl_union_map_copy(users), isl_union_map_domain(nos)) : NULL;
    /* [o] -> writers serving the reads in [o], outside box([o]) */
    isl_union_map *outside = dep ? isl_union_map_subtract(isl_union_map_apply_range(isl_union_map_copy(users), isl_union_map_reverse(dep)),
                                                          isl_union_map_copy(box))
                                 : NULL;
    int e1 = orphan ? empty3(orphan) : -1, e2 = outside ? empty3(outside) : -1;
    if (e1 < 0 || e2 < 0) {
      ok = isl_failed(s, "the dataflow of the producer");
    } else if (!e1) {
      const Stmt *o = some_leaf(r, isl_union_map_reverse(isl_union_map_copy(orphan)));
      ok = sched_error(s, NULL, "%s; that needs %s to be pure, but %s (line %d) can read %s before %s writes it", why, pn,
                       o && o->name ? o->name : "a statement", o ? o->loc.line : 0, vn, pn);
    } else if (!e2) {
      const Stmt *o = some_leaf(r, isl_union_map_reverse(isl_union_map_copy(outside)));
      ok = sched_error(s, NULL, "%s; that needs %s to be pure, but values of %s flow into a rerun from instances it does not run (such as %s, line %d)",
                       why, pn, vn, o && o->name ? o->name : "a statement", o ? o->loc.line : 0);
    }
    isl_union_map_free(orphan);
    isl_union_map_free(outside);
  }
  free(ex.exact);
  isl_union_map_free(rc);
  isl_union_map_free(users);
  isl_union_map_free(rp);
  if (!ok) return false;

  /* every read under L is written earlier in the same iteration */
  isl_union_map *written = isl_union_map_apply_range(isl_union_map_copy(box), isl_union_map_copy(wt));
  isl_bool covers = isl_union_map_is_subset(rd, written);
  if (covers < 0) {
    isl_union_map_free(written);
    return isl_failed(s, "what loop reads");
  }
  if (!covers) {
    isl_union_map_free(written);
    return sched_error(s, NULL, "%s, and loop %s also reads elements of %s that %s never writes", why, ln, T->name, pn);
  }
  /* a parameter's final values: each box computes whole elements */
  if (!once && T->role != ROLE_LOCAL) {
    isl_union_map *allw = isl_union_map_apply_range(written, isl_union_map_reverse(isl_union_map_copy(wt)));
    allw = isl_union_map_intersect(allw, at_shared(r, r->move, r->nmove));
    isl_bool closed = isl_union_map_is_subset(allw, box);
    isl_union_map_free(allw);
    if (closed < 0) return isl_failed(s, "the elements each iteration computes");
    if (!closed)
      return sched_error(s, NULL, "%s; %s is a parameter of %s, so an iteration of loop %s that writes an element must run all of %s's writes of it, but some runs only part of them",
                         why, T->name, s->k->name, ln, pn);
    return true;
  }
  isl_union_map_free(written);
  return true;
}

/* ---------------- names at the new place ---------------- */

enum { MAX_NAMES = 1024 };

/* The variables and arrays declared around the target loop's body (the
 * emitted C resolves names, not Var identities). */
typedef struct {
  const char *name[MAX_NAMES];
  const void *obj[MAX_NAMES];
  int n;
  bool over;
} Names;

static void add_name(Names *nm, const char *name, const void *obj) {
  if (nm->n < MAX_NAMES) {
    nm->name[nm->n] = name;
    nm->obj[nm->n++] = obj;
  } else {
    nm->over = true;
  }
}

/* What `name` means in the target loop's body: the innermost declaration
 * (scope_rec adds the innermost scopes first). */
static const void *name_obj(const Names *nm, const char *name) {
  for (int i = 0; i < nm->n; i++)
    if (!strcmp(nm->name[i], name)) return nm->obj[i];
  return NULL;
}

static void add_decl(Names *nm, const Stmt *d) {
  if (d->kind == ST_DECL) add_name(nm, d->var ? d->var->name : d->buf->name, d->var ? (const void *)d->var : (const void *)d->buf);
}

/* Names declared around target's body, innermost scope first: target's
 * counter and all of its body's declarations (the nest goes first there, but
 * a clash within one block is refused by C too), then in each enclosing
 * scope the declarations before the statement that holds target. */
static bool scope_rec(const Stmt *list, const Stmt *target, Names *nm) {
  const Stmt *holder = NULL;
  for (const Stmt *c = list; c && !holder; c = c->next) {
    if (c == target) {
      add_name(nm, c->var->name, c->var);
      for (const Stmt *d = c->body->body; d; d = d->next) add_decl(nm, d);
      holder = c;
      break;
    }
    switch (c->kind) {
    case ST_BLOCK:
      if (scope_rec(c->body, target, nm)) holder = c;
      break;
    case ST_FOR:
      if (scope_rec(c->body->body, target, nm)) {
        add_name(nm, c->var->name, c->var);
        holder = c;
      }
      break;
    case ST_IF:
      if (scope_rec(c->then_s->body, target, nm) || (c->else_s && scope_rec(c->else_s->body, target, nm))) holder = c;
      break;
    default: break;
    }
  }
  if (holder)
    for (const Stmt *c = list; c != holder; c = c->next) add_decl(nm, c);
  return holder != NULL;
}

typedef struct {
  Sched *s;
  const Names *nm;
} Rename;

/* Counters and locals of the moved nest that another variable of the new
 * place would hide (or hide) get fresh names: x -> x_1. */
static bool rename_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Rename *rn = ctx;
  const void *o;
  if (st->kind == ST_FOR || (st->kind == ST_DECL && st->var)) {
    if ((o = name_obj(rn->nm, st->var->name)) && o != st->var) st->var->name = sched_fresh_name(rn->s, st->var->name);
  } else if (st->kind == ST_DECL && st->buf && (o = name_obj(rn->nm, st->buf->name)) && o != st->buf) {
    st->buf->name = sched_fresh_name(rn->s, st->buf->name);
  }
  return true;
}

/* Before root moves under L: fresh names for the nest's own counters and
 * locals where names would clash. A use of an outer variable that a
 * declaration around L would hide is refused by the name check after every
 * step (ir_check_names), like any other capture. */
static bool fix_names(Sched *s, AtRegion *r) {
  Stmt *root = r->root, *L = r->target;
  Names *nm = calloc(1, sizeof *nm);
  scope_rec(s->k->body->body, L, nm);
  bool ok = true;
  if (nm->over) ok = sched_error(s, NULL, "too many declarations around loop %s to check their names", L->name);
  Rename rn = {s, nm};
  if (ok) subtree_walk(root, rename_visit, &rn);
  free(nm);
  return ok;
}

/* ---------------- the primitives ---------------- */

/* Unlinks root and puts `placed` (root, maybe under an if) at the top
 * (first) or the end of L's body. */
static void move_into(Sched *s, Stmt *root, Stmt *placed, Stmt *L, bool first) {
  Stmt **link = sched_link(s, root, NULL);
  *link = root->next;
  root->next = NULL;
  if (first) {
    placed->next = L->body->body;
    L->body->body = placed;
  } else {
    Stmt **tail = &L->body->body;
    while (*tail) tail = &(*tail)->next;
    *tail = placed;
  }
}

/* [o] -> instance of the moved leaves in the rewritten program. */
static isl_union_map *moved_box(Sched *s, AtRegion *r) {
  DepModel after;
  isl_union_map *box = NULL;
  if (dep_model_build(&after, s->ctx, s->k, false)) box = at_by_iter(r, &after, r->move, r->nmove);
  if (!box) sched_error(s, NULL, "internal error: cannot model the rewritten loops: %s", after.error);
  dep_model_free(&after);
  return box;
}

/* Reads the model over-approximates (under ?: and && it counts both sides)
 * can fall outside T; the bounds check proved the real ones inside. An
 * extent in the sizes bounds by the sizes, the first dimensions of every
 * instance and every [o] (ir/deps.c, region.c); one isl cannot write
 * (n * m) bounds nothing, which only keeps more reads. */
typedef struct {
  const Kernel *k;
  const Buffer *T;
  const char *tn;
  char *ext[IR_MAX_DIMS]; /* isl text of each extent over the sizes c<id>, or NULL */
  isl_union_map *out;
} Within;

static isl_stat within_map(isl_map *m, void *user) {
  Within *w = user;
  int nin = (int)isl_map_dim(m, isl_dim_in), nout = (int)isl_map_dim(m, isl_dim_out), ndecl = nout - w->T->ndim;
  const char *dn = isl_map_get_tuple_name(m, isl_dim_in);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{ %s[", dn ? dn : "");
  for (int i = 0; i < nin; i++)
    if (i < w->k->nsizes) sb_printf(&sb, "%sc%d", i ? ", " : "", w->k->sizes[i]->id);
    else sb_printf(&sb, "%sd%d", i ? ", " : "", i);
  sb_printf(&sb, "] -> %s[", w->tn);
  for (int i = 0; i < nout; i++) sb_printf(&sb, "%se%d", i ? ", " : "", i);
  sb_puts(&sb, "] : 0 = 0");
  for (int i = 0; i < w->T->ndim; i++)
    if (w->ext[i]) sb_printf(&sb, " and 0 <= e%d < %s", ndecl + i, w->ext[i]);
    else sb_printf(&sb, " and 0 <= e%d", ndecl + i);
  sb_puts(&sb, " }");
  isl_map *within = isl_map_read_from_str(isl_map_get_ctx(m), sb.data);
  sb_free(&sb);
  w->out = isl_union_map_add_map(w->out, within ? isl_map_intersect(m, within) : m);
  return isl_stat_ok;
}

static isl_union_map *within_extent(Sched *s, isl_union_map *rd, const Buffer *T, const char *tn) {
  Within w = {.k = s->k, .T = T, .tn = tn, .out = isl_union_map_empty(isl_union_map_get_space(rd))};
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  char why[300];
  bool sizes = !s->k->nsizes || aff_push_sizes(&a, why, sizeof why);
  for (int i = 0; i < T->ndim; i++) {
    if (!T->extent[i]) w.ext[i] = strdup(arena_printf(s->a, "%lld", (long long)T->shape[i]));
    else if (sizes) w.ext[i] = aff_text(&a, T->extent[i]);
  }
  aff_free(&a);
  isl_union_map_foreach_map(rd, within_map, &w);
  isl_union_map_free(rd);
  for (int i = 0; i < T->ndim; i++) free(w.ext[i]);
  return w.out;
}

static bool compute_at_region(Sched *s, const SchedStep *st, AtRegion *r, Stmt *p, Buffer *T, const Locals *loc) {
  const DepModel *m = &s->before;
  Stmt *L = r->target;
  char tn[24];
  snprintf(tn, sizeof tn, "B%d", T->id);
  isl_union_map *at_iter = at_by_iter(r, m, r->at, r->nat);
  if (!at_iter) return sched_error(s, NULL, "internal error: loop %s is not in the model", L->name);
  /* rd: [o] -> the elements of T the statements under L read */
  isl_union_map *reads = isl_union_map_intersect_domain(isl_union_map_copy(m->reads), at_leaves(r, r->at, r->nat));
  isl_union_map *rd = isl_union_map_apply_domain(at_only_tuple(reads, tn), isl_union_map_reverse(at_iter));
  rd = within_extent(s, rd, T, tn);
  int e = empty3(rd);
  if (e) {
    isl_union_map_free(rd);
    if (e < 0) return isl_failed(s, "what the loop reads");
    return sched_error(s, &st->args[1], "nothing under loop %s reads %s, which %s writes", L->name, T->name, p->name);
  }
  /* need: [o] -> the producer instances writing those elements */
  isl_union_map *writes = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, r->move, r->nmove));
  isl_union_map *wt = at_only_tuple(writes, tn);
  isl_union_map *need = isl_union_map_apply_range(isl_union_map_copy(rd), isl_union_map_reverse(isl_union_map_copy(wt)));
  need = isl_union_map_intersect(need, at_shared(r, r->move, r->nmove));
  bool ok = true;
  Stmt *placed = NULL;
  isl_union_map *box = NULL;
  e = empty3(need);
  if (e < 0)
    ok = isl_failed(s, "which instances the loop needs");
  else if (e)
    ok = sched_error(s, &st->args[1], "loop %s reads no element of %s that %s writes", L->name, T->name, p->name);
  if (ok) ok = at_narrow(r, need, &placed) && fix_names(s, r);
  if (ok) {
    move_into(s, r->root, placed, L, true);
    box = moved_box(s, r);
    ok = box != NULL;
  }
  if (ok) {
    isl_union_set *pdom = isl_union_set_intersect(isl_union_set_copy(m->domain), at_leaves(r, r->move, r->nmove));
    isl_union_set *ran = isl_union_map_range(isl_union_map_copy(box));
    bool inside = isl_union_set_is_subset(ran, pdom) == isl_bool_true;
    bool all = isl_union_set_is_equal(ran, pdom) == isl_bool_true;
    bool once = isl_union_map_is_injective(box) == isl_bool_true;
    isl_union_set_free(ran);
    isl_union_set_free(pdom);
    if (!inside)
      ok = sched_error(s, NULL, "cannot narrow the loops of %s to what loop %s needs: they would run instances %s does not have",
                       p->name, L->name, p->name);
    else if (isl_union_map_is_subset(need, box) != isl_bool_true)
      ok = sched_error(s, NULL, "internal error: the narrowed loops of %s miss instances loop %s needs", p->name, L->name);
    else if (once && all)
      ok = sched_legal(s);
    else
      ok = recompute_ok(s, r, p, T, tn, loc, rd, wt, box, once, all);
  }
  isl_union_map_free(box);
  isl_union_map_free(need);
  isl_union_map_free(wt);
  isl_union_map_free(rd);
  return ok;
}

bool prim_compute_at(Sched *s, const SchedStep *st) {
  Stmt *p = sched_target(s, &st->args[0]);
  if (!p) return false;
  Stmt *L = sched_loop(s, &st->args[1]);
  if (!L) return false;
  Stmt *root = NULL;
  Buffer *T = NULL;
  Locals loc = {.nv = 0, .nb = 0};
  if (!movable(s, st, p, L, true, &root) || !no_escape(s, &st->args[0], root) || !producer_array(s, st, p, root, &loc, &T))
    return false;
  if (!sched_begin_fresh(s)) return false;
  AtRegion r;
  bool ok = at_init(&r, s, root, L) && compute_at_region(s, st, &r, p, T, &loc);
  at_free(&r);
  return ok;
}

/* reverse_compute_at: each consumer instance runs in the first iteration
 * [o] of L after which no later iteration writes an element it reads. */
static bool reverse_region(Sched *s, const SchedStep *st, AtRegion *r, Stmt *c) {
  const DepModel *m = &s->before;
  Stmt *L = r->target;
  isl_union_map *at_iter = at_by_iter(r, m, r->at, r->nat);
  if (!at_iter) return sched_error(s, NULL, "internal error: loop %s is not in the model", L->name);
  /* wo: [o] -> elements written under L; e: consumer instance -> elements read */
  isl_union_map *w = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, r->at, r->nat));
  isl_union_map *wo = isl_union_map_apply_domain(w, isl_union_map_reverse(at_iter));
  isl_union_map *e = isl_union_map_intersect_domain(isl_union_map_copy(m->reads), at_leaves(r, r->move, r->nmove));
  isl_union_map *used = isl_union_map_apply_range(isl_union_map_copy(e), isl_union_map_reverse(isl_union_map_copy(wo)));
  int none = empty3(used);
  isl_union_map_free(used);
  if (none) {
    isl_union_map_free(wo);
    isl_union_map_free(e);
    if (none < 0) return isl_failed(s, "what the consumer reads");
    return sched_error(s, &st->args[1], "%s reads nothing that loop %s writes", c->name, L->name);
  }
  /* later: [o] -> [o'] for o' after o in the same iteration of the shared loops */
  isl_map *gt = isl_map_lex_lt(isl_space_set_alloc(s->ctx, 0, (unsigned)r->n));
  for (int k = 0; k < r->nsh; k++) gt = isl_map_equate(gt, isl_dim_in, k, isl_dim_out, k);
  gt = isl_map_intersect_range(isl_map_intersect_domain(gt, isl_set_copy(r->odom)), isl_set_copy(r->odom));
  isl_union_map *wlater = isl_union_map_apply_range(isl_union_map_from_map(gt), wo);
  isl_union_map *not_ready = isl_union_map_apply_range(wlater, isl_union_map_reverse(e));
  isl_union_set *cdom = isl_union_set_intersect(isl_union_set_copy(m->domain), at_leaves(r, r->move, r->nmove));
  isl_union_map *all = isl_union_map_intersect_domain(at_shared(r, r->move, r->nmove), isl_union_set_from_set(isl_set_copy(r->odom)));
  all = isl_union_map_intersect_range(all, isl_union_set_copy(cdom));
  isl_union_map *ready = isl_union_map_subtract(all, not_ready);
  isl_union_set *rr = isl_union_map_range(isl_union_map_copy(ready));
  bool every = isl_union_set_is_equal(rr, cdom) == isl_bool_true;
  isl_union_set_free(rr);
  isl_union_map *assign = isl_union_map_reverse(isl_union_map_lexmin(isl_union_map_reverse(ready)));
  bool ok = true;
  Stmt *placed = NULL;
  isl_union_map *box = NULL;
  if (!every)
    ok = sched_error(s, NULL, "some instances of %s run in no iteration of loop %s", c->name, L->name);
  if (ok) ok = at_narrow(r, assign, &placed) && fix_names(s, r);
  if (ok) {
    move_into(s, r->root, placed, L, false);
    box = moved_box(s, r);
    ok = box != NULL;
  }
  if (ok) {
    isl_union_set *ran = isl_union_map_range(isl_union_map_copy(box));
    bool exact = isl_union_set_is_equal(ran, cdom) == isl_bool_true && isl_union_map_is_injective(box) == isl_bool_true;
    isl_union_set_free(ran);
    if (!exact)
      ok = sched_error(s, NULL, "cannot narrow the loops of %s to run each of its instances once, in the iteration of loop %s that completes its inputs",
                       c->name, L->name);
    else
      ok = sched_legal(s);
  }
  isl_union_map_free(box);
  isl_union_map_free(assign);
  isl_union_set_free(cdom);
  return ok;
}

bool prim_reverse_compute_at(Sched *s, const SchedStep *st) {
  Stmt *c = sched_target(s, &st->args[0]);
  if (!c) return false;
  Stmt *L = sched_loop(s, &st->args[1]);
  if (!L) return false;
  Stmt *root;
  if (!movable(s, st, c, L, false, &root) || !no_escape(s, &st->args[0], root)) return false;
  if (!sched_begin_fresh(s)) return false;
  AtRegion r;
  bool ok = at_init(&r, s, root, L) && reverse_region(s, st, &r, c);
  at_free(&r);
  return ok;
}
