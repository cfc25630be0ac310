/* The NU sketch: a contraction C[..][i][j] = init; C[..][i][j] += A.. * B..
 * (a matmul, a batched matmul, a pointwise convolution written as one) on
 * an NU intrinsic. Steps: tile the last two spatial loops, optionally
 * swap the tile loops, stage A and B in the NU's input and weight buffers
 * at a tile loop each, C in its output buffer at the inner tile loop,
 * tensorize, and double-buffer what the knobs say.
 *
 * A GEMV (one spatial loop: y[i] += A[i][k] * x[k]) is the matmul with
 * N = 1: split i in bands, stage each input at the band loop or at the
 * root (above every loop: loaded once, the vector's choice), y's band in
 * the output buffer, tensorize the band, double-buffer what the knobs say.
 *
 * Which intrinsic (an NU op by its semantics' scopes: line) and which operand goes to
 * which buffer are found by trying the matcher: a probe schedule with each
 * intrinsic and each assignment, and the engine refuses those that do not
 * match. Two intrinsics that match one assignment compute the same calls
 * (a GEMV's vector is both B[k][0] and B[0][k], npu_nu_matmul_i8 and
 * npu_nu_matmul_i8_bt): the first keeps the sketch, so trials are not
 * spent twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sizes.h"
#include "jit/session_ir.h"
#include "schedule/intrinsics.h"
#include "tune/tune.h"

enum { K_TI, K_TJ, K_ORDER, K_A_AT, K_B_AT, K_DB_A, K_DB_B, K_DB_C, K_FUSE_BATCH, K_TK, NU_KNOBS };

typedef struct {
  TuneContraction x;          /* the kernel's contraction */
  const char *scope_a, *scope_b;
  char intrin[64];
  bool ksplit; /* the reduction split in K tiles (knob tk), each tile one call with accumulate = 1 */
  int64_t kmax; /* K runs to a size: the largest it may run to (the buffers' length), else 0 */
  int64_t size_a, size_b; /* bytes of the scopes A and B are staged in */
} NuFacts;

static int64_t trips_of(int64_t extent, int64_t tile) { return tile > 0 ? (extent + tile - 1) / tile : 1; }

/* double_buffer of a cache at a loop of `trips` iterations, where the
 * knob says so: a loop that runs once has no other iteration to overlap
 * (double_buffer warns and keeps one copy), so the step is not written */
static void double_buffer(StrBuf *sb, bool knob, int64_t trips, const char *array, const char *scope) {
  if (knob && trips >= 2) sb_printf(sb, "#pragma npu double_buffer(%s_%s)\n", array, scope);
}

/* Does a tile of `tile` rows of operand A (or B) fit its buffer twice
 * (double-buffered)? Always, unless K runs whole to a size: then its
 * rows are as long as K's largest value. */
static bool fits_twice(const NuFacts *f, int64_t tile, bool a) {
  if (!f->kmax || f->ksplit) return true;
  return 2 * tile * f->kmax * (a ? f->x.elem_a : f->x.elem_b) <= (a ? f->size_a : f->size_b);
}

/* Is operand A (knob K_A_AT) or B (K_B_AT) staged at the inner tile loop?
 * As the knob says; but with K whole to a size, an operand whose own
 * dimension is not the outer loop's would be staged whole there (its
 * extent by K's largest value), which never fits: at the inner loop. */
