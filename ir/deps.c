#include "ir/deps.h"

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"

/* ---------------- origins ---------------- */

typedef struct {
  Arena *a;
  const Stmt *loops[512];
  int depth;
  int next_inst;
  bool only_new; /* number only the leaves without an origin */
} Reset;

static void reset_list(Reset *r, Stmt *s);

static void reset_stmt(Reset *r, Stmt *s) {
  switch (s->kind) {
  case ST_BLOCK:
    reset_list(r, s->body);
    break;
  case ST_FOR:
    if (r->depth < 512) r->loops[r->depth] = s;
    r->depth++;
    reset_list(r, s->body);
    r->depth--;
    break;
  case ST_IF:
    reset_list(r, s->then_s);
    reset_list(r, s->else_s);
    break;
  case ST_ASSIGN:
  case ST_DECL:
    if (r->only_new && s->orig) break;
    s->inst = r->next_inst++;
    s->norig = r->depth < 512 ? r->depth : 512;
    s->orig = ARENA_ARRAY(r->a, Expr *, s->norig ? s->norig : 1);
    s->orig_vars = ARENA_ARRAY(r->a, const Var *, s->norig ? s->norig : 1);
    for (int i = 0; i < s->norig; i++) {
      s->orig[i] = ir_var(r->a, r->loops[i]->var, s->loc);
      s->orig_vars[i] = r->loops[i]->var;
    }
    break;
  }
}

static void reset_list(Reset *r, Stmt *s) {
  for (; s; s = s->next) reset_stmt(r, s);
}

void dep_reset_origins(Arena *a, Kernel *k) {
  Reset r = {.a = a};
  reset_list(&r, k->body);
}

static bool max_inst(Stmt *s, int depth, void *ctx) {
  (void)depth;
  int *n = ctx;
  if ((s->kind == ST_ASSIGN || s->kind == ST_DECL) && s->orig && s->inst + 1 > *n) *n = s->inst + 1;
  return true;
}

int dep_number_new_leaves(Arena *a, Kernel *k) {
  Reset r = {.a = a, .only_new = true};
  ir_walk_stmts(k->body, max_inst, &r.next_inst);
  int first = r.next_inst;
  reset_list(&r, k->body);
  return first;
}

/* ---------------- model building ---------------- */

typedef struct {
  DepModel *m;
  AffCtx aff;
  bool accesses;
  bool failed;
  /* time vector components of the current position, as isl texts */
  char *comps[1024];
  int ncomps;
  const Expr *conds[256]; /* enclosing if conditions (their reads count) */
  int nconds;
  /* where each local was declared: the enclosing loops (by id), for the
   * expansion of locals into one copy per iteration of those loops */
  int **var_decl_loops, **buf_decl_loops;
  /* per leaf texts, kept until the padded time length is known */
  char **iter_space, **cons, **orig;
  char ***time; /* components, ntime of them */
  int *ntime;
  bool *identity;
  /* per leaf: its domain over its loop counters (aff_domain; NULL: build
   * from the texts) and those counters' Var ids (ids[0] of them) */
  isl_set **dom;
  isl_multi_aff **i2o; /* iteration -> instance, when the origin is not the identity (NULL: its text) */
  int **loop_ids;
  int *inst; /* its Stmt.inst */
  int nocc, capocc;
  StrBuf racc, wacc; /* one leaf's accesses, batched for one parse */
  /* NULL: the leaf's instances are its loop iterations (S<inst>[c...] ->
   * element); else the text of its instance S<inst>[orig...], and each
   * access is I<inst>[c...] -> [instance -> element] */
  const char *acc_orig;
  /* the same instance as an isl function of the iteration (NULL: text;
   * borrowed from Build.i2o) */
  isl_multi_aff *acc_i2o;
  /* one leaf's accesses built with isl's API, with the texts above for
   * those it cannot build (a whole array, an index that is not affine) */
  isl_union_map *racc_api, *wacc_api;
  isl_union_map *reads, *writes;
} Build;

static int *snapshot_loops(Build *b) {
  int *ids = malloc(sizeof(int) * (size_t)(b->aff.nloops + 1));
  ids[0] = b->aff.nloops;
  for (int i = 0; i < b->aff.nloops; i++) ids[i + 1] = b->aff.loops[i]->var->id;
  return ids;
}

/* The counter of the current loops whose Var.id is var_id, as an isl_aff
 * on their space; NULL when it is not one of them. */
static isl_aff *counter_aff(Build *b, int var_id) {
  for (int k = 0; k < b->aff.nloops; k++)
    if (b->aff.loops[k]->var->id == var_id)
      return isl_aff_var_on_domain(isl_local_space_from_space(aff_space(&b->aff)), isl_dim_set, (unsigned)k);
  return NULL;
}

/* Appends a (NULL: not affine, which makes the whole list NULL). */
static isl_aff_list *append(isl_aff_list *list, isl_aff *a) {
  if (a) return list ? isl_aff_list_add(list, a) : NULL;
  isl_aff_list_free(list);
  return NULL;
}

/* The current loops -> the tuple name[list...]; consumes list. */
static isl_multi_aff *tuple_function(Build *b, isl_aff_list *list, const char *name) {
  isl_size n = isl_aff_list_size(list);
  if (n < 0) return NULL;
  isl_space *range = isl_space_set_tuple_name(isl_space_set_alloc(b->m->ctx, 0, (unsigned)n), isl_dim_set, name);
  return isl_multi_aff_from_aff_list(isl_space_map_from_domain_and_range(aff_space(&b->aff), range), list);
}

