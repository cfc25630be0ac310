/* The host sketch: a contraction (tune/contraction.c) made fast on the
 * CPU, for a kernel that stays in host memory (npugen tune --host) or that
 * no NPU sketch fits. Steps: the init into a nest of its own
 * (decompose_reduction), tile the last two spatial loops, split the
 * reduction loop, reorder the six loops, then either vectorize the j tile
 * loop (an OpenMP simd hint) and unroll the k tile loop, or block for
 * registers: k's tile loop outside a tile of at most REG_MAX statements
 * unrolled whole, so that the compiler keeps the tile of C in vector
 * registers across k (Halide's classic schedule; the seed), with k's
 * tile loop either in the tile or outside the tiles (kfirst: a panel of
 * B reused by a row of tiles); parallel on the outermost loop. The engine proves each step as for any candidate (a reorder that
 * would break the reduction's order, a parallel loop that carries a
 * dependence are refused), and the cost is the variant's measured time
 * (tune/host_timer.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

enum { K_TI, K_TJ, K_TK, K_OUTER, K_INNER, K_UNROLL, K_VEC, K_PAR, K_REG, K_KFIRST, HOST_KNOBS };

/* A register block holds at most this many elements of C: 8 x 16 floats
 * are 16 AVX2 vectors, all of them (a larger tile, unrolled, spills and
 * only grows the code: such a candidate is the tile without the block). */
enum { REG_MAX = 128 };

/* The tile loops' orders: outer (over tiles) and inner (within a tile). */
static const char *outer_order[] = {"%1$so, %2$so, %3$so", "%1$so, %3$so, %2$so", "%2$so, %1$so, %3$so"};
static const char *inner_order[] = {"%1$si, %3$si, %2$si", "%1$si, %2$si, %3$si", "%3$si, %1$si, %2$si"};

/* With tails (a tile size that does not divide its extent), the tails are
 * split off by loop_partition right after the tile (i first, then j in
 * each i piece: a j piece cut before the i partition keeps its guard in
 * the i main piece, since the partition that drops the i guard does not
 * turn the j guard into a bound there): the guard-free main piece keeps the loop
 * names and gets the steps; the tail pieces stay plain loops, with their
 * bounds and no guard. The tiles' own loops (io, jo) then stay outermost:
 * a loop holding two pieces is no perfect nest to reorder. */
/* A tail piece (its loops' copies named <loop>_<copy>) blocked for
 * registers as the main piece is, when its rows x cols fit the block:
 * else it stays a plain loop nest, k innermost. */
static void block_tail(const TuneContraction *f, const char *k, int copy, long long rows, long long cols, StrBuf *sb) {
  if (rows * cols > REG_MAX) return;
  sb_printf(sb, "#pragma npu reorder(%s_%d, %si_%d, %si_%d)\n", k, copy, f->i, copy, f->j, copy);
  sb_printf(sb, "#pragma npu unroll(%si_%d)\n#pragma npu unroll(%si_%d)\n", f->j, copy, f->i, copy);
}

/* The tail pieces the partitions above made, by the copy number each
 * partition gave their loops: the i partition copies first (_1), then
 * the j partition in the i main piece (_1 alone, _2 after an i
 * partition), then in the i tail piece (_3). k: the reduction loop in
 * the tile (k, or its tile loop ki when kfirst split it before the tile). */
static void block_tails(const TuneContraction *f, const char *k, long long ti, long long tj, StrBuf *sb) {
  long long mi = f->m % ti, nj = f->n % tj;
  if (mi && nj) {
    block_tail(f, k, 2, ti, nj, sb);
    block_tail(f, k, 1, mi, tj, sb);
    block_tail(f, k, 3, mi, nj, sb);
  } else if (mi || nj) block_tail(f, k, 1, mi ? mi : ti, nj ? nj : tj, sb);
}

/* kfirst: k split by tk and its tile loop ko made the outermost loop
 * before the tile (GotoBLAS's k panel outside the C tiles): every tile of
 * C then sums a panel of tk rows of B, which stays in L2 while the tiles
 * of one row sweep it, and a tile's A rows and B columns in L1. With k
 * whole inside the tile, each tile re-reads all of B's columns from L3
 * (N = 1000, one thread, measured in one process: 6 x 16 blocks at 38
 * GFLOP/s with k whole, 58 to 61 with tk 50 to 125). */