static bool staged_inner(const TuneSketch *sk, const int *ch, int knob) {
  const NuFacts *f = sk->data;
  bool ji = sk->knobs[K_ORDER].val[ch[K_ORDER]];
  bool own_not_outer = knob == K_A_AT ? ji : !ji;
  return sk->knobs[knob].val[ch[knob]] || (f->kmax && !f->ksplit && own_not_outer);
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const NuFacts *f = sk->data;
  long long ti = sk->knobs[K_TI].val[ch[K_TI]], tj = sk->knobs[K_TJ].val[ch[K_TJ]];
  bool ji = sk->knobs[K_ORDER].val[ch[K_ORDER]];
  sb_printf(sb, "#pragma npu tile(%s, %s, %lld, %lld, %so, %so, %si, %si)\n", f->x.i, f->x.j, ti, tj, f->x.i,
            f->x.j, f->x.i, f->x.j);
  if (ji) sb_printf(sb, "#pragma npu reorder(%so, %so, %si, %si)\n", f->x.j, f->x.i, f->x.i, f->x.j);
  /* the tile loop of each operand: its own (reused across the other) or the inner one */
  const char *outer = ji ? f->x.j : f->x.i, *inner = ji ? f->x.i : f->x.j;
  char fused[96];
  if (sk->knobs[K_FUSE_BATCH].val[ch[K_FUSE_BATCH]]) {
    /* one loop over batches and bands: double buffering runs across batches */
    snprintf(fused, sizeof fused, "%s%s", f->x.batch_loop, outer); /* the caches below add the 'o' */
    sb_printf(sb, "#pragma npu fuse(%s, %so, %so)\n", f->x.batch_loop, outer, fused);
    outer = fused;
  }
  if (f->ksplit) {
    /* K tiles around the tile's update, the init in the first one's pass
     * (init_at): each an NU call, the first with accumulate = 0 (it
     * zeroes C's tile in the output buffer, no init on the CU), its A and
     * B tiles staged per K tile */
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->x.k, sk->knobs[K_TK].val[ch[K_TK]], f->x.k, f->x.k);
    sb_printf(sb, "#pragma npu init_at(%s, %so)\n", f->x.init, f->x.k);
    sb_printf(sb, "#pragma npu reorder(%so, %si, %si)\n", f->x.k, f->x.i, f->x.j);
    sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->x.c, inner, f->x.c);
    sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->x.a, f->scope_a, f->x.k, f->x.a, f->scope_a + 3);
    sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->x.b, f->scope_b, f->x.k, f->x.b, f->scope_b + 3);
  } else {
    sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->x.a, f->scope_a,
              staged_inner(sk, ch, K_A_AT) ? inner : outer, f->x.a, f->scope_a + 3);
    sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->x.b, f->scope_b,
              staged_inner(sk, ch, K_B_AT) ? inner : outer, f->x.b, f->scope_b + 3);
    sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->x.c, inner, f->x.c);
  }
  sb_printf(sb, "#pragma npu tensorize(%si, %s)\n", f->x.i, f->intrin);
  /* the trips of the loop each cache sits at */
  int64_t ti_trips = trips_of(f->x.m, ti), tj_trips = trips_of(f->x.n, tj);
  int64_t outer_trips = ji ? tj_trips : ti_trips, inner_trips = ji ? ti_trips : tj_trips;
  if (sk->knobs[K_FUSE_BATCH].val[ch[K_FUSE_BATCH]]) outer_trips *= f->x.batch;
  int64_t k_trips = f->ksplit ? trips_of(f->x.kk, sk->knobs[K_TK].val[ch[K_TK]]) : 1;
  int64_t a_trips = f->ksplit ? k_trips : staged_inner(sk, ch, K_A_AT) ? inner_trips : outer_trips;
  int64_t b_trips = f->ksplit ? k_trips : staged_inner(sk, ch, K_B_AT) ? inner_trips : outer_trips;
  /* with K whole to a size, an operand's tile twice at K's largest value
   * may not fit its buffer: then one copy, whatever the knob */
  double_buffer(sb, sk->knobs[K_DB_A].val[ch[K_DB_A]] && fits_twice(f, ti, true), a_trips, f->x.a, f->scope_a + 3);
  double_buffer(sb, sk->knobs[K_DB_B].val[ch[K_DB_B]] && fits_twice(f, tj, false), b_trips, f->x.b, f->scope_b + 3);
  double_buffer(sb, sk->knobs[K_DB_C].val[ch[K_DB_C]], inner_trips, f->x.c, "ob");
}

