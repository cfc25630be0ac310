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
 * or leave some elements out, the producer is recomputed or skipped: that is
 * proven here instead, from purity and coverage (see recompute_ok).
 *
 * reverse_compute_at moves a consumer's nest to the end of an earlier
 * producer loop's body, narrowed to the consumer instances whose inputs
 * that iteration has just completed (each instance at the first iteration
 * after which no later one writes what it reads); sched_legal proves it. */
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (lf[i].st->kind == ST_FOR && (lf[i].st->loop_kind == LOOP_PARALLEL || lf[i].st->loop_kind == LOOP_VECTORIZE))
      return sched_error(s, &st->args[1], "loop %s (line %d) is %s; move %s first, then mark the loop", lf[i].st->name, lf[i].st->loc.line,
                         lf[i].st->loop_kind == LOOP_PARALLEL ? "parallel" : "vectorized", n);
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

static bool is_empty(isl_union_map *u) { return isl_union_map_is_empty(u) == isl_bool_true; }

/* ---------------- the producer's array ---------------- */

enum { MAX_LOCALS = 256 };

/* Variables and arrays declared inside the moved nest: its own. */
typedef struct {
  const Var *vars[MAX_LOCALS];
  const Buffer *bufs[MAX_LOCALS];
  int nv, nb;
} Locals;

static bool locals_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Locals *l = ctx;
  if (st->kind == ST_DECL && st->var && l->nv < MAX_LOCALS) l->vars[l->nv++] = st->var;
  if (st->kind == ST_DECL && st->buf && l->nb < MAX_LOCALS) l->bufs[l->nb++] = st->buf;
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

static bool expr_uses(const Use *u, const Expr *e) {
  if (!e) return false;
  if ((e->kind == EX_VAR && e->var == u->v) || (e->kind == EX_LOAD && u->b && e->buf == u->b)) return true;
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++)
      if (expr_uses(u, e->idx[i])) return true;
  for (int i = 0; i < e->nargs; i++)
    if (expr_uses(u, e->args[i])) return true;
  return expr_uses(u, e->a) || expr_uses(u, e->b) || expr_uses(u, e->c);
}

static bool use_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  if (u->user || st == u->root || sched_encloses(u->root, st)) return !u->user;
  bool used = expr_uses(u, st->lo) || expr_uses(u, st->hi) || expr_uses(u, st->cond) || expr_uses(u, st->lhs) ||
              expr_uses(u, st->rhs) || expr_uses(u, st->init);
  for (int i = 0; i < st->ninit; i++) used |= expr_uses(u, st->init_list[i]);
  if (used) u->user = st;
  return !u->user;
}

/* A local declared in the moved nest must not be used outside it: its
 * declaration would move out of the users' scope. */
