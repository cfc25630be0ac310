/* The NU sketch with an element-wise epilogue: a contraction into a local
 * accumulator, then a chain of reassignments of it and a store, as
 * TFLite's reference kernels write a convolution (a pointwise one is a
 * matmul):
 *
 *     for p, oc { int32_t acc = 0; for ic acc += in[p][ic] * w[ic][oc];
 *                 acc += bias[oc]; int64_t ab = ..; ..; acc = requantised;
 *                 acc += offset; acc = max(..); acc = min(..);
 *                 out[p][oc] = (int8_t)acc; }
 *
 * or with no chain, the store itself the epilogue (`C[i][j] = acc > 0 ?
 * acc : 0`; a store of acc as it is is the plain NU sketch's).
 *
 * Steps: the epilogue's temporaries inlined (compute_inline), the chain
 * folded into the store (fold), acc expanded into an array (the NU's
 * output), the first compound step (`acc + bias[oc]`) staged so the rest
 * reads one element (stage); then the matmul's tiles, each tile's rows cut
 * in one chunk per VU core: the NU computes every chunk (one call each)
 * and then each core takes a chunk's epilogue on the VU (fission, bind),
 * so a chunk's epilogue runs while the NU computes the next; acc stays on
 * chip (the output buffer, then each core's VM), the inputs in the NU's
 * buffers, the epilogue's arrays in the VM; tensorize the NU chunk and
 * vectorize each epilogue stage (an instruction, or a sequence).
 *
 * A second input stored output major, as TFLite stores a filter
 * (`w[oc][ic]`), goes to an NU matmul that reads its weights so
 * (npu_nu_matmul_i8_bt, B[j][k]) and is staged as stored. Only when no
 * matmul of the type reads it so is it copied whole into the DM and from
 * there transposed into the NU's buffer, tile by tile: a layout step on
 * that buffer (buffer_reorder(.., 1, 0)) makes its copy transpose, and the
 * DM's short latency keeps the copy's many small DMAs cheap. Either way
 * the caller's array keeps the kernel's layout: nothing is packed outside.
 *
 * TFLite's input offset inside the reduction, `acc += w[oc][ic] *
 * (in[p][ic] + input_offset)`, makes the product int8 by int16, which no
 * NU matmul computes: the sketch then starts with hoist_offset (the
 * offset times each channel's filter sum, once at the kernel's start,
 * added after the reduction) and reads the kernel after that step; the
 * sums are computed on the VU cores (render_offset) and join the bias in
 * the first stage.
 *
 * Knobs: the tile (ti rows, a multiple of the core count, and tj
 * columns), and the inputs' double buffers. The NU matmuls are the
 * intrinsics whose semantics kernels compute one (tune_nu_matmul: of the
 * accumulator's type, B read as stored or transposed), whatever their
 * names; the operand indexed by the output's row goes to the input
 * buffer first, and a probe confirms each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "schedule/intrinsics.h"
#include "tune/tune.h"

enum { K_TI, K_TJ, K_DB_A, K_DB_B, EPI_KNOBS };
enum { MAX_EPI = 16 };

/* TFLite's input offset in the reduction, `acc += A * (B + offset)`:
 * the offset's text (else ""), the update's name, the array of the
 * offset's sums that hoist_offset makes (the epilogue reads it). */
typedef struct {
  char text[128];
  const char *update;
  char ofs[72];
} Offset;

typedef struct {
  const char *i, *j, *k;          /* the spatial loops and the reduction's */
  const char *acc, *a, *b, *out;  /* the accumulator, the inputs, the store's array */
  const char *inl[MAX_EPI];       /* the epilogue's temporaries (their statements) */
  int ninl;
  const char *first, *sink;       /* the chain's first statement, the store */
  char stage_expr[256];           /* `acc[i][j] op e` when the chain starts with `acc op= e`, else "" */
  char stage_name[72];
  const char *reads[MAX_EPI];     /* arrays the epilogue reads */
  int nreads;
  const char *scope_a, *scope_b;
  char intrin[64];
  int64_t m, n, kk, cores;
  bool fp32;
  bool b_jk; /* the second input is read b[j][k] (stored output major) */
  bool transpose; /* ..and the intrinsic reads it b[k][j]: its copy transposes */
  Offset off;
  int64_t sum_rows; /* the offset's sums on the VU: rows of B per core (0: on the CU) */
} EpiFacts;