/* The GEMV's steps: the knobs K_A_AT and K_B_AT say "at the root". */
static void render_gemv(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const NuFacts *f = sk->data;
  bool a_root = sk->knobs[K_A_AT].val[ch[K_A_AT]], b_root = sk->knobs[K_B_AT].val[ch[K_B_AT]];
  sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->x.i, sk->knobs[K_TI].val[ch[K_TI]], f->x.i, f->x.i);
  sb_printf(sb, "#pragma npu cache_read(%s, %s, %s%s, %s_%s)\n", f->x.a, f->scope_a, a_root ? "root" : f->x.i,
            a_root ? "" : "o", f->x.a, f->scope_a + 3);
  sb_printf(sb, "#pragma npu cache_read(%s, %s, %s%s, %s_%s)\n", f->x.b, f->scope_b, b_root ? "root" : f->x.i,
            b_root ? "" : "o", f->x.b, f->scope_b + 3);
  sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->x.c, f->x.i, f->x.c);
  sb_printf(sb, "#pragma npu tensorize(%si, %s)\n", f->x.i, f->intrin);
  /* a copy at the root is made once: nothing to overlap it with */
  int64_t bands = trips_of(f->x.m, sk->knobs[K_TI].val[ch[K_TI]]);
  double_buffer(sb, sk->knobs[K_DB_A].val[ch[K_DB_A]], a_root ? 1 : bands, f->x.a, f->scope_a + 3);
  double_buffer(sb, sk->knobs[K_DB_B].val[ch[K_DB_B]], b_root ? 1 : bands, f->x.b, f->scope_b + 3);
  double_buffer(sb, sk->knobs[K_DB_C].val[ch[K_DB_C]], bands, f->x.c, "ob");
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The bytes a GEMV input moves: all of it when it varies with i (each band
 * once, wherever staged), else once at the root or once per band. */
static int64_t gemv_bytes(bool uses_i, bool root, int64_t bands, int64_t m, int64_t kk, int elem) {
  return (uses_i ? m : root ? 1 : bands) * kk * elem;
}

/* A GEMV is bound by DDR (one MAC per element of A): the NU's MAC cycles
 * (m x kk in all, as the simulator counts them) and its overhead per band
 * against the bytes the caches move. */
static uint64_t estimate_gemv(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  const NuFacts *f = sk->data;
  int64_t bands = ceil_div(f->x.m, sk->knobs[K_TI].val[ch[K_TI]]);
  int64_t rate = f->x.fp32 ? t->nu_macs_fp32 : t->nu_macs_int8;
  uint64_t nu = (uint64_t)(f->x.m * f->x.kk / (rate > 0 ? rate : 1) + bands * t->nu_overhead);
  int64_t bytes = gemv_bytes(f->x.a_uses_i, sk->knobs[K_A_AT].val[ch[K_A_AT]], bands, f->x.m, f->x.kk, f->x.elem_a) +
                  gemv_bytes(f->x.b_uses_i, sk->knobs[K_B_AT].val[ch[K_B_AT]], bands, f->x.m, f->x.kk, f->x.elem_b) +
                  f->x.m * f->x.elem_c;
  uint64_t dma = (uint64_t)(bytes / (t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1));
  return nu > dma ? nu : dma;
}

/* Rows (of the operand's own dimension) moved in all: staged at the inner
 * tile loop, a tile per iteration of both; at the outer one, a tile per
 * outer iteration when that is the operand's own loop, else all of them. */
static int64_t staged_bytes(bool at_inner, bool outer_is_own, int64_t outer_trips, int64_t all_trips, int64_t tile,
                            int64_t extent) {
  if (at_inner) return all_trips * tile;
  return outer_trips * (outer_is_own ? tile : extent);
}

/* The NU's MAC cycles (and its instruction overheads) against the DDR
 * bytes the caches move over the bandwidth: the larger bounds the run. */
