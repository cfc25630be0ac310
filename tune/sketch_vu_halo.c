/* The VU halo sketch: a stencil whose window reads are guarded by the
 * zero padding they stand for, as TFLite's depthwise convolution (SAME
 * padding) and any stencil written with a bounds test are written:
 *
 *     for oy, ox, c { int32_t acc = 0;
 *                     for ky, kx: if (oy + ky - 1 >= 0 && .. < W) acc += in[..][c] * f[ky][kx][c];
 *                     epilogue (bias, requantisation, clamp); out[..][c] = acc; }
 *
 * vu:rows refuses it: a core's rows need the rows above and below them
 * (the halo), whose region starts before index 0 for the first row, and
 * cache_read caches no such region. Steps:
 * - the accumulator made an array, its epilogue folded into the store
 *   and the first compound step staged (as the NU epilogue sketch does:
 *   compute_inline of the temporaries, fold, expand, stage), each kept
 *   where the engine accepts it;
 * - the innermost spatial loop (the vector loop, c) cut into its stages
 *   (fission) and the window loops moved outside its reduction stage
 *   (reorder: ky, kx, c); the guard reads no c, so it sits above c and
 *   each stage is one vector loop a VU instruction computes, the guard a
 *   test on the CU;
 * - the outermost loop spread over the VU cores, q rows a core (split,
 *   bind), as vu:rows does;
 * - each input read across the padding staged whole in the DM with the
 *   halo in front (cache_read at root, then transform_layout shifting its
 *   index by the most the window reaches before 0): the cores' halo
 *   regions then lie inside it, and each core caches its rows and their
 *   halo from there. The guard stays, so the padding is never read (its
 *   value is not assumed);
 * - every other array staged in each core's vector memory, the loops of
 *   the vector counter vectorized.
 * Knobs: q, and double buffers of the staged parameters' copies. */
#include <isl/ctx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

enum { HALO_MAX_LOOPS = 8, HALO_MAX_VEC = 12, K_Q = 0, K_DB = 1 };

typedef struct {
  const char *name;
  int ndim;
  int64_t pad[IR_MAX_DIMS]; /* how far the window reaches before index 0, per dimension */
} HaloArray;

typedef struct {
  const char *outer;                 /* the loop spread over the cores */
  int64_t trip, cores;
  char steps[2048];                  /* inline .. reorder: the steps before the cores' split */
  HaloArray halo[TUNE_MAX_ARRAYS];
  int nhalo;
  const TuneArray *arr[TUNE_MAX_ARRAYS]; /* every array after the steps (the halo ones too) */
  int narr;
  TuneShape shape;                   /* of the kernel after the steps: arr[] points here */
  const char *vec[HALO_MAX_VEC];     /* the vector loops (the innermost spatial counter's) */
  const char *window_vec;            /* the one of the window's stage, inside its loops */
  int nvec;
} HaloFacts;

/* The reduction nest under the vector loop: loops down to `if (guard)
 * acc op= ..`, the guard with no else. Its loops' names into loops[], the
 * guard into *guard; the guarded update, or NULL. */
static const Stmt *guarded_window(const Stmt *top, const char **loops, int *nloops, const Stmt **guard) {
  const Stmt *s = top;
  *nloops = 0;
  while (s && s->kind == ST_FOR && *nloops < HALO_MAX_LOOPS) {
    loops[(*nloops)++] = s->name;
    s = tune_first_stmt(s->body);
    if (s && s->next) return NULL;
  }
  if (!s || s->kind != ST_IF || s->else_s || !s->then_s) return NULL;
  *guard = s;
  const Stmt *u = tune_first_stmt(s->then_s);
  return u && !u->next && u->kind == ST_ASSIGN && u->op != OP_NONE ? u : NULL;
}

typedef struct {
  AffCtx *aff;
  HaloFacts *f;
  bool ok;
} HaloScan;

/* A load whose index goes below 0 somewhere without the guard: a halo
 * array, with how far before 0 it reaches. */
static bool scan_load(const Expr *e, void *ctx) {
  HaloScan *h = ctx;
  if (e->kind != EX_LOAD || !e->buf || !e->idx) return true;
  HaloArray a = {.name = e->buf->name, .ndim = e->buf->ndim};
  bool below = false;
  for (int d = 0; d < e->buf->ndim; d++) {
    int64_t lo, hi;
    bool exact, empty;
    if (!aff_range(h->aff, e->idx[d], &lo, &hi, &exact, &empty)) h->ok = false;
    else if (!empty && lo < 0) a.pad[d] = -lo, below = true;
  }
  if (!below) return true;
  if (e->buf->role != ROLE_INPUT || !e->buf->is_const) h->ok = false; /* only an input the kernel never writes is staged whole */
  for (int i = 0; i < h->f->nhalo; i++)
    if (!strcmp(h->f->halo[i].name, a.name)) {
      for (int d = 0; d < a.ndim; d++)
        if (a.pad[d] > h->f->halo[i].pad[d]) h->f->halo[i].pad[d] = a.pad[d];
      return true;
    }
  if (h->f->nhalo < TUNE_MAX_ARRAYS) h->f->halo[h->f->nhalo++] = a;
  return true;
}

