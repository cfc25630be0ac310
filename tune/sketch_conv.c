/* The NU convolution sketch: a windowed convolution written in any layout
 * (out[n][oc][oh][ow] += in[n][c][oh + kh - P][ow + kw - P] * wt[oc][c][kh][kw]
 * with its padding guard, as examples/conv2d_npu.c) moved to the layouts
 * the NU's conv reads: the input channels last, the weights in blocks of T
 * output channels (T, kh, kw, c, T-block), the output in the same blocks;
 * then the output channels split by T, the blocks outside the pixels, the
 * image staged in the input buffer, each block's weights and outputs in the
 * weight and output buffers, tensorize, double_buffer.
 *
 * The intrinsics tried are the NU convolutions by their semantics (an op
 * in the NU's buffers whose update reads through a window, whatever its
 * name); a probe schedule confirms each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "schedule/intrinsics.h"
#include "tune/tune.h"

enum { K_T, K_IN_AT, K_DB_W, K_DB_O, CONV_KNOBS };

typedef struct {
  const char *batch, *oc, *oh, *ow; /* loop names */
  const char *in, *wt, *out;
  int in_b, in_h, in_w, in_c;       /* the logical dimension of each role */
  int wt_oc, wt_c, wt_kh, wt_kw;
  int out_b, out_oc, out_h, out_w;
  int64_t n_oc, n_w, macs, in_bytes, wt_bytes, out_bytes;
  char intrin[64];
  /* An epilogue after the reduction (bias, ReLU, requantization): its
   * statements, the arrays they write, the local scalars to inline, the
   * arrays the init reads (a bias), and the reduction's top loop. */
  const char *epi[8], *epi_out[8], *inline_[8], *init_reads[4], *init, *red_top;
  int nepi, nepi_out, ninline, ninit_reads;
} ConvFacts;

static const Var *plain(const Expr *e) {
  while (e && e->kind == EX_CAST && e->implicit) e = e->a;
  return e && e->kind == EX_VAR ? e->var : NULL;
}

typedef struct {
  const Expr **out;
  int n;
} Loads;

static bool add_load(const Expr *e, void *ctx) {
  Loads *l = ctx;
  if (e->kind == EX_LOAD && l->n < 4) l->out[l->n++] = e;
  return true;
}

/* e's loads in order (at most 4), those in a call's arguments and in an
 * index too. */
static void loads(const Expr *e, const Expr **out, int *n) {
  Loads l = {out, *n};
  ir_walk_expr(e, add_load, &l);
  *n = l.n;
}

/* The dimension of load whose index is exactly v, or -1. */
static int dim_of(const Expr *load, const Var *v) {
  for (int d = 0; d < load->buf->ndim; d++)
    if (plain(load->idx[d]) == v) return d;
  return -1;
}

/* The dimension of load whose index uses v (not alone), or -1. */
static int window_dim(const Expr *load, const Var *v) {
  for (int d = 0; d < load->buf->ndim; d++)
    if (!plain(load->idx[d]) && ir_expr_uses(load->idx[d], v, NULL)) return d;
  return -1;
}

static int64_t bytes(const Buffer *b) { return buffer_elems(b) * b->elem->size; }

static bool add_name(const char **v, int *n, int max, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(v[i], name)) return true;
  if (*n == max) return false;
  v[(*n)++] = name;
  return true;
}

/* The statements after the reduction loop: assignments to 4-D arrays, and
 * local scalars (inlined into them first); the arrays the init reads. */
static bool epilogue(const Stmt *init, ConvFacts *f) {
  f->init = init->name;
  f->red_top = init->next->name;
  const Expr *ld[4];
  int n = 0;
  loads(init->rhs, ld, &n);
  for (int i = 0; i < n; i++)
    if (!add_name(f->init_reads, &f->ninit_reads, 4, ld[i]->buf->name)) return false;
  for (const Stmt *e = init->next->next; e; e = e->next) {
    if (e->kind == ST_DECL && !e->buf && e->init) {
      if (f->ninline == 8) return false;
      f->inline_[f->ninline++] = e->name;
    } else if (e->kind == ST_ASSIGN && e->op == OP_NONE && e->lhs->kind == EX_LOAD && e->lhs->buf->ndim == 4) {
      if (f->nepi == 8 || !add_name(f->epi_out, &f->nepi_out, 8, e->lhs->buf->name)) return false;
      f->epi[f->nepi++] = e->name;
    } else {
      return false;
    }
  }
  return true;
}

