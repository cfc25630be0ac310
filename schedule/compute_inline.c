/* compute_inline(P) and reverse_compute_inline(C): TVM's statement inlining
 * for C loop nests. Both remove a local buffer (or scalar) T that links a
 * producer P to its readers.
 *
 * compute_inline(P), P = `T[i][j] = value` (or `t = value`, `int t = value`):
 * every read T[a][b] becomes value with i := a, j := b; P and the
 * declaration of T go away. Rules (isl on the program before the step):
 *   1. T is a local (not a parameter) that P alone writes, with a plain '='.
 *   2. P's index can be inverted: each index is a different counter of the
 *      loops around P inside T's declaration, and each of those loops is
 *      an index (so every element is written once). Loops around the
 *      declaration are shared: a local has one copy per iteration of them.
 *   3. Every read of an element of T comes after P's write of it.
 *   4. Nothing the value reads is written between P's write and the read:
 *      recomputed at the read, the value is the one P stored.
 *   5. Locals the value reads are visible at the read, in the same
 *      iteration of the loops they are declared in.
 *
 * reverse_compute_inline(C), C = `OUT[...] = f(T[j])`, T a local written by
 * one producer P: C's computation takes P's place (C's counters given by
 * P's index) and C and T go away. Rules:
 *   1. C is a plain assignment reading T at one index that can be inverted
 *      (as rule 2 above, for C's loops); T is read by C alone.
 *   2. P (a plain '=') writes exactly the elements C reads, each once,
 *      before C reads it.
 *   3. No if around C that is not around P (its condition would be lost);
 *      the locals C uses are visible at P, in the same iteration.
 *   4. Run at P's place (P's reads, then C's accesses), each instance of C
 *      keeps every dependence of the program before the step, T's aside.
 *
 * The value moves out of its store, so the store's conversion to T's type
 * becomes an explicit cast (an int sum kept in int8_t T stays truncated).
 * Loops and ifs left empty are removed.
 *
 * These primitives change which statements exist, so sched_legal (same
 * instances before and after) does not apply: the rules above are checked
 * here instead, exactly, with the DepModel of the program before the step. */
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/primitives.h"

/* ---------------- the stored local ---------------- */

/* A local array or scalar, or a parameter (what a leaf writes). */
typedef struct {
  Var *var;
  Buffer *buf;
} Store;

static Store stored(const Stmt *st) {
  if (st->kind == ST_DECL) return (Store){st->var, st->buf};
  if (st->lhs->kind == EX_LOAD) return (Store){NULL, st->lhs->buf};
  return (Store){st->lhs->var, NULL};
}

/* e is T itself: a load of T or the scalar. */
static bool refers_to(const Expr *e, Store t) {
  return (t.buf && e->kind == EX_LOAD && e->buf == t.buf) || (t.var && e->kind == EX_VAR && e->var == t.var);
}

static const char *store_name(Store t) { return t.buf ? t.buf->name : t.var->name; }
static const Type *store_type(Store t) { return t.buf ? t.buf->elem : t.var->type; }
static bool is_param(Store t) { return t.buf ? t.buf->role != ROLE_LOCAL : t.var->kind != VAR_LOCAL; }

/* The tuple of T's elements in the DepModel's access relations. */
static void store_tuple(Store t, char *out, size_t n) {
  snprintf(out, n, "%c%d", t.buf ? 'B' : 'V', t.buf ? t.buf->id : t.var->id);
}

static const char *expr_text(Sched *s, const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, e);
  const char *r = arena_strdup(s->a, sb.data ? sb.data : "");
  sb_free(&sb);
  return r;
}

/* ---------------- where statements are ---------------- */

/* The loops and ifs around a statement, outermost first. */
typedef struct {
  Stmt *enc[512];
  int n;
} Path;

static bool path_rec(Stmt *list, const Stmt *target, Path *p) {
  for (Stmt *c = list; c; c = c->next) {
    if (c == target) return true;
    if (c->kind == ST_BLOCK) {
      if (path_rec(c->body, target, p)) return true;
      continue;
    }
    if (c->kind != ST_FOR && c->kind != ST_IF) continue;
    if (p->n == 512) return false;
    p->enc[p->n++] = c;
    if (c->kind == ST_FOR && path_rec(c->body->body, target, p)) return true;
    if (c->kind == ST_IF && (path_rec(c->then_s->body, target, p) || (c->else_s && path_rec(c->else_s->body, target, p))))
      return true;
    p->n--;
  }
  return false;
}

/* The loops around st, outermost first; returns their number. */
static int loops_around(Sched *s, const Stmt *st, Stmt **loops) {
  int n = sched_loops_around(s, st, loops, 512);
  return n < 0 ? 0 : n;
}

typedef struct {
  Store t;
  Stmt *found;
} DeclFind;

static bool decl_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  DeclFind *f = ctx;
  if (st->kind == ST_DECL && ((f->t.var && st->var == f->t.var) || (f->t.buf && st->buf == f->t.buf))) f->found = st;
  return !f->found;
}

static Stmt *find_decl(Sched *s, Store t) {
  DeclFind f = {t, NULL};
  ir_walk_stmts(s->k->body, decl_visit, &f);
  return f.found;
}

/* True when local x is visible at site: site follows x's declaration in its
 * block. *decl_loops: the loops around the declaration. */
static bool visible_at(Sched *s, Store x, const Stmt *site, int *decl_loops) {
  Stmt *decl = find_decl(s, x);
  *decl_loops = 0;
  if (!decl) return false;
  Stmt *loops[512];
  *decl_loops = loops_around(s, decl, loops);
  Path p = {.n = 0};
  return path_rec(decl->next, site, &p);
}

/* ---------------- reads and writes of T ---------------- */

typedef struct {
  Store t;
  int n;
} Refs;

static bool count_ref(const Expr *e, void *ctx) {
  Refs *r = ctx;
  r->n += refers_to(e, r->t);
  return true;
}

static int refs(const Expr *e, Store t) {
  Refs r = {t, 0};
  ir_walk_expr(e, count_ref, &r);
  return r.n;
}