static const Stmt *body_list(const Stmt *loop) {
  return loop->body && loop->body->kind == ST_BLOCK ? loop->body->body : loop->body;
}

static bool add_read(const Expr *e, void *ctx) {
  EpiFacts *f = ctx;
  if (e->kind != EX_LOAD || !e->buf->is_const) return true;
  for (int i = 0; i < f->nreads; i++)
    if (!strcmp(f->reads[i], e->buf->name)) return true;
  if (f->nreads < MAX_EPI) f->reads[f->nreads++] = e->buf->name;
  return true;
}

static const Expr *strip_implicit(const Expr *e) {
  while (e && e->kind == EX_CAST && e->implicit) e = e->a;
  return e;
}

/* The offset of a product `A * (B + offset)` (either order, the offset
 * either side of the sum): a term of the sum that reads no array, where
 * the other is an array's element. The NU multiplies two arrays, so the
 * offset blocks the match until hoist_offset takes it out. */
static const Expr *input_offset(const Expr *rhs) {
  const Expr *m = strip_implicit(rhs);
  if (!m || m->kind != EX_BINARY || m->op != OP_MUL) return NULL;
  for (int side = 0; side < 2; side++) {
    const Expr *sum = strip_implicit(side ? m->b : m->a);
    if (sum->kind != EX_BINARY || sum->op != OP_ADD) continue;
    for (int o = 0; o < 2; o++) {
      const Expr *off = o ? sum->b : sum->a, *x = strip_implicit(o ? sum->a : sum->b);
      if (!ir_expr_has_load(off) && x->kind == EX_LOAD) return off;
    }
  }
  return NULL;
}

/* The reduction loop: `for k: acc += A[..] * B[..]` reading two arrays
 * (with an input offset, `A[..] * (B[..] + offset)`: noted in f). */
static bool reduction(const Stmt *kl, const Var *acc, EpiFacts *f) {
  const Stmt *u = kl && kl->kind == ST_FOR ? body_list(kl) : NULL;
  if (!u || u->next || u->kind != ST_ASSIGN || u->op != OP_ADD || u->lhs->kind != EX_VAR || u->lhs->var != acc)
    return false;
  EpiFacts r = {.nreads = 0};
  ir_walk_expr(u->rhs, add_read, &r);
  if (r.nreads != 2) return false;
  f->a = r.reads[0], f->b = r.reads[1], f->k = kl->name;
  f->kk = tune_trip(kl);
  const Expr *off = input_offset(u->rhs);
  if (off) {
    StrBuf e;
    sb_init(&e);
    ir_print_expr(&e, strip_implicit(off));
    if (e.len < sizeof f->off.text) snprintf(f->off.text, sizeof f->off.text, "%s", e.data);
    sb_free(&e);
    f->off.update = u->name;
  }
  return f->kk > 0;
}

/* The epilogue after the reduction loop: temporaries, the chain of
 * reassignments of acc, the store (the last statement). */
static bool epilogue(const Stmt *c, const Var *acc, EpiFacts *f, char *why, size_t n) {
  for (; c && c->next; c = c->next) {
    if (c->kind == ST_DECL && c->var && !c->buf && c->init && f->ninl < MAX_EPI) f->inl[f->ninl++] = c->name;
    else if (c->kind == ST_ASSIGN && c->lhs->kind == EX_VAR && c->lhs->var == acc) f->first = f->first ? f->first : c->name;
    else return snprintf(why, n, "statement %s (line %d) is neither a temporary nor a reassignment of %s",
                         c->name ? c->name : "?", c->loc.line, acc->name), false;
    if (c->kind == ST_DECL) ir_walk_expr(c->init, add_read, f);
    else ir_walk_expr(c->rhs, add_read, f);
  }
  if (!c || c->kind != ST_ASSIGN || c->lhs->kind != EX_LOAD || !ir_stmt_uses(c, acc, NULL))
    return snprintf(why, n, "the nest does not end with a store of %s's value", acc->name), false;
  /* no chain: the store itself is the epilogue (`C[i][j] = acc > 0 ? acc
   * : 0`), unless it only copies acc (the plain NU sketch's, acc expanded
   * into the store's array) */
  const Expr *v = strip_implicit(c->rhs);
  if (!f->first && v->kind == EX_VAR && v->var == acc)
    return snprintf(why, n, "%s is stored as it is, with no epilogue", acc->name), false;
  ir_walk_expr(c->rhs, add_read, f);
  f->sink = c->name;
  f->out = c->lhs->buf->name;
  return true;
}