static bool no_escape(Sched *s, const SchedArg *arg, Stmt *root) {
  Locals *own = calloc(1, sizeof *own);
  subtree_walk(root, locals_visit, own);
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

/* Where iterations of L need overlapping regions of T (the producer runs
 * again for them) or no iteration needs some element (it is skipped), the
 * new program is right when:
 *   - nothing but the statements under L reads T, and T is a local when
 *     elements are skipped (a parameter's elements are all results);
 *   - the producer is pure: what it reads besides T is not written by any
 *     statement after it, and it reads T only at elements the same instance
 *     writes, after an earlier instance wrote them (so a rerun over a whole
 *     element starts from scratch: init then updates, never a recurrence);
 *   - every element an iteration of L reads is written by the instances the
 *     narrowed loops run in that iteration (which precede the reads).
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
  if (!is_empty(others)) {
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
  int last = 0;
  for (int i = 0; i < r->nmove; i++)
    if (r->move[i] > last) last = r->move[i];
  int *after = malloc(sizeof(int) * (size_t)(m->nleaves + 1)), nafter = 0;
  for (int i = last + 1; i < m->nleaves; i++) after[nafter++] = i;
  isl_union_map *later = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), at_leaves(r, after, nafter));
  free(after);
  for (int i = 0; i < in.n; i++) {
    const char *x = in.names[i];
    if (!strcmp(x, tn) || local_tuple(loc, x)) continue;
    isl_union_map *w = at_only_tuple(isl_union_map_copy(later), x);
    if (!is_empty(w)) {
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

  /* reads of T: only what the same instance writes, after an earlier write */
  isl_union_map *rt = at_only_tuple(rp, tn);
  isl_union_map *bad = isl_union_map_subtract(isl_union_map_copy(rt), isl_union_map_copy(wt));
  if (!is_empty(bad)) {
    const Stmt *o = some_leaf(r, bad);
    isl_union_map_free(rt);
    return sched_error(s, NULL, "%s; that needs %s to be pure, but %s (line %d) reads elements of %s that it does not write itself", why, pn,
                       o && o->name ? o->name : "a statement", o ? o->loc.line : 0, T->name);
  }
  isl_union_map_free(bad);
  isl_union_map *sp = isl_union_map_intersect_domain(isl_union_map_copy(m->sched), at_leaves(r, r->move, r->nmove));
  isl_union_map *earlier = isl_union_map_lex_gt_union_map(isl_union_map_copy(sp), sp);
  isl_union_map *covered = isl_union_map_apply_range(earlier, isl_union_map_copy(wt));
  bad = isl_union_map_subtract(rt, covered);
  if (!is_empty(bad)) {
    const Stmt *o = some_leaf(r, bad);
    return sched_error(s, NULL, "%s; that needs %s to be pure, but %s (line %d) reads %s before %s writes it", why, pn,
                       o && o->name ? o->name : "a statement", o ? o->loc.line : 0, T->name, pn);
  }
  isl_union_map_free(bad);

  /* every read under L is written earlier in the same iteration */
  isl_union_map *written = isl_union_map_apply_range(isl_union_map_copy(box), isl_union_map_copy(wt));
  bool covers = isl_union_map_is_subset(rd, written) == isl_bool_true;
  isl_union_map_free(written);
  if (!covers)
    return sched_error(s, NULL, "%s, and loop %s also reads elements of %s that %s never writes", why, ln, T->name, pn);
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
} Names;

static void add_name(Names *nm, const char *name, const void *obj) {
  if (nm->n < MAX_NAMES) {
    nm->name[nm->n] = name;
    nm->obj[nm->n++] = obj;
  }
}

static const void *name_obj(const Names *nm, const char *name) {
  for (int i = nm->n - 1; i >= 0; i--)
    if (!strcmp(nm->name[i], name)) return nm->obj[i];
  return NULL;
}

static bool scope_rec(const Stmt *list, const Stmt *target, Names *nm) {
  bool found = false;
  for (const Stmt *c = list; c && !found; c = c->next) {
    if (c == target) {
      add_name(nm, c->var->name, c->var);
      for (const Stmt *d = c->body->body; d; d = d->next)
        if (d->kind == ST_DECL) add_name(nm, d->var ? d->var->name : d->buf->name, d->var ? (const void *)d->var : (const void *)d->buf);
      found = true;
      break;
    }
    switch (c->kind) {
    case ST_BLOCK: found = scope_rec(c->body, target, nm); break;
    case ST_FOR:
      if (scope_rec(c->body->body, target, nm)) {
        add_name(nm, c->var->name, c->var);
        found = true;
      }
      break;
    case ST_IF: found = scope_rec(c->then_s->body, target, nm) || (c->else_s && scope_rec(c->else_s->body, target, nm)); break;
    default: break;
    }
  }
  if (found)
    for (const Stmt *c = list; c; c = c->next)
      if (c->kind == ST_DECL) add_name(nm, c->var ? c->var->name : c->buf->name, c->var ? (const void *)c->var : (const void *)c->buf);
  return found;
}

typedef struct {
  Sched *s;
  const Names *nm;
  const Locals *own;
  const char *clash; /* a name the moved nest uses that means something else there */
} Rename;