/* add_access's map built with isl's API: iteration -> element, or
 * iteration -> [instance -> element] (Build.acc_i2o); NULL when some part
 * is not affine (then its text is parsed). */
static isl_map *access_map(Build *b, const Stmt *leaf, const Expr *e, const int *decl) {
  if (e->kind == EX_LOAD && !e->idx) return NULL; /* a whole array: free dimensions */
  if (b->acc_orig && !b->acc_i2o) return NULL;
  int ndecl = decl ? decl[0] : 0, nidx = e->kind == EX_LOAD ? e->buf->ndim : 0;
  isl_aff_list *list = isl_aff_list_alloc(b->m->ctx, ndecl + nidx);
  for (int i = 0; i < ndecl; i++) list = append(list, counter_aff(b, decl[i + 1]));
  for (int i = 0; i < nidx; i++) list = append(list, aff_build(&b->aff, e->idx[i]));
  if (!list) return NULL;
  char name[32];
  snprintf(name, sizeof name, "%c%d", e->kind == EX_VAR ? 'V' : 'B', e->kind == EX_VAR ? e->var->id : e->buf->id);
  isl_multi_aff *ma = tuple_function(b, list, name);
  if (b->acc_orig) ma = isl_multi_aff_range_product(isl_multi_aff_copy(b->acc_i2o), ma);
  snprintf(name, sizeof name, "%c%d", b->acc_orig ? 'I' : 'S', leaf->inst);
  return isl_map_set_tuple_name(isl_map_from_multi_aff(ma), isl_dim_in, name);
}

/* Adds `stmt accesses elem` to the reads or writes. The element tuple of a
 * local carries the loops it was declared in first (one copy per iteration).
 * A dimension whose index is not affine is left free within its extent. */
static void add_access(Build *b, const Stmt *leaf, const Expr *e, bool write) {
  const int *decl0 = e->kind == EX_VAR ? b->var_decl_loops[e->var->id] : b->buf_decl_loops[e->buf->id];
  isl_map *built = access_map(b, leaf, e, decl0);
  if (built) {
    isl_union_map **into = write ? &b->wacc_api : &b->racc_api;
    *into = *into ? isl_union_map_add_map(*into, built) : isl_union_map_from_map(built);
    return;
  }
  StrBuf *sb = write ? &b->wacc : &b->racc;
  char *space = aff_space_text(&b->aff);
  if (b->acc_orig) sb_printf(sb, "I%d%s -> [%s -> ", leaf->inst, space, b->acc_orig);
  else sb_printf(sb, "S%d%s -> ", leaf->inst, space);
  const int *decl = NULL;
  StrBuf extra;
  sb_init(&extra);
  if (e->kind == EX_VAR) {
    decl = b->var_decl_loops[e->var->id];
    sb_printf(sb, "V%d[", e->var->id);
  } else {
    decl = b->buf_decl_loops[e->buf->id];
    sb_printf(sb, "B%d[", e->buf->id);
  }
  int nd = 0;
  for (int i = 0; decl && i < decl[0]; i++) sb_printf(sb, "%sc%d", nd++ ? ", " : "", decl[i + 1]);
  if (e->kind == EX_LOAD) {
    for (int i = 0; i < e->buf->ndim; i++) {
      char *t = e->idx ? aff_text(&b->aff, e->idx[i]) : NULL;
      if (t) {
        sb_printf(sb, "%s(%s)", nd++ ? ", " : "", t);
      } else {
        sb_printf(sb, "%sa%d", nd++ ? ", " : "", i);
        /* any element of the dimension: below its extent, which for an
         * extent in the sizes is their expression (the sizes are
         * dimensions here), else unbounded */
        char *x = e->buf->extent[i] ? aff_text(&b->aff, e->buf->extent[i]) : NULL;
        if (x) sb_printf(&extra, " and 0 <= a%d < %s", i, x);
        else if (e->buf->extent[i]) sb_printf(&extra, " and 0 <= a%d", i);
        else sb_printf(&extra, " and 0 <= a%d < %lld", i, (long long)e->buf->shape[i]);
        free(x);
        if (!b->m->nonaffine && e->idx) {
          b->m->nonaffine = e;
          b->m->nonaffine_stmt = leaf;
        }
      }
      free(t);
    }
  }
  /* the leaf's domain is intersected once, for all its accesses */
  sb_printf(sb, "]%s : 0 = 0%s; ", b->acc_orig ? "]" : "", extra.len ? extra.data : "");
  sb_free(&extra);
  free(space);
}

/* The batched accesses of one leaf (built, and texts parsed) into reads or
 * writes. */
static void flush_accesses(Build *b, StrBuf *sb, isl_union_map **api, isl_union_map **into, const Stmt *leaf, isl_union_set *dom) {
  isl_union_map *acc = *api;
  *api = NULL;
  if (sb->len) {
    StrBuf all;
    sb_init(&all);
    sb_printf(&all, "{ %s }", sb->data);
    isl_union_map *parsed = isl_union_map_read_from_str(b->m->ctx, all.data);
    sb_free(&all);
    acc = acc && parsed ? isl_union_map_union(acc, parsed) : acc ? isl_union_map_free(acc) : parsed;
    if (!parsed) acc = NULL;
  } else if (!acc) {
    return;
  }
  sb_free(sb);
  sb_init(sb);
  if (!acc) {
    b->failed = true;
    snprintf(b->m->error, sizeof b->m->error, "cannot model the accesses of %s (line %d)", leaf->name ? leaf->name : "a statement", leaf->loc.line);
    return;
  }
  acc = isl_union_map_intersect_domain(acc, isl_union_set_copy(dom));
  *into = isl_union_map_union(*into, acc);
}