/* A step `acc op= e` whose e does not read acc. */
static bool compound_step(const Stmt *st, const Var *acc, Op op) {
  return st && st->kind == ST_ASSIGN && st->lhs->kind == EX_VAR && st->lhs->var == acc && st->op == op &&
         !ir_expr_uses(st->rhs, acc, NULL);
}

/* `acc[i][j] op e1 op e2 ..` for a chain that starts with `acc op= e1;
 * acc op= e2; ..` (hoist_offset's `acc += ofs[j]`, then the bias): those
 * steps staged in an array of their own, one VU instruction each. */
static void stage_of(const Stmt *first, EpiFacts *f) {
  const char *op = first->op == OP_ADD ? "+" : first->op == OP_SUB ? "-" : first->op == OP_MUL ? "*" : NULL;
  snprintf(f->stage_name, sizeof f->stage_name, "%s_in", f->acc);
  if (!op || !compound_step(first, first->lhs->var, first->op)) return;
  StrBuf e;
  sb_init(&e);
  sb_printf(&e, "%s[%s][%s]", f->acc, f->i, f->j);
  for (const Stmt *st = first; compound_step(st, first->lhs->var, first->op); st = st->next) {
    bool plain = st->rhs->kind == EX_LOAD || st->rhs->kind == EX_VAR || ir_expr_constant(st->rhs);
    sb_printf(&e, plain ? " %s " : " %s (", op);
    ir_print_expr(&e, st->rhs);
    if (!plain) sb_puts(&e, ")");
  }
  if (e.len < sizeof f->stage_expr) snprintf(f->stage_expr, sizeof f->stage_expr, "%s", e.data);
  sb_free(&e);
}

static const Stmt *named(const Stmt *list, const char *name) {
  for (const Stmt *c = list; c; c = c->next)
    if (c->name && !strcmp(c->name, name)) return c;
  return NULL;
}

/* Whether the reduction reads `b[j][k]`: a 2-D array whose first index
 * is the output column and whose second is the reduction's. */
typedef struct {
  const char *b;
  const Var *j, *k;
  bool jk;
} JkRead;

static bool find_jk(const Expr *e, void *ctx) {
  JkRead *r = ctx;
  if (e->kind == EX_LOAD && !strcmp(e->buf->name, r->b) && e->buf->ndim == 2 && e->idx[0]->kind == EX_VAR &&
      e->idx[1]->kind == EX_VAR && e->idx[0]->var == r->j && e->idx[1]->var == r->k)
    r->jk = true;
  return true;
}

/* Whether the reduction's load of an array uses the row counter i. */
typedef struct {
  const char *name;
  const Var *i;
  bool uses;
} RowRead;

static bool find_row(const Expr *e, void *ctx) {
  RowRead *r = ctx;
  if (e->kind == EX_LOAD && !strcmp(e->buf->name, r->name) && ir_expr_uses(e, r->i, NULL)) r->uses = true;
  return true;
}

/* The kernel as written: i, j { T acc = ..; for k acc += A * B; epilogue; store }. */
static bool facts(const TuneShape *sh, EpiFacts *f, char *why, size_t n) {
  if (sh->nchain != 2) return snprintf(why, n, "the kernel is not one nest of two loops"), false;
  const Stmt *j = sh->chain[sh->nchain - 1], *i = sh->chain[sh->nchain - 2];
  const Stmt *d = body_list(j);
  if (!d || d->kind != ST_DECL || !d->var || d->buf || !d->init || !reduction(d->next, d->var, f))
    return snprintf(why, n, "loop %s does not start with a local accumulator and its reduction loop", j->name), false;
  f->i = i->name, f->j = j->name, f->acc = d->var->name;
  f->m = sh->trip[sh->nchain - 2], f->n = sh->trip[sh->nchain - 1];
  f->fp32 = d->var->type->kind == TY_FLOAT;
  RowRead row = {.name = f->b, .i = i->var};
  ir_walk_expr(body_list(d->next)->rhs, find_row, &row);
  if (row.uses) { /* A, the NU's input, is the operand indexed by the output's row */
    const char *t = f->a;
    f->a = f->b, f->b = t;
  }
  JkRead jk = {.b = f->b, .j = j->var, .k = d->next->var};
  ir_walk_expr(body_list(d->next)->rhs, find_jk, &jk);
  f->b_jk = jk.jk;
  if (!epilogue(d->next->next, d->var, f, why, n)) return false;
  if (f->first) stage_of(named(d, f->first), f);
  return f->m > 0 && f->n > 0;
}

