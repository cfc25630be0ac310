/* The random-schedule generator and case runner (see sched_gen.h). */
#include "fuzz/sched_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jit/c_text.h"
#include "frontend/frontend.h"
#include "jit/check.h"
#include "jit/tcc_unit.h"
#include "schedule/sched.h"
#include "schedule/tensorize.h"

/* A module is re-parsed once the IR of past cases (all in its arena) passes
 * this: bounded memory for long runs. */
enum { SG_ARENA_REPARSE_BYTES = 64 << 20 };
/* Default unroll limits (SgOptions): the isl legality proof slows down
 * with statements (unroll(r) of style_manylocals.c, 8 copies of ~50
 * statements, takes 15 s), so the test keeps copies few and small. */
enum { SG_MAX_COPIES = 4, SG_MAX_NEW_LEAVES = 16 };
/* Observed items of the current IR; more are counted but not kept. */
enum { SG_MAX_ITEMS = 1024, SG_MAX_DEPTH = 512 };
/* Failure descriptions kept by sg_counts_add. */
enum { SG_MAX_FAILURE_TEXT = 256 << 10 };

static const char *const prim_names[] = {
    "split", "fuse", "merge", "fission", "reorder", "tile", "unroll", "vectorize", "parallel",
    "loop_partition", "decompose_reduction", "annotate", "compute_at", "reverse_compute_at",
    "compute_inline", "reverse_compute_inline", "cache_read", "cache_write", "tensorize", "double_buffer", "bind",
    "set_scope", "stage",
};
enum { NPRIMS = sizeof prim_names / sizeof prim_names[0] };
/* Relative frequency of each primitive (same order). */
static const int prim_weight[NPRIMS] = {12, 7, 6, 7, 9, 8, 8, 5, 5, 6, 6, 4, 4, 4, 4, 4, 5, 5, 3, 4, 4, 3, 4};

/* A mark (parallel, vectorize, bind) is proven when set, and every later
 * step must keep it: in SG_MARK_FIRST percent of the cases a mark comes at
 * a random step before the last, and after a mark applied, half the steps
 * are drawn from the primitives that move loops, statements or buffers. */
enum { SG_MARK_FIRST = 35 };
static const char *const mark_prims[] = {"parallel", "vectorize", "bind"};
enum { SG_FORCED_BIND = 30, SG_FORCED_PARALLEL = 65 }; /* percent; vectorize otherwise */
static const char *const after_mark_prims[] = {"reorder", "merge", "fuse", "split", "tile", "fission",
                                               "cache_read", "cache_write", "set_scope", "double_buffer",
                                               "compute_at", "reverse_compute_at", "unroll", "loop_partition",
                                               "stage"};

static int prim_index(const char *name) {
  for (int i = 0; i < NPRIMS; i++)
    if (!strcmp(prim_names[i], name)) return i;
  return 0;
}

static bool is_mark(int p) {
  for (size_t i = 0; i < sizeof mark_prims / sizeof mark_prims[0]; i++)
    if (!strcmp(prim_names[p], mark_prims[i])) return true;
  return false;
}

int sg_prim_count(void) { return NPRIMS; }
const char *sg_prim_name(int i) { return i >= 0 && i < NPRIMS ? prim_names[i] : "?"; }

const char *sg_outcome_name(SgOutcome o) {
  switch (o) {
  case SG_PASSED: return "passed";
  case SG_REFUSED: return "refused";
  case SG_INTERNAL: return "internal error";
  case SG_FAILED: return "FAILED";
  default: return "?";
  }
}

/* ---------------- random numbers ---------------- */

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int sg_pick_file(uint64_t seed, int nfiles) {
  return nfiles > 0 ? (int)(mix64(seed * 0x9e3779b97f4a7c15ull + 7) % (uint64_t)nfiles) : 0;
}

/* ---------------- files ---------------- */

struct SgFile {
  char *path;
  char *src;
  size_t len;
  Module *m;
  CheckRefs *refs; /* the kernels' reference runs, kept for every case */
  SemCache *sems;  /* the intrinsics' semantics, parsed once for every case */
};

static Module *parse(SgFile *f, char *err, size_t err_size) {
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse(f->path, f->src, f->len, &d);
  if (!m || d.errors) {
    char *t = diag_render(&d);
    snprintf(err, err_size, "%s does not parse: %.800s", f->path, t ? t : "");
    free(t);
    module_free(m);
    m = NULL;
  }
  diag_free(&d);
  return m;
}

SgFile *sg_file_open(const char *path, char *err, size_t err_size) {
  SgFile *f = calloc(1, sizeof *f);
  f->path = strdup(path);
  f->src = read_file(path, &f->len);
  if (!f->src) {
    snprintf(err, err_size, "cannot read %s", path);
    sg_file_close(f);
    return NULL;
  }
  f->m = parse(f, err, err_size);
  if (f->m) f->refs = check_refs_new(f->m);
  if (!f->m) {
    sg_file_close(f);
    return NULL;
  }
  return f;
}

void sg_file_close(SgFile *f) {
  if (!f) return;
  check_refs_free(f->refs);
  sem_cache_free(f->sems);
  module_free(f->m);
  free(f->src);
  free(f->path);
  free(f);
}

const char *sg_file_path(const SgFile *f) { return f->path; }
const Module *sg_file_module(const SgFile *f) { return f->m; }

/* ---------------- what the current IR holds ---------------- */

typedef struct {
  Stmt *s;
  int parent;       /* index of the enclosing loop, -1 at the top */
  int depth;        /* loops around it */
  int order;        /* position in a pre-order walk */
  bool has_trip;
  int64_t trip;
  int leaves;       /* leaf statements in its body (all depths) */
  int kids;         /* loops directly inside it */
} LoopInfo;

typedef struct {
  Stmt *s;
  int parent;
  int order;
  bool writes_local, reads_local;
} LeafInfo;

typedef struct {
  LoopInfo loops[SG_MAX_ITEMS];
  int nloops;
  LeafInfo leaves[SG_MAX_ITEMS];
  int nleaves;
  int total_leaves; /* all, also past SG_MAX_ITEMS */
  int order;
  /* the walk: loop index open at each depth (-1: not a loop) */
  int open[SG_MAX_DEPTH];
} IrInfo;

static int enclosing(const IrInfo *in, int depth) {
  for (int d = (depth < SG_MAX_DEPTH ? depth : SG_MAX_DEPTH) - 1; d >= 0; d--)
    if (in->open[d] >= 0) return in->open[d];
  return -1;
}

static bool is_local_target(const Expr *e) {
  return e && ((e->kind == EX_VAR && e->var->kind == VAR_LOCAL) || (e->kind == EX_LOAD && e->buf->role == ROLE_LOCAL));
}

static bool not_local(const Expr *e, void *ctx) {
  (void)ctx;
  return !is_local_target(e);
}

static bool reads_local(const Expr *e) { return !ir_walk_expr(e, not_local, NULL); }

static bool info_visit(Stmt *s, int depth, void *ctx) {
  IrInfo *in = ctx;
  if (depth < SG_MAX_DEPTH) in->open[depth] = -1;
  int parent = enclosing(in, depth);
  in->order++;
  if (s->kind == ST_FOR && s->name && in->nloops < SG_MAX_ITEMS) {
    LoopInfo *l = &in->loops[in->nloops];
    *l = (LoopInfo){.s = s, .parent = parent, .order = in->order};
    l->depth = parent >= 0 ? in->loops[parent].depth + 1 : 0;
    l->has_trip = ir_trip_count(s, &l->trip);
    if (parent >= 0) in->loops[parent].kids++;
    if (depth < SG_MAX_DEPTH) in->open[depth] = in->nloops;
    in->nloops++;
  } else if ((s->kind == ST_ASSIGN || s->kind == ST_DECL) && s->name) {
    in->total_leaves++;
    for (int p = parent; p >= 0; p = in->loops[p].parent) in->loops[p].leaves++;
    if (in->nleaves < SG_MAX_ITEMS)
      in->leaves[in->nleaves++] = (LeafInfo){s, parent, in->order, s->kind == ST_DECL || is_local_target(s->lhs),
                                             reads_local(s->rhs) || reads_local(s->init)};
  }
  return true;
}