/* The halo arrays of the guarded update, over the chain's loops and the
 * window's (the guard left out: it is what keeps the reads in bounds). */
static bool halo_arrays(const Kernel *k, const TuneShape *sh, const Stmt *window, const Stmt *update, HaloFacts *f) {
  isl_ctx *ctx = isl_ctx_alloc();
  AffCtx aff;
  aff_init(&aff, ctx, k);
  for (int i = 0; i < sh->nchain; i++) aff_push_loop(&aff, sh->chain[i]);
  int pushed = 0;
  for (const Stmt *l = window; l && l->kind == ST_FOR; l = tune_first_stmt(l->body), pushed++) aff_push_loop(&aff, l);
  HaloScan h = {&aff, f, true};
  ir_walk_expr(update->rhs, scan_load, &h);
  aff_free(&aff);
  isl_ctx_free(ctx);
  return h.ok && f->nhalo > 0;
}

/* Appends `#pragma npu step` to f->steps when the engine accepts the steps
 * so far with it: the kernel after them, else NULL (steps as they were). */
static const Kernel *try_step(TuneSpace *sp, HaloFacts *f, const char *fmt, const char *a, const char *b,
                              const char *c) {
  size_t len = strlen(f->steps);
  char step[600];
  snprintf(step, sizeof step, fmt, a, b, c);
  int n = snprintf(f->steps + len, sizeof f->steps - len, "#pragma npu %s\n", step);
  const Kernel *k = n > 0 && len + (size_t)n < sizeof f->steps ? tune_probe_steps(sp, f->steps, NULL) : NULL;
  if (!k) f->steps[len] = 0;
  return k;
}

/* The epilogue made VU-shaped, each step kept where accepted: its
 * temporaries inlined, its chain of reassignments of acc folded into the
 * store, acc an array, the chain's first compound step staged. */
static void epilogue_steps(TuneSpace *sp, HaloFacts *f, const TuneShape *sh, const Stmt *init, const Stmt *window) {
  if (init->kind != ST_DECL || !init->var) return; /* the accumulator is an array already */
  const Var *acc = init->var;
  const Stmt *first = NULL;
  for (const Stmt *c = window->next; c; c = c->next) {
    if (c->kind == ST_DECL && c->var && !c->buf && c->init) try_step(sp, f, "compute_inline(%s)", c->name, "", "");
    else if (!first && c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == acc) first = c;
  }
  if (first) try_step(sp, f, "fold(%s)", first->name, "", "");
  try_step(sp, f, "expand(%s)", acc->name, "", "");
  const Stmt *sink = window->next;
  while (sink && sink->next) sink = sink->next;
  if (!first || !sink || first == sink || first->op == OP_NONE || ir_expr_uses(first->rhs, acc, NULL)) return;
  const char *op = first->op == OP_ADD ? "+" : first->op == OP_SUB ? "-" : first->op == OP_MUL ? "*" : NULL;
  if (!op) return;
  StrBuf e;
  sb_init(&e);
  sb_printf(&e, "\"%s", acc->name);
  for (int i = 0; i < sh->nchain; i++) sb_printf(&e, "[%s]", sh->chain[i]->var->name);
  bool plain = first->rhs->kind == EX_LOAD || first->rhs->kind == EX_VAR || ir_expr_constant(first->rhs);
  sb_printf(&e, plain ? " %s " : " %s (", op);
  ir_print_expr(&e, first->rhs);
  sb_puts(&e, plain ? "\"" : ")\"");
  char name[80];
  snprintf(name, sizeof name, "%s_in", acc->name);
  if (e.len < 400) try_step(sp, f, "stage(%s, %s, %s)", sink->name, e.data, name);
  sb_free(&e);
}


typedef struct {
  const Stmt *inner, *found;
} Around;

static bool find_around(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Around *a = ctx;
  if (st->kind == ST_FOR && tune_first_stmt(st->body) == a->inner) a->found = st;
  return !a->found;
}

/* The vector loop's stages (fission after each but the last), then the
 * window's loops outside its reduction stage (reorder). The kernel after
 * them, or NULL: refused. */