/* Reads of T by the statement itself (a loop's bounds, an if's condition). */
static int stmt_reads(const Stmt *st, Store t) {
  switch (st->kind) {
  case ST_FOR: return refs(st->lo, t) + refs(st->hi, t);
  case ST_IF: return refs(st->cond, t);
  case ST_ASSIGN: {
    int n = refs(st->rhs, t) + (st->op != OP_NONE && refers_to(st->lhs, t));
    if (st->lhs->kind == EX_LOAD)
      for (int i = 0; i < st->lhs->buf->ndim; i++) n += refs(st->lhs->idx[i], t);
    return n;
  }
  case ST_DECL: {
    int n = refs(st->init, t);
    for (int i = 0; i < st->ninit; i++) n += refs(st->init_list[i], t);
    return n;
  }
  default: return 0;
  }
}

static bool writes(const Stmt *st, Store t) {
  if (st->kind == ST_ASSIGN) return refers_to(st->lhs, t);
  if (st->kind == ST_DECL) return (st->init || st->ninit) && ((t.var && st->var == t.var) || (t.buf && st->buf == t.buf));
  return false;
}

/* The statements that read (or write) T, in order. */
typedef struct {
  Store t;
  bool want_writes;
  Stmt **v;
  int n, cap;
} Sites;

static bool sites_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Sites *x = ctx;
  if (x->want_writes ? writes(st, x->t) : stmt_reads(st, x->t) > 0) {
    if (x->n == x->cap) {
      x->cap = x->cap ? 2 * x->cap : 16;
      x->v = realloc(x->v, sizeof *x->v * (size_t)x->cap);
    }
    x->v[x->n++] = st;
  }
  return true;
}

static Sites find_sites(Sched *s, Store t, bool want_writes) {
  Sites x = {.t = t, .want_writes = want_writes};
  ir_walk_stmts(s->k->body, sites_visit, &x);
  return x;
}

static const char *site_text(Sched *s, const Stmt *st) {
  switch (st->kind) {
  case ST_FOR: return arena_printf(s->a, "the bounds of loop %s (line %d)", st->name, st->loc.line);
  case ST_IF: return arena_printf(s->a, "the condition of the if at line %d", st->loc.line);
  default: return arena_printf(s->a, "%s (line %d)", st->name ? st->name : "a declaration", st->loc.line);
  }
}

/* ---------------- locals an expression uses ---------------- */

typedef struct {
  Store v[256];
  int n;
  bool overflow;
} Locals;

static void add_local(Locals *l, Store x) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i].var == x.var && l->v[i].buf == x.buf) return;
  if (l->n == 256) l->overflow = true;
  else l->v[l->n++] = x;
}

static bool local_visit(const Expr *e, void *ctx) {
  if (e->kind == EX_VAR && e->var->kind == VAR_LOCAL) add_local(ctx, (Store){e->var, NULL});
  if (e->kind == EX_LOAD && e->buf->role == ROLE_LOCAL) add_local(ctx, (Store){NULL, e->buf});
  return true;
}

static void locals_of(const Expr *e, Locals *l) { ir_walk_expr(e, local_visit, l); }

/* Every local in l is visible at site; *max_loops: the deepest declaration. */
static bool locals_visible(Sched *s, const Locals *l, const Stmt *site, const char *who, int *max_loops) {
  if (l->overflow) return sched_error(s, NULL, "%s uses too many locals", who);
  for (int i = 0; i < l->n; i++) {
    int d;
    if (!visible_at(s, l->v[i], site, &d))
      return sched_error(s, NULL, "%s uses %s, which is not visible at %s", who, store_name(l->v[i]), site_text(s, site));
    if (d > *max_loops) *max_loops = d;
  }
  return true;
}

/* The local of l declared in the most loops, and the innermost of them. */
static const char *deepest_local(Sched *s, const Locals *l, Stmt **loop) {
  const char *name = "a local";
  int best = 0;
  *loop = NULL;
  for (int i = 0; i < l->n; i++) {
    Stmt *decl = find_decl(s, l->v[i]), *loops[512];
    int d = decl ? loops_around(s, decl, loops) : 0;
    if (d > best) {
      best = d;
      name = store_name(l->v[i]);
      *loop = loops[d - 1];
    }
  }
  return name;
}

/* ---------------- inverting an index ---------------- */

/* The counters of the loops around a statement inside T's declaration, and
 * which index of T gives each. */
typedef struct {
  Var *ctr[IR_MAX_DIMS];
  int dim[IR_MAX_DIMS];
  int n;
} Inverse;

static const Expr *strip_implicit(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit && type_is_integer(e->type) && type_is_integer(e->a->type)) e = e->a;
  return e;
}

/* acc (an access of T in st, which sits in loops[0..nloops), T declared in
 * loops[0..shared)) must be T[c0][c1]... with each c a different counter of
 * loops[shared..nloops), all of them used. verb: what st does to T. */
static bool invert(Sched *s, const Stmt *st, const Expr *acc, Store t, Stmt **loops, int shared, int nloops,
                   const char *what, const char *verb, Inverse *inv) {
  inv->n = 0;
  int ndim = t.buf ? t.buf->ndim : 0;
  for (int d = 0; d < ndim; d++) {
    const Expr *e = strip_implicit(acc->idx[d]);
    int k = -1;
    for (int i = shared; i < nloops && e->kind == EX_VAR; i++)
      if (loops[i]->var == e->var) k = i;
    for (int j = 0; j < inv->n && k >= 0; j++)
      if (inv->ctr[j] == loops[k]->var) k = -1;
    if (k < 0)
      return sched_error(s, NULL, "cannot inline %s (line %d): its %s %s cannot be inverted: each index must be a different counter of the loops around %s",
                         st->name, st->loc.line, what, expr_text(s, acc), st->name);
    inv->ctr[inv->n] = loops[k]->var;
    inv->dim[inv->n++] = d;
  }
  for (int i = shared; i < nloops; i++) {
    bool used = false;
    for (int j = 0; j < inv->n; j++) used |= inv->ctr[j] == loops[i]->var;
    if (used) continue;
    if (!ndim)
      return sched_error(s, NULL, "cannot inline %s (line %d): %s is declared outside loop %s (line %d), so %s %s it in every iteration of %s",
                         st->name, st->loc.line, store_name(t), loops[i]->name, loops[i]->loc.line, st->name, verb, loops[i]->name);
    return sched_error(s, NULL, "cannot inline %s (line %d): loop %s (line %d) does not index %s, so %s %s each element in every iteration of %s",
                       st->name, st->loc.line, loops[i]->name, loops[i]->loc.line, expr_text(s, acc), st->name, verb, loops[i]->name);
  }
  return true;
}