static void collect(IrInfo *in, Kernel *k) {
  in->nloops = in->nleaves = in->total_leaves = in->order = 0;
  ir_walk_stmts(k->body, info_visit, in);
}

/* Is loop li inside loop outer (or the same)? */
static bool within(const IrInfo *in, int li, int outer) {
  for (int p = li; p >= 0; p = in->loops[p].parent)
    if (p == outer) return true;
  return false;
}

/* ---------------- the generator ---------------- */

typedef struct {
  uint64_t rng;
  SgOptions opt;
  Sched *s;
  Arena *a;
  const Module *m;
  int bad;             /* percent: how often an argument is made wrong */
  int step;
  int mark_step;       /* the step that sets a mark (-1: none forced) */
  bool marked;         /* a mark applied at an earlier step */
  char letter;         /* next suffix of fresh names in this step */
  const char *last_new;/* the previous fresh name of this step */
  IrInfo in;
  SchedArg args[64];
  int nargs;
} Gen;

static uint64_t rnd(Gen *g) { return mix64(g->rng += 0x9e3779b97f4a7c15ull); }
static int below(Gen *g, int n) { return n > 0 ? (int)(rnd(g) % (uint64_t)n) : 0; }
static bool chance(Gen *g, int percent) { return below(g, 100) < percent; }

/* The value the pragma frontend gives a name that is a #define. */
static void define_value(const Module *m, SchedArg *a) {
  for (const Define *d = m->defines; d; d = d->next)
    if (!strcmp(d->name, a->name) && d->value && type_is_integer(d->value->type) && ir_const_int(d->value, &a->ival))
      a->has_value = true;
}

static void add_name(Gen *g, const char *n) {
  SchedArg *a = &g->args[g->nargs++];
  *a = (SchedArg){.kind = SA_NAME, .name = arena_strdup(g->a, n), .text = arena_strdup(g->a, n)};
  define_value(g->m, a);
}

static void add_int(Gen *g, int64_t v) {
  g->args[g->nargs++] = (SchedArg){.kind = SA_INT, .ival = v, .text = arena_printf(g->a, "%lld", (long long)v)};
}

static void add_str(Gen *g, const char *v) {
  g->args[g->nargs++] = (SchedArg){.kind = SA_STR, .name = arena_strdup(g->a, v), .text = arena_printf(g->a, "\"%s\"", v)};
}

static const char *param_name(Gen *g) {
  int n = 0;
  for (const Param *p = g->s->k->params; p; p = p->next) n++;
  int i = below(g, n);
  for (const Param *p = g->s->k->params; p; p = p->next, i--)
    if (!i) return p->buf ? p->buf->name : p->var->name;
  return "A";
}

/* A name that does not fit: unknown, or a thing of the wrong kind. */
static const char *bad_name(Gen *g) {
  switch (below(g, 6)) {
  case 0: return g->in.nleaves ? g->in.leaves[below(g, g->in.nleaves)].s->name : "s1";
  case 1: return g->in.nloops ? g->in.loops[below(g, g->in.nloops)].s->name : "i";
  case 2: return param_name(g);
  case 3: return g->m->defines ? g->m->defines->name : "N";
  case 4: return g->s->k->name;
  default: return "nosuch";
  }
}

static const char *loop_name(Gen *g, int li) {
  Stmt *l = g->in.loops[li].s;
  /* a loop is also found by its counter's name, when no loop has that
   * name and no other loop that counter */
  if (l->var && strcmp(l->var->name, l->name) && chance(g, 5)) {
    int same = 0;
    for (int i = 0; i < g->in.nloops; i++) {
      const Stmt *o = g->in.loops[i].s;
      if (!strcmp(o->name, l->var->name) || (o->var && !strcmp(o->var->name, l->var->name))) same++;
    }
    if (same == 1) return l->var->name;
  }
  return l->name;
}

/* Any loop; after a mark, mostly an unmarked one: split, fuse, tile and
 * the like refuse a marked loop by design ("split before marking"), while
 * a step on the loops around or inside it is what may break the mark. */
static int random_loop(Gen *g) {
  if (!g->in.nloops) return -1;
  int li = below(g, g->in.nloops);
  for (int tries = 0; tries < 4 && g->marked && g->in.loops[li].s->loop_kind != LOOP_SERIAL && chance(g, 75); tries++)
    li = below(g, g->in.nloops);
  return li;
}
static int random_leaf(Gen *g) { return g->in.nleaves ? below(g, g->in.nleaves) : -1; }

/* Loop li (a random one when li < 0), now and then a wrong name. */
static void add_loop(Gen *g, int li) {
  if (li < 0) li = random_loop(g);
  if (li < 0 || chance(g, g->bad)) add_name(g, bad_name(g));
  else add_name(g, loop_name(g, li));
}

static void add_leaf(Gen *g, int si) {
  if (si < 0) si = random_leaf(g);
  if (si < 0 || chance(g, g->bad)) add_name(g, bad_name(g));
  else add_name(g, g->in.leaves[si].s->name);
}

/* A name for a new loop: fresh (r<step>_<letter>), sometimes one in use,
 * or one that is unused in the kernel but means something to C (a type,
 * a <math.h> function, a keyword): the emitted loop must not shadow it. */
static void add_new_name(Gen *g) {
  static const char *const c_names[] = {"int32_t", "int8_t", "uint8_t", "int16_t", "expf", "sqrtf", "fabsf", "exp",
                                        "sqrt", "tanhf", "fmaxf", "float", "int", "for", "main", "size_t", "NULL"};
  if (chance(g, g->bad)) {
    int r = below(g, 3);
    if (r == 0 && g->last_new) add_name(g, g->last_new);
    else if (r == 1) add_name(g, c_names[below(g, (int)(sizeof c_names / sizeof c_names[0]))]);
    else add_name(g, bad_name(g));
    return;
  }
  const char *n = arena_printf(g->a, "r%d_%c", g->step, g->letter++);
  g->last_new = n;
  add_name(g, n);
}

static int64_t divisor_of(Gen *g, int64_t n) {
  int64_t d[64];
  int nd = 0;
  for (int64_t i = 2; i <= n && i <= 100000 && nd < 64; i++) /* bounded: trips can be huge */
    if (n % i == 0) d[nd++] = i;
  return nd ? d[below(g, nd)] : 2;
}

static bool unroll_fits(const Gen *g, int li, int64_t copies) {
  int64_t body = g->in.loops[li].leaves > 0 ? g->in.loops[li].leaves : 1;
  return copies <= g->opt.max_copies && (copies - 1) * body <= g->opt.max_new_leaves;
}