/* Finds the roles: false when the kernel is not such a convolution. */
static bool conv_roles(const TuneShape *sh, ConvFacts *f) {
  if (sh->nchain != 4) return false;
  const Stmt *init = tune_first_stmt(sh->chain[3]->body);
  if (!init || init->kind != ST_ASSIGN || !init->next || init->next->kind != ST_FOR) return false;
  if (!epilogue(init, f)) return false;
  const Stmt *red[3], *l = init->next;
  for (int i = 0; i < 3; i++, l = tune_first_stmt(l->body)) {
    if (!l || l->kind != ST_FOR) return false;
    red[i] = l;
  }
  if (l && l->kind == ST_IF && !l->else_s) l = tune_first_stmt(l->then_s);
  if (!l || l->kind != ST_ASSIGN || l->op != OP_ADD || l->lhs->kind != EX_LOAD || l->lhs->buf->ndim != 4) return false;
  const Expr *ld[4];
  int n = 0;
  loads(l->rhs, ld, &n);
  if (n != 2) return false;
  const Expr *out = l->lhs;
  /* the weights are indexed by plain counters only; the input by windows */
  const Expr *wt = window_dim(ld[0], red[0]->var) < 0 && window_dim(ld[0], red[1]->var) < 0 &&
                           window_dim(ld[0], red[2]->var) < 0 ? ld[0] : ld[1];
  const Expr *in = wt == ld[0] ? ld[1] : ld[0];
  if (in->buf->ndim != 4 || wt->buf->ndim != 4) return false;
  const Var *b = NULL, *oc = NULL, *c = NULL, *kh = NULL, *kw = NULL, *oh = NULL, *ow = NULL;
  for (int i = 0; i < 4; i++) {
    const Var *v = sh->chain[i]->var;
    if (dim_of(wt, v) >= 0) oc = v, f->oc = sh->chain[i]->name;
    else if (dim_of(in, v) >= 0) b = v, f->batch = sh->chain[i]->name;
  }
  for (int i = 0; i < 3; i++)
    if (dim_of(in, red[i]->var) >= 0) c = red[i]->var;
  if (!b || !oc || !c) return false;
  /* the window dimensions of the input, in order: h then w */
  int wd[2], nw = 0;
  for (int d = 0; d < 4 && nw < 2; d++)
    if (!plain(in->idx[d])) wd[nw++] = d;
  if (nw != 2) return false;
  for (int i = 0; i < 4; i++) {
    const Var *v = sh->chain[i]->var;
    if (ir_expr_uses(in->idx[wd[0]], v, NULL)) oh = v, f->oh = sh->chain[i]->name;
    if (ir_expr_uses(in->idx[wd[1]], v, NULL)) ow = v, f->ow = sh->chain[i]->name;
  }
  for (int i = 0; i < 3; i++) {
    if (ir_expr_uses(in->idx[wd[0]], red[i]->var, NULL)) kh = red[i]->var;
    if (ir_expr_uses(in->idx[wd[1]], red[i]->var, NULL)) kw = red[i]->var;
  }
  if (!oh || !ow || !kh || !kw) return false;
  f->in = in->buf->name, f->wt = wt->buf->name, f->out = out->buf->name;
  f->in_b = dim_of(in, b), f->in_h = wd[0], f->in_w = wd[1], f->in_c = dim_of(in, c);
  f->wt_oc = dim_of(wt, oc), f->wt_c = dim_of(wt, c), f->wt_kh = dim_of(wt, kh), f->wt_kw = dim_of(wt, kw);
  f->out_b = dim_of(out, b), f->out_oc = dim_of(out, oc), f->out_h = dim_of(out, oh), f->out_w = dim_of(out, ow);
  if (f->in_c < 0 || f->wt_c < 0 || f->wt_kh < 0 || f->wt_kw < 0 || f->out_b < 0 || f->out_oc < 0 || f->out_h < 0 ||
      f->out_w < 0 || f->in_b < 0)
    return false;
  f->n_oc = out->buf->shape[f->out_oc];
  f->n_w = out->buf->shape[f->out_w];
  f->macs = buffer_elems(out->buf);
  for (int i = 0; i < 3; i++) {
    int64_t trip = tune_trip(red[i]);
    if (trip < 0) return false; /* no constant MAC count to cost it by */
    f->macs *= trip;
  }
  f->in_bytes = bytes(in->buf), f->wt_bytes = bytes(wt->buf), f->out_bytes = bytes(out->buf);
  return true;
}