static const Kernel *stage_steps(TuneSpace *sp, HaloFacts *f, const Kernel *k, const char *vec, const char *window,
                                 const char **wloops, int nw) {
  const Stmt *v = tune_loop_named(k, vec);
  if (!v) return NULL;
  StrBuf cuts;
  sb_init(&cuts);
  for (const Stmt *c = tune_first_stmt(v->body); c && c->next; c = c->next)
    if (c->kind != ST_DECL && c->name) sb_printf(&cuts, "%s%s", cuts.len ? ", " : "", c->name);
  const Kernel *got = cuts.len ? try_step(sp, f, "fission(%s, %s)", vec, cuts.data, "") : k;
  sb_free(&cuts);
  const Stmt *w = got ? tune_loop_named(got, window) : NULL;
  Around a = {w, NULL};
  if (w) ir_walk_stmts(got->body, find_around, &a);
  if (!a.found || a.found->kind != ST_FOR) return NULL;
  StrBuf order;
  sb_init(&order);
  for (int i = 0; i < nw; i++) sb_printf(&order, "%s, ", wloops[i]);
  sb_puts(&order, a.found->name);
  f->window_vec = a.found->name;
  got = try_step(sp, f, "reorder(%s)", order.data, "", "");
  sb_free(&order);
  return got;
}

/* The loops of the vector counter (its stages, each a VU instruction
 * where one computes it), in the order they run. */
typedef struct {
  const char *counter;
  HaloFacts *f;
  Arena *a;
} VecLoops;

static bool find_vec(Stmt *st, int depth, void *ctx) {
  (void)depth;
  VecLoops *v = ctx;
  if (st->kind == ST_FOR && st->var && st->name && !strcmp(st->var->name, v->counter) && v->f->nvec < HALO_MAX_VEC)
    v->f->vec[v->f->nvec++] = arena_strdup(v->a, st->name);
  return true;
}

static void render_prefix(const HaloFacts *f, long long q, StrBuf *sb) {
  const char *o = f->outer;
  sb_puts(sb, f->steps);
  if (q == 1) {
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, core)\n", o, (long long)f->cores, o);
  } else {
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, %sr)\n", o, q * f->cores, o, o);
    sb_printf(sb, "#pragma npu split(%sr, %lld, core, %si)\n", o, q, o);
  }
  sb_puts(sb, "#pragma npu bind(core, vu)\n");
  for (int i = 0; i < f->narr; i++) {
    const TuneArray *a = f->arr[i];
    const HaloArray *h = NULL;
    for (int j = 0; j < f->nhalo; j++)
      if (!strcmp(f->halo[j].name, a->name)) h = &f->halo[j];
    if (h) { /* staged whole in the DM, the halo in front, then each core's rows from there */
      sb_printf(sb, "#pragma npu cache_read(%s, dm, root, %s_dm)\n", a->name, a->name);
      sb_printf(sb, "#pragma npu transform_layout(%s_dm, (", a->name);
      for (int d = 0; d < h->ndim; d++) sb_printf(sb, "%sh%d", d ? ", " : "", d);
      sb_puts(sb, "), (");
      for (int d = 0; d < h->ndim; d++)
        sb_printf(sb, h->pad[d] ? "%sh%d + %lld" : "%sh%d", d ? ", " : "", d, (long long)h->pad[d]);
      sb_puts(sb, "), 0)\n");
      sb_printf(sb, "#pragma npu cache_read(%s_dm, vu_vm, core, %s_vm)\n", a->name, a->name);
    } else {
      sb_printf(sb, "#pragma npu %s(%s, vu_vm, core, %s_vm)\n", a->is_const ? "cache_read" : "cache_write", a->name,
                a->name);
    }
  }
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const HaloFacts *f = sk->data;
  render_prefix(f, sk->knobs[K_Q].val[ch[K_Q]], sb);
  if (sk->knobs[K_DB].val[ch[K_DB]])
    for (int i = 0; i < f->narr; i++)
      if (f->arr[i]->is_param) sb_printf(sb, "#pragma npu double_buffer(%s_vm)\n", f->arr[i]->name);
  for (int i = 0; i < f->nvec; i++) sb_printf(sb, "#pragma npu vectorize(%s)\n", f->vec[i]);
}

static uint64_t no_estimate(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  (void)sk, (void)ch, (void)t;
  return 0;
}

/* The facts of the kernel as written: the chain's innermost loop starts
 * with the accumulator's init, then the guarded window. false, with the
 * note why, when it is no such stencil. */