/* A factor for loop li (-1: any): valid ones mostly, and the edge cases. */
static void add_factor(Gen *g, int li, bool for_unroll, bool divisor) {
  bool known = li >= 0 && g->in.loops[li].has_trip;
  int64_t n = known ? g->in.loops[li].trip : 16, v;
  if (chance(g, 2 * g->bad)) {
    /* not a valid factor: refused, whatever the loop */
    static const int64_t huge[] = {SCHED_MAX_UNROLL + 1, 255, 256, 257, 1000, 2147483648LL, 2147483649LL, 4294967296LL,
                                   INT64_MAX};
    switch (below(g, 7)) {
    case 0: v = 0; break;
    case 1: v = -1 - below(g, 3); break;
    case 2: v = huge[below(g, (int)(sizeof huge / sizeof huge[0]))]; break;
    case 3: add_name(g, g->in.nloops ? g->in.loops[below(g, g->in.nloops)].s->name : "i"); return;
    case 4: add_str(g, "4"); return;
    case 5: v = n + 1; break; /* above the trip count */
    default: /* above the unroll limit: mostly just above it, up to 256 */
      v = SCHED_MAX_UNROLL + 1 + below(g, chance(g, 80) ? 256 - SCHED_MAX_UNROLL : 1000);
      break;
    }
    add_int(g, v);
    return;
  }
  int r = below(g, 100);
  if (divisor && r < 70) r = 0; /* tile's guarded tails would break its band */
  if (r < 50) {
    v = n > 1 ? divisor_of(g, n) : 1;
  } else if (r < 75) {
    v = 2 + below(g, 7);
    if (known && v > n) v = n > 0 ? n : 1;
  } else if (r < 87) {
    /* a non-divisor: a guarded or remainder tail */
    v = 1;
    for (int tries = 0; tries < 8 && n > 3; tries++) {
      v = 2 + below(g, (int)(n < 1000 ? n - 2 : 998));
      if (n % v) break;
    }
  } else if (r < 92) {
    v = 1;
  } else if (r < 97) {
    v = n > 0 ? n : 1;
  } else {
    /* a #define whose value fits, as a name: the pragma frontend resolves
     * it to its value */
    const Define *d = NULL;
    int64_t dv;
    for (const Define *x = g->m->defines; x; x = x->next)
      if (x->value && type_is_integer(x->value->type) && ir_const_int(x->value, &dv) && dv > 0 && dv <= n &&
          !for_unroll && (!d || chance(g, 50))) /* unroll: the limits below apply to ints only */
        d = x;
    if (d) {
      add_name(g, d->name);
      return;
    }
    v = n > 1 ? divisor_of(g, n) : 1;
  }
  /* unroll copies the body v times: stay within the limits for valid v */
  if (for_unroll && v > 1 && li >= 0)
    while (v > 2 && !unroll_fits(g, li, v)) v = v > g->opt.max_copies ? g->opt.max_copies : v - 1;
  add_int(g, v);
}

/* A loop directly nested in another one (any of its body's loops). */
static bool nested_pair(Gen *g, int *outer, int *inner) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nloops; i++)
    if (g->in.loops[i].parent >= 0) cand[nc++] = i;
  if (!nc) return false;
  *inner = cand[below(g, nc)];
  *outer = g->in.loops[*inner].parent;
  return true;
}

/* A loop that is the only statement of another loop's body, mostly (what
 * fuse, tile and reorder need); else any nested pair. */
static bool perfect_pair(Gen *g, int *outer, int *inner) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nloops; i++) {
    int p = g->in.loops[i].parent;
    if (p >= 0 && g->in.loops[p].s->body->body == g->in.loops[i].s && !g->in.loops[i].s->next) cand[nc++] = i;
  }
  if (!nc || chance(g, 20)) return nested_pair(g, outer, inner);
  *inner = cand[below(g, nc)];
  *outer = g->in.loops[*inner].parent;
  return true;
}

/* Sibling loops (the second right after the first), with equal trip
 * counts mostly (what merge needs). */
static bool sibling_pair(Gen *g, int *first, int *second) {
  int found = 0;
  bool same = chance(g, 80);
  for (int pass = 0; pass < 2 && !found; pass++, same = false)
    for (int i = 0; i < g->in.nloops; i++)
      for (int j = 0; j < g->in.nloops; j++) {
        const LoopInfo *a = &g->in.loops[i], *b = &g->in.loops[j];
        if (a->s->next != b->s) continue;
        int64_t alo, ahi, blo, bhi;
        if (same && !(ir_const_int(a->s->lo, &alo) && ir_const_int(a->s->hi, &ahi) && ir_const_int(b->s->lo, &blo) &&
                      ir_const_int(b->s->hi, &bhi) && alo == blo && ahi == bhi && a->s->cmp == b->s->cmp &&
                      a->s->step == b->s->step))
          continue;
        if (below(g, ++found) == 0) *first = i, *second = j; /* reservoir sampling */
      }
  return found > 0;
}

/* Two different random loops (when there are two). */
static void two_loops(Gen *g, int *a, int *b) {
  *a = random_loop(g);
  *b = random_loop(g);
  for (int tries = 0; tries < 8 && *a == *b && g->in.nloops > 1; tries++) *b = random_loop(g);
}

/* Innermost loops for vectorize, outermost for parallel, mostly. */
static int loop_by_depth(Gen *g, bool innermost) {
  int best[SG_MAX_ITEMS], nb = 0;
  for (int i = 0; i < g->in.nloops; i++)
    if (innermost ? !g->in.loops[i].kids : g->in.loops[i].depth == 0) best[nb++] = i;
  if (!nb || chance(g, 25)) return random_loop(g);
  return best[below(g, nb)];
}

/* ---------------- counters near their types' limits ---------------- */

/* A counter of a type narrower than int (its fused or split arithmetic
 * passes the type soon: uint8_t 16 x 16), or a loop with constant bounds
 * whose end lies within 2^16 of its type's largest value (a split's last
 * tile passes it). What fuse and split write there must still fit
 * (ir/fits.c); the old steps wrote `uint8_t ij < 256` and `2147483000 +
 * io * 100 + ii < 2147483647`. */
static bool near_limit(const Stmt *s) {
  int64_t hi, tmin;
  uint64_t tmax;
  if (!type_is_integer(s->var->type)) return false;
  if (s->var->type->size < ty_int.size) return true;
  type_int_range(s->var->type, &tmin, &tmax);
  return ir_const_int(s->hi, &hi) && hi >= 0 && tmax - (uint64_t)hi < (1u << 16);
}

/* One of the loops near_limit holds, or -1. */
static int near_limit_loop(Gen *g) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nloops; i++)
    if (near_limit(g->in.loops[i].s)) cand[nc++] = i;
  return nc ? cand[below(g, nc)] : -1;
}

/* A factor that leaves a guarded tail: 2..n-1, not dividing n. */
static void add_tail_factor(Gen *g, int li) {
  int64_t n = g->in.loops[li].has_trip ? g->in.loops[li].trip : 0, v = 2;
  for (int tries = 0; tries < 16 && n > 3; tries++) {
    v = 2 + below(g, (int)(n < 100000 ? n - 2 : 99998));
    if (n % v) break;
  }
  add_int(g, v);
}

static void gen_split(Gen *g) {
  int near = chance(g, 30) ? near_limit_loop(g) : -1;
  int li = near >= 0 ? near : random_loop(g);
  add_loop(g, li);
  if (near >= 0) add_tail_factor(g, li);
  else add_factor(g, li, false, false);
  add_new_name(g);
  add_new_name(g);
}

/* A perfect pair whose counters are narrower than int: false when none is. */
static bool narrow_pair(Gen *g, int *outer, int *inner) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nloops; i++) {
    int p = g->in.loops[i].parent;
    if (p >= 0 && g->in.loops[p].s->body->body == g->in.loops[i].s && !g->in.loops[i].s->next &&
        g->in.loops[p].s->var->type->size < ty_int.size)
      cand[nc++] = i;
  }
  if (!nc) return false;
  *inner = cand[below(g, nc)];
  *outer = g->in.loops[*inner].parent;
  return true;
}

