/* expand(local) / expand(local, loop): scalar expansion. A scalar local
 * declared inside a loop nest carries a value through each iteration of
 * the loops around its declaration (an accumulator, a temporary, a
 * running max); expand gives every iteration an element of its own, so
 * the nest takes the array form tensorize, vectorize, fission and the
 * caches handle (TVM's decompose_reduction/rfactor, Halide's update and
 * rfactor give a reduction the same kind of storage).
 *
 *     for i, j { int32_t acc = 0; for k acc += A[i][k] * B[k][j]; C[i][j] = acc; }
 *   expand(acc): its destination, when acc's last use is `D = acc;` right
 *   in its block, D of acc's type:
 *     for i, j { C[i][j] = 0; for k C[i][j] += A[i][k] * B[k][j]; }
 *   otherwise an array over the loops around the declaration (from `loop`
 *   inward when given), declared right before the outermost of them:
 *     float m[R]; for i { m[i] = x[i][0]; for j m[i] = ... ; ... m[i] ... }
 *
 * Legal: by construction. A local declared in a loop is a new object in
 * every iteration (C 6.2.4): the dependence model already gives it one
 * element per iteration of the loops it is declared in (ir/deps.c), so
 * the array form has the same instances, order and conflicting pairs. The
 * destination form writes D in acc's place: D's element (its indices read
 * loop counters only, fixed through acc's life) holds the partial values
 * between acc's declaration and the store, and nothing else touches D's
 * array there (checked), so every other access sees what it saw.
 *
 * tensorize and vectorize expand the locals of a nest that does not match
 * by themselves (sched_expand_to_match): into the destination, or, for a
 * temporary that only names a value (`float v = x[i];`), into that value
 * (compute_inline's rewrite), tried on a copy of the nest first. */
#include "schedule/expand.h"

#include <isl/flow.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdint.h>
#include <stdlib.h>

#include "ir/affine.h"
#include "schedule/primitives.h"

/* ---------------- finding the local ---------------- */

typedef struct {
  const char *name;
  Stmt *found[16];
  int n;
  StrBuf all; /* every scalar local, for "no such" messages */
} FindDecl;

static bool find_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  FindDecl *f = ctx;
  if (st->kind != ST_DECL || !st->var) return true;
  sb_printf(&f->all, "%s%s", f->all.len ? ", " : "", st->var->name);
  if (!strcmp(st->var->name, f->name) || (st->name && !strcmp(st->name, f->name))) {
    if (f->n < 16) f->found[f->n] = st;
    f->n++;
  }
  return true;
}

/* The declaration of the scalar local arg names (its name, or its
 * declaration's name, as --dump-ir shows it, when several locals share
 * the name). */
static Stmt *local_decl(Sched *s, const SchedArg *arg) {
  if (arg->kind != SA_NAME) return sched_error(s, arg, "expected a local scalar's name, got '%s'", arg->text), NULL;
  FindDecl f = {.name = arg->name};
  sb_init(&f.all);
  ir_walk_stmts(s->k->body, find_decl, &f);
  Stmt *r = f.n == 1 ? f.found[0] : NULL;
  if (!f.n)
    sched_error(s, arg, "no local scalar named '%s' in %s (%s%s)", arg->name, s->variant,
                f.all.len ? "locals: " : "it declares none", f.all.len ? f.all.data : "");
  else if (f.n > 1) {
    StrBuf at;
    sb_init(&at);
    for (int i = 0; i < f.n && i < 16; i++) sb_printf(&at, "%s%s (line %d)", i ? ", " : "", f.found[i]->name, f.found[i]->loc.line);
    sched_error(s, arg, "%d locals are named '%s'; name its declaration instead: %s", f.n, arg->name, at.data);
    sb_free(&at);
  }
  sb_free(&f.all);
  if (r && sched_call_holding(s, r)) {
    sched_refuse_in_call(s, arg, sched_call_holding(s, r), arena_printf(s->a, "local %s", arg->name));
    return NULL;
  }
  return r;
}

/* ---------------- shared pieces ---------------- */

