/* The VU sketch: the kernel's outermost loop (rows, channels) spread over
 * the VU cores: split into passes of cores x q iterations, q per core,
 * bind the core loop, cut the per-core body into its stages (fission), a
 * reduction's init into a nest of its own (decompose_reduction) with the
 * reduction loops outside the spatial ones (reorder, a knob), every array
 * staged in the core's vector memory (cache_read / cache_write; a local
 * array then never reaches DDR), double-buffered as the knobs say, and each
 * stage vectorized at the outermost loop where a VU instruction computes it.
 *
 * Those loops are found by trying the matcher: the sketch's steps are
 * applied in the session with one vectorize more each time, and the first
 * loop of a stage that vectorize turns into an instruction is kept.
 *
 * A reduction nest is also tried whole, its init left in it (a third
 * sketch, "+whole"): a VU instruction may compute the init and the
 * reduction together (a max pool's window op starts from the window's
 * first element). There only the loops above the init are tried: a loop
 * inside the reduction would leave the rest of the nest on the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "ir/sizes.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

enum { VU_MAX_STAGES = 12 };

typedef struct {
  const char *outer;          /* the loop spread over the cores */
  int64_t trip, cores;
  const char *cuts[VU_MAX_STAGES]; /* fission points of the per-core body */
  int ncuts;
  const char *init, *red_top; /* a reduction's init and the loop to decompose it at */
  const char *reorder;        /* "r, s, y, x": the reduction loops outward; NULL: not */
  const char *whole;          /* the init of a reduction nest kept whole; NULL: not */
  const char *vec[VU_MAX_STAGES]; /* each stage's vectorized loop */
  int nvec;
  int narr;
  const TuneArray *arr[TUNE_MAX_ARRAYS]; /* staged arrays; knob K_DB0 + i for each param */
  bool in_place[TUNE_MAX_ARRAYS]; /* a parameter the nest reads and writes (`a[i] = a[i] * s`, `x[i] += y[i]`) */
  /* per choice of q: what a pass asks of the units (tune/vu_estimate.c);
   * fits false when its steps are refused (the candidate cannot run) */
  VuPassCost cost[TUNE_MAX_CHOICES];
  bool fits[TUNE_MAX_CHOICES];
  char miss[600]; /* the last stage vectorize left a hint, and why (which expression, the nearest op) */
  /* A sized innermost loop (`j < m`): split into vectors of vlen (a
   * power of two at least the --size value) and the vector loop's outer part put outermost, so the
   * staged box is rows x vlen, bounded at every size (the whole row of a
   * sized array is not), and the tail's guard stays the vector loop's
   * whole body. NULL: the nest's loops are constant. */
  const char *vloop;
  long long vlen;
  const char *chain[IR_MAX_DIMS]; /* the nest's loops, outermost first (the reorder) */
  int nchain;
  SizeSet sizes; /* the --size values, for the estimate; nsizes 0: none */
  int nsizes;
} VuFacts;

enum { K_Q, K_DB0 };

/* Does loop write the element `init` writes (a reduction over it)? */
static bool reduces_into(const Stmt *init, const Stmt *loop) {
  const Stmt *l = loop;
  while (l && l->kind == ST_FOR) l = tune_first_stmt(l->body);
  return l && l->kind == ST_ASSIGN && init->lhs->kind == EX_LOAD && l->lhs->kind == EX_LOAD &&
         l->lhs->buf == init->lhs->buf;
}

/* The fission points of the per-core body: after every stage but the last,
 * where a stage is a loop or a statement, except a reduction's init, which
 * goes with the loop after it. */
static void stage_cuts(const Stmt *body, VuFacts *f) {
  for (const Stmt *c = tune_first_stmt(body); c; c = c->next) {
    if (c->kind == ST_DECL) continue;
    const Stmt *next = c->next;
    while (next && next->kind == ST_DECL) next = next->next;
    if (!next) break;
    if (c->kind == ST_ASSIGN && next->kind == ST_FOR && reduces_into(c, next)) continue;
    const char *name = c->name;
    if (c->kind == ST_FOR) { /* cut after the loop's last statement */
      const Stmt *l = c;
      while (l && l->kind == ST_FOR) {
        const Stmt *last = tune_first_stmt(l->body);
        while (last && last->next) last = last->next;
        l = last;
      }
      name = l && l->kind == ST_ASSIGN ? l->name : NULL;
    }
    if (name && f->ncuts < VU_MAX_STAGES) f->cuts[f->ncuts++] = name;
  }
}