/* e converted to type t (explicitly: the context may not convert it). */
static Expr *as_type(Sched *s, Expr *e, const Type *t) {
  return e->type->kind == t->kind ? e : ir_cast(s->a, e, t, false);
}

/* Variables from[] and their replacements to[], n of them. */
typedef struct {
  Var *const *from;
  Expr *const *to;
  int n;
} SubstMany;

/* ir_map_expr's step: a use of from[i] becomes a copy of to[i]. */
static Expr *subst_var(Arena *a, Expr *e, void *ctx) {
  const SubstMany *m = ctx;
  if (e->kind == EX_VAR)
    for (int i = 0; i < m->n; i++)
      if (e->var == m->from[i]) return ir_expr_copy(a, m->to[i]);
  return e;
}

/* Replaces the variables from[] by copies of to[] at once. */
static Expr *subst_many(Sched *s, Expr *e, Var *const *from, Expr *const *to, int n) {
  SubstMany m = {from, to, n};
  return ir_map_expr(s->a, e, subst_var, &m);
}

/* The value P stores, of T's type: the store's own conversion (implicit in
 * the IR) becomes explicit, since the value moves to another context. */
static Expr *stored_value(Sched *s, const Stmt *p, const Type *elem) {
  const Expr *v = p->kind == ST_DECL ? p->init : p->rhs;
  if (v->kind == EX_CAST && v->implicit) v = v->a;
  return as_type(s, ir_expr_copy(s->a, v), elem);
}

/* ---------------- removing statements ---------------- */

/* Unlinks st; loops and ifs left empty go too (sched_drop_empty). */
static void remove_stmt(Sched *s, const Stmt *st) {
  Stmt **link = sched_link(s, st, NULL);
  if (link) *link = st->next;
  sched_drop_empty(s);
}

/* ---------------- isl helpers ---------------- */

typedef struct {
  const char *name;
  enum isl_dim_type side;
  bool keep;
  isl_union_map *out;
} Filter;

static isl_stat filter_map(isl_map *m, void *user) {
  Filter *f = user;
  const char *n = isl_map_get_tuple_name(m, f->side);
  if ((n && !strcmp(n, f->name)) == f->keep) f->out = isl_union_map_add_map(f->out, m);
  else isl_map_free(m);
  return isl_stat_ok;
}

/* The maps of u whose domain (or range) tuple is / is not `name`. Takes u. */
static isl_union_map *filter(isl_union_map *u, const char *name, enum isl_dim_type side, bool keep) {
  Filter f = {name, side, keep, isl_union_map_empty_ctx(isl_union_map_get_ctx(u))};
  isl_union_map_foreach_map(u, filter_map, &f);
  isl_union_map_free(u);
  return f.out;
}

static isl_union_set *leaf_domain(const DepModel *m, int inst) {
  char name[32];
  snprintf(name, sizeof name, "S%d", inst);
  return isl_union_map_domain(filter(isl_union_map_copy(m->sched), name, isl_dim_in, true));
}

static isl_stat take_first(isl_map *m, void *user) {
  isl_map **out = user;
  if (*out) {
    isl_map_free(m);
    return isl_stat_ok;
  }
  *out = m;
  return isl_stat_ok;
}

/* One map of u (a copy), or NULL. */
static isl_map *any_map(isl_union_map *u) {
  isl_map *m = NULL;
  isl_union_map_foreach_map(u, take_first, &m);
  return m;
}

static bool is_empty(isl_union_map *u) { return u && isl_union_map_is_empty(u) == isl_bool_true; }

/* The leaf of the model whose tuple a map has on one side. */
static const Stmt *tuple_leaf(const DepModel *m, isl_map *map, enum isl_dim_type side) {
  const char *n = isl_map_get_tuple_name(map, side);
  int i = n && n[0] == 'S' ? atoi(n + 1) : -1;
  return i >= 0 && i < m->nleaves ? m->leaves[i].stmt : NULL;
}

/* "T[2][5]" (or "t") for one element of T in elems. Takes elems. */
static const char *element_text(Sched *s, Store t, isl_set *elems) {
  if (!t.buf) {
    isl_set_free(elems);
    return t.var->name;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, t.buf->name);
  isl_point *p = isl_set_sample_point(elems);
  if (p && isl_point_is_void(p) == isl_bool_false) {
    isl_space *sp = isl_point_get_space(p);
    int n = (int)isl_space_dim(sp, isl_dim_set);
    for (int i = n - t.buf->ndim; i < n; i++) {
      isl_val *v = isl_point_get_coordinate_val(p, isl_dim_set, i);
      sb_printf(&sb, "[%ld]", isl_val_get_num_si(v));
      isl_val_free(v);
    }
    isl_space_free(sp);
  }
  isl_point_free(p);
  const char *r = arena_strdup(s->a, sb.data);
  sb_free(&sb);
  return r;
}

typedef struct {
  const char *tuple;
  const char *name;
} TupleName;

static bool tuple_name_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  TupleName *q = ctx;
  char b[32];
  if (st->kind == ST_DECL) {
    store_tuple((Store){st->var, st->buf}, b, sizeof b);
    if (!strcmp(b, q->tuple)) q->name = store_name((Store){st->var, st->buf});
  }
  return !q->name;
}