/* The tile loops (tile, or split of the one dimension a tile does not
 * cover whole: a loop of one pass reads badly and double-buffers
 * nothing); where each input and acc's tile are staged: the tile loop of
 * its dimension, else the root. */
static void render_tiles(const EpiFacts *f, long long ti, long long tj, StrBuf *sb, char at_a[72], char at_b[72],
                         char cols[72]) {
  const char *i = f->i, *j = f->j;
  bool whole_i = ti == f->m, whole_j = tj == f->n;
  if (!whole_i && !whole_j)
    sb_printf(sb, "#pragma npu tile(%s, %s, %lld, %lld, %so, %so, %si, %si)\n", i, j, ti, tj, i, j, i, j);
  else if (!whole_j)
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n#pragma npu reorder(%so, %s, %si)\n", j, tj, j, j, j, i, j);
  else if (!whole_i)
    sb_printf(sb, "#pragma npu split(%s, %lld, %so, %si)\n", i, ti, i, i);
  snprintf(at_a, 72, whole_i ? "root" : "%so", i);
  /* B whole (tj all of its columns) is the same in every tile: loaded once
   * at the root rather than again for each tile of rows (a transposing
   * copy stays at A's tile loop, from the DM: at the root it would be one
   * DMA per row from the DDR) */
  snprintf(at_b, 72, whole_j && !f->transpose ? "root" : whole_j ? at_a : "%so", j);
  snprintf(cols, 72, whole_j ? "%s" : "%si", j);
}

/* hoist_offset's sums, `ofs[j] = 0; for k: ofs[j] += offset * B[..]`
 * (its loops ofs_j, ofs_k), on the VU cores: the product staged (ofs_t),
 * the channels cut in one chunk of sum_rows per core, and per chunk the
 * zeroing, the products (a cast and a multiply by the offset for each k)
 * and the sums (an add of a column of products for each k, the chunk's
 * sums a vector) each a nest of its own. */
static void render_offset(const EpiFacts *f, StrBuf *sb) {
  const char *o = f->off.ofs;
  sb_printf(sb, "#pragma npu hoist_offset(%s, %s, %s)\n", f->off.update, f->off.text, o);
  if (!f->sum_rows) return;
  sb_printf(sb, "#pragma npu stage(%s, \"%s * %s[%s_%s][%s_%s]\", %s_t)\n", o, f->off.text, f->b, o,
            f->b_jk ? f->j : f->k, o, f->b_jk ? f->k : f->j, o);
  sb_printf(sb, "#pragma npu split(%s_%s, %lld, %s_c, %s_r)\n", o, f->j, (long long)f->sum_rows, o, o);
  sb_printf(sb, "#pragma npu fission(%s_%s, %s_t)\n#pragma npu fission(%s_r, %s_init)\n", o, f->k, o, o, o);
  sb_printf(sb, "#pragma npu fission(%s_r_1, %s_%s)\n", o, o, f->k);
  sb_printf(sb, "#pragma npu reorder(%s_%s, %s_r_1)\n#pragma npu reorder(%s_%s_1, %s_r_2)\n", o, f->k, o, o, f->k, o);
  sb_printf(sb, "#pragma npu bind(%s_c, vu)\n", o);
}

/* Each core's chunk of B and of the products in its VM, both laid out
 * k-major, so that a k's column of the chunk is one vector. B's chunk
 * comes from where the sums read B after the NU's caches: its buffer when
 * staged at the root, else a copy of all of B in the DM (one DMA: the
 * chunk's copies, a DMA per row where they transpose, then wait on the
 * DM's latency, not the DDR's). */