static void reads_of(Build *b, const Stmt *leaf, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR && e->var->kind != VAR_LOOP) add_access(b, leaf, e, false);
  if (e->kind == EX_LOAD) {
    add_access(b, leaf, e, false);
    for (int i = 0; i < e->buf->ndim; i++) reads_of(b, leaf, e->idx[i]);
  }
  reads_of(b, leaf, e->a);
  reads_of(b, leaf, e->b);
  reads_of(b, leaf, e->c);
  for (int i = 0; i < e->nargs; i++) reads_of(b, leaf, e->args[i]);
}

static void leaf_accesses(Build *b, const Stmt *s) {
  for (int i = 0; i < b->nconds; i++) reads_of(b, s, b->conds[i]);
  if (s->kind == ST_ASSIGN) {
    reads_of(b, s, s->rhs);
    if (s->lhs->kind == EX_LOAD)
      for (int i = 0; i < s->lhs->buf->ndim; i++) reads_of(b, s, s->lhs->idx[i]);
    if (s->op != OP_NONE) add_access(b, s, s->lhs, false);
    add_access(b, s, s->lhs, true);
    return;
  }
  /* ST_DECL */
  reads_of(b, s, s->init);
  for (int i = 0; i < s->ninit; i++) reads_of(b, s, s->init_list[i]);
  if (s->var && s->init) {
    Expr v = {.kind = EX_VAR, .var = s->var, .type = s->var->type};
    add_access(b, s, &v, true);
  }
  if (s->buf && s->ninit) {
    Expr l = {.kind = EX_LOAD, .buf = s->buf, .type = s->buf->elem}; /* idx NULL: whole array */
    add_access(b, s, &l, true);
  }
}

static void leaf_access_maps(Build *b, const Stmt *s, int idx, bool identity);
static isl_multi_aff *orig_multi_aff(Build *b, const Stmt *s);

static void leaf(Build *b, const Stmt *s) {
  DepModel *m = b->m;
  if (s->inst < 0 || s->inst >= m->nleaves) {
    b->failed = true;
    snprintf(m->error, sizeof m->error, "statement %s has no instance number", s->name ? s->name : "?");
    return;
  }
  /* A leaf may occur several times (unroll, partition copies): one tuple. */
  int li = s->inst;
  DepLeaf *L = &m->leaves[li];
  int ns = b->aff.nsize_dims; /* the kernel's sizes: the first coordinates of every instance */
  if (!L->stmt) {
    L->stmt = s;
    /* the coordinates of its instances: the sizes, then the loops its
     * origin stands for */
    L->depth = ns + (s->orig_vars ? s->norig : b->aff.nloops - ns);
    L->vars = malloc(sizeof *L->vars * (size_t)(L->depth + 1));
    for (int i = 0; i < L->depth; i++)
      L->vars[i] = i < ns || !s->orig_vars ? b->aff.loops[i]->var : s->orig_vars[i - ns];
  }
  if (b->ncomps > m->time_dims) m->time_dims = b->ncomps;

  StrBuf o;
  sb_init(&o);
  sb_printf(&o, "S%d[", s->inst);
  for (int i = 0; i < ns; i++) sb_printf(&o, "%sc%d", i ? ", " : "", b->aff.loops[i]->var->id);
  for (int i = 0; i < s->norig; i++) {
    char *t = aff_text(&b->aff, s->orig[i]);
    if (!t) {
      b->failed = true;
      snprintf(m->error, sizeof m->error, "the instances of %s (line %d) are not affine in the new loops", s->name ? s->name : "a declaration", s->loc.line);
      sb_free(&o);
      return;
    }
    sb_printf(&o, "%s(%s)", i || ns ? ", " : "", t);
    free(t);
  }
  sb_putc(&o, ']');

  /* Kept per occurrence: a leaf may occur several times (copies). */
  if (b->nocc == b->capocc) {
    b->capocc = b->capocc ? 2 * b->capocc : 64;
    b->iter_space = realloc(b->iter_space, sizeof(char *) * (size_t)b->capocc);
    b->cons = realloc(b->cons, sizeof(char *) * (size_t)b->capocc);
    b->orig = realloc(b->orig, sizeof(char *) * (size_t)b->capocc);
    b->time = realloc(b->time, sizeof(char **) * (size_t)b->capocc);
    b->ntime = realloc(b->ntime, sizeof(int) * (size_t)b->capocc);
    b->identity = realloc(b->identity, sizeof(bool) * (size_t)b->capocc);
    b->i2o = realloc(b->i2o, sizeof *b->i2o * (size_t)b->capocc);
    b->dom = realloc(b->dom, sizeof(isl_set *) * (size_t)b->capocc);
    b->loop_ids = realloc(b->loop_ids, sizeof(int *) * (size_t)b->capocc);
    b->inst = realloc(b->inst, sizeof(int) * (size_t)b->capocc);
  }
  int idx = b->nocc++;
  b->inst[idx] = s->inst;
  b->dom[idx] = aff_domain(&b->aff);
  b->loop_ids[idx] = snapshot_loops(b);
  b->iter_space[idx] = aff_space_text(&b->aff);
  b->cons[idx] = aff_cons_text(&b->aff);
  b->orig[idx] = sb_take(&o);
  b->time[idx] = malloc(sizeof(char *) * (size_t)(b->ncomps + 1));
  for (int i = 0; i < b->ncomps; i++) b->time[idx][i] = strdup(i < 1024 ? b->comps[i] : "0");
  b->ntime[idx] = b->ncomps;

  /* identity origins: the instance tuple is the leaf's own loop space */
  bool identity = ns + s->norig == b->aff.nloops;
  for (int i = 0; identity && i < s->norig; i++)
    identity = s->orig[i]->kind == EX_VAR && s->orig[i]->var == b->aff.loops[ns + i]->var;
  b->identity[idx] = identity;
  b->i2o[idx] = identity ? NULL : orig_multi_aff(b, s);
  if (identity) { /* plain names: the tuple declares the variables */
    free(b->orig[idx]);
    StrBuf on;
    sb_init(&on);
    sb_printf(&on, "S%d%s", s->inst, b->iter_space[idx]);
    b->orig[idx] = sb_take(&on);
  }
  if (b->accesses) leaf_access_maps(b, s, idx, identity);
}