/* The buffer or variable an element tuple (B3, V7) stands for. */
static const char *tuple_store_name(Sched *s, const char *tuple) {
  char b[32];
  for (const Param *p = s->k->params; p; p = p->next) {
    store_tuple((Store){p->var, p->buf}, b, sizeof b);
    if (!strcmp(b, tuple)) return store_name((Store){p->var, p->buf});
  }
  TupleName q = {tuple, NULL};
  ir_walk_stmts(s->k->body, tuple_name_visit, &q);
  return q.name ? q.name : "a local";
}

typedef struct {
  const DepModel *m;
  int n;
  bool ok;
  isl_map *bad;
} SameOuter;

static isl_stat same_outer_map(isl_map *map, void *user) {
  SameOuter *so = user;
  const char *a = isl_map_get_tuple_name(map, isl_dim_in), *b = isl_map_get_tuple_name(map, isl_dim_out);
  int da = so->m->leaves[atoi(a + 1)].depth, db = so->m->leaves[atoi(b + 1)].depth;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{ %s[", a);
  for (int i = 0; i < da; i++) sb_printf(&sb, "%sw%d", i ? ", " : "", i);
  sb_printf(&sb, "] -> %s[", b);
  for (int i = 0; i < db; i++) sb_printf(&sb, "%sr%d", i ? ", " : "", i);
  sb_puts(&sb, "] : 0 = 0");
  for (int i = 0; i < so->n && i < da && i < db; i++) sb_printf(&sb, " and w%d = r%d", i, i);
  sb_puts(&sb, " }");
  isl_map *eq = isl_map_read_from_str(isl_map_get_ctx(map), sb.data);
  sb_free(&sb);
  if (isl_map_is_subset(map, eq) != isl_bool_true && so->ok) {
    so->ok = false;
    so->bad = isl_map_copy(map);
  }
  isl_map_free(eq);
  isl_map_free(map);
  return isl_stat_ok;
}

/* Every pair of `pairs` runs in the same iteration of the n outermost loops
 * of both statements. Otherwise *bad: a map with a pair that does not. */
static bool same_outer_iterations(const DepModel *m, isl_union_map *pairs, int n, isl_map **bad) {
  SameOuter so = {m, n, true, NULL};
  if (n > 0) isl_union_map_foreach_map(pairs, same_outer_map, &so);
  *bad = so.bad;
  return so.ok;
}

/* ---------------- compute_inline ---------------- */

typedef struct {
  Sched *s;
  Store t;
  const Stmt *skip;
  Expr *value;
  Inverse inv;
} Inline;

/* e with every read of T replaced by P's value at the read's indices. */
/* ir_map_expr's step: a read of T (its indices already inlined)
 * becomes P's value there. */
static Expr *inline_read(Arena *a, Expr *e, void *ctx) {
  (void)a;
  Inline *in = ctx;
  if (!refers_to(e, in->t)) return e;
  Expr *to[IR_MAX_DIMS];
  for (int i = 0; i < in->inv.n; i++)
    to[i] = as_type(in->s, ir_expr_copy(in->s->a, (Expr *)strip_implicit(e->idx[in->inv.dim[i]])),
                    in->inv.ctr[i]->type);
  Expr *v = ir_expr_copy(in->s->a, in->value);
  return subst_many(in->s, v, in->inv.ctr, to, in->inv.n);
}

static Expr *inline_expr(Inline *in, Expr *e) { return ir_map_expr(in->s->a, e, inline_read, in); }

static bool inline_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Inline *in = ctx;
  if (st == in->skip) return true;
  st->lo = inline_expr(in, st->lo);
  st->hi = inline_expr(in, st->hi);
  st->cond = inline_expr(in, st->cond);
  st->rhs = inline_expr(in, st->rhs);
  st->init = inline_expr(in, st->init);
  for (int i = 0; i < st->ninit; i++) st->init_list[i] = inline_expr(in, st->init_list[i]);
  if (st->lhs && st->lhs->kind == EX_LOAD)
    for (int i = 0; i < st->lhs->buf->ndim; i++) st->lhs->idx[i] = inline_expr(in, st->lhs->idx[i]);
  return true;
}

/* A leaf P that stores a value: `T[...] = v` or a scalar declaration. */
static bool plain_store(Sched *s, const Stmt *p) {
  if (p->kind == ST_DECL && !p->var)
    return sched_error(s, NULL, "cannot inline %s (line %d): it initializes array %s with a list; only an assignment can be inlined",
                       p->name, p->loc.line, p->buf->name);
  if (p->kind == ST_ASSIGN && p->op != OP_NONE)
    return sched_error(s, NULL, "cannot inline %s (line %d): %s is a compound assignment (%s=); only a plain '=' can be inlined",
                       p->name, p->loc.line, p->name, op_spelling(p->op));
  return true;
}

/* The one statement that writes local T besides p, or NULL. */
static Stmt *other_writer(Sched *s, Store t, const Stmt *p) {
  Sites w = find_sites(s, t, true);
  Stmt *r = NULL;
  for (int i = 0; i < w.n && !r; i++)
    if (w.v[i] != p) r = w.v[i];
  free(w.v);
  return r;
}

/* Rules 3-5 with isl. pvalue_loops: deepest declaration of a local that
 * P's value reads. */
static bool inline_legal(Sched *s, const Stmt *p, Store t, int pvalue_loops, const Locals *vl) {
  const DepModel *m = &s->before;
  char tt[32];
  store_tuple(t, tt, sizeof tt);
  isl_union_set *pdom = leaf_domain(m, p->inst);
  isl_union_map *wp = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), isl_union_set_copy(pdom));
  isl_union_map *rp = isl_union_map_intersect_domain(isl_union_map_copy(m->reads), pdom);
  isl_union_map *rt = filter(isl_union_map_copy(m->reads), tt, isl_dim_out, true);
  /* the order between the statements these rules ask about: P, the
   * readers of T and the writers of what P reads (of every pair of
   * statements, it costs as much as the rest of the step) */
  isl_union_set *rel = isl_union_set_union(isl_union_map_domain(isl_union_map_copy(wp)), isl_union_map_domain(isl_union_map_copy(rt)));
  rel = isl_union_set_union(rel, isl_union_map_domain(isl_union_map_intersect_range(isl_union_map_copy(m->writes),
                                                                                      isl_union_map_range(isl_union_map_copy(rp)))));
  isl_union_map *srel = isl_union_map_intersect_domain(isl_union_map_copy(m->sched), rel);
  isl_union_map *earlier = isl_union_map_lex_lt_union_map(isl_union_map_copy(srel), srel);
  /* P's write -> a later read of the same element */
  isl_union_map *flow = isl_union_map_intersect(isl_union_map_apply_range(isl_union_map_copy(wp), isl_union_map_reverse(isl_union_map_copy(rt))),
                                                isl_union_map_copy(earlier));
  bool ok = true;
  /* 3. every read of T after P's write of its element */
  isl_union_map *covered = isl_union_map_apply_range(isl_union_map_reverse(isl_union_map_copy(flow)), isl_union_map_copy(wp));
  isl_union_map *uncovered = isl_union_map_subtract(isl_union_map_copy(rt), covered);
  if (!is_empty(uncovered)) {
    isl_map *u = any_map(uncovered);
    const Stmt *r = u ? tuple_leaf(m, u, isl_dim_in) : NULL;
    const char *el = u ? element_text(s, t, isl_map_range(u)) : store_name(t);
    ok = sched_error(s, NULL, "cannot inline %s (line %d): %s reads %s, which %s does not write before it", p->name, p->loc.line,
                     r ? site_text(s, r) : "a statement", el, p->name);
  }
  isl_union_map_free(uncovered);
  /* 4. nothing P reads is overwritten between P's write and a read */
  if (ok) {
    isl_union_map *clob = isl_union_map_intersect(isl_union_map_apply_range(isl_union_map_copy(rp), isl_union_map_reverse(isl_union_map_copy(m->writes))),
                                                  isl_union_map_copy(earlier));
    isl_union_map *between = isl_union_map_intersect(isl_union_map_apply_range(isl_union_map_copy(clob), isl_union_map_copy(earlier)),
                                                     isl_union_map_copy(flow));
    if (!is_empty(between)) {
      /* name one overwriting statement and the read it spoils */
      const Stmt *x = NULL, *r = NULL;
      const char *what = "a value";
      for (int i = 0; i < m->nleaves && !x; i++) {
        char sx[32];
        snprintf(sx, sizeof sx, "S%d", i);
        isl_union_map *cx = filter(isl_union_map_copy(clob), sx, isl_dim_out, true);
        isl_union_map *hit = isl_union_map_intersect(isl_union_map_apply_range(cx, isl_union_map_copy(earlier)), isl_union_map_copy(flow));
        if (!is_empty(hit)) {
          x = m->leaves[i].stmt;
          isl_map *h = any_map(hit);
          r = h ? tuple_leaf(m, h, isl_dim_out) : NULL;
          isl_map_free(h);
          isl_union_set *el = isl_union_set_intersect(isl_union_map_range(isl_union_map_copy(rp)),
                                                      isl_union_map_range(filter(isl_union_map_copy(m->writes), sx, isl_dim_in, true)));
          isl_union_map *elm = isl_union_map_from_domain(el);
          isl_map *em = any_map(elm);
          if (em) what = tuple_store_name(s, isl_map_get_tuple_name(em, isl_dim_in));
          isl_map_free(em);
          isl_union_map_free(elm);
        }
        isl_union_map_free(hit);
      }
      ok = sched_error(s, NULL, "cannot inline %s (line %d): %s overwrites %s, which %s reads, before %s reads %s", p->name, p->loc.line,
                       x ? site_text(s, x) : "a statement", what, p->name, r ? site_text(s, r) : "a statement", store_name(t));
    }
    isl_union_map_free(clob);
    isl_union_map_free(between);
  }
  /* 5. a local the value reads: the same copy (iteration) at the read */
  isl_map *bad = NULL;
  if (ok && !same_outer_iterations(m, flow, pvalue_loops, &bad)) {
    const Stmt *r = tuple_leaf(m, bad, isl_dim_out);
    Stmt *loop;
    const char *local = deepest_local(s, vl, &loop);
    ok = sched_error(s, NULL, "cannot inline %s (line %d): its value reads %s, declared inside loop %s (line %d), but %s reads %s from another iteration of %s",
                     p->name, p->loc.line, local, loop ? loop->name : "?", loop ? loop->loc.line : 0, r ? site_text(s, r) : "a statement",
                     store_name(t), loop ? loop->name : "it");
  }
  isl_map_free(bad);
  isl_union_map_free(wp);
  isl_union_map_free(rp);
  isl_union_map_free(rt);
  isl_union_map_free(earlier);
  isl_union_map_free(flow);
  return ok;
}