/* The link to target in the statement list *list (at any depth), or NULL. */
static Stmt **link_to(Stmt **list, const Stmt *target) {
  for (Stmt **l = list; *l; l = &(*l)->next) {
    Stmt *c = *l;
    if (c == target) return l;
    Stmt **in = NULL;
    if ((c->kind == ST_FOR || c->kind == ST_BLOCK) && (in = link_to(&c->body, target))) return in;
    if (c->kind == ST_IF && ((in = link_to(&c->then_s, target)) || (in = link_to(&c->else_s, target)))) return in;
  }
  return NULL;
}

typedef struct {
  const Var *v;
  const Buffer *b;
  bool used;
} Use;

static bool use_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  u->used = u->used || ir_stmt_uses(st, u->v, u->b);
  return !u->used;
}

/* Does a statement from `from` up to `stop` (not included; NULL: the end
 * of the list) use v or b, at any depth? */
static bool uses_between(const Stmt *from, const Stmt *stop, const Var *v, const Buffer *b) {
  for (const Stmt *c = from; c && c != stop; c = c->next) {
    Use u = {v, b, false};
    ir_walk_one(c, use_visit, &u);
    if (u.used) return true;
  }
  return false;
}

/* The declaration becomes the store of its initializer into `into` (or
 * goes, with no initializer): the statement keeps its name and instances. */
static void decl_to_store(Stmt **link, Stmt *decl, Expr *into) {
  if (!decl->init) {
    *link = decl->next;
    return;
  }
  decl->kind = ST_ASSIGN;
  decl->lhs = into;
  decl->op = OP_NONE;
  decl->rhs = decl->init; /* converted to the local's type by the frontend */
  decl->init = NULL;
  decl->var = NULL;
}

/* Replaces the local's every use after its declaration in its block. */
static void subst_after(Arena *a, Stmt *decl, const Stmt *stop, const Var *v, const Expr *r) {
  for (Stmt *c = decl->next; c && c != stop; c = c->next) ir_subst_stmt(a, c, v, r);
}

/* ---------------- the destination form ---------------- */

static bool is_store_of(const Stmt *c, const Var *v) {
  return c->kind == ST_ASSIGN && c->op == OP_NONE && c->rhs->kind == EX_VAR && c->rhs->var == v &&
         c->lhs->kind == EX_LOAD;
}

typedef struct {
  const Var *v;
  const Buffer *d;
  bool written;
} Settled;

static bool settled_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Settled *w = ctx;
  const Expr *l = st->kind == ST_ASSIGN ? st->lhs : NULL;
  w->written = w->written || (l && ((l->kind == EX_VAR && l->var == w->v) || (l->kind == EX_LOAD && l->buf == w->d)));
  return !w->written;
}

/* After `D = v;` (from `from` on), is neither v nor D's array written?
 * Then v's later reads may read D's element: it holds v's value. */
static bool settled_after(const Stmt *from, const Var *v, const Buffer *d) {
  Settled w = {v, d, false};
  for (const Stmt *c = from; c && !w.written; c = c->next) ir_walk_one(c, settled_visit, &w);
  return !w.written;
}

/* The store `D = v;` in decl's block that v can live in: the one that
 * ends v's life, or, when its last use is no store, the first store after
 * which neither v nor D's array is written (`float e = expf(..); y = e;
 * s += e;`: e lives in y, and s adds y's element). NULL with why
 * otherwise. */
static Stmt *destination(const Kernel *k, Stmt *decl, char *why, size_t n) {
  const Var *v = decl->var;
  Stmt *last = NULL, *store = NULL;
  for (Stmt *c = decl->next; c; c = c->next)
    if (uses_between(c, c->next, v, NULL)) last = c;
  if (last && is_store_of(last, v)) store = last;
  for (Stmt *c = decl->next; c && c != last && !store; c = c->next)
    if (is_store_of(c, v) && settled_after(c->next, v, c->lhs->buf)) store = c;
  if (!store) return snprintf(why, n, "its last use is not a store `D = %s;` in its block", v->name), NULL;
  const Expr *d = store->lhs;
  if (!type_same(d->type, v->type))
    return snprintf(why, n, "it is stored to %s, of type %s, not %s", d->buf->name, d->type->name, v->type->name), NULL;
  for (int i = 0; i < d->buf->ndim; i++)
    if (!ir_expr_counters_only(k, d->idx[i]))
      return snprintf(why, n, "the index of %s it is stored to reads more than loop counters", d->buf->name), NULL;
  if (uses_between(decl->next, store, NULL, d->buf))
    return snprintf(why, n, "%s, which it is stored to, is used while %s lives (line %d to %d)", d->buf->name,
                    v->name, decl->loc.line, store->loc.line), NULL;
  return store;
}