/* A single nest under the outer loop whose innermost body is an init and
 * a reduction loop: the init to decompose at the nest's top loop, and the
 * reorder that puts the reduction loops outside. */
static void reduction_nest(const TuneShape *sh, VuFacts *f, Arena *a) {
  if (sh->nchain < 2) return;
  const Stmt *j = sh->chain[sh->nchain - 1];
  const Stmt *init = tune_first_stmt(j->body);
  if (!init || init->kind != ST_ASSIGN || !init->next || init->next->kind != ST_FOR || init->next->next) return;
  if (!reduces_into(init, init->next)) return;
  f->init = init->name;
  f->red_top = sh->chain[1]->name;
  StrBuf sb;
  sb_init(&sb);
  for (const Stmt *l = init->next; l && l->kind == ST_FOR; l = tune_first_stmt(l->body)) sb_printf(&sb, "%s, ", l->name);
  for (int i = 1; i < sh->nchain; i++) sb_printf(&sb, "%s%s", sh->chain[i]->name, i + 1 < sh->nchain ? ", " : "");
  f->reorder = arena_strdup(a, sb.data);
  sb_free(&sb);
}

/* An array the nest reads and writes is staged in one buffer that is
 * copied in and out, or, double-buffered, in two: a read cache for its
 * loads and a write cache for its stores (cache_read proves that no read
 * sees a write of the same iteration; double_buffer that the boxes of
 * consecutive passes are apart), each with two copies: the next pass's
 * fill and the last one's drain overlap this pass's compute. */
static bool split_in_place(const VuFacts *f, int i, const bool *db) { return f->in_place[i] && db && db[i]; }

static void render_stage(const VuFacts *f, const bool *db, StrBuf *sb) {
  for (int i = 0; i < f->narr; i++) {
    const char *n = f->arr[i]->name;
    if (split_in_place(f, i, db)) sb_printf(sb, "#pragma npu cache_read(%s, vu_vm, core, %s_in)\n", n, n);
    sb_printf(sb, "#pragma npu %s(%s, vu_vm, core, %s_vm)\n", f->arr[i]->is_const ? "cache_read" : "cache_write", n, n);
  }
}

/* split(j, L, jo, ji) and reorder(jo, i, .., ji): the vector loop's
 * outer part first, before the rows are split (their tail guard then wraps
 * the vector loop instead of sinking into it). */
static void render_vector_split(const VuFacts *f, StrBuf *sb) {
  const char *v = f->vloop;
  sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", v, f->vlen, v, v);
  sb_printf(sb, "#pragma npu reorder(%so", v);
  for (int i = 0; i + 1 < f->nchain; i++) sb_printf(sb, ", %s", f->chain[i]);
  sb_printf(sb, ", %si)\n", v);
}

static void render_prefix(const VuFacts *f, long long q, const bool *db, StrBuf *sb) {
  const char *o = f->outer;
  if (f->vloop) render_vector_split(f, sb);
  if (q == 1 && !f->ncuts) { /* one iteration per core: no loop of one trip inside (its control code costs) */
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, core)\n", o, (long long)f->cores, o);
  } else {
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, %sr)\n", o, q * f->cores, o, o);
    sb_printf(sb, "#pragma npu split(%sr, %lld, core, %si)\n", o, q, o);
  }
  if (f->init) sb_printf(sb, "#pragma npu decompose_reduction(%s, %s)\n", f->init, f->red_top);
  if (f->reorder) sb_printf(sb, "#pragma npu reorder(%s)\n", f->reorder);
  sb_printf(sb, "#pragma npu bind(core, vu)\n");
  if (f->ncuts) {
    sb_printf(sb, "#pragma npu fission(%si", o);
    for (int i = 0; i < f->ncuts; i++) sb_printf(sb, ", %s", f->cuts[i]);
    sb_puts(sb, ")\n");
  }
  render_stage(f, db, sb);
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const VuFacts *f = sk->data;
  bool db[TUNE_MAX_ARRAYS];
  for (int i = 0; i < f->narr; i++) db[i] = f->arr[i]->is_param && sk->knobs[K_DB0 + i].val[ch[K_DB0 + i]];
  render_prefix(f, sk->knobs[K_Q].val[ch[K_Q]], db, sb);
  for (int i = 0; i < f->narr; i++) {
    if (split_in_place(f, i, db)) sb_printf(sb, "#pragma npu double_buffer(%s_in)\n", f->arr[i]->name);
    if (db[i]) sb_printf(sb, "#pragma npu double_buffer(%s_vm)\n", f->arr[i]->name);
  }
  for (int i = 0; i < f->nvec; i++) sb_printf(sb, "#pragma npu vectorize(%s)\n", f->vec[i]);
}