static bool stencil(TuneSpace *sp, const Kernel *k, HaloFacts *f, const Stmt **init, const Stmt **window,
                    const char **wloops, int *nw) {
  const TuneShape *sh = &sp->shape;
  if (sh->nchain < 2) return false;
  const Stmt *v = sh->chain[sh->nchain - 1];
  const Stmt *c = v->body && v->body->kind == ST_BLOCK ? v->body->body : v->body;
  if (!c || !c->next || (c->kind != ST_DECL && c->kind != ST_ASSIGN) || c->next->kind != ST_FOR) return false;
  const Stmt *guard = NULL, *update = guarded_window(c->next, wloops, nw, &guard);
  if (!update) return false;
  (void)guard;
  *init = c, *window = c->next;
  f->outer = sh->chain[0]->name;
  f->trip = sh->trip[0];
  f->cores = session_target(sp->s)->vu_count;
  if (f->trip < f->cores) {
    tune_note(sp, "vu:halo: the top loop %s has fewer iterations than the %lld VU cores\n", f->outer,
              (long long)f->cores);
    return false;
  }
  if (!halo_arrays(k, sh, c->next, update, f)) {
    tune_note(sp, "vu:halo: the guarded window reads no input before index 0 that could be staged whole (an input "
                  "the kernel never writes, over affine indices)\n");
    return false;
  }
  return true;
}

/* Is the window's stage a VU instruction at the seed (its guard above
 * the vector loop)? Else the sketch leaves the window on the CU, and it
 * is noted why: a guard on the vector loop's own counter (the window runs
 * along the padded dimension, channels outermost) stays inside it. */
static bool window_vectorizes(TuneSpace *sp, HaloFacts *f, long long q) {
  StrBuf sb;
  sb_init(&sb);
  render_prefix(f, q, &sb);
  for (int i = 0; i < f->nvec; i++) sb_printf(&sb, "#pragma npu vectorize(%s)\n", f->vec[i]);
  const Kernel *k = tune_probe_steps(sp, sb.data, "vu:halo");
  sb_free(&sb);
  const Stmt *l = k && f->window_vec ? tune_loop_named(k, f->window_vec) : NULL;
  if (l && l->intrin) return true;
  if (l) tune_note(sp, "vu:halo: vectorize(%s) stays a hint: the window's multiply-add stays on the CU (%s)\n",
                   f->window_vec, l->vec_note ? l->vec_note : "no VU instruction computes it");
  return false;
}

void tune_sketch_vu_halo(TuneSpace *sp) {
  const Module *m = session_module(sp->s);
  const Kernel *k = m ? module_kernel(m, sp->kernel) : NULL;
  /* the kernel as written, of constant sizes (its own first round) */
  if (!k || k->nsizes || sp->prefix[0] || sp->nsketch == TUNE_MAX_SKETCHES) return;
  HaloFacts *f = calloc(1, sizeof *f);
  const Stmt *init, *window;
  const char *wloops[HALO_MAX_LOOPS];
  int nw;
  if (!stencil(sp, k, f, &init, &window, wloops, &nw)) {
    free(f);
    return;
  }
  const TuneShape *sh = &sp->shape;
  const Stmt *vec = sh->chain[sh->nchain - 1];
  const char *counter = vec->var->name;
  epilogue_steps(sp, f, sh, init, window);
  const Kernel *prepared = f->steps[0] ? tune_probe_steps(sp, f->steps, NULL) : k;
  const Kernel *staged = prepared ? stage_steps(sp, f, prepared, vec->name, window->name, wloops, nw) : NULL;
  if (!staged || !tune_shape(staged, &f->shape) || f->shape.narr > TUNE_MAX_KNOBS) {
    tune_note(sp, "vu:halo: the window's loops do not move outside the vector loop %s (fission, reorder)\n",
              vec->name);
    free(f);
    return;
  }
  for (int i = 0; i < f->shape.narr; i++) f->arr[f->narr++] = &f->shape.arr[i];
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  memset(sk, 0, sizeof *sk);
  snprintf(sk->name, sizeof sk->name, "vu:halo");
  long long q[TUNE_MAX_CHOICES];
  int nq = 0;
  for (long long v = 1; v * f->cores <= f->trip && nq < TUNE_MAX_CHOICES; v *= 2) q[nq++] = v;
  tune_knob(sk, K_Q, "q", q, nq, 0);
  long long flag[2] = {0, 1};
  tune_knob(sk, K_DB, "db", flag, 2, 0);
  sk->nknobs = 2;
  sk->render = render;
  sk->estimate = no_estimate;
  sk->data = f;
  /* the vector loops, read off the steps at the seed */
  StrBuf sb;
  sb_init(&sb);
  render_prefix(f, q[0], &sb);
  const Kernel *got = tune_probe_steps(sp, sb.data, sk->name);
  sb_free(&sb);
  const Stmt *core = got ? tune_loop_named(got, "core") : NULL;
  VecLoops vl = {counter, f, &sp->arena};
  if (core) ir_walk_one(core, find_vec, &vl);
  if (!f->nvec || !window_vectorizes(sp, f, q[0])) {
    if (got && !f->nvec) tune_note(sp, "vu:halo: no loop of %s under the cores\n", counter);
    free(f);
    return;
  }
  sp->nsketch++;
}