static void gen_fuse(Gen *g) {
  int o, i;
  if (!(chance(g, 30) && narrow_pair(g, &o, &i)) && (!perfect_pair(g, &o, &i) || chance(g, 10))) two_loops(g, &o, &i);
  add_loop(g, o);
  add_loop(g, i);
  add_new_name(g);
}

static void gen_merge(Gen *g) {
  int fi, si;
  if (!sibling_pair(g, &fi, &si) || chance(g, 10)) two_loops(g, &fi, &si);
  add_loop(g, fi);
  add_loop(g, si);
}

static void gen_fission(Gen *g) {
  /* a statement or loop with something after it, and a loop around it
   * (its own, mostly, or one further out) */
  int cand[2 * SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nleaves; i++)
    if (g->in.leaves[i].parent >= 0 && g->in.leaves[i].s->next) cand[nc++] = i;
  for (int i = 0; i < g->in.nloops; i++)
    if (g->in.loops[i].parent >= 0 && g->in.loops[i].s->next) cand[nc++] = SG_MAX_ITEMS + i;
  if (!nc || chance(g, 10)) {
    add_loop(g, -1);
    if (chance(g, 50)) add_leaf(g, -1);
    else add_loop(g, -1);
    return;
  }
  int c = cand[below(g, nc)];
  int li = c >= SG_MAX_ITEMS ? g->in.loops[c - SG_MAX_ITEMS].parent : g->in.leaves[c].parent;
  while (g->in.loops[li].parent >= 0 && chance(g, 25)) li = g->in.loops[li].parent;
  add_loop(g, li);
  if (c >= SG_MAX_ITEMS) add_loop(g, c - SG_MAX_ITEMS);
  else add_leaf(g, c);
  /* now and then a second cut: a later statement under the same loop */
  if (c < SG_MAX_ITEMS && chance(g, 25)) {
    int later[SG_MAX_ITEMS], nl = 0;
    for (int i = 0; i < g->in.nleaves; i++)
      if (g->in.leaves[i].order > g->in.leaves[c].order && g->in.leaves[i].parent >= 0 &&
          within(&g->in, g->in.leaves[i].parent, li))
        later[nl++] = i;
    if (nl) add_leaf(g, later[below(g, nl)]);
  }
}

/* bind(loop, vu): mostly a loop from 0 with at most 4 iterations (one per
 * VU core), now and then any loop or another unit. */
static int bind_candidates(const Gen *g, int *cand) {
  int nc = 0;
  for (int i = 0; i < g->in.nloops; i++) {
    int64_t n, lo;
    const Stmt *l = g->in.loops[i].s;
    if (ir_trip_count(l, &n) && n <= 4 && ir_const_int(l->lo, &lo) && lo == 0) cand[nc++] = i;
  }
  return nc;
}

static void gen_bind(Gen *g) {
  int cand[SG_MAX_ITEMS], nc = bind_candidates(g, cand);
  add_loop(g, nc && chance(g, 85) ? cand[below(g, nc)] : random_loop(g));
  add_name(g, chance(g, g->bad / 2) ? "nu" : "vu");
}

/* The loop li is the only statement of its parent's body. */
static bool only_child(const Gen *g, int li) {
  int p = g->in.loops[li].parent;
  return p >= 0 && g->in.loops[p].s->body->body == g->in.loops[li].s && !g->in.loops[li].s->next;
}

static void gen_reorder(Gen *g) {
  int chain[8], n = 0, o, in;
  int li = perfect_pair(g, &o, &in) && chance(g, 90) ? o : random_loop(g);
  /* a band of perfectly nested loops, mostly; else any chain of nested
   * loops (reorder refuses those unless they are perfectly nested) */
  bool perfect = chance(g, 85);
  while (li >= 0 && g->in.loops[li].parent >= 0 && (perfect ? only_child(g, li) : chance(g, 30))) li = g->in.loops[li].parent;
  while (li >= 0 && n < 8) {
    chain[n++] = li;
    int kids[SG_MAX_ITEMS], nk = 0;
    for (int j = 0; j < g->in.nloops; j++)
      if (g->in.loops[j].parent == li && (!perfect || only_child(g, j))) kids[nk++] = j;
    li = nk ? kids[below(g, nk)] : -1;
  }
  int want = 2 + below(g, 3);
  if (n >= 2 && chance(g, 90)) {
    /* an ordered subset of the chain, then shuffled */
    int pick[8], np = 0;
    for (int i = 0; i < n; i++)
      if (np < want && (n - i <= want - np || chance(g, 60))) pick[np++] = chain[i];
    for (int i = np - 1; i > 0; i--) {
      int j = below(g, i + 1), t = pick[i];
      pick[i] = pick[j];
      pick[j] = t;
    }
    for (int i = 0; i < np; i++) add_loop(g, pick[i]);
    if (chance(g, g->bad)) add_loop(g, pick[0]); /* a loop named twice */
  } else {
    int a, b;
    two_loops(g, &a, &b);
    add_loop(g, a);
    add_loop(g, b);
  }
}

static void gen_tile(Gen *g) {
  int o = -1, i = -1;
  if (!perfect_pair(g, &o, &i) || chance(g, 10)) two_loops(g, &o, &i);
  add_loop(g, o);
  add_loop(g, i);
  add_factor(g, o, false, true);
  add_factor(g, i, false, true);
  for (int k = 0; k < 4; k++) add_new_name(g);
}

static void gen_unroll(Gen *g) {
  int li = random_loop(g);
  add_loop(g, li);
  bool full = chance(g, 45);
  if (full && li >= 0 && g->in.loops[li].has_trip) {
    /* full unroll within the limits, or of a loop too long for any (which
     * must be refused); otherwise unroll by a factor */
    int64_t n = g->in.loops[li].trip;
    full = n > SCHED_MAX_UNROLL || unroll_fits(g, li, n);
  }
  if (!full) add_factor(g, li, true, false);
}

static void gen_loop_partition(Gen *g) {
  int li = random_loop(g);
  add_loop(g, li);
  int64_t lo = 0, hi = 16;
  if (li >= 0) {
    Stmt *l = g->in.loops[li].s;
    int64_t a, b;
    if (ir_const_int(l->lo, &a) && ir_const_int(l->hi, &b)) {
      lo = a;
      hi = l->cmp == OP_LE ? b + 1 : b;
    }
  }
  int np = 1 + below(g, chance(g, 70) ? 1 : 3);
  /* each point copies the loop: the same limits as unroll */
  while (np > 1 && li >= 0 && !unroll_fits(g, li, np + 1)) np--;
  if (hi - lo >= 2 && !chance(g, 2 * g->bad)) {
    /* increasing points strictly inside (lo, hi) */
    int64_t prev = lo;
    for (int i = 0; i < np && hi - prev > 1; i++) {
      int64_t room = hi - prev - 1;
      int64_t p = prev + 1 + (int64_t)(rnd(g) % (uint64_t)(room < 1 ? 1 : room));
      add_int(g, p);
      prev = p;
    }
  } else {
    static const int64_t edge[] = {0, -1, 1, 16, 1000};
    for (int i = 0; i < np; i++) {
      switch (below(g, 4)) {
      case 0: add_int(g, lo); break;
      case 1: add_int(g, hi); break;
      case 2: add_int(g, lo + (hi - lo) / 2); break;
      default: add_int(g, edge[below(g, 5)]); break;
      }
    }
  }
}

