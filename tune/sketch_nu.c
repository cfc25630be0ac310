/* The NU sketch: a contraction C[..][i][j] = init; C[..][i][j] += A.. * B..
 * (a matmul, a batched matmul, a pointwise convolution written as one) on
 * an NU intrinsic. Steps: tile the last two spatial loops, optionally
 * swap the tile loops, stage A and B in the NU's input and weight buffers
 * at a tile loop each, C in its output buffer at the inner tile loop,
 * tensorize, and double-buffer what the knobs say.
 *
 * Which intrinsic (npu_intrinsics/npu_nu_*.c) and which operand goes to
 * which buffer are found by trying the matcher: a probe schedule with each
 * intrinsic and each assignment, and the engine refuses those that do not
 * match. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

enum { K_TI, K_TJ, K_ORDER, K_A_AT, K_B_AT, K_DB_A, K_DB_B, K_DB_C, K_FUSE_BATCH, NU_KNOBS };

typedef struct {
  const char *i, *j, *k;      /* the tiled loops and the reduction loop */
  const char *c, *a, *b;      /* output and the two inputs, in the update's order */
  const char *scope_a, *scope_b;
  char intrin[64];
  int64_t m, n, kk, batch;    /* extents; batch: the loops around i */
  const char *batch_loop;     /* the one loop around i, or NULL */
  int elem_a, elem_b, elem_c;
  bool fp32;
} NuFacts;

/* The loads of e's arrays, in order, each array once. */
static void reads(const Expr *e, const Buffer **out, int *n) {
  if (!e) return;
  if (e->kind == EX_LOAD) {
    for (int i = 0; i < *n; i++)
      if (out[i] == e->buf) return;
    if (*n < 4) out[(*n)++] = e->buf;
    return;
  }
  reads(e->a, out, n);
  reads(e->b, out, n);
  reads(e->c, out, n);
}