static void clash_expr(Rename *rn, const Expr *e) {
  if (!e || rn->clash) return;
  if (e->kind == EX_VAR && e->var->kind != VAR_LOOP && !local_var(rn->own, e->var)) {
    const void *o = name_obj(rn->nm, e->var->name);
    if (o && o != e->var) rn->clash = e->var->name;
  }
  if (e->kind == EX_LOAD && !local_buf(rn->own, e->buf)) {
    const void *o = name_obj(rn->nm, e->buf->name);
    if (o && o != e->buf) rn->clash = e->buf->name;
  }
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) clash_expr(rn, e->idx[i]);
  for (int i = 0; i < e->nargs; i++) clash_expr(rn, e->args[i]);
  clash_expr(rn, e->a);
  clash_expr(rn, e->b);
  clash_expr(rn, e->c);
}

/* Counters and locals of the moved nest that another variable of the new
 * place would hide (or hide) get fresh names: x -> x_1. */
static bool rename_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Rename *rn = ctx;
  clash_expr(rn, st->lo);
  clash_expr(rn, st->hi);
  clash_expr(rn, st->cond);
  clash_expr(rn, st->lhs);
  clash_expr(rn, st->rhs);
  clash_expr(rn, st->init);
  for (int i = 0; i < st->ninit; i++) clash_expr(rn, st->init_list[i]);
  const void *o;
  if (st->kind == ST_FOR || (st->kind == ST_DECL && st->var)) {
    if ((o = name_obj(rn->nm, st->var->name)) && o != st->var) st->var->name = sched_fresh_name(rn->s, st->var->name);
  } else if (st->kind == ST_DECL && st->buf && (o = name_obj(rn->nm, st->buf->name)) && o != st->buf) {
    st->buf->name = sched_fresh_name(rn->s, st->buf->name);
  }
  return true;
}

/* Before root moves under L: fresh names where names would clash, or a
 * refusal when root uses a variable a declaration around L would hide. */
static bool fix_names(Sched *s, Stmt *root, Stmt *L) {
  Names *nm = calloc(1, sizeof *nm);
  Locals *own = calloc(1, sizeof *own);
  scope_rec(s->k->body->body, L, nm);
  subtree_walk(root, locals_visit, own);
  Rename rn = {s, nm, own, NULL};
  subtree_walk(root, rename_visit, &rn);
  bool ok = !rn.clash || sched_error(s, NULL, "%s uses %s, but a different %s is declared around loop %s", root->name, rn.clash,
                                     rn.clash, L->name);
  free(nm);
  free(own);
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
 * can fall outside T; the bounds check proved the real ones inside. */
static isl_union_map *within_extent(isl_union_map *rd, const Buffer *T, const char *tn) {
  isl_map *m = NULL;
  isl_union_map_foreach_map(rd, first_map, &m);
  if (!m) return rd;
  int nout = (int)isl_map_dim(m, isl_dim_out), ndecl = nout - T->ndim;
  isl_ctx *ctx = isl_map_get_ctx(m);
  isl_map_free(m);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{ %s[", tn);
  for (int i = 0; i < nout; i++) sb_printf(&sb, "%se%d", i ? ", " : "", i);
  sb_puts(&sb, "] : 0 = 0");
  for (int i = 0; i < T->ndim; i++) sb_printf(&sb, " and 0 <= e%d < %lld", ndecl + i, (long long)T->shape[i]);
  sb_puts(&sb, " }");
  isl_union_set *ext = isl_union_set_read_from_str(ctx, sb.data);
  sb_free(&sb);
  return isl_union_map_intersect_range(rd, ext);
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
  rd = within_extent(rd, T, tn);
  if (is_empty(rd)) {
    isl_union_map_free(rd);
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
  if (is_empty(need))
    ok = sched_error(s, &st->args[1], "loop %s reads no element of %s that %s writes", L->name, T->name, p->name);
  if (ok) ok = at_narrow(r, need, &placed) && fix_names(s, r->root, L);
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
  if (!sched_begin_rewrite(s)) return false;
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
  bool uses = !is_empty(used);
  isl_union_map_free(used);
  if (!uses) {
    isl_union_map_free(wo);
    isl_union_map_free(e);
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
  if (ok) ok = at_narrow(r, assign, &placed) && fix_names(s, r->root, L);
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
  if (!sched_begin_rewrite(s)) return false;
  AtRegion r;
  bool ok = at_init(&r, s, root, L) && reverse_region(s, st, &r, c);
  at_free(&r);
  return ok;
}