static uint64_t estimate(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  const NuFacts *f = sk->data;
  int64_t ti = sk->knobs[K_TI].val[ch[K_TI]], tj = sk->knobs[K_TJ].val[ch[K_TJ]];
  bool ji = sk->knobs[K_ORDER].val[ch[K_ORDER]];
  int64_t mt = ceil_div(f->x.m, ti), nt = ceil_div(f->x.n, tj);
  int64_t calls = f->x.batch * mt * nt;
  int64_t rate = f->x.fp32 ? t->nu_macs_fp32 : t->nu_macs_int8;
  /* the array's 32-wide rows: a tile pays for whole rows of it */
  int64_t macs = calls * ceil_div(ti, 32) * 32 * ceil_div(tj, 32) * 32 * f->x.kk;
  uint64_t nu = (uint64_t)(macs / (rate > 0 ? rate : 1) + calls * t->nu_overhead);
  /* an operand staged at the outer tile loop is loaded once per outer
   * iteration: its band when that loop is its own dimension's, else the
   * whole extent of its dimension; at the inner loop, once per tile */
  int64_t outer_trips = ji ? nt : mt;
  int64_t a_bytes =
      staged_bytes(staged_inner(sk, ch, K_A_AT), !ji, outer_trips, mt * nt, ti, f->x.m) * f->x.kk * f->x.elem_a;
  int64_t b_bytes =
      staged_bytes(staged_inner(sk, ch, K_B_AT), ji, outer_trips, mt * nt, tj, f->x.n) * f->x.kk * f->x.elem_b;
  if (f->ksplit) { /* A and B tiles loaded per K tile, so once per output tile each */
    int64_t ktiles = ceil_div(f->x.kk, sk->knobs[K_TK].val[ch[K_TK]]);
    a_bytes = mt * nt * ti * f->x.kk * f->x.elem_a;
    b_bytes = mt * nt * tj * f->x.kk * f->x.elem_b;
    nu += (uint64_t)(calls * (ktiles - 1) * t->nu_overhead);
  }
  int64_t bw = t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1;
  if (f->kmax && !f->ksplit) { /* K whole to a size: a tile loaded per call into one copy stalls the NU */
    if (staged_inner(sk, ch, K_A_AT) && !(sk->knobs[K_DB_A].val[ch[K_DB_A]] && fits_twice(f, ti, true)))
      nu += (uint64_t)(calls * (ti * f->x.kk * f->x.elem_a / bw + t->ddr_latency));
    if (staged_inner(sk, ch, K_B_AT) && !(sk->knobs[K_DB_B].val[ch[K_DB_B]] && fits_twice(f, tj, false)))
      nu += (uint64_t)(calls * (tj * f->x.kk * f->x.elem_b / bw + t->ddr_latency));
  }
  int64_t bytes = f->x.batch * (a_bytes + b_bytes + f->x.m * f->x.n * f->x.elem_c);
  uint64_t dma = (uint64_t)(bytes / bw);
  return nu > dma ? nu : dma;
}

/* The tiles among v[0..n) (ascending) whose rows of row_bytes fit in
 * `size` bytes; the smallest when none does (the step then says why). */
static int fitting(const long long *v, int n, int64_t row_bytes, int64_t size) {
  int keep = 1;
  while (keep < n && v[keep] * row_bytes <= size) keep++;
  return keep;
}

/* The index of the largest size at most want. */
static int nearest(const long long *v, int n, long long want) {
  int best = 0;
  for (int i = 0; i < n; i++)
    if (v[i] <= want) best = i;
  return best;
}