static void render_offset_caches(const EpiFacts *f, const char *at_b, StrBuf *sb) {
  const char *o = f->off.ofs;
  long long r = f->sum_rows;
  char src[80];
  if (!strcmp(at_b, "root")) snprintf(src, sizeof src, "%s_%s", f->b, f->scope_b + 3);
  else if (f->transpose) snprintf(src, sizeof src, "%s_dm", f->b); /* its tiles' copy in the DM */
  else {
    sb_printf(sb, "#pragma npu cache_read(%s, dm, root, %s_dm)\n", f->b, f->b);
    snprintf(src, sizeof src, "%s_dm", f->b);
  }
  sb_printf(sb, "#pragma npu cache_read(%s, vu_vm, %s_c, %s_vm)\n", src, o, f->b);
  if (f->b_jk) sb_printf(sb, "#pragma npu transform_layout(%s_vm, (a, b), (b * %lld + a))\n", f->b, r);
  sb_printf(sb, "#pragma npu cache_write(%s_t, vu_vm, %s_c, %s_t_vm)\n", o, o, o);
  sb_printf(sb, "#pragma npu transform_layout(%s_t_vm, (a, b), (b * %lld + a))\n", o, r);
}

/* The chunk loops: ic over the cores, ir the rows of a chunk; the
 * fissions' copies are numbered by the engine (ji_1, ir_1, ic_1). */
static void render(const TuneSketch *sk, const int *ch, StrBuf *sb) {
  const EpiFacts *f = sk->data;
  long long ti = sk->knobs[K_TI].val[ch[K_TI]], tj = sk->knobs[K_TJ].val[ch[K_TJ]];
  const char *i = f->i;
  char at_a[72], at_b[72], c[72];
  if (f->off.text[0]) render_offset(f, sb);
  for (int k = 0; k < f->ninl; k++) sb_printf(sb, "#pragma npu compute_inline(%s)\n", f->inl[k]);
  if (f->first) sb_printf(sb, "#pragma npu fold(%s)\n", f->first); /* a chain of reassignments into the store */
  sb_printf(sb, "#pragma npu expand(%s)\n", f->acc);
  if (f->stage_expr[0]) sb_printf(sb, "#pragma npu stage(%s, \"%s\", %s)\n", f->sink, f->stage_expr, f->stage_name);
  render_tiles(f, ti, tj, sb, at_a, at_b, c);
  sb_printf(sb, "#pragma npu split(%s%s, %lld, %sc, %sr)\n", i, ti == f->m ? "" : "i", ti / f->cores, i, i);
  sb_printf(sb, "#pragma npu fission(%s, %s)\n", c, f->k);
  sb_printf(sb, "#pragma npu fission(%sr, %s)\n", i, c);
  sb_printf(sb, "#pragma npu fission(%sc, %sr)\n", i, i);
  if (f->stage_expr[0]) sb_printf(sb, "#pragma npu fission(%s_1, %s)\n", c, f->stage_name);
  sb_printf(sb, "#pragma npu bind(%sc_1, vu)\n", i);
  sb_printf(sb, "#pragma npu cache_read(%s, %s, %s, %s_%s)\n", f->a, f->scope_a, at_a, f->a, f->scope_a + 3);
  if (f->transpose && strcmp(at_b, "root")) {
    /* whole into the DM (one DMA), then each tile transposed from there */
    sb_printf(sb, "#pragma npu cache_read(%s, dm, root, %s_dm)\n", f->b, f->b);
    sb_printf(sb, "#pragma npu cache_read(%s_dm, %s, %s, %s_%s)\n", f->b, f->scope_b, at_b, f->b, f->scope_b + 3);
  } else {
    sb_printf(sb, "#pragma npu cache_read(%s, %s, %s, %s_%s)\n", f->b, f->scope_b, at_b, f->b, f->scope_b + 3);
  }
  if (f->transpose) sb_printf(sb, "#pragma npu buffer_reorder(%s_%s, 1, 0)\n", f->b, f->scope_b + 3);
  if (f->sum_rows) render_offset_caches(f, at_b, sb);
  /* acc's tile: at the tile loop of the innermost dimension tiled */
  sb_printf(sb, "#pragma npu cache_write(%s, nu_ob, %s, %s_ob)\n", f->acc, tj == f->n ? at_a : at_b, f->acc);
  sb_printf(sb, "#pragma npu cache_read(%s_ob, vu_vm, %sc_1, %s_vm)\n", f->acc, i, f->acc);
  if (f->off.text[0]) {
    /* the offset's sums, a local array: on chip in the DM from the
     * start, then each core's copy in its VM */
    sb_printf(sb, "#pragma npu cache_write(%s, dm, root, %s_dm)\n", f->off.ofs, f->off.ofs);
    if (f->sum_rows) /* each core's chunk of the sums, computed in its VM */
      sb_printf(sb, "#pragma npu cache_write(%s_dm, vu_vm, %s_c, %s_cvm)\n", f->off.ofs, f->off.ofs, f->off.ofs);
    sb_printf(sb, "#pragma npu cache_read(%s_dm, vu_vm, %sc_1, %s_vm)\n", f->off.ofs, i, f->off.ofs);
  }
  for (int k = 0; k < f->nreads; k++)
    sb_printf(sb, "#pragma npu cache_read(%s, vu_vm, %sc_1, %s_vm)\n", f->reads[k], i, f->reads[k]);
  if (f->stage_expr[0]) sb_printf(sb, "#pragma npu cache_write(%s, vu_vm, %sc_1, %s_vm)\n", f->stage_name, i, f->stage_name);
  sb_printf(sb, "#pragma npu cache_write(%s, vu_vm, %sc_1, %s_vm)\n", f->out, i, f->out);
  sb_printf(sb, "#pragma npu tensorize(%sr, %s)\n", i, f->intrin);
  sb_printf(sb, "#pragma npu vectorize(%s_1)\n", c);
  if (f->stage_expr[0]) sb_printf(sb, "#pragma npu vectorize(%s_2)\n", c);
  if (f->sum_rows) /* the sums' zeroing, products and adds */
    sb_printf(sb, "#pragma npu vectorize(%s_r)\n#pragma npu vectorize(%s_r_1)\n#pragma npu vectorize(%s_r_2)\n",
              f->off.ofs, f->off.ofs, f->off.ofs);
  /* a copy at the root is made once: nothing to overlap it with */
  if (strcmp(at_a, "root") && sk->knobs[K_DB_A].val[ch[K_DB_A]])
    sb_printf(sb, "#pragma npu double_buffer(%s_%s)\n", f->a, f->scope_a + 3);
  /* a transposing copy is many DMAs, not one: no double buffer */
  if (strcmp(at_b, "root") && !f->transpose && sk->knobs[K_DB_B].val[ch[K_DB_B]])
    sb_printf(sb, "#pragma npu double_buffer(%s_%s)\n", f->b, f->scope_b + 3);
}