/* The conv output in the NU's output buffer, then each epilogue statement
 * a loop of its own per image row (fission, the init before the conv:
 * decompose_reduction, a DMA from the bias staged in DM), its arrays kept
 * in vector memory as rows of W x T values (layouts), the row of the conv
 * output copied into vector memory, and each row one VU instruction
 * (fuse, vectorize). */
static void render_epilogue(const ConvFacts *f, long long t, bool in_per_block, StrBuf *sb) {
  for (int i = 0; i < f->nepi_out; i++)
    sb_printf(sb, "#pragma npu transform_layout(%s, (d0, d1, d2, d3), (d%d, d%d / %lld, d%d * %lld + d%d * %lld + d%d %% %lld))\n",
              f->epi_out[i], f->out_b, f->out_oc, t, f->out_h, (long long)f->n_w * t, f->out_w, t, f->out_oc, t);
  for (int i = 0; i < f->ninline; i++) sb_printf(sb, "#pragma npu compute_inline(%s)\n", f->inline_[i]);
  sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->oc, t, f->oc, f->oc);
  sb_printf(sb, "#pragma npu reorder(%so, %s, %s, %si)\n", f->oc, f->oh, f->ow, f->oc);
  sb_printf(sb, "#pragma npu fission(%s, %s)\n", f->oh, f->red_top);
  if (f->nepi > 1) {
    sb_printf(sb, "#pragma npu fission(%s_1", f->oh);
    for (int i = 0; i + 1 < f->nepi; i++) sb_printf(sb, ", %s", f->epi[i]);
    sb_puts(sb, ")\n");
  }
  sb_printf(sb, "#pragma npu decompose_reduction(%s, %s)\n", f->init, f->oh);
  sb_printf(sb, "#pragma npu cache_read(%s, nu_ib, %s%s, %s_ib)\n", f->in, in_per_block ? f->oc : f->batch,
            in_per_block ? "o" : "", f->in);
  for (int i = 0; i < f->ninit_reads; i++)
    sb_printf(sb, "#pragma npu cache_read(%s, dm, %s, %s_dm)\n", f->init_reads[i], f->batch, f->init_reads[i]);
  sb_printf(sb, "#pragma npu cache_read(%s, nu_wb, %so, %s_wb)\n", f->wt, f->oc, f->wt);
  sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->out, f->oc, f->out);
  for (int i = 0; i < f->nepi_out; i++)
    sb_printf(sb, "#pragma npu cache_write(%s, vu_vm, %so, %s_vm)\n", f->epi_out[i], f->oc, f->epi_out[i]);
  sb_printf(sb, "#pragma npu cache_read(%s_ob, vu_vm, %s_1, %s_vm)\n", f->out, f->oh, f->out);
  sb_printf(sb, "#pragma npu transform_layout(%s_vm, (a, b, c, w, o), (a, b, c, w * %lld + o))\n", f->out, t);
  for (int i = 1; i <= f->nepi; i++) sb_printf(sb, "#pragma npu fuse(%s_%d, %si_%d, q%d)\n", f->ow, i, f->oc, i, i);
  sb_printf(sb, "#pragma npu tensorize(%s, %s)\n", f->oh, f->intrin);
  for (int i = 1; i <= f->nepi; i++) sb_printf(sb, "#pragma npu vectorize(q%d)\n", i);
}