/* The bounds of tune/vu_estimate.c on the pass the q knob makes, with the
 * arrays the knobs double-buffer. */
static uint64_t estimate(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  const VuFacts *f = sk->data;
  if (!f->fits[ch[K_Q]]) return UINT64_MAX;
  bool db[TUNE_MAX_ARRAYS];
  for (int i = 0; i < f->narr; i++) db[i] = sk->knobs[K_DB0 + i].val[ch[K_DB0 + i]] != 0;
  /* a split in-place array has a read cache beside its write cache: twice
   * the vector memory (its DMA bytes, in and out, are those of the one
   * buffer copied both ways) */
  VuPassCost c = f->cost[ch[K_Q]];
  for (int i = 0; i < f->narr; i++) {
    if (split_in_place(f, i, db)) c.vm_bytes[i] *= 2;
    if (db[i] && c.passes < 2) return UINT64_MAX; /* one pass: nothing to alternate with (double_buffer refuses) */
  }
  return tune_vu_estimate(&c, db, f->narr, t);
}

/* Each q's pass, read off the IR of the sketch's steps at that q (single
 * buffers: the knobs' second copies are the estimate's to add). */
static void pass_costs(TuneSpace *sp, VuFacts *f, const TuneKnob *q) {
  for (int i = 0; i < q->n; i++) {
    StrBuf sb;
    sb_init(&sb);
    render_prefix(f, q->val[i], NULL, &sb);
    for (int v = 0; v < f->nvec; v++) sb_printf(&sb, "#pragma npu vectorize(%s)\n", f->vec[v]);
    const Kernel *k = tune_probe_steps(sp, sb.data, NULL);
    sb_free(&sb);
    /* a kernel with sizes: its pass at the --size values (its loops'
     * trip counts are expressions of the sizes until then) */
    char why[300];
    if (k && k->nsizes) {
      Kernel *at = f->nsizes == k->nsizes ? ir_instantiate(&sp->arena, k, &f->sizes, why, sizeof why) : NULL;
      if (at) arith_simplify_kernel(&sp->arena, at); /* `256 / 64 + (256 % 64 > 0)` to 4 */
      k = at;
    }
    f->fits[i] = k && tune_vu_pass_cost(k, f->arr, f->narr, session_target(sp->s), &f->cost[i]);
  }
}

/* The seed moved to the choices of least estimate; of equal ones, those
 * nearest the structured seed (the most rows the vector memory holds
 * twice, every array double-buffered), so a flat estimate keeps it. */
static void seed_by_estimate(TuneSketch *sk, const NpuTarget *t) {
  int64_t combos = 1;
  for (int i = 0; i < sk->nknobs; i++) combos *= sk->knobs[i].n;
  if (combos > 4096) return; /* the knobs are few: q and a flag per array, at most 4 arrays */
  int ch[TUNE_MAX_KNOBS] = {0}, best[TUNE_MAX_KNOBS] = {0};
  uint64_t best_est = UINT64_MAX;
  int64_t best_dist = 0;
  for (int64_t n = 0; n < combos; n++) {
    int64_t rest = n, dist = 0;
    for (int i = 0; i < sk->nknobs; i++) {
      ch[i] = (int)(rest % sk->knobs[i].n);
      rest /= sk->knobs[i].n;
      dist += ch[i] > sk->knobs[i].seed ? ch[i] - sk->knobs[i].seed : sk->knobs[i].seed - ch[i];
    }
    uint64_t e = sk->estimate(sk, ch, t);
    if (e == UINT64_MAX || (best_est != UINT64_MAX && (e > best_est || (e == best_est && dist >= best_dist)))) continue;
    best_est = e;
    best_dist = dist;
    memcpy(best, ch, sizeof ch);
  }
  for (int i = 0; best_est != UINT64_MAX && i < sk->nknobs; i++) sk->knobs[i].seed = best[i];
}


/* Why vectorize left loop l a hint (no instruction, nor a sequence,
 * computes its nest: the sub-expression and the nearest instruction),
 * from the loop's own vec_note (schedule/vectorize.c), into f->miss; a
 * probe proven before (the memo) has it too, where the session's
 * warnings do not repeat. */