static TuneSketch make(const NuFacts *f) {
  TuneSketch sk;
  memset(&sk, 0, sizeof sk);
  snprintf(sk.name, sizeof sk.name, "nu:%s%s", f->intrin, f->ksplit ? "+ksplit" : "");
  bool gemv = !f->x.j;
  long long ti[TUNE_MAX_CHOICES], tj[TUNE_MAX_CHOICES] = {1}, flag[2] = {0, 1};
  /* tiles of 8 rows at least, or the whole of a shorter extent */
  int nti = tune_tile_sizes(f->x.m, f->x.m < 8 ? f->x.m : 8, ti, TUNE_MAX_CHOICES);
  int ntj = gemv ? 1 : tune_tile_sizes(f->x.n, f->x.n < 8 ? f->x.n : 8, tj, TUNE_MAX_CHOICES); /* a GEMV: N = 1 */
  if (f->kmax && !f->ksplit) { /* K whole, to a size: tiles whose operands fit at K's largest value */
    nti = fitting(ti, nti, f->kmax * f->x.elem_a, f->size_a);
    ntj = fitting(tj, ntj, f->kmax * f->x.elem_b, f->size_b);
  }
  tune_knob(&sk, K_TI, "ti", ti, nti, nearest(ti, nti, 128));
  tune_knob(&sk, K_TJ, "tj", tj, ntj, nearest(tj, ntj, 128));
  tune_knob(&sk, K_ORDER, "order_ji", flag, gemv ? 1 : 2, 0);
  if (gemv) { /* the seed: an input the same for every row (the vector) at the root */
    tune_knob(&sk, K_A_AT, "a_root", flag, 2, !f->x.a_uses_i);
    tune_knob(&sk, K_B_AT, "b_root", flag, 2, !f->x.b_uses_i);
  } else { /* with K split, A and B are staged per K tile: no choice of loop */
    tune_knob(&sk, K_A_AT, "a_inner", flag, f->ksplit ? 1 : 2, 0);
    tune_knob(&sk, K_B_AT, "b_inner", flag, f->ksplit ? 1 : 2, 1);
  }
  tune_knob(&sk, K_DB_A, "db_a", flag, 2, 1);
  tune_knob(&sk, K_DB_B, "db_b", flag, 2, 1);
  tune_knob(&sk, K_DB_C, "db_c", flag, 2, 1);
  tune_knob(&sk, K_FUSE_BATCH, "fuse_batch", flag, f->x.batch_loop ? 2 : 1, 0);
  long long tk[TUNE_MAX_CHOICES] = {0};
  int ntk = 1;
  if (f->ksplit) { /* K tiles shorter than K (tails in too) */
    long long all[TUNE_MAX_CHOICES];
    int n = tune_tile_sizes(f->x.kk, 32, all, TUNE_MAX_CHOICES);
    ntk = 0;
    for (int i = 0; i < n; i++)
      if (all[i] < f->x.kk) tk[ntk++] = all[i];
    if (!ntk) tk[ntk++] = f->x.kk;
  }
  tune_knob(&sk, K_TK, "tk", tk, ntk, nearest(tk, ntk, 1024));
  sk.nknobs = NU_KNOBS;
  sk.render = gemv ? render_gemv : render;
  sk.estimate = gemv ? estimate_gemv : estimate;
  NuFacts *copy = malloc(sizeof *copy);
  *copy = *f;
  sk.data = copy;
  return sk;
}

/* Does the sketch apply (every step legal) at small tiles and single
 * buffers? */
static bool probe(TuneSpace *sp, const TuneSketch *sk) {
  int choice[TUNE_MAX_KNOBS];
  for (int i = 0; i < sk->nknobs; i++) choice[i] = sk->knobs[i].seed;
  choice[K_TI] = choice[K_TJ] = 0;
  choice[K_DB_A] = choice[K_DB_B] = choice[K_DB_C] = 0;
  return tune_probe(sp, sp->nsketch, choice);
}

/* A GEMV's seed stages its vector at the root, above every loop; where an
 * earlier nest writes the vector (`t = A x; y = B t`, a nest of its own in
 * tune/sketch_nests.c's space) that copy would run before it: the seed
 * stages it at the band loop instead. False when no input was at the root. */
static bool seed_at_the_band(TuneSketch *sk) {
  bool root = sk->knobs[K_A_AT].seed || sk->knobs[K_B_AT].seed;
  sk->knobs[K_A_AT].seed = sk->knobs[K_B_AT].seed = 0;
  return root;
}