/* v lives in D: each use reads and writes D, the store goes (after it,
 * D's element holds v's value: each read of v reads it). */
static void to_destination(Arena *a, Stmt **link, Stmt *decl, Stmt *store) {
  const Var *v = decl->var;
  subst_after(a, decl, store, v, store->lhs);
  subst_after(a, store, NULL, v, store->lhs);
  Stmt **sl = link_to(link, store);
  *sl = store->next;
  decl_to_store(link, decl, ir_expr_copy(a, store->lhs));
}

/* ---------------- the value form (tensorize's and vectorize's) ---------------- */

typedef struct {
  const Expr *init;
  const Var *v;
  bool clash; /* something init reads, or v itself, is written */
} Writes;

static bool writes_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Writes *w = ctx;
  const Expr *l = st->kind == ST_ASSIGN ? st->lhs : NULL;
  if (l && l->kind == EX_VAR && (l->var == w->v || ir_expr_uses(w->init, l->var, NULL))) w->clash = true;
  if (l && l->kind == EX_LOAD && ir_expr_uses(w->init, NULL, l->buf)) w->clash = true;
  if (st->kind == ST_DECL && st->buf && ir_expr_uses(w->init, NULL, st->buf)) w->clash = true;
  return !w->clash;
}

/* v is its initializer everywhere it is read: nothing writes v, or what
 * its initializer reads, after the declaration in its block. */
static bool value_form(Stmt *decl) {
  if (!decl->init) return false;
  Writes w = {decl->init, decl->var, false};
  for (Stmt *c = decl->next; c && !w.clash; c = c->next) ir_walk_one(c, writes_visit, &w);
  return !w.clash;
}

static void to_value(Arena *a, Stmt **link, Stmt *decl) {
  subst_after(a, decl, NULL, decl->var, decl->init);
  *link = decl->next;
}

/* ---------------- the array form ---------------- */

/* An array of v's type over loops[0 .. n), outermost first, each over the
 * values its counter takes (isl bounds a triangular loop's), with the
 * indices (counter - first value) in idx. */
static Buffer *array_over(Sched *s, const Stmt *decl, Stmt **around, int nall, int first, Expr **idx,
                          const SchedArg *at) {
  Buffer *b = ARENA_NEW(s->a, Buffer);
  AffCtx ac;
  aff_init(&ac, s->ctx, s->k);
  /* sizes bound the counters as the assumptions allow (the array is as
   * large as the largest size needs), as stage's */
  char why[300];
  bool ok = !s->k->nsizes || aff_push_sizes(&ac, why, sizeof why) || sched_error(s, at, "%s", why);
  for (int i = 0; i < nall && ok; i++) {
    aff_push_loop(&ac, around[i]);
    if (i < first) continue;
    int64_t lo, hi;
    bool exact, empty;
    Expr c = {.kind = EX_VAR, .var = around[i]->var, .type = around[i]->var->type};
    if (b->ndim == IR_MAX_DIMS)
      ok = sched_error(s, at, "%s lives in more than %d loops; expand it over the inner ones: expand(%s, loop)",
                       decl->var->name, IR_MAX_DIMS, decl->var->name);
    else if (!aff_range(&ac, &c, &lo, &hi, &exact, &empty) || empty || hi < lo || hi - lo >= INT32_MAX)
      ok = sched_error(s, at, "%s lives in loop %s, whose range npugen cannot bound (an array needs constant extents%s)",
                       decl->var->name, around[i]->name,
                       s->k->nsizes ? ": assume an upper bound on the sizes, #pragma npu assume" : "");
    if (!ok) break;
    b->shape[b->ndim] = hi - lo + 1;
    idx[b->ndim++] = ir_sub(s->a, ir_var(s->a, around[i]->var, decl->loc), ir_int(s->a, lo, around[i]->var->type, decl->loc),
                            around[i]->var->type);
  }
  aff_free(&ac);
  if (!ok) return NULL;
  int64_t bytes = decl->var->type->size;
  for (int i = 0; i < b->ndim; i++)
    if (__builtin_mul_overflow(bytes, b->shape[i], &bytes) || bytes > IR_MAX_LOCAL_BYTES)
      return sched_error(s, at, "the array for %s would take more than %d bytes (the limit of a kernel's local arrays)%s; "
                         "expand it over fewer loops: expand(%s, loop)", decl->var->name, IR_MAX_LOCAL_BYTES,
                         s->k->nsizes ? " at the largest sizes allowed (assume an upper bound on the sizes)" : "",
                         decl->var->name), NULL;
  b->elem = decl->var->type;
  b->scope = "local";
  b->role = ROLE_LOCAL;
  b->loc = decl->var->loc;
  b->id = s->k->nbufs++;
  return b;
}