/* The NU's MAC cycles and call overheads, the inputs' first tiles loaded
 * before it starts, and the last chunk's epilogue after it ends. */
static uint64_t estimate(const TuneSketch *sk, const int *ch, const NpuTarget *t) {
  const EpiFacts *f = sk->data;
  int64_t ti = sk->knobs[K_TI].val[ch[K_TI]], tj = sk->knobs[K_TJ].val[ch[K_TJ]];
  int64_t rows = ti / f->cores, calls = (f->m / ti) * (f->n / tj) * f->cores;
  int64_t rate = f->fp32 ? t->nu_macs_fp32 : t->nu_macs_int8;
  int64_t macs = calls * ((rows + 31) / 32 * 32) * ((tj + 31) / 32 * 32) * f->kk;
  int64_t first = (ti + tj) * f->kk / (t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1);
  int64_t vector = t->vu_vector_bytes > 0 ? t->vu_vector_bytes : 64;
  int64_t last = rows * (tj * 4 / vector + t->vu_overhead) * 2;
  /* a transposing copy: one DMA for each of B's n rows, the NU waiting */
  int64_t transpose = f->transpose ? f->n * (t->dm_latency + f->kk / (t->dm_bandwidth > 0 ? t->dm_bandwidth : 1)) : 0;
  /* the offset's sums (hoist_offset's nest at the start): on the CU, a
   * read and a write of a sum per element of B; on the VU, each core's
   * three ops per k, after its chunk of B from on chip (one DMA per row
   * where the copy transposes it), one core after the other */
  int64_t sums = !f->off.text[0] ? 0
                 : !f->sum_rows  ? 2 * f->n * f->kk * t->cu_access_cycles
                                 : 3 * f->kk * (t->vu_overhead + f->sum_rows * 4 / vector) +
                                       (f->b_jk ? f->n : f->cores) * t->dm_latency;
  return (uint64_t)(macs / (rate > 0 ? rate : 1) + calls * t->nu_overhead + first + last + transpose + sums);
}