/* Iteration -> the instance S<inst>[orig...] it runs, with isl's API;
 * NULL when an origin is not affine here. */
static isl_multi_aff *orig_multi_aff(Build *b, const Stmt *s) {
  int ns = b->aff.nsize_dims;
  isl_aff_list *list = isl_aff_list_alloc(b->m->ctx, ns + s->norig);
  for (int i = 0; i < ns; i++) list = append(list, counter_aff(b, b->aff.loops[i]->var->id));
  for (int i = 0; i < s->norig; i++) list = append(list, aff_build(&b->aff, s->orig[i]));
  if (!list) return NULL;
  char name[32];
  snprintf(name, sizeof name, "S%d", s->inst);
  return tuple_function(b, list, name);
}

/* The accesses of one occurrence of leaf s, as maps from the model's
 * instances: built over its loop iterations, and for an origin that is not
 * the identity, as iteration -> [instance -> element], whose range is the
 * map wanted (one parse, no inverse of iteration -> instance). */
static void leaf_access_maps(Build *b, const Stmt *s, int idx, bool identity) {
  DepModel *m = b->m;
  b->acc_orig = identity ? NULL : b->orig[idx];
  b->acc_i2o = b->i2o[idx];
  leaf_accesses(b, s);
  b->acc_i2o = NULL;
  isl_union_set *dom = NULL;
  if (b->dom[idx]) { /* the loops' domain, already built, in the instance's or the iteration's tuple */
    char name[32];
    snprintf(name, sizeof name, "%s%d", identity ? "S" : "I", s->inst);
    dom = isl_union_set_from_set(isl_set_set_tuple_name(isl_set_copy(b->dom[idx]), name));
  } else {
    StrBuf d;
    sb_init(&d);
    if (identity) sb_printf(&d, "{ %s : %s }", b->orig[idx], b->cons[idx]);
    else sb_printf(&d, "{ I%d%s : %s }", s->inst, b->iter_space[idx], b->cons[idx]);
    dom = isl_union_set_read_from_str(m->ctx, d.data);
    sb_free(&d);
  }
  if (!dom) {
    b->failed = true;
    snprintf(m->error, sizeof m->error, "cannot model the domain of %s (line %d)", s->name ? s->name : "a declaration", s->loc.line);
    return;
  }
  if (identity) {
    flush_accesses(b, &b->racc, &b->racc_api, &b->reads, s, dom);
    flush_accesses(b, &b->wacc, &b->wacc_api, &b->writes, s, dom);
    isl_union_set_free(dom);
    return;
  }
  isl_union_map *r = isl_union_map_empty_ctx(m->ctx), *w = isl_union_map_empty_ctx(m->ctx);
  flush_accesses(b, &b->racc, &b->racc_api, &r, s, dom);
  flush_accesses(b, &b->wacc, &b->wacc_api, &w, s, dom);
  isl_union_set_free(dom);
  b->reads = isl_union_map_union(b->reads, isl_union_set_unwrap(isl_union_map_range(r)));
  b->writes = isl_union_map_union(b->writes, isl_union_set_unwrap(isl_union_map_range(w)));
}

static void push_comp(Build *b, char *text) {
  if (b->ncomps < 1024) b->comps[b->ncomps] = text;
  else free(text);
  b->ncomps++;
}

static void pop_comp(Build *b) {
  b->ncomps--;
  if (b->ncomps < 1024) free(b->comps[b->ncomps]);
}

static void walk_list(Build *b, const Stmt *s);