/* ---------------- a local declared outside its loops ---------------- */

typedef struct {
  Sched *s;
  const Var *v;
  const Stmt *decl;
  Stmt *common[256]; /* the loops around every use so far, outermost first */
  int n;             /* -1: no use yet */
} Common;

static bool common_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Common *c = ctx;
  if (st == c->decl || !ir_stmt_uses(st, c->v, NULL)) return true;
  Stmt *around[256];
  int n = sched_loops_around(c->s, st, around, 256); /* a loop's bound that reads v: the loops around it */
  if (c->n < 0) {
    memcpy(c->common, around, sizeof(Stmt *) * (size_t)(n < 0 ? 0 : n));
    c->n = n < 0 ? 0 : n;
  }
  int k = 0;
  while (k < c->n && k < n && c->common[k] == around[k]) k++;
  c->n = k;
  return true;
}

/* The loops around every use of decl's local, outermost first, in loops;
 * their number (0 when some use is outside every loop). */
static int common_loops(Sched *s, Stmt *decl, Stmt **loops) {
  Common c = {.s = s, .v = decl->var, .decl = decl, .n = -1};
  for (Stmt *x = decl->next; x; x = x->next) ir_walk_one(x, common_visit, &c);
  int n = c.n < 0 ? 0 : c.n;
  memcpy(loops, c.common, sizeof(Stmt *) * (size_t)n);
  return n;
}

/* Is a leaf under an if (its write may not run where the model says)? */
static void mark_guarded(const Stmt *list, bool guarded, bool *under_if, int nleaves) {
  for (const Stmt *c = list; c; c = c->next) {
    if ((c->kind == ST_ASSIGN || c->kind == ST_DECL) && c->inst >= 0 && c->inst < nleaves) under_if[c->inst] = guarded;
    if (c->kind == ST_FOR || c->kind == ST_BLOCK) mark_guarded(c->body, guarded, under_if, nleaves);
    if (c->kind == ST_IF) {
      mark_guarded(c->then_s, true, under_if, nleaves);
      mark_guarded(c->else_s, true, under_if, nleaves);
    }
  }
}

typedef struct {
  const char *tuple; /* the local's element tuple, V<id> */
  const DepModel *m;
  const bool *under_if;
  bool unguarded_only;
  isl_union_map *out;
} Filter;

static isl_stat filter_map(isl_map *map, void *user) {
  Filter *f = user;
  const char *t = isl_map_get_tuple_name(map, isl_dim_out), *in = isl_map_get_tuple_name(map, isl_dim_in);
  int inst = in && in[0] == 'S' ? atoi(in + 1) : -1;
  bool keep = t && !strcmp(t, f->tuple) && (!f->unguarded_only || (inst >= 0 && inst < f->m->nleaves && !f->under_if[inst]));
  if (keep) f->out = isl_union_map_add_map(f->out, map);
  else isl_map_free(map);
  return isl_stat_ok;
}

static isl_union_map *accesses_of(const Filter *proto, isl_union_map *acc, bool unguarded_only) {
  Filter f = *proto;
  f.unguarded_only = unguarded_only;
  f.out = isl_union_map_empty(isl_union_map_get_space(acc));
  isl_union_map_foreach_map(acc, filter_map, &f);
  return f.out;
}

/* Every read of v takes its value from a write in the same iteration of
 * the loops from the outermost of loops[] down to inner (isl's exact
 * dataflow on the IR's own iterations): then no value of v crosses their
 * iterations, and an element per iteration holds them all. 1 when proven,
 * 0 with an error naming the read, -1 when isl failed. */