static void gen_decompose(Gen *g) {
  /* plain assignments followed by a loop (a reduction's init), mostly */
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nleaves; i++) {
    const Stmt *s = g->in.leaves[i].s;
    if (s->kind == ST_ASSIGN && s->op == OP_NONE && s->next && s->next->kind == ST_FOR && g->in.leaves[i].parent >= 0)
      cand[nc++] = i;
  }
  int si = nc && chance(g, 80) ? cand[below(g, nc)] : random_leaf(g);
  add_leaf(g, si);
  int p = si >= 0 ? g->in.leaves[si].parent : -1;
  if (p >= 0 && chance(g, 90)) {
    /* one of its enclosing loops */
    for (int up = below(g, 3); up > 0 && g->in.loops[p].parent >= 0; up--) p = g->in.loops[p].parent;
    add_loop(g, p);
  } else {
    add_loop(g, -1);
  }
}

typedef struct {
  const Expr *pick[64];
  int n;
} SubExprs;

/* Each subexpression, until 64. */
static bool add_subexpr(const Expr *e, void *ctx) {
  SubExprs *x = ctx;
  if (x->n == 64) return false;
  x->pick[x->n++] = e;
  return true;
}

static void subexprs(SubExprs *x, const Expr *e) { ir_walk_expr(e, add_subexpr, x); }

/* stage(statement, "expression", new): a subexpression of an assignment's
 * right-hand side as --dump-ir prints it, now and then one it lacks. */
static void gen_stage(Gen *g) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nleaves; i++)
    if (g->in.leaves[i].s->kind == ST_ASSIGN) cand[nc++] = i;
  int si = nc ? cand[below(g, nc)] : random_leaf(g);
  add_leaf(g, si);
  SubExprs x = {.n = 0};
  if (si >= 0 && g->in.leaves[si].s->kind == ST_ASSIGN) subexprs(&x, g->in.leaves[si].s->rhs);
  if (!x.n || chance(g, g->bad)) {
    add_str(g, chance(g, 50) ? "x[i] + 1" : "(");
  } else {
    StrBuf sb;
    sb_init(&sb);
    ir_print_expr(&sb, x.pick[below(g, x.n)]);
    add_str(g, sb.data);
    sb_free(&sb);
  }
  add_new_name(g);
}

static void gen_annotate(Gen *g) {
  if (chance(g, 50)) add_loop(g, -1);
  else add_leaf(g, -1);
  static const char *const keys[] = {"pragma", "unroll_hint", "note", "npu_hint"};
  if (chance(g, g->bad)) {
    if (chance(g, 50)) add_str(g, "bad*/key");
    else add_int(g, 7);
  } else if (chance(g, 50)) {
    add_name(g, keys[below(g, 4)]);
  } else {
    add_str(g, keys[below(g, 4)]);
  }
  if (chance(g, g->bad)) {
    if (chance(g, 50)) add_str(g, "ends */ here");
    else g->args[g->nargs++] = (SchedArg){.kind = SA_EXPR, .text = "x + y"}; /* neither kind: refused */
    return;
  }
  int r = below(g, 100);
  if (r < 35) {
    add_int(g, below(g, 64) - 8);
  } else if (r < 60) {
    static const char *const strs[] = {"fast path", "a/*b", "x", "", "tile 4x4"};
    add_str(g, strs[below(g, 5)]);
  } else if (r < 75) {
    add_name(g, chance(g, 50) ? "on" : bad_name(g));
  } else {
    /* (a, b, ...) of ints and names */
    int n = 2 + below(g, 3);
    SchedArg *items = ARENA_ARRAY(g->a, SchedArg, n);
    StrBuf sb;
    sb_init(&sb);
    sb_putc(&sb, '(');
    for (int i = 0; i < n; i++) {
      int v = below(g, 9);
      if (chance(g, 60)) items[i] = (SchedArg){.kind = SA_INT, .ival = v, .text = arena_printf(g->a, "%d", v)};
      else items[i] = (SchedArg){.kind = SA_NAME, .name = "x", .text = "x"};
      sb_printf(&sb, "%s%s", i ? ", " : "", items[i].text);
    }
    sb_putc(&sb, ')');
    g->args[g->nargs++] = (SchedArg){.kind = SA_TUPLE, .items = items, .nitems = n, .text = arena_strdup(g->a, sb.data)};
    sb_free(&sb);
  }
}

/* What a leaf writes: a buffer element or a scalar. */
static void written(const Stmt *s, const Buffer **b, const Var **v) {
  *b = NULL;
  *v = NULL;
  if (s->kind == ST_DECL) {
    *b = s->buf;
    *v = s->var;
  } else if (s->lhs && s->lhs->kind == EX_LOAD) {
    *b = s->lhs->buf;
  } else if (s->lhs && s->lhs->kind == EX_VAR) {
    *v = s->lhs->var;
  }
}

/* Does leaf r read what leaf w writes? */
static bool reads_from(const Stmt *r, const Stmt *w) {
  const Buffer *b;
  const Var *v;
  written(w, &b, &v);
  if (!b && !v) return false;
  if (ir_expr_uses(r->rhs, v, b) || ir_expr_uses(r->init, v, b)) return true;
  return r->lhs && r->op != OP_NONE && ir_expr_uses(r->lhs, v, b); /* x += ... reads x */
}

/* compute_at(producer, loop): mostly a later loop, not around the
 * producer, holding a statement that reads what the producer writes (its
 * consumer); reverse_compute_at(consumer, loop): an earlier loop holding a
 * producer of what the consumer reads. The statement is sometimes named by
 * the loop around it (both primitives take a nest's loop too). */
/* Loops that may take leaf si for compute_at (reverse: reverse_compute_at):
 * after it (before it), not around it; related ones (holding a consumer,
 * or a producer) first. Returns how many, related ones counted in *nrel. */
static int at_loops(const Gen *g, int si, bool reverse, int *out, int *nrel) {
  const LeafInfo *l = &g->in.leaves[si];
  int n = 0, other[SG_MAX_ITEMS], no = 0;
  for (int i = 0; i < g->in.nloops; i++) {
    if (l->parent >= 0 && within(&g->in, l->parent, i)) continue;
    if (reverse ? g->in.loops[i].order > l->order : g->in.loops[i].order < l->order) continue;
    bool related = false;
    for (int j = 0; j < g->in.nleaves && !related; j++) {
      const LeafInfo *o = &g->in.leaves[j];
      if (o->parent >= 0 && within(&g->in, o->parent, i))
        related = reverse ? reads_from(l->s, o->s) : reads_from(o->s, l->s);
    }
    if (related) out[n++] = i;
    else other[no++] = i;
  }
  *nrel = n;
  for (int i = 0; i < no; i++) out[n++] = other[i];
  return n;
}

/* compute_at(producer, loop): a later loop, not around the producer,
 * holding a statement that reads what it writes (its consumer), mostly;
 * reverse_compute_at(consumer, loop): an earlier loop holding a producer
 * of what the consumer reads. The statement is sometimes named by the loop
 * around it (both primitives take a nest's loop too). */
static void gen_compute_at(Gen *g, bool reverse) {
  int leaves[SG_MAX_ITEMS], nl = 0, loops[SG_MAX_ITEMS], nrel;
  for (int i = 0; i < g->in.nleaves; i++)
    if (at_loops(g, i, reverse, loops, &nrel) > 0) leaves[nl++] = i;
  int si = nl && chance(g, 90) ? leaves[below(g, nl)] : random_leaf(g);
  int n = si >= 0 ? at_loops(g, si, reverse, loops, &nrel) : 0;
  if (si >= 0 && g->in.leaves[si].parent >= 0 && chance(g, 15)) add_loop(g, g->in.leaves[si].parent);
  else add_leaf(g, si);
  if (n && chance(g, 90)) add_loop(g, loops[nrel && chance(g, 85) ? below(g, nrel) : below(g, n)]);
  else add_loop(g, -1);
}