static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const ConvFacts *f = sk->data;
  long long t = sk->knobs[K_T].val[ch[K_T]];
  /* the caches sit at the output-channel block loop: double-buffered only
   * where it runs twice or more (on one pass the step warns, keeps one copy) */
  bool blocks = t > 0 && f->n_oc > t;
  bool db_w = blocks && sk->knobs[K_DB_W].val[ch[K_DB_W]], db_o = blocks && sk->knobs[K_DB_O].val[ch[K_DB_O]];
  sb_printf(sb, "#pragma npu transform_layout(%s, (d0, d1, d2, d3), (d%d, d%d, d%d, d%d))\n", f->in, f->in_b, f->in_h,
            f->in_w, f->in_c);
  sb_printf(sb, "#pragma npu transform_layout(%s, (d0, d1, d2, d3), (d%d / %lld, d%d, d%d, d%d, d%d %% %lld))\n", f->wt,
            f->wt_oc, t, f->wt_kh, f->wt_kw, f->wt_c, f->wt_oc, t);
  sb_printf(sb, "#pragma npu transform_layout(%s, (d0, d1, d2, d3), (d%d, d%d / %lld, d%d, d%d, d%d %% %lld))\n", f->out,
            f->out_b, f->out_oc, t, f->out_h, f->out_w, f->out_oc, t);
  if (f->nepi) {
    render_epilogue(f, t, sk->knobs[K_IN_AT].val[ch[K_IN_AT]], sb);
    if (db_w) sb_printf(sb, "#pragma npu double_buffer(%s_wb)\n", f->wt);
    return;
  }
  sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", f->oc, t, f->oc, f->oc);
  sb_printf(sb, "#pragma npu reorder(%so, %s, %s, %si)\n", f->oc, f->oh, f->ow, f->oc);
  sb_printf(sb, "#pragma npu cache_read(%s, nu_ib, %s%s, %s_ib)\n", f->in, sk->knobs[K_IN_AT].val[ch[K_IN_AT]] ? f->oc : f->batch,
            sk->knobs[K_IN_AT].val[ch[K_IN_AT]] ? "o" : "", f->in);
  sb_printf(sb, "#pragma npu cache_read(%s, nu_wb, %so, %s_wb)\n", f->wt, f->oc, f->wt);
  sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %so, %s_ob)\n", f->out, f->oc, f->out);
  sb_printf(sb, "#pragma npu tensorize(%s, %s)\n", f->oh, f->intrin);
  if (db_w) sb_printf(sb, "#pragma npu double_buffer(%s_wb)\n", f->wt);
  if (db_o) sb_printf(sb, "#pragma npu double_buffer(%s_ob)\n", f->out);
}

/* The NU's MAC cycles and instruction overheads against the DDR bytes. */
static uint64_t estimate(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  const ConvFacts *f = sk->data;
  int64_t blocks = f->n_oc / sk->knobs[K_T].val[ch[K_T]];
  int64_t rate = t->nu_macs_int8 > 0 ? t->nu_macs_int8 : 1;
  uint64_t nu = (uint64_t)(f->macs / rate + blocks * t->nu_overhead);
  int64_t in = f->in_bytes * (sk->knobs[K_IN_AT].val[ch[K_IN_AT]] ? blocks : 1);
  uint64_t dma = (uint64_t)((in + f->wt_bytes + f->out_bytes) / (t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1));
  return nu > dma ? nu : dma;
}

/* Whether an update reads an operand through a window: an index of
 * counters that is not one counter alone (`y * SH - PH + r * DH`). */
static bool window_read(const Expr *e, void *ctx) {
  for (int d = 0; e->kind == EX_LOAD && d < e->buf->ndim; d++)
    if (!plain(e->idx[d]) && !ir_expr_constant(e->idx[d])) *(bool *)ctx = true;
  return true;
}

static bool windowed_update(Stmt *st, int depth, void *ctx) {
  (void)depth;
  if (st->kind == ST_ASSIGN && st->op == OP_ADD) ir_walk_expr(st->rhs, window_read, ctx);
  return !*(bool *)ctx;
}

/* An NU convolution, by its semantics kernel, whatever its name: an op
 * with an operand in the NU's output buffer (its `scopes:` line, read
 * first: only such an op is parsed) whose update reads through a window. */