static int values_stay_in_iterations(Sched *s, const Var *v, const Stmt *inner) {
  if (!sched_begin_fresh(s)) return -1;
  const DepModel *m = &s->before;
  const DepLoop *dl = dep_loop(m, inner);
  if (!dl || dl->dim < 0) return -1;
  bool *under_if = calloc((size_t)m->nleaves + 1, sizeof *under_if);
  mark_guarded(s->k->body, false, under_if, m->nleaves);
  char tuple[32];
  snprintf(tuple, sizeof tuple, "V%d", v->id);
  Filter f = {.tuple = tuple, .m = m, .under_if = under_if};
  isl_union_map *sink = accesses_of(&f, m->reads, false);
  isl_union_access_info *ai = isl_union_access_info_from_sink(sink);
  ai = isl_union_access_info_set_must_source(ai, accesses_of(&f, m->writes, true));
  ai = isl_union_access_info_set_may_source(ai, accesses_of(&f, m->writes, false));
  ai = isl_union_access_info_set_schedule_map(ai, isl_union_map_copy(m->sched));
  isl_union_flow *fl = isl_union_access_info_compute_flow(ai);
  free(under_if);
  isl_union_map *dep = fl ? isl_union_flow_get_may_dependence(fl) : NULL;
  isl_union_map *nos = fl ? isl_union_flow_get_may_no_source(fl) : NULL;
  isl_union_flow_free(fl);
  if (!dep || !nos) {
    isl_union_map_free(dep);
    isl_union_map_free(nos);
    return -1;
  }
  /* the pairs as times; their differences are 0 up to inner's counter */
  isl_union_map *times = isl_union_map_apply_range(isl_union_map_reverse(isl_union_map_copy(m->sched)),
                                                   isl_union_map_apply_range(dep, isl_union_map_copy(m->sched)));
  isl_union_set *deltas = isl_union_map_deltas(times);
  StrBuf z;
  sb_init(&z);
  sb_puts(&z, "{ [");
  for (int i = 0; i < m->time_dims; i++) sb_printf(&z, "%sx%d", i ? ", " : "", i);
  sb_puts(&z, "] : ");
  for (int i = 0; i <= dl->dim; i++) sb_printf(&z, "%sx%d = 0", i ? " and " : "", i);
  sb_puts(&z, " }");
  isl_union_set *same = isl_union_set_read_from_str(s->ctx, z.data);
  sb_free(&z);
  isl_bool inside = deltas && same ? isl_union_set_is_subset(deltas, same) : isl_bool_error;
  isl_bool orphan = isl_union_map_is_empty(nos);
  isl_union_set_free(deltas);
  isl_union_set_free(same);
  isl_union_map_free(nos);
  if (inside == isl_bool_error || orphan == isl_bool_error) return -1;
  if (orphan == isl_bool_false)
    return sched_error(s, &s->step->args[0], "%s can be read before anything is written to it: its value would come from "
                       "no element", v->name), 0;
  if (inside == isl_bool_false)
    return sched_error(s, &s->step->args[0], "a value of %s flows from one iteration of loop %s (or a loop around it) "
                       "into another, or into the loop from before it: one element per iteration would not carry it",
                       v->name, inner->name), 0;
  return 1;
}

/* ---------------- the array form, placed ---------------- */

/* The store of the initializer (at *link) moves down its block to right
 * before the first statement that uses b, when the statements it passes
 * write nothing its value reads: a reduction's init then sits beside its
 * loop even when a fission cut a statement out between them
 * (`float sum = 0; for c { y = expf(..); sum += y; }` cut after y), so the
 * two stay one stage. Legal: nothing it passes touches b (its first use
 * is after) or what the store reads, and it passes no declaration. */
static void sink_store(Stmt **link, Stmt *store, const Buffer *b) {
  Stmt *to = store->next;
  while (to && !uses_between(to, to->next, NULL, b)) {
    if (to->kind == ST_DECL) return; /* a name declared there could hide one the value reads */
    Writes w = {store->rhs, NULL, false};
    ir_walk_one(to, writes_visit, &w);
    if (w.clash) return;
    to = to->next;
  }
  if (!to || to == store->next) return;
  *link = store->next;
  Stmt **before = link_to(link, to);
  store->next = to;
  *before = store;
}

/* `if (C) v = X;` (no else) as the array's store `v[..] = C ? X : v[..];`,
 * at any depth of the list: a running max written with an if takes the
 * form of the VU's reductions and of every step that reads stores, and
 * the caches see the element written in every iteration. Legal: the same
 * stores where C holds; elsewhere the element gets the value it has, and
 * the kernel language has no side effects to run or skip. */