/* compute_inline: producers of locals; reverse_compute_inline: consumers
 * of locals; mostly. */
static void gen_inline(Gen *g, bool reverse) {
  int cand[SG_MAX_ITEMS], nc = 0;
  for (int i = 0; i < g->in.nleaves; i++)
    if (reverse ? g->in.leaves[i].reads_local : g->in.leaves[i].writes_local) cand[nc++] = i;
  add_leaf(g, nc && chance(g, 80) ? cand[below(g, nc)] : -1);
}

/* Is there a statement and a loop after it (before it, for reverse) that
 * does not enclose it? */
static bool has_other_nest(const Gen *g, bool reverse) {
  for (int s = 0; s < g->in.nleaves; s++)
    for (int i = 0; i < g->in.nloops; i++) {
      const LeafInfo *l = &g->in.leaves[s];
      if ((l->parent < 0 || !within(&g->in, l->parent, i)) &&
          (reverse ? g->in.loops[i].order < l->order : g->in.loops[i].order > l->order))
        return true;
    }
  return false;
}

/* cache_read/cache_write(BUF, scope, loop, NEW): an array parameter (the
 * outputs mostly for cache_write), a scope (now and then a small one that
 * overflows, or no scope at all), any loop. */
static void gen_cache(Gen *g, bool write) {
  const Param *pick = NULL;
  int n = 0;
  for (const Param *p = g->s->k->params; p; p = p->next)
    if (p->buf && (!write || !p->buf->is_const || chance(g, 10)) && below(g, ++n) == 0) pick = p;
  add_name(g, pick && !chance(g, g->bad / 2) ? pick->buf->name : "nosuch");
  static const char *const scopes[] = {"dm", "nu_ib", "nu_wb", "nu_ob", "vu_vm"};
  add_name(g, chance(g, g->bad / 2) ? "l2" : scopes[below(g, 5)]);
  add_loop(g, random_loop(g));
  add_new_name(g);
}

typedef struct {
  Gen *g;
  const char *pick;
  int n;
} OnchipPick;

static bool pick_onchip(Stmt *st, int depth, void *ctx) {
  (void)depth;
  OnchipPick *p = ctx;
  if (st->kind == ST_DECL && st->buf && buffer_onchip(st->buf) && below(p->g, ++p->n) == 0) p->pick = st->buf->name;
  return true;
}

typedef struct {
  Gen *g;
  const char *pick;
  int n;
} LocalPick;

static bool pick_local(Stmt *st, int depth, void *ctx) {
  (void)depth;
  LocalPick *p = ctx;
  if (st->kind == ST_DECL && st->buf && !buffer_onchip(st->buf) && below(p->g, ++p->n) == 0) p->pick = st->buf->name;
  return true;
}

/* Can the IR give prim p plausible arguments? */
static bool fits(Gen *g, const char *prim) {
  int a, b;
  if (!strcmp(prim, "compute_at")) return has_other_nest(g, false);
  if (!strcmp(prim, "reverse_compute_at")) return has_other_nest(g, true);
  if (!strcmp(prim, "fuse") || !strcmp(prim, "tile") || !strcmp(prim, "reorder")) return nested_pair(g, &a, &b);
  if (!strcmp(prim, "merge")) return sibling_pair(g, &a, &b);
  return g->in.nloops > 0 || strstr(prim, "inline") || !strcmp(prim, "annotate");
}

/* The mark of step mark_step: bind when a loop fits the cores, now and
 * then; else parallel (outer loops, mostly) or vectorize (inner ones). */
static int forced_mark(Gen *g) {
  int cand[SG_MAX_ITEMS];
  if (!g->s->k->nsizes && bind_candidates(g, cand) && chance(g, SG_FORCED_BIND)) return prim_index("bind");
  return prim_index(chance(g, SG_FORCED_PARALLEL) ? "parallel" : "vectorize");
}

/* Picks a primitive and fills g->args; returns the primitive index. */
static int generate(Gen *g) {
  int total = 0;
  for (int i = 0; i < NPRIMS; i++) total += prim_weight[i];
  int p = 0;
  /* draw again (a few times) for a primitive the IR suits; hostile cases
   * keep some misfits */
  for (int tries = 0; tries < 4; tries++) {
    int r = below(g, total);
    p = 0;
    while (r >= prim_weight[p]) r -= prim_weight[p++];
    if ((g->bad > 1 && chance(g, 30)) || fits(g, prim_names[p])) break;
  }
  if (g->step == g->mark_step) p = forced_mark(g);
  else if (g->marked && chance(g, 50))
    p = prim_index(after_mark_prims[below(g, (int)(sizeof after_mark_prims / sizeof after_mark_prims[0]))]);
  g->nargs = 0;
  g->letter = 'a';
  g->last_new = NULL;
  const char *name = prim_names[p];
  if (!strcmp(name, "split")) gen_split(g);
  else if (!strcmp(name, "fuse")) gen_fuse(g);
  else if (!strcmp(name, "merge")) gen_merge(g);
  else if (!strcmp(name, "fission")) gen_fission(g);
  else if (!strcmp(name, "reorder")) gen_reorder(g);
  else if (!strcmp(name, "tile")) gen_tile(g);
  else if (!strcmp(name, "unroll")) gen_unroll(g);
  else if (!strcmp(name, "vectorize")) add_loop(g, loop_by_depth(g, true));
  else if (!strcmp(name, "parallel")) add_loop(g, loop_by_depth(g, false));
  else if (!strcmp(name, "loop_partition")) gen_loop_partition(g);
  else if (!strcmp(name, "decompose_reduction")) gen_decompose(g);
  else if (!strcmp(name, "annotate")) gen_annotate(g);
  else if (!strcmp(name, "stage")) gen_stage(g);
  else if (!strcmp(name, "compute_at")) gen_compute_at(g, false);
  else if (!strcmp(name, "reverse_compute_at")) gen_compute_at(g, true);
  else if (!strncmp(name, "cache_", 6)) gen_cache(g, !strcmp(name, "cache_write"));
  else if (!strcmp(name, "double_buffer")) {
    /* an on-chip buffer of the variant, mostly */
    OnchipPick op = {g, NULL, 0};
    ir_walk_stmts(g->s->k->body, pick_onchip, &op);
    add_name(g, op.pick && !chance(g, 10) ? op.pick : g->s->k->params->buf ? g->s->k->params->buf->name : "x");
  } else if (!strcmp(name, "tensorize")) {
    static const char *const intrins[] = {"npu_nu_matmul_i8",   "npu_nu_matmul_f32",     "npu_vu_add_i32",
                                          "npu_vu_fill_i32",    "npu_vu_reduce_sum_f32", "npu_vu_mul_rows_f32",
                                          "npu_vu_exp_f32",     "npu_vu_add_f32",        "npu_bogus"};
    enum { NINTRINS = sizeof intrins / sizeof intrins[0] };
    add_loop(g, random_loop(g));
    add_name(g, intrins[below(g, NINTRINS)]);
  } else if (!strcmp(name, "bind")) {
    gen_bind(g);
  } else if (!strcmp(name, "set_scope")) {
    /* a local array of the variant, mostly */
    LocalPick lp = {g, NULL, 0};
    ir_walk_stmts(g->s->k->body, pick_local, &lp);
    add_name(g, lp.pick && !chance(g, 10) ? lp.pick : g->s->k->params->buf ? g->s->k->params->buf->name : "x");
    static const char *const scopes[] = {"dm", "nu_ob", "vu_vm", "l2"};
    add_name(g, scopes[chance(g, g->bad) ? 3 : below(g, 3)]);
  }
  else gen_inline(g, !strcmp(name, "reverse_compute_inline"));
  /* now and then a wrong argument count (not for unroll: unroll(loop) is
   * valid and would escape the unroll limits) */
  if (chance(g, g->bad / 2) && g->nargs > 0 && strcmp(name, "unroll")) g->nargs--;
  else if (chance(g, g->bad / 2) && g->nargs < 63) add_int(g, 1);
  return p;
}