typedef struct {
  const char *name;
  const Stmt *sized; /* the loop, when it runs to a size */
} SizedLoop;

static bool sized_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  SizedLoop *l = ctx;
  int64_t n;
  if (st->kind == ST_FOR && st->name && !strcmp(st->name, l->name) && !ir_trip_count(st, &n)) l->sized = st;
  return true;
}

/* k's loop `name` when it runs a count that is not a constant (to a size). */
static const Stmt *loop_to_a_size(const Kernel *k, const char *name) {
  SizedLoop l = {name, NULL};
  ir_walk_stmts(k->body, sized_visit, &l);
  return l.sized;
}

void tune_sketch_nu(TuneSpace *sp) {
  NuFacts f;
  memset(&f, 0, sizeof f);
  char why[400];
  if (!tune_contraction(&sp->shape, &f.x, why, sizeof why)) {
    tune_note(sp, "nu: not a contraction nest: %s\n", why);
    tune_sketch_nu_epilogue(sp); /* a contraction into a local, then an epilogue */
    return;
  }
  /* a K-split sketch too when the seed's 128-row band of A over the whole
   * of K does not fit half the input buffer (twice, to double-buffer);
   * a shorter K keeps the space (and its figures in docs/tune.md) as is */
  const NpuTarget *t = session_target(sp->s);
  bool long_k = f.x.j && f.x.kk >= 64 && 128 * f.x.kk * f.x.elem_a > t->nu_ib_size / 2;
  /* a reduction that runs to a size: its buffers are as large as the
   * assumptions let K run, which may not fit where the --size value's
   * would: K tiles too */
  const Kernel *written = module_kernel(session_module(sp->s), sp->kernel);
  const Stmt *sized_k = f.x.j && written && written->nsizes ? loop_to_a_size(written, f.x.k) : NULL;
  long_k = long_k || sized_k;
  /* K whole too (tensorize runs it to its largest value, the call's
   * length at run time: schedule/tensorize_sized.c), its tiles those
   * whose operands fit at that value */
  int64_t lo;
  if (sized_k && ir_const_int(sized_k->lo, &lo) && lo == 0 && sized_k->cmp == OP_LT &&
      !ir_size_expr_max(written, sized_k->hi, &f.kmax))
    f.kmax = 0;
  char **names, why_names[256];
  int count = sched_intrinsic_names(&names, why_names, sizeof why_names);
  const char *scopes[2][2] = {{"nu_ib", "nu_wb"}, {"nu_wb", "nu_ib"}};
  bool assigned[2] = {false, false}; /* an intrinsic took the assignment */
  for (int i = 0; i < count; i++) {
    /* an NU op by its semantics' scopes, whatever its name (the matcher
     * then refuses those that do not compute the nest) */
    char path[1024];
    size_t len;
    char *src = strlen(names[i]) < sizeof f.intrin ? tune_nu_semantics(names[i], path, sizeof path, &len) : NULL;
    if (!src) continue;
    free(src);
    snprintf(f.intrin, sizeof f.intrin, "%s", names[i]);
    for (int a = 0; a < 2 && sp->nsketch < TUNE_MAX_SKETCHES; a++) {
      f.scope_a = scopes[a][0];
      f.scope_b = scopes[a][1];
      f.size_a = a ? t->nu_wb_size : t->nu_ib_size;
      f.size_b = a ? t->nu_ib_size : t->nu_wb_size;
      bool took = false;
      for (int split = 0; split < 1 + long_k && !assigned[a] && sp->nsketch < TUNE_MAX_SKETCHES; split++) {
        f.ksplit = split;
        TuneSketch *sk = &sp->sketch[sp->nsketch];
        *sk = make(&f);
        if (probe(sp, sk) || (!f.x.j && seed_at_the_band(sk) && probe(sp, sk))) sp->nsketch++, took = true;
        else free(sp->sketch[sp->nsketch].data);
      }
      assigned[a] = assigned[a] || took;
    }
  }
  sched_intrinsic_names_free(names, count);
}