static void ifs_to_selects(Arena *a, Stmt **list, const Buffer *b) {
  for (Stmt **l = list; *l; l = &(*l)->next) {
    Stmt *c = *l, *t = c->kind == ST_IF && !c->else_s ? c->then_s : NULL;
    if (c->kind == ST_FOR || c->kind == ST_BLOCK) ifs_to_selects(a, &c->body, b);
    while (t && t->kind == ST_BLOCK && !t->next) t = t->body;
    if (!t || t->next || t->kind != ST_ASSIGN || t->op != OP_NONE || t->lhs->kind != EX_LOAD || t->lhs->buf != b ||
        !type_same(t->rhs->type, t->lhs->type))
      continue;
    Expr *sel = ARENA_NEW(a, Expr);
    sel->kind = EX_COND;
    sel->a = c->cond;
    sel->b = t->rhs;
    sel->c = ir_expr_copy(a, t->lhs);
    sel->type = t->lhs->type;
    sel->loc = c->loc;
    t->rhs = sel;
    t->next = c->next;
    *l = t;
  }
}

static bool to_array(Sched *s, Stmt *decl, const SchedArg *loop_arg) {
  Stmt *around[256];
  int ndecl = sched_loops_around(s, decl, around, 256);
  if (ndecl < 0) return sched_error(s, &s->step->args[0], "%s sits under more than 256 loops", decl->var->name);
  /* a local declared outside the loops it is used in: over those, when
   * isl proves its values stay in their iterations; one declared in a
   * loop with an initializer takes its value there (`const float inv =
   * 1.0f / s;` before a loop over the row): over the loops around it */
  int n = common_loops(s, decl, around);
  if (n <= ndecl || (ndecl && decl->init)) n = ndecl;
  if (!n)
    return sched_error(s, &s->step->args[0], "%s (line %d) is declared and used outside every loop: there is nothing "
                       "to expand it over", decl->var->name, decl->loc.line);
  bool outside = n > ndecl;
  int first = 0;
  if (loop_arg) {
    Stmt *l = sched_loop(s, loop_arg);
    if (!l) return false;
    while (first < n && around[first] != l) first++;
    if (first == n)
      return sched_error(s, loop_arg, "%s (line %d) does not live in loop %s: it is %s outside it", decl->var->name,
                         decl->loc.line, l->name, outside ? "used" : "declared");
  }
  if (outside) {
    int r = values_stay_in_iterations(s, decl->var, around[n - 1]);
    if (r < 0) return sched_error(s, &s->step->args[0], "internal error: isl failed on the dataflow of %s", decl->var->name);
    if (!r) return false;
  }
  Expr *idx[IR_MAX_DIMS];
  Buffer *b = array_over(s, decl, around, n, first, idx, loop_arg ? loop_arg : &s->step->args[0]);
  if (!b) return false;
  Var *v = decl->var;
  subst_after(s->a, decl, NULL, v, ir_load(s->a, b, idx));
  Stmt **link = sched_link(s, decl, NULL);
  if (outside) *link = decl->next; /* its initializer is read by nothing (proven): it goes */
  else {
    Expr **ix = ARENA_ARRAY(s->a, Expr *, b->ndim);
    for (int i = 0; i < b->ndim; i++) ix[i] = ir_expr_copy(s->a, idx[i]);
    decl_to_store(link, decl, ir_load(s->a, b, ix));
    ifs_to_selects(s->a, link, b);
    if (decl->kind == ST_ASSIGN) sink_store(link, decl, b);
  }
  /* the local's name, now free, unless another scope has one too */
  b->name = sched_name_taken(s, v->name) ? sched_fresh_name(s, v->name) : v->name;
  Stmt *ad = ir_stmt(s->a, ST_DECL, v->loc);
  ad->buf = b;
  Stmt **at = sched_link(s, around[first], NULL);
  ad->next = *at;
  *at = ad;
  return true;
}

/* ---------------- the primitive ---------------- */