static void note_miss(VuFacts *f, const Stmt *l) {
  if (!l->vec_note) return;
  snprintf(f->miss, sizeof f->miss, "vectorize(%s) stays a hint: no VU instruction computes the nest under %s (%s)",
           l->name, l->name, l->vec_note);
}

/* Does vectorize(loop), after prefix and the loops found so far, make it
 * a VU instruction? */
static bool vectorizes(TuneSpace *sp, VuFacts *f, const char *prefix, const char *loop) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, prefix);
  for (int v = 0; v < f->nvec; v++) sb_printf(&sb, "#pragma npu vectorize(%s)\n", f->vec[v]);
  sb_printf(&sb, "#pragma npu vectorize(%s)\n", loop);
  const Kernel *got = tune_probe_steps(sp, sb.data, NULL);
  sb_free(&sb);
  const Stmt *l = got ? tune_loop_named(got, loop) : NULL;
  if (l && !l->intrin) note_miss(f, l);
  return l && l->intrin;
}

/* Is the statement named `name` one of loop's own (not nested deeper)? */
static bool holds(const Stmt *loop, const char *name) {
  for (const Stmt *c = tune_first_stmt(loop->body); c; c = c->next)
    if (c->name && !strcmp(c->name, name)) return true;
  return false;
}

/* The outermost loops under body that vectorize makes VU instructions, in
 * order: a loop that does not is looked into, unless it holds the init of
 * a nest kept whole (below it are only the reduction's loops). */
static void find_in(TuneSpace *sp, VuFacts *f, const char *prefix, const Stmt *body, int depth) {
  for (const Stmt *st = tune_first_stmt(body); st && depth < 6; st = st->next) {
    /* a split's tail guard around the loops (the rows of a sized nest) */
    if (st->kind == ST_IF && !st->else_s) find_in(sp, f, prefix, st->then_s, depth + 1);
    if (st->kind != ST_FOR || st->loop_kind == LOOP_DMA || f->nvec == VU_MAX_STAGES) continue;
    if (vectorizes(sp, f, prefix, st->name)) f->vec[f->nvec++] = arena_strdup(&sp->arena, st->name);
    else if (!f->whole || !holds(st, f->whole)) find_in(sp, f, prefix, st->body, depth + 1);
  }
}

/* Each stage's loop that vectorize makes a VU instruction, found in the
 * IR of the sketch's steps under the core loop; false when those steps
 * (split, bind, fission) are refused themselves: the refusal is noted as
 * the sketch's (bind on a kernel with sizes), not blamed on its stages. */
static bool find_vectorized(TuneSpace *sp, VuFacts *f, const char *prefix, const char *sketch) {
  const Kernel *k = tune_probe_steps(sp, prefix, sketch);
  const Stmt *core = k ? tune_loop_named(k, "core") : NULL;
  if (core) find_in(sp, f, prefix, core->body, 0);
  return k != NULL;
}

/* Are the read cache and the write cache of in-place array i legal
 * (cache_read refuses one that a read of its own iteration's write would
 * find stale: softmax's y, written, then scaled)? */
static bool splits(TuneSpace *sp, const VuFacts *f, int i, long long q) {
  bool db[TUNE_MAX_ARRAYS] = {false};
  db[i] = true;
  StrBuf sb;
  sb_init(&sb);
  render_prefix(f, q, db, &sb);
  bool ok = tune_probe_steps(sp, sb.data, NULL) != NULL;
  sb_free(&sb);
  return ok;
}

/* How a sketch treats a reduction nest's init. */
typedef enum { NEST_DECOMPOSED, NEST_REORDERED, NEST_WHOLE } NestForm;