bool prim_compute_inline(Sched *s, const SchedStep *st) {
  Stmt *p = sched_leaf(s, &st->args[0]);
  if (!p || !plain_store(s, p)) return false;
  Store t = stored(p);
  const char *tn = store_name(t);
  if (is_param(t))
    return sched_error(s, NULL, "cannot inline %s (line %d): %s is a kernel parameter, its values must be stored", p->name, p->loc.line, tn);
  Stmt *w = other_writer(s, t, p);
  if (w) return sched_error(s, NULL, "cannot inline %s (line %d): %s is also written by %s", p->name, p->loc.line, tn, site_text(s, w));
  Expr *pv = p->kind == ST_DECL ? p->init : p->rhs;
  if (refs(pv, t)) return sched_error(s, NULL, "cannot inline %s (line %d): its value reads %s itself", p->name, p->loc.line, tn);

  /* 2. the index */
  Stmt *decl = find_decl(s, t);
  if (!decl) return sched_error(s, NULL, "internal error: no declaration of %s", tn);
  Stmt *loops[512], *dloops[512];
  int np = loops_around(s, p, loops), nd = loops_around(s, decl, dloops);
  Inverse inv;
  if (!invert(s, p, p->kind == ST_DECL ? NULL : p->lhs, t, loops, nd, np, "index", "writes", &inv)) return false;

  /* reads of T: none in loop bounds (not in the model); the value's locals
   * visible at each */
  Locals vl = {.n = 0};
  locals_of(pv, &vl);
  int vloops = 0;
  Sites rd = find_sites(s, t, false);
  bool ok = true;
  for (int i = 0; i < rd.n && ok; i++) {
    if (rd.v[i]->kind == ST_FOR)
      ok = sched_error(s, NULL, "cannot inline %s (line %d): %s reads %s", p->name, p->loc.line, site_text(s, rd.v[i]), tn);
    else
      ok = locals_visible(s, &vl, rd.v[i], arena_printf(s->a, "cannot inline %s (line %d): its value", p->name, p->loc.line), &vloops);
  }
  free(rd.v);
  if (!ok) return false;

  if (!sched_begin_fresh(s)) return false;
  if (!inline_legal(s, p, t, vloops, &vl)) return false;

  Inline in = {s, t, p, stored_value(s, p, store_type(t)), inv};
  ir_walk_stmts(s->k->body, inline_visit, &in);
  remove_stmt(s, p);
  if (decl != p) remove_stmt(s, decl);
  return true;
}