bool prim_expand(Sched *s, const SchedStep *st) {
  Stmt *decl = local_decl(s, &st->args[0]);
  if (!decl) return false;
  char why[300];
  Stmt *store = destination(s->k, decl, why, sizeof why);
  Stmt **link = sched_link(s, decl, NULL);
  if (store && st->nargs == 1) {
    to_destination(s->a, link, decl, store);
    return true;
  }
  return to_array(s, decl, st->nargs == 2 ? &st->args[1] : NULL);
}

/* ---------------- tensorize's and vectorize's ---------------- */

typedef struct {
  Stmt *found[64];
  int n;
} Decls;

static bool decls_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Decls *d = ctx;
  if (st->kind == ST_DECL && st->var && d->n < 64) d->found[d->n++] = st;
  return true;
}

enum { FORM_NONE, FORM_DESTINATION, FORM_VALUE };

/* `T v = X; if (C) v = Y;` (no else, C and Y not reading v) as
 * `T v = C ? Y : X;`, each such if after the declaration in turn: a
 * leaky ReLU written with an if takes the select's form, which the VU's
 * instructions match. The same value where C holds and where it does
 * not, and the kernel language has no side effects to run or skip. */
static void ifs_into_init(Arena *a, Stmt *decl) {
  while (decl->init && decl->next && decl->next->kind == ST_IF && !decl->next->else_s) {
    Stmt *c = decl->next, *t = c->then_s;
    while (t && t->kind == ST_BLOCK && !t->next) t = t->body;
    if (!t || t->next || t->kind != ST_ASSIGN || t->op != OP_NONE || t->lhs->kind != EX_VAR ||
        t->lhs->var != decl->var || !type_same(t->rhs->type, decl->var->type) ||
        !type_same(decl->init->type, decl->var->type) || ir_expr_uses(c->cond, decl->var, NULL) ||
        ir_expr_uses(t->rhs, decl->var, NULL))
      return;
    Expr *sel = ARENA_NEW(a, Expr);
    sel->kind = EX_COND;
    sel->a = c->cond;
    sel->b = t->rhs;
    sel->c = decl->init;
    sel->type = decl->var->type;
    sel->loc = c->loc;
    decl->init = sel;
    decl->next = c->next;
  }
}

/* Rewrites the locals declared in the nest under loop (whose body list is
 * *body) into the first form each takes; the forms taken in forms[]. */
static int expand_nest(Arena *a, const Kernel *k, Stmt *loop, int *forms, Stmt **names) {
  Decls d = {.n = 0};
  ir_walk_stmts(loop->body, decls_visit, &d);
  int taken = 0;
  for (int i = 0; i < d.n; i++) ifs_into_init(a, d.found[i]);
  for (int i = 0; i < d.n; i++) {
    char why[300];
    Stmt *decl = d.found[i], **link = link_to(&loop->body, decl);
    Stmt *store = destination(k, decl, why, sizeof why);
    forms[i] = store ? FORM_DESTINATION : value_form(decl) ? FORM_VALUE : FORM_NONE;
    if (names) names[i] = decl;
    if (forms[i] == FORM_DESTINATION) to_destination(a, link, decl, store);
    else if (forms[i] == FORM_VALUE) to_value(a, link, decl);
    taken += forms[i] != FORM_NONE;
  }
  return taken;
}

bool sched_expand_to_match(Sched *s, Stmt *loop, SchedNestMatch matches, void *ctx) {
  Decls d = {.n = 0};
  ir_walk_stmts(loop->body, decls_visit, &d);
  if (!d.n || sched_call_holding(s, loop)) return false;
  CloneMap cm = {0};
  Stmt *copy = ir_clone_stmt(s->a, loop, &cm);
  clone_map_free(&cm);
  int forms[64];
  if (!expand_nest(s->a, s->k, copy, forms, NULL) || !matches(s, copy, ctx)) return false;
  /* the same rewrites, on the nest itself */
  Stmt *decls[64];
  const char *names[64];
  for (int i = 0; i < d.n; i++) names[i] = d.found[i]->var->name;
  int again[64];
  expand_nest(s->a, s->k, loop, again, decls);
  for (int i = 0; i < d.n; i++) {
    if (again[i] == FORM_DESTINATION) sb_printf(&s->applied, "expand(%s)\n", names[i]);
    else if (again[i] == FORM_VALUE) sb_printf(&s->applied, "compute_inline(%s)\n", decls[i]->name);
  }
  sched_model_drop(s); /* new accesses: the next step's proof builds its model anew */
  return true;
}