static void add_sketch(TuneSpace *sp, const VuFacts *base, NestForm form) {
  if (sp->nsketch == TUNE_MAX_SKETCHES) return;
  VuFacts *f = malloc(sizeof *f);
  *f = *base;
  if (form != NEST_REORDERED) f->reorder = NULL; /* the sketch without the reorder */
  if (form == NEST_WHOLE) { /* no decompose_reduction: the init stays in the nest */
    f->whole = f->init;
    f->init = NULL;
  }
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  memset(sk, 0, sizeof *sk);
  static const char *suffix[] = {"", "+reorder", "+whole"};
  snprintf(sk->name, sizeof sk->name, "vu:%s%s", base->init ? "channels" : "rows", suffix[form]);
  long long q[TUNE_MAX_CHOICES];
  int nq = 0, seed = 0;
  for (long long v = 1; v * f->cores <= f->trip && nq < TUNE_MAX_CHOICES; v *= 2) q[nq++] = v;
  if (!nq) q[nq++] = 1;
  /* the seed: the most rows a core's vector memory holds with two copies
   * of the staged arrays, estimated from their per-row bytes */
  int64_t row_bytes = 0;
  for (int i = 0; i < f->narr; i++) {
    int64_t per = f->arr[i]->elem_size;
    for (int d = 1; d < f->arr[i]->ndim; d++) per *= f->arr[i]->shape[d];
    if (f->arr[i]->shape[0] == f->trip) row_bytes += per * (f->arr[i]->is_param ? 2 : 1);
  }
  for (int i = 0; i < nq; i++)
    if (row_bytes * q[i] <= session_target(sp->s)->vu_vm_size * 3 / 4 && q[i] * f->cores * 4 <= f->trip) seed = i;
  tune_knob(sk, K_Q, "q", q, nq, seed);
  long long flag[2] = {0, 1};
  for (int i = 0; i < f->narr; i++) {
    char name[32];
    snprintf(name, sizeof name, "db_%.24s", f->arr[i]->name);
    tune_knob(sk, K_DB0 + i, name, flag, f->arr[i]->is_param ? 2 : 1, f->arr[i]->is_param ? 1 : 0);
  }
  sk->nknobs = K_DB0 + f->narr;
  sk->render = render;
  sk->estimate = estimate;
  sk->data = f;
  StrBuf sb;
  sb_init(&sb);
  /* probed with two rows where the loop has them: with one, a 1-D nest's
   * vectorized loop runs once, which vectorize leaves as it is (16
   * elements over 4 cores was "no statement is a VU op") */
  render_prefix(f, q[seed == 0 && nq > 1 ? 1 : seed], NULL, &sb);
  f->nvec = 0;
  bool applies = find_vectorized(sp, f, sb.data, sk->name);
  sb_free(&sb);
  if (f->nvec) {
    for (int i = 0; i < f->narr; i++)
      if (f->in_place[i]) f->in_place[i] = splits(sp, f, i, q[seed]);
    pass_costs(sp, f, &sk->knobs[K_Q]);
    seed_by_estimate(sk, session_target(sp->s));
    sp->nsketch++;
  } else if (!applies) {
    free(f); /* its steps' refusal is noted */
  } else {
    if (f->miss[0]) /* the stage that blocks it, and why */
      tune_note(sp, "%s: no stage vectorizes onto the VU: %s\n", sk->name, f->miss);
    else
      tune_note(sp, "%s: no stage vectorizes onto the VU: no statement under loop %s is an elementwise or reduction "
                    "op of the VU's families on int8/int16/int32/float arrays\n", sk->name, f->outer);
    free(f);
  }
}

typedef struct {
  const char *name;
  bool read;
} ReadOf;

static bool read_visit(const Expr *e, void *ctx) {
  ReadOf *r = ctx;
  if (e->kind == EX_LOAD && e->buf && !strcmp(e->buf->name, r->name)) r->read = true;
  return !r->read;
}

static bool reads_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  ReadOf *r = ctx;
  if (st->kind == ST_ASSIGN) {
    ir_walk_expr(st->rhs, read_visit, r);
    if (st->op != OP_NONE && st->lhs->kind == EX_LOAD && !strcmp(st->lhs->buf->name, r->name)) r->read = true;
  }
  return !r->read;
}

/* Does the nest read the array named `name` (a load, or `op=` to it)? */
static bool reads_array(const Stmt *nest, const char *name) {
  ReadOf r = {name, false};
  ir_walk_one(nest, reads_visit, &r);
  return r.read;
}

/* A perfect nest whose innermost loop is sized in the kernel as written
 * (sp->shape is the kernel at the --size values): its vector split. */