static void split_k_first(const TuneContraction *f, long long tk, StrBuf *sb) {
  sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->k, tk, f->k, f->k);
  sb_printf(sb, "#pragma npu reorder(%so, ", f->k);
  if (f->batch_loop) sb_printf(sb, "%s, ", f->batch_loop);
  sb_printf(sb, "%s, %s, %si)\n", f->i, f->j, f->k);
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const TuneContraction *f = sk->data;
#define V(k) (sk->knobs[k].val[ch[k]])
  long long ti = V(K_TI), tj = V(K_TJ), tk = V(K_TK), unroll = V(K_UNROLL);
  bool tails = f->m % ti || f->n % tj;
  bool reg = V(K_REG) && ti * tj <= REG_MAX;
  bool kfirst = V(K_KFIRST) && tk < f->kk;
  sb_printf(sb, "#pragma npu decompose_reduction(%s, %s)\n", f->init, f->top);
  if (kfirst) split_k_first(f, tk, sb);
  sb_printf(sb, "#pragma npu tile(%s, %s, %lld, %lld, %so, %so, %si, %si)\n", f->i, f->j, ti, tj, f->i, f->j, f->i,
            f->j);
  if (f->m % ti) sb_printf(sb, "#pragma npu loop_partition(%so, %lld)\n", f->i, (long long)f->m / ti);
  if (f->n % tj) sb_printf(sb, "#pragma npu loop_partition(%so, %lld)\n", f->j, (long long)f->n / tj);
  /* the i tail piece's copy of jo (named jo_1 by the i partition, the
   * first copy of jo) is cut too: each piece's guard becomes its bound */
  if (f->m % ti && f->n % tj) sb_printf(sb, "#pragma npu loop_partition(%so_1, %lld)\n", f->j, (long long)f->n / tj);
  if (!kfirst) sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->k, tk, f->k, f->k);
  sb_printf(sb, "#pragma npu reorder(");
  /* with kfirst, ko is outside the tiles already: the tile's own loops only */
  if (!kfirst && !tails) {
    sb_printf(sb, outer_order[V(K_OUTER)], f->i, f->j, f->k);
    sb_printf(sb, ", ");
  } else if (!kfirst) sb_printf(sb, "%so, ", f->k);
  sb_printf(sb, reg ? inner_order[2] : inner_order[V(K_INNER)], f->i, f->j, f->k);
  sb_printf(sb, ")\n");
  if (reg) { /* the compiler vectorizes the unrolled rows itself (SLP) */
    sb_printf(sb, "#pragma npu unroll(%si)\n#pragma npu unroll(%si)\n", f->j, f->i);
    char k[80];
    snprintf(k, sizeof k, "%s%s", f->k, kfirst ? "i" : "");
    block_tails(f, k, ti, tj, sb);
  } else {
    /* marks before the unroll: its copies of a marked loop keep the mark */
    if (V(K_VEC)) sb_printf(sb, "#pragma npu vectorize(%si)\n", f->j);
    if (unroll >= tk) sb_printf(sb, "#pragma npu unroll(%si)\n", f->k);
    else if (unroll > 1) sb_printf(sb, "#pragma npu unroll(%si, %lld)\n", f->k, unroll);
  }
  if (V(K_PAR)) {
    char io[80];
    snprintf(io, sizeof io, "%so", V(K_OUTER) == 2 && !tails && !kfirst ? f->j : f->i);
    sb_printf(sb, "#pragma npu parallel(%s)\n", f->batch_loop ? f->batch_loop : io);
  }
#undef V
}