static void walk_stmt(Build *b, const Stmt *s) {
  if (b->failed) return;
  switch (s->kind) {
  case ST_BLOCK:
    walk_list(b, s->body);
    break;
  case ST_FOR: {
    aff_push_loop(&b->aff, s);
    char buf[32];
    snprintf(buf, sizeof buf, "%sc%d", s->step > 0 ? "" : "-", s->var->id);
    push_comp(b, strdup(buf));
    DepModel *m = b->m;
    m->loops = realloc(m->loops, sizeof *m->loops * (size_t)(m->nloops + 1));
    int64_t *prefix = malloc(sizeof *prefix * (size_t)b->ncomps);
    for (int i = 0; i < b->ncomps - 1; i++) {
      const char *c = i < 1024 ? b->comps[i] : "x";
      prefix[i] = c[0] >= '0' && c[0] <= '9' ? strtoll(c, NULL, 10) : INT64_MIN;
    }
    int li = m->nloops++;
    m->loops[li] = (DepLoop){s, b->ncomps - 1, prefix};
    int before = b->nocc;
    walk_list(b, s->body->body);
    if (b->nocc == before) m->loops[li].dim = -1; /* no statement: no time dimension of its own */
    pop_comp(b);
    aff_pop_loop(&b->aff);
    break;
  }
  case ST_IF:
    for (int branch = 0; branch < 2; branch++) {
      const Stmt *body = branch ? s->else_s : s->then_s;
      if (!body) continue;
      bool pushed = aff_push_cond(&b->aff, s->cond, branch == 1);
      if (b->nconds < 256) b->conds[b->nconds] = s->cond;
      b->nconds++;
      push_comp(b, strdup(branch ? "1" : "0"));
      walk_list(b, body->kind == ST_BLOCK ? body->body : body);
      pop_comp(b);
      b->nconds--;
      if (pushed) aff_pop_cond(&b->aff);
    }
    break;
  case ST_DECL:
    if (s->var) {
      free(b->var_decl_loops[s->var->id]);
      b->var_decl_loops[s->var->id] = snapshot_loops(b);
    }
    if (s->buf) {
      free(b->buf_decl_loops[s->buf->id]);
      b->buf_decl_loops[s->buf->id] = snapshot_loops(b);
    }
    /* a declaration without an initializer touches nothing and orders
     * nothing: no leaf of the model (a step may move it, as a cache of a
     * local array does, without changing the model) */
    if (s->init || s->ninit) leaf(b, s);
    break;
  case ST_ASSIGN:
    leaf(b, s);
    break;
  }
}

static void walk_list(Build *b, const Stmt *s) {
  for (int pos = 0; s && !b->failed; s = s->next, pos++) {
    char buf[24];
    snprintf(buf, sizeof buf, "%d", pos);
    push_comp(b, strdup(buf));
    walk_stmt(b, s);
    pop_comp(b);
  }
}

/* dom -> [t]: occurrence i's time vector (the kept dimensions of its
 * components: block positions, counters c<id> and -c<id>) as a function on
 * dom (consumed), built with isl's API: parsing the same text is most of a
 * model's cost. NULL when a component has another form (then: text). */
static isl_map *time_map(const Build *b, int i, isl_set *dom, const int *newdim, int full, int kept) {
  isl_space *sp = isl_set_get_space(dom);
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(sp));
  isl_multi_aff *ma = isl_multi_aff_zero(isl_space_map_from_domain_and_range(sp, isl_space_set_alloc(b->m->ctx, 0, (unsigned)kept)));
  const int *ids = b->loop_ids[i];
  bool ok = true;
  for (int d = 0; d < full && ok; d++) {
    if (newdim[d] < 0) continue;
    const char *c = d < b->ntime[i] ? b->time[i][d] : "0";
    isl_aff *aff = NULL;
    if (c[0] >= '0' && c[0] <= '9') {
      aff = isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(b->m->ctx, strtol(c, NULL, 10)));
    } else {
      bool neg = c[0] == '-';
      int id = c[neg] == 'c' ? atoi(c + neg + 1) : -1, pos = -1;
      for (int k = 0; k < ids[0]; k++)
        if (ids[k + 1] == id) pos = k;
      if (pos < 0) {
        ok = false;
        break;
      }
      aff = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)pos);
      if (neg) aff = isl_aff_neg(aff);
    }
    ma = isl_multi_aff_set_aff(ma, newdim[d], aff);
  }
  isl_local_space_free(ls);
  if (!ok) {
    isl_multi_aff_free(ma);
    isl_set_free(dom);
    return NULL;
  }
  return isl_map_intersect_domain(isl_map_from_multi_aff(ma), dom);
}

/* Instance -> time of occurrence i, without inverting iteration ->
 * instance (isl would solve for every counter with divisions): each
 * counter of the occurrence's loops is one time component, so time ->
 * iteration is a projection (t2i), time -> instance is i2o after it, and
 * the times are the iterations' images (the domain pulled back by t2i,
 * the constant components fixed). NULL when a component has another form. */