static int cmp_size(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Tile sizes that divide the extent, each a multiple of `multiple`. Where
 * none divides (196 pixels), the round sizes with the last tile a tail,
 * and with `balance` (the rows' core count; 0 for none) the extent cut in
 * 1 to 4 tiles of nearly equal size, each a multiple of balance: 196 rows
 * as 196, 100, 68 or 52 a tile, where a tile of 128 leaves a tail of 68
 * (two of the four cores idle in its epilogue). Ascending. */
static int dividing(int64_t extent, int64_t multiple, int64_t balance, long long *out) {
  long long all[TUNE_MAX_CHOICES];
  int n = tune_tile_sizes(extent, multiple, all, TUNE_MAX_CHOICES), m = 0;
  for (int i = 0; i < n; i++)
    if (extent % all[i] == 0 && all[i] % multiple == 0) out[m++] = all[i];
  if (m) return m;
  for (int i = 0; i < n; i++) /* none divides: the last tile a tail */
    if (all[i] % multiple == 0) out[m++] = all[i];
  for (int64_t k = 1; balance > 0 && k <= 4 && m < TUNE_MAX_CHOICES; k++) {
    long long even = (extent + k - 1) / k;
    even = (even + balance - 1) / balance * balance;
    bool have = even < multiple || even > extent; /* no tile past the extent */
    for (int i = 0; i < m && !have; i++) have = out[i] == even;
    if (!have) out[m++] = even;
  }
  qsort(out, (size_t)m, sizeof *out, cmp_size);
  return m;
}

static int largest_up_to(const long long *v, int n, long long want) {
  int best = 0;
  for (int i = 0; i < n; i++)
    if (v[i] <= want) best = i;
  return best;
}

static bool make(TuneSketch *sk, const EpiFacts *f) {
  memset(sk, 0, sizeof *sk);
  snprintf(sk->name, sizeof sk->name, "nu:%s+epilogue", f->intrin);
  long long ti[TUNE_MAX_CHOICES], tj[TUNE_MAX_CHOICES], flag[2] = {0, 1};
  int nti = dividing(f->m, f->cores * 8, f->cores, ti), ntj = dividing(f->n, 8, 0, tj);
  if (!nti || !ntj) return false;
  /* the seed: 64 rows an NU call (a chunk per core), 128 columns */
  tune_knob(sk, K_TI, "ti", ti, nti, largest_up_to(ti, nti, 64 * f->cores));
  tune_knob(sk, K_TJ, "tj", tj, ntj, largest_up_to(tj, ntj, 128));
  tune_knob(sk, K_DB_A, "db_a", flag, 2, 1);
  tune_knob(sk, K_DB_B, "db_b", flag, f->transpose ? 1 : 2, f->transpose ? 0 : 1);
  sk->nknobs = EPI_KNOBS;
  sk->render = render;
  sk->estimate = estimate;
  EpiFacts *copy = malloc(sizeof *copy);
  *copy = *f;
  sk->data = copy;
  return true;
}

/* An NU matmul, by what its semantics kernel computes. */
typedef struct {
  char name[64];
  bool bt; /* it reads B[j][k] */
} NuMatmul;

/* The NU matmuls of the accumulator's type in name order, read from each
 * intrinsic's semantics (tune_nu_matmul: a user's own file under any
 * name too); only an op with an operand in the NU's output buffer (its
 * `scopes:` line) is parsed. */
static int nu_matmuls(bool fp32, NuMatmul *out, int max) {
  char **names, why[256];
  int count = sched_intrinsic_names(&names, why, sizeof why), n = 0;
  for (int i = 0; i < count && n < max; i++) {
    char path[1024];
    size_t len;
    char *src = tune_nu_semantics(names[i], path, sizeof path, &len);
    TuneNuMatmul mm;
    if (src && strlen(names[i]) < sizeof out->name && tune_nu_matmul(path, src, len, &mm) && mm.fp32 == fp32) {
      snprintf(out[n].name, sizeof out[n].name, "%s", names[i]);
      out[n++].bt = mm.bt;
    }
    free(src);
  }
  sched_intrinsic_names_free(names, count);
  return n;
}

/* Adds the sketch for each NU matmul of the accumulator's type that
 * reads the second input as stored (or transposing it when it is stored
 * output major: only when no matmul reads it so), with the first input
 * assignment whose steps the engine accepts at the seed (A, the operand
 * indexed by the output's row, in the input buffer first). */
static void add_probed(TuneSpace *sp, EpiFacts *f) {
  NuMatmul mm[16];
  int count = nu_matmuls(f->fp32, mm, 16);
  const char *scopes[2][2] = {{"nu_ib", "nu_wb"}, {"nu_wb", "nu_ib"}};
  int before = sp->nsketch;
  for (int pass = 0; pass < (f->b_jk ? 2 : 1) && sp->nsketch == before; pass++)
    for (int i = 0; i < count; i++) {
      f->transpose = pass == 1;
      bool taken = mm[i].bt != (pass == 0 && f->b_jk); /* reads B as stored, or its copy transposes */
      memcpy(f->intrin, mm[i].name, sizeof f->intrin); /* both 64 bytes */
      for (int a = 0; a < 2 && !taken && sp->nsketch < TUNE_MAX_SKETCHES; a++) {
        f->scope_a = scopes[a][0], f->scope_b = scopes[a][1];
        TuneSketch *sk = &sp->sketch[sp->nsketch];
        if (!make(sk, f)) continue;
        int choice[TUNE_MAX_KNOBS];
        for (int k = 0; k < sk->nknobs; k++) choice[k] = sk->knobs[k].seed;
        if ((taken = tune_probe(sp, sp->nsketch, choice))) sp->nsketch++;
        else free(sk->data);
      }
    }
}

/* The rows of B each VU core sums (render_offset): the output channels
 * split evenly over the cores, where a core's chunk of B and of its int32
 * products takes at most 3/4 of its VM (the rest for the zeroing and the
 * products' temporary); else 0, and the CU sums them. */
static int64_t sums_on_vu(const EpiFacts *f, const NpuTarget *t) {
  int64_t rows = f->n % f->cores ? 0 : f->n / f->cores;
  return rows && rows * f->kk * 5 + rows * 8 <= t->vu_vm_size / 4 * 3 ? rows : 0;
}

/* The kernel after `hoist_offset(update, offset, <acc>_ofs)` (the
 * offset's term summed per output channel at the kernel's start, the NU's
 * product plain A * B, `acc += <acc>_ofs[j]` after the reduction), and the
 * shape of its own nest, which comes last (the sums' nest first). false,
 * noted, when the engine refuses the step. */
static bool hoisted(TuneSpace *sp, Offset *off, const char *acc, TuneShape *sh) {
  char step[400], why[1024];
  snprintf(off->ofs, sizeof off->ofs, "%s_ofs", acc);
  snprintf(step, sizeof step, "#pragma npu hoist_offset(%s, %s, %s)\n", off->update, off->text, off->ofs);
  const Kernel *k = tune_probe_why(sp, step, why, sizeof why);
  if (!k) {
    tune_note(sp, "nu+epilogue: hoist_offset(%s, %s, %s) would take the input offset out of the reduction (the NU "
                  "multiplies two arrays), but the engine refused it: %s\n", off->update, off->text, off->ofs, why);
    return false;
  }
  const Stmt *last = tune_first_stmt(k->body);
  while (last && last->next) last = last->next;
  Stmt body = {.kind = ST_BLOCK, .body = (Stmt *)last};
  Kernel nest = *k;
  nest.body = &body;
  tune_shape(&nest, sh);
  return true;
}

void tune_sketch_nu_epilogue(TuneSpace *sp) {
  EpiFacts f;
  memset(&f, 0, sizeof f);
  char why[400];
  int64_t cores = session_target(sp->s)->vu_count > 0 ? session_target(sp->s)->vu_count : 1;
  f.cores = cores;
  if (!facts(&sp->shape, &f, why, sizeof why)) {
    if (f.acc) tune_note(sp, "nu+epilogue: %s\n", why); /* a reduction into a local, then something else */
    return;
  }
  if (f.off.text[0]) { /* the offset out first: then the NU's product is A * B */
    Offset off = f.off;
    TuneShape sh;
    if (!hoisted(sp, &off, f.acc, &sh)) return;
    memset(&f, 0, sizeof f);
    f.cores = cores;
    if (!facts(&sh, &f, why, sizeof why)) {
      tune_note(sp, "nu+epilogue: after hoist_offset(%s, %s, %s): %s\n", off.update, off.text, off.ofs, why);
      return;
    }
    f.off = off;
    f.sum_rows = sums_on_vu(&f, session_target(sp->s));
  }
  int before = sp->nsketch;
  add_probed(sp, &f);
  if (sp->nsketch == before && f.sum_rows) { /* the sums' steps refused (noted): on the CU then */
    f.sum_rows = 0;
    add_probed(sp, &f);
  }
}