static SchedStep *make_step(Gen *g, int p) {
  SchedStep *st = ARENA_NEW(g->a, SchedStep);
  st->prim = prim_names[p];
  st->nargs = g->nargs;
  st->args = ARENA_ARRAY(g->a, SchedArg, g->nargs ? g->nargs : 1);
  memcpy(st->args, g->args, sizeof *st->args * (size_t)g->nargs);
  StrBuf t;
  sb_init(&t);
  sb_printf(&t, "%s(", st->prim);
  for (int i = 0; i < g->nargs; i++) sb_printf(&t, "%s%s", i ? ", " : "", g->args[i].text);
  sb_putc(&t, ')');
  st->text = arena_strdup(g->a, t.data);
  sb_free(&t);
  return st;
}

/* ---------------- static checks of an applied variant ---------------- */

/* No loop of the suite runs anywhere near this many iterations: a variant
 * loop that does was given work the kernel does not have (a split factor
 * far above the trip count makes a guarded inner loop of that length). */
#define SG_MAX_TRIP ((int64_t)1 << 24)

/* Constant loop bounds must fit the counter's type (else the emitted loop
 * overflows it), and no loop may run absurdly long. */
static bool loop_check_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  StrBuf *why = ctx;
  if (s->kind != ST_FOR) return true;
  int64_t tmin;
  uint64_t tmax;
  type_int_range(s->var->type, &tmin, &tmax);
  const Expr *b[2] = {s->lo, s->hi};
  for (int i = 0; i < 2; i++) {
    int64_t v;
    if (ir_const_int(b[i], &v) && (v < tmin || (v > 0 && (uint64_t)v > tmax)))
      sb_printf(why, "loop %s: constant bound %lld does not fit its counter type %s\n", s->name ? s->name : "?",
                (long long)v, s->var->type->name);
  }
  int64_t n;
  if (ir_trip_count(s, &n) && n > SG_MAX_TRIP)
    sb_printf(why, "work blow-up: loop %s runs %lld iterations\n", s->name ? s->name : "?", (long long)n);
  return true;
}

/* ---------------- cases ---------------- */

static void schedule_text(StrBuf *sb, const SgCase *c, SchedStep **steps, int n) {
  sb_printf(sb, "#pragma npu schedule(%s, %s)\n", c->kernel, c->variant);
  for (int i = 0; i < n; i++) sb_printf(sb, "#pragma npu %s\n", steps[i]->text);
}

static void fail(SgCase *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(SgCase *c, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  if (c->message) sb_printf(&sb, "%s\n", c->message);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  free(c->message);
  c->message = sb_take(&sb);
  c->outcome = SG_FAILED;
}

static const char *variant_name(const Module *m, const Kernel *k, char *buf, size_t n) {
  for (int i = 0;; i++) {
    if (i) snprintf(buf, n, "%s_rs%d", k->name, i);
    else snprintf(buf, n, "%s_rs", k->name);
    /* unique among kernels, #defines and the file's own variants, so the
     * reproduction file checks as written */
    bool taken = module_kernel(m, buf) != NULL;
    for (const Define *d = m->defines; d; d = d->next)
      if (!strcmp(d->name, buf)) taken = true;
    for (const SchedProgram *p = m->schedules; p; p = p->next)
      if (!strcmp(p->variant, buf)) taken = true;
    if (!taken) return buf;
  }
}

/* Compiles the emitted C with cc's strict flags; false with its messages. */
static bool strict_compile(const char *cc, const char *src, StrBuf *msg) {
  char path[] = "/tmp/npg-sched-random-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return true; /* no temporary file: nothing to say about the C */
  FILE *out = fdopen(fd, "w");
  fputs(src, out);
  fclose(out);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -pedantic -Werror -I%s -fsyntax-only -x c %s 2>&1", cc,
           NPG_INTRINSICS_INCLUDE_DIR, path);
  FILE *p = popen(cmd, "r");
  bool ok = false;
  if (p) {
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) sb_putn(msg, buf, n);
    ok = pclose(p) == 0;
  }
  unlink(path);
  return ok;
}

static void run_emitted(SgFile *f, Sched *s, const Kernel *k, const SgOptions *opt, SgCase *c, const LowerUnit *u0);

static void check_variant(SgFile *f, Sched *s, const Kernel *k, const SgOptions *opt, SgCase *c) {
  /* static checks first: a variant that overflows or blows up is not run */
  StrBuf why;
  sb_init(&why);
  ir_walk_stmts(s->k->body, loop_check_visit, &why);
  if (why.len) {
    fail(c, "%s", why.data);
    sb_free(&why);
    return;
  }
  sb_free(&why);
  /* every index of the variant provably in bounds, as in the kernel */
  DiagList bd;
  diag_init(&bd);
  if (!ir_check_bounds(s->k, &bd, f->path, NULL)) {
    char *t = diag_render(&bd);
    fail(c, "the variant fails the static bounds check (ir_check_bounds; the kernel as written passes it, "
            "npugen check does not run it on variants):\n%s", t ? t : "");
    free(t);
  }
  diag_free(&bd);
  if (c->outcome == SG_FAILED) return;

  const char *sched = s->applied.data ? s->applied.data : "";
  Arena low; /* the lowering, its synchronisation checked: a failure is printed as an #error */
  arena_init(&low, 0);
  char sync[600];
  LowerUnit u = {.m = f->m, .k = s->k, .name = c->variant, .schedule = sched, .target = &s->target,
                .order = EMIT_ORDER_SOURCE, .lower_error = sync};
  u.lowered = lower_for_order(&low, s->k, NULL, &s->target, EMIT_ORDER_SOURCE, sync, sizeof sync);
  run_emitted(f, s, k, opt, c, &u);
  arena_free(&low);
}

/* The variant's C (u) emitted twice alike, run in every order against
 * the kernel as written, and compiled with strict flags when asked. */
static void run_emitted(SgFile *f, Sched *s, const Kernel *k, const SgOptions *opt, SgCase *c, const LowerUnit *u0) {
  LowerUnit u = *u0;
  c->emitted = jit_c_source(&u);
  char *again = jit_c_source(&u);
  if (strcmp(c->emitted, again)) fail(c, "emission is not deterministic: two emissions of the same IR differ");
  free(again);
  if (c->outcome == SG_FAILED) return;
  /* every marked loop in each order too: a later step may have broken
   * the independence its mark was proven with */
  CheckResult r;
  CheckOptions o = {.seed = 1, .target = &s->target, .max_steps = opt->max_steps, .default_size_sets = true};
  if (k->nsizes) check_run_sizes(f->m, k, &u, CHECK_ORDERS_ALL, &o, &r); /* at each of its size sets */
  else check_run_orders(k, &u, f->refs, CHECK_ORDERS_ALL, &o, &r);
  if (!r.pass && !r.not_run && strstr(r.message, "does not compile")) {
    fail(c, "the emitted C does not compile with tcc: %s", r.message);
    return;
  }
  if (r.not_run) { /* past the check's limits (a copy per element of a 1024^3 matmul): a limit, not a result */
    c->outcome = SG_REFUSED;
    free(c->message);
    c->message = strdup(r.message);
    return;
  }
  if (!r.pass) {
    fail(c, "the variant does not match the kernel as written (seed 1): %s", r.message);
    return;
  }
  StrBuf msg;
  sb_init(&msg);
  if (opt->strict_cc && !strict_compile(opt->strict_cc, c->emitted, &msg))
    fail(c, "%s -std=c99 -Wall -Wextra -pedantic -Werror rejects the emitted C:\n%s", opt->strict_cc, msg.data ? msg.data : "");
  else
    c->outcome = SG_PASSED;
  sb_free(&msg);
}