static isl_map *occurrence_schedule(const Build *b, int i, const int *newdim, int full, int kept) {
  isl_ctx *ctx = b->m->ctx;
  const int *ids = b->loop_ids[i];
  int nl = ids[0];
  isl_space *tsp = isl_space_set_alloc(ctx, 0, (unsigned)kept);
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(tsp));
  isl_multi_aff *t2i = isl_multi_aff_zero(isl_space_map_from_domain_and_range(isl_space_copy(tsp), isl_set_get_space(b->dom[i])));
  /* the constant components, fixed on the domain once it is pulled back */
  int *consts = malloc(sizeof(int) * 2 * (size_t)(kept + 1)), nconst = 0;
  isl_space_free(tsp);
  bool *have = calloc((size_t)nl + 1, sizeof *have);
  bool ok = true;
  for (int d = 0; d < full && ok; d++) {
    if (newdim[d] < 0) continue;
    const char *c = d < b->ntime[i] ? b->time[i][d] : "0";
    if (c[0] >= '0' && c[0] <= '9') {
      consts[2 * nconst] = newdim[d];
      consts[2 * nconst++ + 1] = (int)strtol(c, NULL, 10);
      continue;
    }
    bool neg = c[0] == '-';
    int id = c[neg] == 'c' ? atoi(c + neg + 1) : -1, pos = -1;
    for (int k = 0; k < nl; k++)
      if (ids[k + 1] == id) pos = k;
    ok = pos >= 0 && !have[pos];
    if (!ok) break;
    have[pos] = true;
    isl_aff *aff = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)newdim[d]);
    t2i = isl_multi_aff_set_aff(t2i, pos, neg ? isl_aff_neg(aff) : aff);
  }
  for (int k = 0; k < nl && ok; k++) ok = have[k];
  free(have);
  isl_local_space_free(ls);
  if (!ok) {
    isl_multi_aff_free(t2i);
    free(consts);
    return NULL;
  }
  isl_set *tdom = isl_set_preimage_multi_aff(isl_set_copy(b->dom[i]), isl_multi_aff_copy(t2i));
  for (int k = 0; k < nconst; k++) tdom = isl_set_fix_si(tdom, isl_dim_set, (unsigned)consts[2 * k], consts[2 * k + 1]);
  free(consts);
  isl_multi_aff *t2o;
  if (b->identity[i]) {
    char name[32];
    snprintf(name, sizeof name, "S%d", b->inst[i]);
    t2o = isl_multi_aff_set_tuple_name(t2i, isl_dim_out, name);
  } else {
    t2o = isl_multi_aff_pullback_multi_aff(isl_multi_aff_copy(b->i2o[i]), t2i);
  }
  return isl_map_reverse(isl_map_intersect_domain(isl_map_from_multi_aff(t2o), tdom));
}

static bool count_leaves(Stmt *s, int depth, void *ctx) {
  (void)depth;
  int *n = ctx;
  if ((s->kind == ST_ASSIGN || s->kind == ST_DECL) && s->inst + 1 > *n) *n = s->inst + 1;
  return true;
}