/* The body of j: `init: C[..] = ..; for k { update: C[..] += .. }`. */
static bool contraction(const TuneShape *sh, NuFacts *f) {
  if (sh->nchain < 2) return false;
  const Stmt *j = sh->chain[sh->nchain - 1];
  const Stmt *init = NULL, *kl = NULL;
  for (const Stmt *c = j->body->kind == ST_BLOCK ? j->body->body : j->body; c; c = c->next) {
    if (c->kind == ST_DECL) continue;
    if (!init && c->kind == ST_ASSIGN) init = c;
    else if (init && !kl && c->kind == ST_FOR) kl = c;
    else return false;
  }
  if (!init || !kl || init->op != OP_NONE || init->lhs->kind != EX_LOAD) return false;
  const Stmt *upd = kl->body->kind == ST_BLOCK ? kl->body->body : kl->body;
  if (!upd || upd->next || upd->kind != ST_ASSIGN || upd->op != OP_ADD || upd->lhs->kind != EX_LOAD ||
      upd->lhs->buf != init->lhs->buf)
    return false;
  const Buffer *in[4];
  int n = 0;
  reads(upd->rhs, in, &n);
  if (n != 2) return false;
  f->i = sh->chain[sh->nchain - 2]->name;
  f->j = j->name;
  f->k = kl->name;
  f->c = upd->lhs->buf->name;
  f->a = in[0]->name;
  f->b = in[1]->name;
  f->elem_c = upd->lhs->buf->elem->size;
  f->elem_a = in[0]->elem->size;
  f->elem_b = in[1]->elem->size;
  f->fp32 = upd->lhs->buf->elem->kind == TY_FLOAT;
  f->m = sh->trip[sh->nchain - 2];
  f->n = sh->trip[sh->nchain - 1];
  f->kk = tune_trip(kl);
  f->batch = 1;
  f->batch_loop = sh->nchain == 3 ? sh->chain[0]->name : NULL;
  for (int l = 0; l < sh->nchain - 2; l++) f->batch *= sh->trip[l] > 0 ? sh->trip[l] : 1;
  return f->m > 0 && f->n > 0 && f->kk > 0;
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const NuFacts *f = sk->data;
  long long ti = sk->knobs[K_TI].val[ch[K_TI]], tj = sk->knobs[K_TJ].val[ch[K_TJ]];
  bool ji = sk->knobs[K_ORDER].val[ch[K_ORDER]];
  sb_printf(sb, "#pragma npu tile(%s, %s, %lld, %lld, %so, %so, %si, %si)\n", f->i, f->j, ti, tj, f->i, f->j, f->i,
            f->j);
  if (ji) sb_printf(sb, "#pragma npu reorder(%so, %so, %si, %si)\n", f->j, f->i, f->i, f->j);
  /* the tile loop of each operand: its own (reused across the other) or the inner one */
  const char *outer = ji ? f->j : f->i, *inner = ji ? f->i : f->j;
  char fused[96];
  if (sk->knobs[K_FUSE_BATCH].val[ch[K_FUSE_BATCH]]) {
    /* one loop over batches and bands: double buffering runs across batches */
    snprintf(fused, sizeof fused, "%s%s", f->batch_loop, outer); /* the caches below add the 'o' */
    sb_printf(sb, "#pragma npu fuse(%s, %so, %so)\n", f->batch_loop, outer, fused);
    outer = fused;
  }
  sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->a, f->scope_a,
            sk->knobs[K_A_AT].val[ch[K_A_AT]] ? inner : outer, f->a, f->scope_a + 3);
  sb_printf(sb, "#pragma npu cache_read(%s, %s, %so, %s_%s)\n", f->b, f->scope_b,
            sk->knobs[K_B_AT].val[ch[K_B_AT]] ? inner : outer, f->b, f->scope_b + 3);
  sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->c, inner, f->c);
  sb_printf(sb, "#pragma npu tensorize(%si, %s)\n", f->i, f->intrin);
  if (sk->knobs[K_DB_A].val[ch[K_DB_A]]) sb_printf(sb, "#pragma npu double_buffer(%s_%s)\n", f->a, f->scope_a + 3);
  if (sk->knobs[K_DB_B].val[ch[K_DB_B]]) sb_printf(sb, "#pragma npu double_buffer(%s_%s)\n", f->b, f->scope_b + 3);
  if (sk->knobs[K_DB_C].val[ch[K_DB_C]]) sb_printf(sb, "#pragma npu double_buffer(%s_ob)\n", f->c);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

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
  int64_t mt = ceil_div(f->m, ti), nt = ceil_div(f->n, tj);
  int64_t calls = f->batch * mt * nt;
  int64_t rate = f->fp32 ? t->nu_macs_fp32 : t->nu_macs_int8;
  /* the array's 32-wide rows: a tile pays for whole rows of it */
  int64_t macs = calls * ceil_div(ti, 32) * 32 * ceil_div(tj, 32) * 32 * f->kk;
  uint64_t nu = (uint64_t)(macs / (rate > 0 ? rate : 1) + calls * t->nu_overhead);
  /* an operand staged at the outer tile loop is loaded once per outer
   * iteration: its band when that loop is its own dimension's, else the
   * whole extent of its dimension; at the inner loop, once per tile */
  int64_t outer_trips = ji ? nt : mt;
  int64_t a_bytes = staged_bytes(sk->knobs[K_A_AT].val[ch[K_A_AT]], !ji, outer_trips, mt * nt, ti, f->m) * f->kk * f->elem_a;
  int64_t b_bytes = staged_bytes(sk->knobs[K_B_AT].val[ch[K_B_AT]], ji, outer_trips, mt * nt, tj, f->n) * f->kk * f->elem_b;
  int64_t bytes = f->batch * (a_bytes + b_bytes + f->m * f->n * f->elem_c);
  uint64_t dma = (uint64_t)(bytes / (t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1));
  return nu > dma ? nu : dma;
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
  snprintf(sk.name, sizeof sk.name, "nu:%s", f->intrin);
  long long ti[TUNE_MAX_CHOICES], tj[TUNE_MAX_CHOICES], flag[2] = {0, 1};
  int nti = tune_tile_sizes(f->m, 8, ti, TUNE_MAX_CHOICES), ntj = tune_tile_sizes(f->n, 8, tj, TUNE_MAX_CHOICES);
  tune_knob(&sk, K_TI, "ti", ti, nti, nearest(ti, nti, 128));
  tune_knob(&sk, K_TJ, "tj", tj, ntj, nearest(tj, ntj, 128));
  tune_knob(&sk, K_ORDER, "order_ji", flag, 2, 0);
  tune_knob(&sk, K_A_AT, "a_inner", flag, 2, 0);
  tune_knob(&sk, K_B_AT, "b_inner", flag, 2, 1);
  tune_knob(&sk, K_DB_A, "db_a", flag, 2, 1);
  tune_knob(&sk, K_DB_B, "db_b", flag, 2, 1);
  tune_knob(&sk, K_DB_C, "db_c", flag, 2, 1);
  tune_knob(&sk, K_FUSE_BATCH, "fuse_batch", flag, f->batch_loop ? 2 : 1, 0);
  sk.nknobs = NU_KNOBS;
  sk.render = render;
  sk.estimate = estimate;
  NuFacts *copy = malloc(sizeof *copy);
  *copy = *f;
  sk.data = copy;
  return sk;
}

static int nu_file(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return !strncmp(e->d_name, "npu_nu_", 7) && n > 2 && !strcmp(e->d_name + n - 2, ".c");
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

void tune_sketch_nu(TuneSpace *sp) {
  NuFacts f;
  memset(&f, 0, sizeof f);
  if (!contraction(&sp->shape, &f)) {
    tune_note(sp, "nu: the kernel is not a contraction nest\n");
    return;
  }
  struct dirent **files;
  int count = scandir(NPG_INTRINSICS_INCLUDE_DIR, &files, nu_file, alphasort);
  const char *scopes[2][2] = {{"nu_ib", "nu_wb"}, {"nu_wb", "nu_ib"}};
  for (int i = 0; i < count; i++) {
    snprintf(f.intrin, sizeof f.intrin, "%.*s", (int)strlen(files[i]->d_name) - 2, files[i]->d_name);
    for (int a = 0; a < 2 && sp->nsketch < TUNE_MAX_SKETCHES; a++) {
      f.scope_a = scopes[a][0];
      f.scope_b = scopes[a][1];
      sp->sketch[sp->nsketch] = make(&f);
      if (probe(sp, &sp->sketch[sp->nsketch])) sp->nsketch++;
      else free(sp->sketch[sp->nsketch].data);
    }
    free(files[i]);
  }
  if (count > 0) free(files);
}