static void sized_vector_loop(TuneSpace *sp, VuFacts *f) {
  const TuneShape *sh = &sp->shape;
  const Module *m = session_module(sp->s);
  const Kernel *k = m ? module_kernel(m, sp->kernel) : NULL;
  if (!k || !f->nsizes) return;
  TuneShape as_written;
  if (!tune_shape(k, &as_written) || as_written.nchain != sh->nchain || sh->nchain < 2) return;
  const Stmt *inner = as_written.chain[sh->nchain - 1];
  int64_t len = sh->trip[sh->nchain - 1];
  const Stmt *stmt = inner->kind == ST_FOR ? tune_first_stmt(inner->body) : NULL;
  if (tune_trip(inner) > 0 || len < 1 || !stmt || stmt->kind != ST_ASSIGN) return;
  /* the split's names (jo, ji) free: neither a loop of the kernel nor one
   * the rows' split makes (io, ir, ii, core) */
  char names[2][80], rows[3][80];
  snprintf(names[0], sizeof names[0], "%so", inner->name);
  snprintf(names[1], sizeof names[1], "%si", inner->name);
  snprintf(rows[0], sizeof rows[0], "%so", f->outer);
  snprintf(rows[1], sizeof rows[1], "%sr", f->outer);
  snprintf(rows[2], sizeof rows[2], "%si", f->outer);
  for (int i = 0; i < 2; i++) {
    if (tune_loop_named(k, names[i]) || !strcmp(names[i], "core")) return;
    for (int r = 0; r < 3; r++)
      if (!strcmp(names[i], rows[r])) return;
  }
  /* a power of two at least the size: jo * L + ji then stays in int
   * wherever jo * L < m (2^31 is a multiple of L; `jo * 300 + ji` would
   * pass INT_MAX at the largest m, and the proof refuses it) */
  int64_t pow2 = 1;
  while (pow2 < len && pow2 < ((int64_t)1 << 30)) pow2 *= 2;
  len = pow2;
  /* a row of L elements of every staged array, each with two copies (an
   * in-place one four: read and write cache), in half a core's vector
   * memory, so that q = 1 fits at least (a long row is cut in vectors) */
  int64_t per = 0;
  for (int i = 0; i < sh->narr; i++) per += sh->arr[i].elem_size * (sh->arr[i].is_param ? 4 : 1);
  while (per > 0 && len > 64 && len * per > session_target(sp->s)->vu_vm_size / 2) len /= 2;
  f->vloop = inner->name;
  f->vlen = len;
  f->nchain = sh->nchain;
  for (int i = 0; i < sh->nchain; i++) f->chain[i] = as_written.chain[i]->name;
}

void tune_sketch_vu(TuneSpace *sp) {
  const TuneShape *sh = &sp->shape;
  if (!sh->nchain) {
    tune_note(sp, "vu: the kernel's body is %d statements, not one loop nest: the VU sketches spread one nest over "
                  "the cores\n", sh->ntop);
    return;
  }
  VuFacts f;
  memset(&f, 0, sizeof f);
  f.outer = sh->chain[0]->name;
  f.trip = sh->trip[0];
  f.cores = session_target(sp->s)->vu_count;
  if (f.trip < f.cores) {
    tune_note(sp, "vu: the top loop %s has %s than the %lld VU cores (a top loop of at least %lld iterations would "
                  "spread over them: reorder or fuse)\n", f.outer,
              f.trip < 0 ? "no constant trip count, or fewer iterations" : "fewer iterations", (long long)f.cores,
              (long long)f.cores);
    return;
  }
  if (sh->narr > TUNE_MAX_KNOBS - K_DB0) {
    tune_note(sp, "vu: more arrays than the %d a sketch stages\n", TUNE_MAX_KNOBS - K_DB0);
    return;
  }
  const Stmt *body = sh->nchain == 1 ? sh->chain[0]->body : NULL;
  if (body) stage_cuts(body, &f);
  else reduction_nest(sh, &f, &sp->arena);
  /* a kernel with sizes: the --size values (tune/kernel_pick.c fixed them as its one size set) */
  const Kernel *k = session_module(sp->s) ? module_kernel(session_module(sp->s), sp->kernel) : NULL;
  if (k && k->nsizes && k->nsize_sets == 1 && ir_size_sets(k, &f.sizes, 1) == 1) f.nsizes = k->nsizes;
  if (!body && !f.init) sized_vector_loop(sp, &f);
  for (int i = 0; i < sh->narr; i++) {
    f.in_place[f.narr] = sh->arr[i].is_param && !sh->arr[i].is_const && reads_array(sh->chain[0], sh->arr[i].name);
    f.arr[f.narr++] = &sh->arr[i];
  }
  add_sketch(sp, &f, NEST_DECOMPOSED);
  if (f.reorder) add_sketch(sp, &f, NEST_REORDERED);
  if (f.init) add_sketch(sp, &f, NEST_WHOLE);
}