bool dep_model_build(DepModel *m, isl_ctx *ctx, const Kernel *k, bool accesses) {
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
  ir_walk_stmts(k->body, count_leaves, &m->nleaves);
  m->leaves = calloc((size_t)m->nleaves + 1, sizeof *m->leaves);
  Build b = {.m = m, .accesses = accesses};
  aff_init(&b.aff, ctx, k);
  b.var_decl_loops = calloc((size_t)k->nvars + 2, sizeof *b.var_decl_loops);
  b.buf_decl_loops = calloc((size_t)k->nbufs + 2, sizeof *b.buf_decl_loops);
  isl_space *sp = isl_space_params_alloc(ctx, 0);
  b.reads = isl_union_map_empty(isl_space_copy(sp));
  b.writes = isl_union_map_empty(isl_space_copy(sp));
  m->sched = isl_union_map_empty(sp);
  /* a kernel with sizes: each size an outermost loop of the whole program
   * (constant through a run) under the assumptions, first in every
   * instance and every time vector, so every set and pair of the model is
   * one size's: exact, and pairs of two sizes are ordered by the sizes
   * alike in every schedule (they never count as carried or reversed) */
  char why[300];
  if (k->nsizes && !aff_push_sizes(&b.aff, why, sizeof why)) {
    b.failed = true;
    snprintf(m->error, sizeof m->error, "%.250s", why);
  }
  for (int i = 0; i < b.aff.nsize_dims; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "c%d", b.aff.loops[i]->var->id);
    push_comp(&b, strdup(buf));
  }
  if (!b.failed) walk_list(&b, k->body->body);

  /* Time dimensions that are the same constant for every occurrence (the
   * position in a block with one child) order nothing: drop them, isl's
   * lexicographic operations cost per dimension. */
  int full = m->time_dims, kept = 0;
  /* a loop without statements may reach deeper than any statement */
  int span = full;
  for (int i = 0; i < m->nloops; i++)
    if (m->loops[i].dim + 1 > span) span = m->loops[i].dim + 1; /* (dim -1: none) */
  int *newdim = malloc(sizeof(int) * (size_t)(span + 1));
  for (int d = full; d < span; d++) newdim[d] = -1;
  for (int d = 0; d < full; d++) {
    const char *first = NULL;
    bool same = true;
    for (int i = 0; i < b.nocc && same; i++) {
      const char *c = d < b.ntime[i] ? b.time[i][d] : "0";
      if (!first) first = c;
      same = !strcmp(first, c) && c[0] >= '0' && c[0] <= '9';
    }
    newdim[d] = same ? -1 : kept++;
  }
  m->time_dims = kept;
  for (int i = 0; i < m->nloops; i++) {
    /* the prefix in kept dimensions only */
    DepLoop *l = &m->loops[i];
    int64_t *p = malloc(sizeof *p * (size_t)(kept + 1));
    for (int d = 0; d < l->dim; d++)
      if (newdim[d] >= 0) p[newdim[d]] = l->prefix[d];
    free(l->prefix);
    l->prefix = p;
    if (l->dim >= 0) l->dim = newdim[l->dim];
  }
  for (int i = 0; i < b.nocc; i++) {
    if (!b.failed) {
      StrBuf tv;
      sb_init(&tv);
      sb_putc(&tv, '[');
      int n = 0;
      for (int d = 0; d < full; d++)
        if (newdim[d] >= 0) sb_printf(&tv, "%s%s", n++ ? ", " : "", d < b.ntime[i] ? b.time[i][d] : "0");
      sb_putc(&tv, ']');
      StrBuf sb;
      sb_init(&sb);
      isl_map *o2t = NULL;
      if (b.dom[i] && (b.identity[i] || b.i2o[i])) o2t = occurrence_schedule(&b, i, newdim, full, kept);
      if (o2t) {
        /* built from the domain, no inverse */
      } else if (b.dom[i] && b.identity[i]) { /* S[c..] -> [t] on the loops' domain */
        char name[32];
        snprintf(name, sizeof name, "S%d", b.inst[i]);
        o2t = time_map(&b, i, isl_set_set_tuple_name(isl_set_copy(b.dom[i]), name), newdim, full, kept);
      } else if (b.dom[i]) { /* iteration -> instance (its text, without the domain's), then -> [t] */
        isl_map *i2o = NULL;
        if (b.i2o[i]) {
          i2o = isl_map_from_multi_aff(isl_multi_aff_copy(b.i2o[i]));
        } else {
          sb_printf(&sb, "{ %s -> %s }", b.iter_space[i], b.orig[i]);
          i2o = isl_map_read_from_str(ctx, sb.data);
        }
        sb_free(&sb);
        sb_init(&sb);
        isl_map *i2t = time_map(&b, i, isl_set_copy(b.dom[i]), newdim, full, kept);
        if (i2o && i2t) o2t = isl_map_apply_range(isl_map_reverse(isl_map_intersect_domain(i2o, isl_set_copy(b.dom[i]))), i2t);
        else {
          isl_map_free(i2o);
          isl_map_free(i2t);
        }
      }
      if (o2t) {
        /* built from the domain */
      } else if (b.identity[i]) {
        /* S[c..] -> [t] directly: one parse */
        sb_printf(&sb, "{ %s -> %s : %s }", b.orig[i], tv.data, b.cons[i]);
        o2t = isl_map_read_from_str(ctx, sb.data);
      } else {
        sb_printf(&sb, "{ %s -> %s : %s }", b.iter_space[i], b.orig[i], b.cons[i]);
        isl_map *i2o = isl_map_read_from_str(ctx, sb.data);
        sb_free(&sb);
        sb_printf(&sb, "{ %s -> %s : %s }", b.iter_space[i], tv.data, b.cons[i]);
        isl_map *i2t = isl_map_read_from_str(ctx, sb.data);
        if (i2o && i2t) o2t = isl_map_apply_range(isl_map_reverse(i2o), i2t);
        else {
          isl_map_free(i2o);
          isl_map_free(i2t);
        }
      }
      sb_free(&sb);
      sb_free(&tv);
      if (!o2t) {
        b.failed = true;
        snprintf(m->error, sizeof m->error, "cannot model the schedule of a statement");
      } else {
        m->sched = isl_union_map_union(m->sched, isl_union_map_from_map(o2t));
      }
    }
    free(b.iter_space[i]);
    free(b.cons[i]);
    free(b.orig[i]);
    isl_set_free(b.dom[i]);
    isl_multi_aff_free(b.i2o[i]);
    free(b.loop_ids[i]);
    for (int d = 0; d < b.ntime[i]; d++) free(b.time[i][d]);
    free(b.time[i]);
  }
  free(b.iter_space);
  free(b.dom);
  free(b.loop_ids);
  free(b.inst);
  free(b.cons);
  free(b.orig);
  free(b.time);
  free(b.ntime);
  free(newdim);
  free(b.identity);
  free(b.i2o);
  sb_free(&b.racc);
  sb_free(&b.wacc);
  /* copies of a statement (unroll, partition) are adjacent pieces: merging
   * them keeps later isl work from growing with the square of the copies */
  m->sched = isl_union_map_coalesce(m->sched);
  m->domain = isl_union_map_domain(isl_union_map_copy(m->sched));
  for (int i = 0; i < k->nvars + 2; i++) free(b.var_decl_loops[i]);
  for (int i = 0; i < k->nbufs + 2; i++) free(b.buf_decl_loops[i]);
  free(b.var_decl_loops);
  free(b.buf_decl_loops);
  while (b.ncomps > 0) pop_comp(&b);
  aff_free(&b.aff);
  if (accesses) {
    m->reads = isl_union_map_coalesce(b.reads);
    m->writes = isl_union_map_coalesce(b.writes);
  } else {
    isl_union_map_free(b.reads);
    isl_union_map_free(b.writes);
  }
  if (!m->domain || !m->sched) {
    b.failed = true;
    if (!m->error[0]) snprintf(m->error, sizeof m->error, "isl could not build the model");
  }
  return !b.failed;
}

void dep_model_free(DepModel *m) {
  for (int i = 0; i < m->nleaves; i++) free(m->leaves[i].vars);
  free(m->leaves);
  for (int i = 0; i < m->nloops; i++) free(m->loops[i].prefix);
  free(m->loops);
  isl_union_set_free(m->domain);
  isl_union_map_free(m->sched);
  isl_union_map_free(m->reads);
  isl_union_map_free(m->writes);
  isl_union_map_free(m->conflicts);
  isl_union_map_free(m->deps);
  memset(m, 0, sizeof *m);
}

const DepLoop *dep_loop(const DepModel *m, const Stmt *loop) {
  for (int i = 0; i < m->nloops; i++)
    if (m->loops[i].loop == loop) return &m->loops[i];
  return NULL;
}