static bool nu_conv(const char *name) {
  char path[1024];
  size_t len;
  char *src = tune_nu_semantics(name, path, sizeof path, &len);
  bool window = false;
  if (src) {
    DiagList d;
    diag_init(&d);
    Module *m = frontend_parse_intrinsic(path, src, len, &d);
    if (m && m->kernels) ir_walk_stmts(m->kernels->body, windowed_update, &window);
    if (m) module_free(m);
    diag_free(&d);
  }
  free(src);
  return window;
}

void tune_sketch_conv(TuneSpace *sp) {
  ConvFacts f;
  memset(&f, 0, sizeof f);
  if (!conv_roles(&sp->shape, &f)) {
    const TuneShape *sh = &sp->shape;
    char at[120];
    tune_stmt_name(sh->nchain ? sh->chain[sh->nchain - 1] : NULL, at, sizeof at);
    /* nchain counts the loops each the only statement of the one around
     * it: below the last, the nest branches (or ends) at `at` */
    int held = 0; /* what the last loop of the perfect nest holds */
    for (const Stmt *c = sh->nchain ? sh->chain[sh->nchain - 1]->body->body : NULL; c; c = c->next) held += c->kind != ST_DECL;
    if (sh->nchain && sh->nchain != 4)
      tune_note(sp, "nu conv: not a windowed convolution: its perfect nest is %d loop%s deep (%s holds %d statement%s), "
                    "where a convolution is one nest of 4 (batch, channel, rows, columns) around an init and a 3-deep "
                    "window reduction\n",
                sh->nchain, sh->nchain == 1 ? "" : "s", at, held, held == 1 ? "" : "s");
    else if (!sh->nchain)
      tune_note(sp, "nu conv: not a windowed convolution: the kernel's body is %d statements, where a convolution is "
                    "one nest of 4 (batch, channel, rows, columns) around an init and a 3-deep window reduction\n",
                sh->ntop);
    else
      tune_note(sp, "nu conv: not a windowed convolution: %s does not hold an init then a 3-deep reduction "
                    "`O[..] += I[.. + kh][.. + kw] * W[..]` over 4-D arrays\n", at);
    return;
  }
  long long t[TUNE_MAX_CHOICES], flag[2] = {0, 1};
  int nt = 0, seed = 0;
  for (long long d = 1; d <= f.n_oc && nt < TUNE_MAX_CHOICES; d++)
    if (f.n_oc % d == 0) t[nt++] = d;
  for (int i = 0; i < nt; i++)
    if (t[i] <= (f.nepi ? 16 : 4)) seed = i; /* the NU conv's weight block; with an epilogue, VU rows of 64 bytes */
  char **names, why[256];
  int count = sched_intrinsic_names(&names, why, sizeof why);
  for (int i = 0; i < count; i++) {
    if (sp->nsketch < TUNE_MAX_SKETCHES && strlen(names[i]) < sizeof f.intrin && nu_conv(names[i])) {
      snprintf(f.intrin, sizeof f.intrin, "%s", names[i]);
      TuneSketch *sk = &sp->sketch[sp->nsketch];
      memset(sk, 0, sizeof *sk);
      snprintf(sk->name, sizeof sk->name, "nu:%s", f.intrin);
      tune_knob(sk, K_T, "oc_block", t, nt, seed);
      tune_knob(sk, K_IN_AT, "in_per_block", flag, 2, 0);
      tune_knob(sk, K_DB_W, "db_wt", flag, 2, 1);
      tune_knob(sk, K_DB_O, "db_out", flag, f.nepi ? 1 : 2, f.nepi ? 0 : 1); /* with an epilogue, the output stays on chip */
      sk->nknobs = CONV_KNOBS;
      sk->render = render;
      sk->estimate = estimate;
      ConvFacts *copy = malloc(sizeof *copy);
      *copy = f;
      sk->data = copy;
      int probe[CONV_KNOBS] = {seed, 0, 0, 0}; /* single buffers */
      if (tune_probe(sp, sp->nsketch, probe)) sp->nsketch++;
      else free(copy);
    }
  }
  sched_intrinsic_names_free(names, count);
}