/* ---------------- reverse_compute_inline ---------------- */

/* The local C reads that one statement (not C) produces: T, and P. */
static bool find_producer(Sched *s, const Stmt *c, Store *t, Stmt **p) {
  Locals l = {.n = 0};
  locals_of(c->rhs, &l);
  if (c->lhs->kind == EX_LOAD)
    for (int i = 0; i < c->lhs->buf->ndim; i++) locals_of(c->lhs->idx[i], &l);
  int found = 0;
  StrBuf names;
  sb_init(&names);
  for (int i = 0; i < l.n; i++) {
    Sites w = find_sites(s, l.v[i], true);
    if (w.n == 1 && w.v[0] != c) {
      if (!found) {
        *t = l.v[i];
        *p = w.v[0];
      }
      sb_printf(&names, "%s%s", found++ ? ", " : "", store_name(l.v[i]));
    }
    free(w.v);
  }
  bool ok = true;
  if (!found)
    ok = sched_error(s, NULL, "cannot inline %s (line %d): it reads no local array or scalar that a single statement produces", c->name, c->loc.line);
  else if (found > 1)
    ok = sched_error(s, NULL, "cannot inline %s (line %d): it reads several produced locals (%s); it can only be inlined into one producer",
                     c->name, c->loc.line, names.data);
  sb_free(&names);
  return ok;
}

typedef struct {
  Sched *s;
  Store t;
  const Expr *first;
  const Expr *other;
} SameIndex;

/* ir_visit_expr's step: each read of T, until one reads other indices
 * than the first. */
static IrVisit same_index_at(const Expr *e, int depth, void *ctx) {
  (void)depth;
  SameIndex *q = ctx;
  if (refers_to(e, q->t)) {
    if (!q->first) q->first = e;
    else if (strcmp(expr_text(q->s, q->first), expr_text(q->s, e))) q->other = e;
  }
  return q->other ? IR_VISIT_STOP : IR_VISIT_ON;
}

/* ir_map_expr's step: a read of T becomes the value. */
typedef struct {
  Store t;
  const Expr *value;
} ReadsOf;

static Expr *replace_read(Arena *a, Expr *e, void *ctx) {
  const ReadsOf *r = ctx;
  return refers_to(e, r->t) ? ir_expr_copy(a, r->value) : e;
}

/* e with every read of T replaced by value. */
static Expr *replace_reads(Sched *s, Expr *e, Store t, const Expr *value) {
  ReadsOf r = {t, value};
  return ir_map_expr(s->a, e, replace_read, &r);
}

/* Times of `sched` with one more coordinate k appended. Takes sched. */
static isl_union_map *append_time(isl_ctx *ctx, isl_union_map *sched, int n, int k) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int i = 0; i < n; i++) sb_printf(&sb, "%st%d", i ? ", " : "", i);
  sb_puts(&sb, "] -> [");
  for (int i = 0; i < n; i++) sb_printf(&sb, "t%d, ", i);
  sb_printf(&sb, "%d] }", k);
  isl_union_map *app = isl_union_map_read_from_str(ctx, sb.data);
  sb_free(&sb);
  return isl_union_map_apply_range(sched, app);
}

/* Rule 2: P writes exactly the elements C reads, each once, before C. The
 * pairs P instance -> C instance in *pc. */
static bool producer_matches(Sched *s, const Stmt *c, const Stmt *p, Store t, isl_union_map **pc) {
  const DepModel *m = &s->before;
  char tt[32];
  store_tuple(t, tt, sizeof tt);
  isl_union_set *pdom = leaf_domain(m, p->inst), *cdom = leaf_domain(m, c->inst);
  isl_union_map *wp = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), isl_union_set_copy(pdom));
  isl_union_map *rc = filter(isl_union_map_intersect_domain(isl_union_map_copy(m->reads), isl_union_set_copy(cdom)), tt, isl_dim_out, true);
  isl_union_map *mp = isl_union_map_apply_range(wp, isl_union_map_reverse(rc));
  /* the order of P and C only */
  isl_union_map *spc = isl_union_map_intersect_domain(isl_union_map_copy(m->sched),
                                                      isl_union_set_union(isl_union_set_copy(pdom), isl_union_set_copy(cdom)));
  isl_union_map *earlier = isl_union_map_lex_lt_union_map(isl_union_map_copy(spc), spc);
  const char *pn = p->name ? p->name : "its declaration", *cn = c->name, *tn = store_name(t);
  isl_union_set *md = isl_union_map_domain(isl_union_map_copy(mp)), *mr = isl_union_map_range(isl_union_map_copy(mp));
  const char *why = NULL;
  if (isl_union_map_is_single_valued(mp) != isl_bool_true || isl_union_map_is_injective(mp) != isl_bool_true)
    why = arena_printf(s->a, "%s writes some elements of %s more than once", pn, tn);
  else if (isl_union_set_is_equal(md, pdom) != isl_bool_true)
    why = arena_printf(s->a, "%s writes elements of %s that %s does not read", pn, tn, cn);
  else if (isl_union_set_is_equal(mr, cdom) != isl_bool_true)
    why = arena_printf(s->a, "%s reads elements of %s that %s does not write", cn, tn, pn);
  else if (isl_union_map_is_subset(mp, earlier) != isl_bool_true)
    why = arena_printf(s->a, "%s reads elements of %s before %s writes them", cn, tn, pn);
  bool ok = !why || sched_error(s, NULL, "cannot inline %s (line %d) into %s (line %d): %s", cn, c->loc.line, pn, p->loc.line, why);
  isl_union_set_free(md);
  isl_union_set_free(mr);
  isl_union_map_free(earlier);
  isl_union_set_free(pdom);
  isl_union_set_free(cdom);
  if (ok) *pc = mp;
  else isl_union_map_free(mp);
  return ok;
}