SgOptions sg_default_options(void) { return (SgOptions){.max_copies = SG_MAX_COPIES, .max_new_leaves = SG_MAX_NEW_LEAVES}; }

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool sg_run_case(SgFile *f, uint64_t seed, const SgOptions *opt, SgCase *c, SgStepHook hook, void *hook_ctx) {
  double t0 = seconds_now();
  memset(c, 0, sizeof *c);
  c->seed = seed;
  c->file = f->path;
  if (f->m->arena.used_bytes > SG_ARENA_REPARSE_BYTES) {
    char err[1024];
    Module *m = parse(f, err, sizeof err);
    if (m) {
      module_free(f->m);
      f->m = m;
    }
  }
  Module *m = f->m;
  Gen *g = calloc(1, sizeof *g);
  g->rng = mix64(seed ^ 0x5eed5eed5eedull);
  g->opt = opt ? *opt : sg_default_options();
  /* most cases stay plausible (so that long schedules get applied); some
   * are hostile, with wrong names, factors and argument counts */
  g->bad = chance(g, 25) ? 12 : 1;
  g->a = &m->arena;
  g->m = m;
  int nk = 0;
  for (const Kernel *k = m->kernels; k; k = k->next) nk++;
  const Kernel *k = m->kernels;
  for (int i = below(g, nk); i > 0; i--) k = k->next;
  snprintf(c->kernel, sizeof c->kernel, "%s", k->name);
  variant_name(m, k, c->variant, sizeof c->variant);
  const char *variant = arena_strdup(&m->arena, c->variant);

  DiagList d;
  diag_init(&d);
  NpuTarget target;
  npusim_target_default(&target);
  if (g->opt.max_tokens > 0) target.dma_max_tokens = g->opt.max_tokens;
  g->s = sched_new(&m->arena, m, k, variant, &d, m->file, m->src, &target);
  if (!f->sems) f->sems = sem_cache_new();
  sched_share_sems(g->s, f->sems);
  g->s->prove_kept_order = true; /* a split that reorders is a bug to report, not a refusal */
  int nsteps = 1 + below(g, SG_MAX_STEPS);
  g->mark_step = -1;
  if (chance(g, SG_MARK_FIRST)) {
    if (nsteps < 2) nsteps = 2 + below(g, SG_MAX_STEPS - 1);
    g->mark_step = below(g, nsteps - 1);
    g->bad = 1; /* plausible arguments: the steps after the mark should apply */
  }
  SchedStep *steps[SG_MAX_STEPS];
  bool all = true;
  for (int i = 0; i < nsteps && all; i++) {
    g->step = i;
    collect(&g->in, g->s->k);
    int p = generate(g);
    steps[i] = make_step(g, p);
    c->prims[c->ntried++] = p;
    StrBuf sb;
    sb_init(&sb);
    schedule_text(&sb, c, steps, i + 1);
    free(c->schedule);
    c->schedule = sb_take(&sb);
    if (hook) hook(hook_ctx, c);
    int before = d.errors;
    bool ok = sched_apply(g->s, steps[i]);
    char *msg = d.errors > before ? diag_render(&d) : NULL;
    if (!ok) {
      all = false;
      if (!msg) {
        fail(c, "%s was refused without an error message", steps[i]->text);
      } else {
        c->message = msg;
        msg = NULL;
        c->outcome = strstr(c->message, "internal error") ? SG_INTERNAL : SG_REFUSED;
      }
    } else {
      c->napplied++;
      g->marked |= is_mark(p);
      if (msg) {
        fail(c, "%s applied, but reported an error:\n%s", steps[i]->text, msg);
        all = false;
      }
    }
    free(msg);
  }
  if (all) check_variant(f, g->s, k, &g->opt, c);
  sched_free(g->s);
  diag_free(&d);
  free(g);
  c->seconds = seconds_now() - t0;
  return c->outcome != SG_FAILED;
}

void sg_case_free(SgCase *c) {
  free(c->schedule);
  free(c->message);
  free(c->emitted);
  memset(c, 0, sizeof *c);
}

char *sg_case_repro(const SgFile *f, const SgCase *c) {
  StrBuf sb;
  sb_init(&sb);
  sb_putn(&sb, f->src, f->len);
  if (f->len && f->src[f->len - 1] != '\n') sb_putc(&sb, '\n');
  sb_printf(&sb, "\n/* sched_random: seed %llu, %s */\n", (unsigned long long)c->seed, sg_outcome_name(c->outcome));
  sb_puts(&sb, c->schedule ? c->schedule : "");
  return sb_take(&sb);
}

char *sg_case_describe(const SgCase *c) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "== %s: %s, seed %llu, kernel %s\n", sg_outcome_name(c->outcome), c->file,
            (unsigned long long)c->seed, c->kernel);
  sb_printf(&sb, "-- schedule:\n%s", c->schedule ? c->schedule : "");
  sb_printf(&sb, "-- message:\n%s\n", c->message ? c->message : "");
  if (c->emitted && c->outcome == SG_FAILED) sb_printf(&sb, "-- emitted C:\n%s\n", c->emitted);
  return sb_take(&sb);
}

/* ---------------- batches and counts ---------------- */

void sg_counts_add(SgCounts *c, const SgCase *cs) {
  c->cases++;
  c->outcome[cs->outcome]++;
  bool mark_then_step = false; /* a mark applied, then another step, and the variant checked */
  for (int i = 0; i + 1 < cs->napplied; i++) mark_then_step |= is_mark(cs->prims[i]);
  if (mark_then_step && (cs->outcome == SG_PASSED || cs->outcome == SG_FAILED)) c->mark_then_step++;
  for (int i = 0; i < cs->ntried; i++) {
    c->tried[cs->prims[i]]++;
    if (i < cs->napplied) c->applied[cs->prims[i]]++;
  }
  if ((cs->outcome == SG_FAILED || cs->outcome == SG_INTERNAL) && c->failures_len < SG_MAX_FAILURE_TEXT) {
    char *t = sg_case_describe(cs);
    size_t n = strlen(t);
    c->failures = realloc(c->failures, c->failures_len + n + 1);
    memcpy(c->failures + c->failures_len, t, n + 1);
    c->failures_len += n;
    free(t);
  }
}

void sg_counts_free(SgCounts *c) {
  free(c->failures);
  memset(c, 0, sizeof *c);
}

char *sg_counts_summary(const SgCounts *c) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%ld cases: passed %ld, refused %ld, internal errors %ld, failed %ld\n", c->cases,
            c->outcome[SG_PASSED], c->outcome[SG_REFUSED], c->outcome[SG_INTERNAL], c->outcome[SG_FAILED]);
  sb_printf(&sb, "checked variants with a mark and a later step: %ld\n", c->mark_then_step);
  sb_puts(&sb, "steps applied/tried:");
  for (int i = 0; i < NPRIMS; i++) sb_printf(&sb, "%s %s %ld/%ld", i ? "," : "", prim_names[i], c->applied[i], c->tried[i]);
  sb_putc(&sb, '\n');
  return sb_take(&sb);
}