static bool has_size(const long long *v, int n, long long x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static void insert_sorted(long long *v, int *n, long long x) {
  int i = *n;
  for (; i > 0 && v[i - 1] > x; i--) v[i] = v[i - 1];
  v[i] = x;
  (*n)++;
}

/* Is the kernel's output array c declared restrict (`float C[restrict N][N]`)? */
static bool output_restrict(const TuneSpace *sp, const char *c) {
  const Module *m = session_module(sp->s);
  const Kernel *k = m ? module_kernel(m, sp->kernel) : NULL;
  for (const Param *p = k ? k->params : NULL; p; p = p->next)
    if (p->buf && !strcmp(p->buf->name, c)) return p->buf->is_restrict;
  return false;
}

void tune_sketch_host(TuneSpace *sp) {
  TuneContraction f;
  memset(&f, 0, sizeof f);
  char why[400];
  if (!tune_contraction(&sp->shape, &f, why, sizeof why)) {
    tune_note(sp, "host:cc: not a contraction nest (host:loops tunes the kernel's own loops instead): %s\n", why);
    return;
  }
  if (!f.j) { /* its steps tile two spatial loops */
    tune_note(sp, "host:cc: a contraction with one spatial loop %s (a GEMV): its steps tile two (host:loops tunes it instead)\n", f.i);
    return;
  }
  if (sp->nsketch == TUNE_MAX_SKETCHES) return;
  TuneSketch *sk = &sp->sketch[sp->nsketch];
  memset(sk, 0, sizeof *sk);
  snprintf(sk->name, sizeof sk->name, "host:cc");
  long long ti[TUNE_MAX_CHOICES], tj[TUNE_MAX_CHOICES], tk[TUNE_MAX_CHOICES];
  long long orders[3] = {0, 1, 2}, unroll[4] = {1, 2, 4, 8}, flag[2] = {0, 1};
  int nti = tune_tile_sizes(f.m, 4, ti, TUNE_MAX_CHOICES - 1), ntj = tune_tile_sizes(f.n, 8, tj, TUNE_MAX_CHOICES);
  /* 6 rows: a register block of 6 x 16 floats is 12 AVX2 accumulators,
   * with the vector of B and the broadcast of A 14 of its 16 registers */
  if (f.m >= 6 && !has_size(ti, nti, 6)) insert_sorted(ti, &nti, 6);
  int ntk = tune_tile_sizes(f.kk, 2, tk, TUNE_MAX_CHOICES);
  /* k's tiles divide it: a k tail would be a second loop beside ko's in the nest that reorder reorders */
  int ndiv = 0;
  for (int i = 0; i < ntk; i++)
    if (f.kk % tk[i] == 0) tk[ndiv++] = tk[i];
  ntk = ndiv;
  if (!ntk) tk[ntk++] = f.kk;
  /* the seed, when the output is restrict: a register block of 6 x 16 (6
   * rows of two AVX2 vectors, 12 accumulators: 8 x 16 spills three), k
   * in panels of at most 128 outside the tiles (kfirst), serial: gcc's
   * OpenMP outlining passes the arrays in a struct without their
   * restrict, and the block then goes back to memory at every k (10x
   * slower at 1024^3); the search still tries parallel. Without restrict
   * the compiler cannot keep C in registers across k (a store to C might
   * change A or B): 32 x 64 tiles (a 64-float row of B's tile is 4 AVX2
   * vectors twice), k by 8, the vector loop innermost (its simd hint
   * waives the aliasing), parallel rows. */
  bool reg = output_restrict(sp, f.c);
  int seed_i = 0, seed_j = 0, seed_k = 0;
  for (int i = 0; i < nti; i++) seed_i = ti[i] <= (reg ? 6 : 32) ? i : seed_i;
  for (int i = 0; i < ntj; i++) seed_j = tj[i] <= (reg ? 16 : 64) ? i : seed_j;
  for (int i = 0; i < ntk; i++) seed_k = tk[i] <= (reg ? 128 : 8) ? i : seed_k;
  tune_knob(sk, K_TI, "ti", ti, nti, seed_i);
  tune_knob(sk, K_TJ, "tj", tj, ntj, seed_j);
  tune_knob(sk, K_TK, "tk", tk, ntk, seed_k);
  tune_knob(sk, K_OUTER, "outer", orders, 3, 0);
  tune_knob(sk, K_INNER, "inner", orders, 3, 0);
  tune_knob(sk, K_UNROLL, "unroll", unroll, 4, 2);
  tune_knob(sk, K_VEC, "vectorize", flag, 2, 1);
  tune_knob(sk, K_PAR, "parallel", flag, 2, !reg);
  tune_knob(sk, K_REG, "regblock", flag, 2, reg);
  tune_knob(sk, K_KFIRST, "kfirst", flag, 2, reg);
  sk->nknobs = HOST_KNOBS;
  sk->render = render;
  sk->estimate = NULL; /* no model of the CPU: every candidate is timed */
  TuneContraction *copy = malloc(sizeof *copy);
  *copy = f;
  sk->data = copy;
  int seed[TUNE_MAX_KNOBS];
  for (int i = 0; i < sk->nknobs; i++) seed[i] = sk->knobs[i].seed;
  sp->flops = 2.0 * (double)f.batch * (double)f.m * (double)f.n * (double)f.kk;
  if (tune_probe(sp, sp->nsketch, seed)) sp->nsketch++;
  else free(copy);
}