isl_set *dep_times_inside(const DepModel *m, const DepLoop *l) {
  isl_set *t = isl_set_universe(isl_space_set_alloc(m->ctx, 0, (unsigned)m->time_dims));
  for (int i = 0; i < l->dim; i++)
    if (l->prefix[i] != INT64_MIN) t = isl_set_fix_si(t, isl_dim_set, (unsigned)i, (int)l->prefix[i]);
  return t;
}

/* ---------------- dependences ---------------- */

static isl_union_map *earlier(const DepModel *m) {
  return isl_union_map_lex_lt_union_map(isl_union_map_copy(m->sched), isl_union_map_copy(m->sched));
}

static isl_union_map *conflict_kind(const DepModel *m, char kind) {
  isl_union_map *src = kind == 'a' ? m->reads : m->writes;
  isl_union_map *dst = kind == 'f' ? m->reads : m->writes;
  return isl_union_map_apply_range(isl_union_map_copy(src), isl_union_map_reverse(isl_union_map_copy(dst)));
}

/* ---------------- conflicts, pair by pair ---------------- */

/* One access relation: the instances of one statement -> the elements of
 * one array or local, with the box those elements lie in. Composing only
 * the pairs whose boxes meet keeps 1000 statements writing 1000 rows of
 * one array from 10^6 compositions that isl would find empty. */
typedef struct {
  isl_map *map;
  const char *elem; /* the element tuple's name (B<id> or V<id>) */
  int n;
  int64_t *lo, *hi; /* INT64_MIN / INT64_MAX where unbounded */
} Access;

typedef struct {
  Access *v;
  int n, cap;
} Accesses;

static int64_t bound_of(isl_val *v, int64_t unbounded) {
  int64_t r = unbounded;
  if (v && isl_val_is_int(v) == isl_bool_true) { /* not infinite, not NaN (empty) */
    long x = isl_val_get_num_si(v);
    isl_val *back = isl_val_int_from_si(isl_val_get_ctx(v), x);
    if (isl_val_eq(back, v) == isl_bool_true) r = x; /* it fits */
    isl_val_free(back);
  }
  isl_val_free(v);
  return r;
}

static isl_stat collect_access(isl_map *map, void *user) {
  Accesses *l = user;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
  }
  Access *a = &l->v[l->n++];
  a->map = map;
  a->elem = isl_map_get_tuple_name(map, isl_dim_out);
  isl_size n = isl_map_dim(map, isl_dim_out);
  a->n = n < 0 ? 0 : (int)n;
  a->lo = malloc(sizeof *a->lo * (size_t)(a->n + 1));
  a->hi = malloc(sizeof *a->hi * (size_t)(a->n + 1));
  isl_set *range = isl_map_range(isl_map_copy(map));
  for (int i = 0; i < a->n; i++) {
    a->lo[i] = bound_of(isl_set_dim_min_val(isl_set_copy(range), i), INT64_MIN);
    a->hi[i] = bound_of(isl_set_dim_max_val(isl_set_copy(range), i), INT64_MAX);
  }
  isl_set_free(range);
  return isl_stat_ok;
}

static void accesses_of(isl_union_map *u, Accesses *l) {
  memset(l, 0, sizeof *l);
  isl_union_map_foreach_map(u, collect_access, l);
}

static void accesses_free(Accesses *l) {
  for (int i = 0; i < l->n; i++) {
    isl_map_free(l->v[i].map);
    free(l->v[i].lo);
    free(l->v[i].hi);
  }
  free(l->v);
}

static bool may_meet(const Access *a, const Access *b) {
  if (!a->elem || !b->elem) return true; /* unnamed: let isl decide */
  if (strcmp(a->elem, b->elem) || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->hi[i] < b->lo[i] || b->hi[i] < a->lo[i]) return false;
  return true;
}

/* src -> dst instance pairs that touch one element, for the pairs of
 * accesses whose boxes meet. */
static isl_union_map *meeting(isl_ctx *ctx, const Accesses *src, const Accesses *dst) {
  isl_union_map *r = isl_union_map_empty_ctx(ctx);
  for (int i = 0; i < src->n; i++)
    for (int j = 0; j < dst->n; j++)
      if (may_meet(&src->v[i], &dst->v[j]))
        r = isl_union_map_add_map(r, isl_map_apply_range(isl_map_copy(src->v[i].map), isl_map_reverse(isl_map_copy(dst->v[j].map))));
  return r;
}

isl_union_map *dep_memory_kind(const DepModel *m, char kind) {
  return isl_union_map_intersect(conflict_kind(m, kind), earlier(m));
}

isl_union_map *dep_conflicts(DepModel *m) {
  if (!m->conflicts) {
    Accesses r, w;
    accesses_of(m->reads, &r);
    accesses_of(m->writes, &w);
    isl_union_map *c = meeting(m->ctx, &w, &r); /* flow */
    c = isl_union_map_union(c, meeting(m->ctx, &r, &w)); /* anti */
    c = isl_union_map_union(c, meeting(m->ctx, &w, &w)); /* output */
    m->conflicts = isl_union_map_coalesce(c);
    accesses_free(&r);
    accesses_free(&w);
  }
  return isl_union_map_copy(m->conflicts);
}

isl_union_map *dep_memory(DepModel *m) {
  if (!m->deps) m->deps = isl_union_map_coalesce(isl_union_map_intersect(dep_conflicts(m), earlier(m)));
  return isl_union_map_copy(m->deps);
}