/* Rule 4 on the rewritten program: each instance of C runs at its
 * producer's time (after P's reads there); no dependence of the program
 * before the step, T's accesses aside, may run backwards. */
static bool moved_legal(Sched *s, const Stmt *c, const Stmt *p, const Stmt *decl, Store t, isl_union_map *pc) {
  const DepModel *m = &s->before;
  DepModel after;
  if (!dep_model_build(&after, s->ctx, s->k, false)) {
    bool r = sched_error(s, NULL, "internal error: cannot model the rewritten loops: %s", after.error);
    dep_model_free(&after);
    return r;
  }
  isl_union_set *pdom = leaf_domain(m, p->inst), *cdom = leaf_domain(m, c->inst);
  isl_union_set *gone = isl_union_set_union(isl_union_set_copy(pdom), decl != p ? leaf_domain(m, decl->inst) : isl_union_set_empty_ctx(s->ctx));
  bool ok = true;
  isl_union_set *want = isl_union_set_subtract(isl_union_set_copy(m->domain), gone);
  if (isl_union_set_is_equal(after.domain, want) != isl_bool_true || isl_union_map_is_single_valued(after.sched) != isl_bool_true)
    ok = sched_error(s, NULL, "internal error: the rewritten loops do not run the expected instances (an npugen bug; the variant is not emitted)");
  isl_union_set_free(want);
  isl_union_set_free(pdom);
  if (!ok) {
    isl_union_set_free(cdom);
    dep_model_free(&after);
    return false;
  }
  int n = after.time_dims;
  isl_union_map *csched = isl_union_map_intersect_domain(isl_union_map_copy(after.sched), isl_union_set_copy(cdom));
  isl_union_map *t2 = append_time(s->ctx, isl_union_map_subtract_domain(isl_union_map_copy(after.sched), cdom), n, 0);
  t2 = isl_union_map_union(t2, append_time(s->ctx, isl_union_map_apply_range(isl_union_map_copy(pc), isl_union_map_copy(csched)), n, 0));
  t2 = isl_union_map_union(t2, append_time(s->ctx, csched, n, 1));
  char tt[32];
  store_tuple(t, tt, sizeof tt);
  DepModel d = *m;
  d.reads = filter(isl_union_map_copy(m->reads), tt, isl_dim_out, false);
  d.writes = filter(isl_union_map_copy(m->writes), tt, isl_dim_out, false);
  d.conflicts = d.deps = NULL; /* m's are of all accesses: computed anew for these */
  isl_union_map *deps = dep_memory(&d);
  isl_union_map *order = isl_union_map_lex_lt_union_map(isl_union_map_copy(t2), t2);
  isl_union_map *broken = isl_union_map_subtract(deps, order);
  if (!broken) {
    ok = sched_error(s, NULL, "internal error: dependence analysis failed");
  } else if (!is_empty(broken)) {
    isl_map *b = any_map(broken);
    const Stmt *x = b ? tuple_leaf(m, b, isl_dim_in) : NULL, *y = b ? tuple_leaf(m, b, isl_dim_out) : NULL;
    const char *what = "an element";
    if (b) {
      /* the element both touch */
      isl_union_map *bm = isl_union_map_from_map(isl_map_copy(b));
      isl_union_map *acc = isl_union_map_union(isl_union_map_copy(d.reads), isl_union_map_copy(d.writes));
      isl_union_set *ex = isl_union_set_apply(isl_union_map_domain(isl_union_map_copy(bm)), isl_union_map_copy(acc));
      isl_union_set *ey = isl_union_set_apply(isl_union_map_range(bm), acc);
      isl_union_map *elm = isl_union_map_from_domain(isl_union_set_intersect(ex, ey));
      isl_map *em = any_map(elm);
      if (em) what = tuple_store_name(s, isl_map_get_tuple_name(em, isl_dim_in));
      isl_map_free(em);
      isl_union_map_free(elm);
    }
    ok = sched_error(s, NULL, "illegal: running %s (line %d) where %s (line %d) runs reverses the dependence on %s from %s to %s",
                     c->name, c->loc.line, p->name ? p->name : "the declaration", p->loc.line, what,
                     x ? site_text(s, x) : "a statement", y ? site_text(s, y) : "a statement");
    isl_map_free(b);
  }
  isl_union_map_free(broken);
  isl_union_map_free(d.reads);
  isl_union_map_free(d.writes);
  isl_union_map_free(d.conflicts);
  isl_union_map_free(d.deps);
  dep_model_free(&after);
  return ok;
}

bool prim_reverse_compute_inline(Sched *s, const SchedStep *st) {
  Stmt *c = sched_leaf(s, &st->args[0]);
  if (!c) return false;
  if (c->kind != ST_ASSIGN)
    return sched_error(s, NULL, "cannot inline %s (line %d): it is a declaration; only an assignment can be inlined into its producer", c->name, c->loc.line);
  if (c->op != OP_NONE)
    return sched_error(s, NULL, "cannot inline %s (line %d): it is a compound assignment (%s=); only a plain '=' can be inlined",
                       c->name, c->loc.line, op_spelling(c->op));
  Store t = {NULL, NULL};
  Stmt *p = NULL;
  if (!find_producer(s, c, &t, &p)) return false;
  const char *tn = store_name(t);
  if (is_param(t))
    return sched_error(s, NULL, "cannot inline %s (line %d): %s is a kernel parameter, its values must be stored", c->name, c->loc.line, tn);
  const char *cin = arena_printf(s->a, "%s (line %d) into %s (line %d)", c->name, c->loc.line, p->name ? p->name : "its declaration", p->loc.line);
  if (p->kind == ST_DECL && !p->var)
    return sched_error(s, NULL, "cannot inline %s: %s is initialized with a list", cin, tn);
  if (p->kind == ST_ASSIGN && p->op != OP_NONE)
    return sched_error(s, NULL, "cannot inline %s: %s is a compound assignment (%s=)", cin, p->name, op_spelling(p->op));
  Sites rd = find_sites(s, t, false);
  Stmt *other = NULL;
  for (int i = 0; i < rd.n && !other; i++)
    if (rd.v[i] != c) other = rd.v[i];
  free(rd.v);
  if (other) return sched_error(s, NULL, "cannot inline %s: %s is also read by %s", cin, tn, site_text(s, other));
  if (c->lhs->kind == EX_LOAD && refs(c->lhs, t))
    return sched_error(s, NULL, "cannot inline %s: %s is read in the index of the store", cin, tn);

  /* 1. one index, invertible */
  SameIndex q = {s, t, NULL, NULL};
  ir_visit_expr(c->rhs, same_index_at, &q);
  if (q.other)
    return sched_error(s, NULL, "cannot inline %s (line %d): it reads %s at two indices (%s and %s)", c->name, c->loc.line, tn,
                       expr_text(s, q.first), expr_text(s, q.other));
  Stmt *decl = find_decl(s, t);
  if (!decl) return sched_error(s, NULL, "internal error: no declaration of %s", tn);
  Stmt *cloops[512], *dloops[512];
  int nc = loops_around(s, c, cloops), nd = loops_around(s, decl, dloops);
  Inverse inv;
  if (!invert(s, c, q.first, t, cloops, nd, nc, "read", "reads", &inv)) return false;
  /* an if around C but not P: its condition would be lost */
  Path cp = {.n = 0}, pp = {.n = 0};
  path_rec(s->k->body->body, c, &cp);
  path_rec(s->k->body->body, p, &pp);
  for (int i = 0; i < cp.n; i++) {
    bool shared = false;
    for (int j = 0; j < pp.n; j++) shared |= pp.enc[j] == cp.enc[i];
    if (cp.enc[i]->kind == ST_IF && !shared)
      return sched_error(s, NULL, "cannot inline %s: the if at line %d around %s would be lost", cin, cp.enc[i]->loc.line, c->name);
  }
  /* what C uses must be visible at P */
  Locals used = {.n = 0}; /* the locals C uses, T aside (T goes away) */
  locals_of(c->lhs, &used);
  locals_of(c->rhs, &used);
  int kept = 0;
  for (int i = 0; i < used.n; i++)
    if (used.v[i].var != t.var || used.v[i].buf != t.buf) used.v[kept++] = used.v[i];
  used.n = kept;
  int cloc = 0;
  if (!locals_visible(s, &used, p, arena_printf(s->a, "cannot inline %s: %s", cin, c->name), &cloc)) return false;

  if (!sched_begin_fresh(s)) return false;
  isl_union_map *pc = NULL;
  if (!producer_matches(s, c, p, t, &pc)) return false;
  isl_map *bad = NULL;
  if (!same_outer_iterations(&s->before, pc, cloc, &bad)) {
    isl_map_free(bad);
    isl_union_map_free(pc);
    Stmt *loop;
    const char *local = deepest_local(s, &used, &loop);
    return sched_error(s, NULL, "cannot inline %s: %s uses %s, declared inside loop %s (line %d), which would come from another iteration of %s",
                       cin, c->name, local, loop ? loop->name : "?", loop ? loop->loc.line : 0, loop ? loop->name : "it");
  }

  /* C at P's place: C's counters from P's index, T's reads from P's value */
  Expr *to[IR_MAX_DIMS];
  for (int i = 0; i < inv.n; i++) {
    const Expr *pi = p->kind == ST_DECL ? NULL : p->lhs->idx[inv.dim[i]];
    to[i] = as_type(s, ir_expr_copy(s->a, strip_implicit(pi)), inv.ctr[i]->type);
  }
  Expr *value = stored_value(s, p, store_type(t));
  Stmt *n = ir_stmt(s->a, ST_ASSIGN, c->loc);
  n->name = c->name;
  n->labeled = c->labeled;
  n->annots = c->annots;
  n->op = OP_NONE;
  n->lhs = subst_many(s, ir_expr_copy(s->a, c->lhs), inv.ctr, to, inv.n);
  n->rhs = replace_reads(s, subst_many(s, ir_expr_copy(s->a, c->rhs), inv.ctr, to, inv.n), t, value);
  n->inst = c->inst;
  n->norig = c->norig;
  n->orig = ARENA_ARRAY(s->a, Expr *, c->norig ? c->norig : 1);
  for (int i = 0; i < c->norig; i++) n->orig[i] = subst_many(s, ir_expr_copy(s->a, c->orig[i]), inv.ctr, to, inv.n);
  Stmt **link = sched_link(s, p, NULL);
  if (!link) {
    isl_union_map_free(pc);
    return sched_error(s, NULL, "internal error: %s not found", cin);
  }
  n->next = p->next;
  *link = n;
  remove_stmt(s, c);
  if (decl != p) remove_stmt(s, decl);
  bool ok = moved_legal(s, c, p, decl, t, pc);
  isl_union_map_free(pc);
  return ok;
}
