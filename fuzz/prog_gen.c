/* The random program generator and case runner (see prog_gen.h). */
#include "fuzz/prog_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "npugen.h"

/* Failure descriptions kept by pg_counts_add. */
enum { PG_MAX_FAILURE_TEXT = 256 << 10 };

const char *pg_outcome_name(PgOutcome o) {
  switch (o) {
  case PG_PASSED: return "passed";
  case PG_REFUSED: return "refused";
  case PG_INTERNAL: return "internal error";
  case PG_FAILED: return "FAILED";
  default: return "?";
  }
}

/* ---------------- random numbers ---------------- */

typedef struct {
  uint64_t state;
} Rng;

static uint64_t rnd(Rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int below(Rng *r, int n) { return n > 0 ? (int)(rnd(r) % (uint64_t)n) : 0; }
static bool chance(Rng *r, int percent) { return below(r, 100) < percent; }
static int pick(Rng *r, const int *v, int n) { return v[below(r, n)]; }

/* ---------------- kernels ---------------- */

enum { SH_NM, SH_MM, SH_N }; /* array shapes: [N][M], [M][M], [N] */
enum { K_SCALE, K_RELU, K_ADD, K_TR, K_MM, K_RSUM, K_BIAS, K_MM8, K_HOST, NKINDS };

/* A kernel the generator can write: its array parameters (inputs first,
 * one output last), whether it takes an int scalar k after them, and its
 * main statement's label. Map kernels are one perfect nest i (N), j (M)
 * with that one statement. K_MM8 is an int8 matmul into int32 (for the
 * NU); K_HOST is no kernel but a nest the program writes itself. */
typedef struct {
  const char *name;
  int narrays;
  const char *pname[3];
  int pshape[3];
  bool scalar, map;
  const char *label;
} KindInfo;

static const KindInfo kinds[NKINDS] = {
    [K_SCALE] = {"scale", 2, {"X", "Y"}, {SH_NM, SH_NM}, true, true, "mul"},
    [K_RELU] = {"relu", 2, {"X", "Y"}, {SH_NM, SH_NM}, false, true, "rl"},
    [K_ADD] = {"add", 3, {"X", "Y", "Z"}, {SH_NM, SH_NM, SH_NM}, false, true, "ad"},
    [K_TR] = {"tr", 2, {"X", "Y"}, {SH_NM, SH_NM}, false, true, "tp"}, /* N == M only */
    [K_MM] = {"mm", 3, {"X", "W", "Y"}, {SH_NM, SH_MM, SH_NM}, false, false, "upd"},
    [K_RSUM] = {"rsum", 2, {"X", "Z"}, {SH_NM, SH_N}, false, false, "acc"},
    [K_BIAS] = {"bias", 3, {"X", "b", "Y"}, {SH_NM, SH_N, SH_NM}, false, true, "bs"},
    [K_MM8] = {"mm8", 3, {"X", "W", "Y"}, {SH_NM, SH_MM, SH_NM}, false, false, "upd"},
    [K_HOST] = {"h", 2, {"X", "Y"}, {SH_NM, SH_NM}, false, true, "h"},
};

/* ---------------- layouts ---------------- */

enum { LY_LOGICAL, LY_TRANSPOSE, LY_SPLIT, LY_BLOCK, LY_PAD };

/* A layout of an array: the transpose (i, j) -> (j, i); a split of one
 * axis by f; the block (i, j) -> (j / f, i, j % f); or a pad to grown
 * extents. padded: a pad_value is given (pad). */
typedef struct {
  int kind, axis, f, grow[2];
  bool padded;
  int pad;
} Layout;

static bool layout_eq(const Layout *a, const Layout *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == LY_LOGICAL || a->kind == LY_TRANSPOSE) return true;
  if (a->padded != b->padded || (a->padded && a->pad != b->pad)) return false;
  if (a->kind == LY_PAD) return a->grow[0] == b->grow[0] && a->grow[1] == b->grow[1];
  return a->axis == b->axis && a->f == b->f;
}

typedef struct {
  int n, m; /* N rows, M columns */
} Sizes;

static int extent(const Sizes *z, int shape, int axis) {
  if (shape == SH_N) return z->n;
  if (shape == SH_MM) return z->m;
  return axis == 0 ? z->n : z->m;
}
static int rank(int shape) { return shape == SH_N ? 1 : 2; }

static Layout random_layout(Rng *r, const Sizes *z, int shape) {
  Layout l = {.kind = LY_LOGICAL};
  static const int kinds2[] = {LY_TRANSPOSE, LY_SPLIT, LY_SPLIT, LY_BLOCK, LY_BLOCK, LY_PAD};
  static const int kinds1[] = {LY_SPLIT, LY_PAD};
  l.kind = rank(shape) == 2 ? pick(r, kinds2, 6) : pick(r, kinds1, 2);
  static const int factors[] = {2, 4, 4, 8};
  static const int pads[] = {0, 0, 1, -3};
  l.axis = l.kind == LY_BLOCK || rank(shape) == 1 ? (rank(shape) == 1 ? 0 : 1) : below(r, 2);
  if (l.kind == LY_SPLIT && rank(shape) == 2 && chance(r, 60)) l.axis = 1;
  l.f = pick(r, factors, 4);
  if (l.f > extent(z, shape, l.axis)) l.f = 2;
  l.pad = pick(r, pads, 4);
  if (l.kind == LY_PAD) {
    l.padded = true;
    l.grow[0] = below(r, 3);
    l.grow[1] = rank(shape) == 2 ? 1 + below(r, 2) : 0;
    if (rank(shape) == 1) l.grow[0] = 1 + below(r, 2);
  } else if (l.kind == LY_SPLIT || l.kind == LY_BLOCK) {
    bool tail = extent(z, shape, l.axis) % l.f != 0;
    l.padded = tail || chance(r, 15); /* a tail needs a pad_value */
  }
  return l;
}

/* The steps that give buffer b layout l, one of the equivalent forms. */
static void layout_steps(StrBuf *sb, Rng *r, const char *b, int shape, const Sizes *z, const Layout *l) {
  char pad[24] = "";
  if (l->padded) snprintf(pad, sizeof pad, ", %d", l->pad);
  bool one_map = chance(r, 40); /* the same layout as one transform_layout */
  switch (l->kind) {
  case LY_TRANSPOSE:
    if (chance(r, 50)) sb_printf(sb, "#pragma npu transform_layout(%s, (i, j), (j, i))\n", b);
    else sb_printf(sb, "#pragma npu transform_layout(%s, (a, c), (c, a))\n", b);
    break;
  case LY_SPLIT:
    if (one_map && rank(shape) == 2)
      sb_printf(sb, "#pragma npu transform_layout(%s, (i, j), %s%s)\n", b,
                l->axis == 0 ? (l->f == 2 ? "(i / 2, i % 2, j)" : l->f == 4 ? "(i / 4, i % 4, j)" : "(i / 8, i % 8, j)")
                             : (l->f == 2 ? "(i, j / 2, j % 2)" : l->f == 4 ? "(i, j / 4, j % 4)" : "(i, j / 8, j % 8)"),
                pad);
    else sb_printf(sb, "#pragma npu buffer_split(%s, %d, %d%s)\n", b, l->axis, l->f, pad);
    break;
  case LY_BLOCK:
    if (one_map) sb_printf(sb, "#pragma npu transform_layout(%s, (i, j), (j / %d, i, j %% %d)%s)\n", b, l->f, l->f, pad);
    else sb_printf(sb, "#pragma npu buffer_split(%s, 1, %d%s)\n#pragma npu buffer_reorder(%s, 1, 0, 2)\n", b, l->f, pad, b);
    break;
  case LY_PAD:
    if (rank(shape) == 2)
      sb_printf(sb, "#pragma npu buffer_pad(%s, (%d, %d), %d)\n", b, extent(z, shape, 0) + l->grow[0],
                extent(z, shape, 1) + l->grow[1], l->pad);
    else sb_printf(sb, "#pragma npu buffer_pad(%s, (%d), %d)\n", b, extent(z, shape, 0) + l->grow[0], l->pad);
    break;
  default: break;
  }
}

/* ---------------- the program ---------------- */

enum { MAX_CALLS = 5, MAX_ARRAYS = 10, MAX_VARIANTS = 3, MAX_STEPS = 16 };

typedef struct {
  char name[16];
  int shape;
  bool param, is_const, local, i8; /* i8: int8_t, whatever the file's type */
  Layout ly;
} Arr;

typedef struct {
  int kind;
  char label[16]; /* "" when unlabeled */
  char name[24];  /* the call's name in the schedule */
  int args[3];    /* Arr indexes */
  char loop[16];  /* counter of the loop around it, "" when none */
  int scalar;     /* the constant k passed to scale */
} Call;

typedef struct {
  char name[24];
  Layout ly[3]; /* of each array parameter */
  char *steps;  /* its pragma lines (malloc'ed) */
} Variant;

typedef struct {
  bool used;
  int nvariants;
  Variant v[MAX_VARIANTS];
} KernelDef;

typedef struct {
  int cls; /* order the docs give: 0 layouts, 1 scopes, 2 use/inline, 3 loop steps */
  char *text;
} Step;

typedef struct {
  Rng r;
  Sizes z;
  const char *type;
  bool is_float;
  /* A padded chain: A and the [N][M] intermediates all take pad_ly, a
   * split of the columns with padding 0, and the variants split j by the
   * same factor, so that pad_compute drops their guards: producers write
   * into the padding and consumers sum over it (the fill use() writes
   * before a consumer is what makes it right). */
  bool pad_chain;
  Layout pad_ly;
  Arr arr[MAX_ARRAYS];
  int narr;
  Call call[MAX_CALLS];
  int ncalls;
  KernelDef def[NKINDS];
  int kind_order[NKINDS], nkinds; /* kernels in the order the file defines them */
  Step step[MAX_STEPS];
  int nsteps;
} Gen;

static int new_array(Gen *g, const char *name, int shape, bool param, bool is_const) {
  Arr *a = &g->arr[g->narr];
  snprintf(a->name, sizeof a->name, "%s", name);
  a->shape = shape;
  a->param = param;
  a->is_const = is_const;
  a->local = !param;
  a->ly.kind = LY_LOGICAL;
  return g->narr++;
}

static int find_array(Gen *g, const char *name, int shape, bool is_const) {
  for (int i = 0; i < g->narr; i++)
    if (!strcmp(g->arr[i].name, name)) return i;
  return new_array(g, name, shape, true, is_const);
}

static void add_call(Gen *g, int kind, const int *args) {
  Call *c = &g->call[g->ncalls++];
  c->kind = kind;
  memcpy(c->args, args, sizeof c->args);
  c->scalar = 2 + below(&g->r, 3);
  if (kind != K_HOST && !g->def[kind].used) {
    g->def[kind].used = true;
    g->kind_order[g->nkinds++] = kind;
  }
}

/* A chain of 2-4 calls from A to B through locals t1, t2, ... (a row sum
 * into a local vector V, read by a bias, takes two calls). */
static void gen_chain(Gen *g) {
  Rng *r = &g->r;
  int A = new_array(g, "A", SH_NM, true, true);
  int ncalls = 2 + below(r, 3), cur = A, nt = 0, prev = -1;
  if (!g->is_float && chance(r, 25)) { /* an int8 matmul first, for the NU */
    g->arr[A].i8 = true;
    int w = new_array(g, "W8", SH_MM, true, true), t = new_array(g, "t0", SH_NM, false, false);
    g->arr[w].i8 = true;
    add_call(g, K_MM8, (int[3]){A, w, t});
    cur = t;
    prev = K_MM8;
  }
  bool host = false;
  while (g->ncalls < ncalls) {
    bool last = g->ncalls == ncalls - 1;
    static const int mixed[NKINDS] = {[K_SCALE] = 5, [K_RELU] = 4, [K_ADD] = 4, [K_TR] = 2,
                                      [K_MM] = 3,    [K_RSUM] = 3, [K_BIAS] = 2};
    /* a padded chain: maps that write the padding, row sums that read it */
    static const int padded[NKINDS] = {[K_SCALE] = 5, [K_RELU] = 2, [K_ADD] = 2, [K_RSUM] = 6};
    const int *weights = g->pad_chain ? padded : mixed;
    int kind;
    if (prev >= 0 && chance(r, 25)) kind = prev; /* the same callee twice */
    else {
      int total = 0, x;
      for (int k = 0; k < NKINDS; k++) total += weights[k];
      x = below(r, total);
      for (kind = 0; x >= weights[kind]; kind++) x -= weights[kind];
    }
    if (kind == K_TR && g->z.n != g->z.m) kind = K_RELU;
    if (kind == K_HOST || kind == K_MM8) kind = K_RELU;
    if (!host && g->ncalls > 0 && chance(r, 15)) kind = K_HOST, host = true; /* the program's own nest */
    if (kind == K_RSUM && last) kind = K_BIAS;
    int out;
    char name[16];
    if (kind == K_RSUM) { /* V = rowsum(cur), then a bias by V */
      int nv = 0;
      for (int x = 0; x < g->narr; x++) nv += g->arr[x].local && g->arr[x].shape == SH_N;
      int v = new_array(g, nv ? "V2" : "V", SH_N, false, false); /* at most two pairs */
      add_call(g, K_RSUM, (int[3]){cur, v, -1});
      last = g->ncalls == ncalls - 1;
      snprintf(name, sizeof name, "t%d", ++nt);
      out = last ? find_array(g, "B", SH_NM, false) : new_array(g, name, SH_NM, false, false);
      add_call(g, K_BIAS, (int[3]){cur, v, out});
      cur = out;
      prev = K_BIAS;
      continue;
    }
    snprintf(name, sizeof name, "t%d", ++nt);
    out = last ? find_array(g, "B", SH_NM, false) : new_array(g, name, SH_NM, false, false);
    int args[3] = {cur, out, -1};
    if (kind == K_ADD) { /* the program's A straight through, or an earlier array */
      int other = chance(r, 60) || cur == A ? A : below(r, g->narr - 1);
      if (g->arr[other].shape != SH_NM || other == out) other = A;
      if (g->arr[other].i8) other = cur;
      args[0] = chance(r, 50) ? cur : other;
      args[1] = args[0] == cur ? other : cur;
      args[2] = out;
    } else if (kind == K_MM) {
      args[1] = find_array(g, "W", SH_MM, true);
      args[2] = out;
    } else if (kind == K_BIAS) {
      args[1] = find_array(g, "v", SH_N, true);
      args[2] = out;
    }
    add_call(g, kind, args);
    if (kind != K_HOST && chance(r, 20)) snprintf(g->call[g->ncalls - 1].loop, 16, "r%d", g->ncalls);
    cur = out;
    prev = kind;
  }
}

/* Call names: the label, else the kernel's name when it has one
 * unlabeled call, else kernel_1, kernel_2, ... in source order. */
static void name_calls(Gen *g) {
  for (int i = 0; i < g->ncalls; i++)
    if (chance(&g->r, 75)) snprintf(g->call[i].label, sizeof g->call[i].label, "c%d", i + 1);
  for (int i = 0; i < g->ncalls; i++) {
    Call *c = &g->call[i];
    if (c->kind == K_HOST) snprintf(c->label, sizeof c->label, "h");
    if (c->label[0]) {
      memcpy(c->name, c->label, sizeof c->label); /* name is the larger */
      continue;
    }
    int n = 0, nth = 0;
    for (int j = 0; j < g->ncalls; j++)
      if (g->call[j].kind == c->kind && !g->call[j].label[0]) {
        n++;
        if (j <= i) nth = n;
      }
    if (n == 1) snprintf(c->name, sizeof c->name, "%s", kinds[c->kind].name);
    else snprintf(c->name, sizeof c->name, "%s_%d", kinds[c->kind].name, nth);
  }
}

/* ---------------- callee variants ---------------- */

static const char *scope_name(Rng *r, bool any) {
  static const char *const onchip[] = {"vu_vm", "vu_vm", "dm", "nu_ob"};
  return onchip[below(r, any ? 4 : 3)];
}

/* Steps known to apply to kernel `kind`, after the layout steps of ly:
 * loop steps, on-chip caches (not of a parameter in a layout) or the VU
 * cores, and a mark last. */
static void loop_steps(Gen *g, int kind, const Layout *ly, StrBuf *sb) {
  Rng *r = &g->r;
  const KindInfo *ki = &kinds[kind];
  const char *in = ki->pname[0], *out = ki->pname[ki->narrays - 1];
  bool in_logical = ly[0].kind == LY_LOGICAL, out_logical = ly[ki->narrays - 1].kind == LY_LOGICAL;
  int recipe = below(r, 10);
  if (g->pad_chain && kind != K_MM8) recipe = 2 + below(r, 4); /* loops: split j by the padding's factor */
  bool all_logical = true;
  for (int p = 0; p < ki->narrays; p++) all_logical &= ly[p].kind == LY_LOGICAL;
  if ((kind == K_MM8 || (kind == K_MM && g->is_float)) && all_logical && recipe < 7) { /* on the NU */
    sb_puts(sb, "#pragma npu cache_read(X, nu_ib, root, X_ib)\n#pragma npu cache_read(W, nu_wb, root, W_wb)\n"
                "#pragma npu cache_write(Y, nu_ob, root, Y_ob)\n");
    sb_printf(sb, "#pragma npu tensorize(i, %s)\n", kind == K_MM8 ? "npu_nu_matmul_i8" : "npu_nu_matmul_f32");
    return;
  }
  if (recipe < 2) return; /* layouts only */
  if (recipe < 6) {       /* loops */
    const char *iname = "i", *jname = "j";
    bool split_j = chance(r, 50) || g->pad_chain;
    if (split_j) {
      /* split j by the input's split factor: pad_compute may drop the guard */
      int f = g->pad_chain ? g->pad_ly.f : ly[0].kind == LY_SPLIT && ly[0].axis == 1 ? ly[0].f : ly[0].kind == LY_BLOCK ? ly[0].f : pick(r, (int[]){2, 4, 3}, 3);
      sb_printf(sb, "#pragma npu split(j, %d, jo, ji)\n", f);
      jname = "ji";
    } else if (chance(r, 40)) {
      sb_printf(sb, "#pragma npu split(i, %d, io, ii)\n", pick(r, (int[]){2, 4, 3}, 3));
      iname = "io";
    } else if (ki->map && chance(r, 50)) {
      sb_puts(sb, "#pragma npu reorder(j, i)\n");
    }
    if (chance(r, 40)) sb_printf(sb, "#pragma npu parallel(%s)\n", iname);
    else if (ki->map && chance(r, 40)) sb_printf(sb, "#pragma npu vectorize(%s)\n", jname);
    return;
  }
  if (recipe < 9 || !ki->map || kind == K_TR || g->z.n % 4) { /* on-chip caches */
    bool any = false;
    if (in_logical && chance(r, 70)) {
      if (chance(r, 70)) sb_printf(sb, "#pragma npu cache_read(%s, %s, root, %s_c)\n", in, scope_name(r, true), in);
      else sb_printf(sb, "#pragma npu cache_read(%s, vu_vm, i, %s_c)\n", in, in);
      any = true;
    }
    if (out_logical && (chance(r, 60) || !any)) {
      sb_printf(sb, "#pragma npu cache_write(%s, %s, root, %s_c)\n", out, scope_name(r, true), out);
      any = true;
    }
    if (any && ki->map && chance(r, 30)) sb_puts(sb, "#pragma npu vectorize(j)\n");
    return;
  }
  /* the VU cores a row each, rows loaded ahead */
  sb_puts(sb, "#pragma npu split(i, 4, io, core)\n#pragma npu bind(core, vu)\n");
  bool db = false;
  if (in_logical) {
    sb_printf(sb, "#pragma npu cache_read(%s, vu_vm, core, %s_vm)\n", in, in);
    if (chance(r, 70)) sb_printf(sb, "#pragma npu double_buffer(%s_vm)\n", in), db = true;
  }
  if (out_logical) {
    sb_printf(sb, "#pragma npu cache_write(%s, vu_vm, core, %s_vm)\n", out, out);
    if (chance(r, db ? 40 : 70)) sb_printf(sb, "#pragma npu double_buffer(%s_vm)\n", out);
  }
  if (chance(r, 40)) sb_puts(sb, "#pragma npu vectorize(j)\n");
}

/* A variant of kind taking its array parameters in layouts ly; its index,
 * or -1 when the kernel has its most variants already. An existing
 * variant of the same layouts is reused half the time. */
static int variant_for(Gen *g, int kind, const Layout *ly) {
  KernelDef *d = &g->def[kind];
  const KindInfo *ki = &kinds[kind];
  for (int v = 0; v < d->nvariants; v++) {
    bool same = true;
    for (int p = 0; p < ki->narrays; p++) same &= layout_eq(&d->v[v].ly[p], &ly[p]);
    if (same && (chance(&g->r, 50) || d->nvariants == MAX_VARIANTS)) return v;
  }
  if (d->nvariants == MAX_VARIANTS) return -1;
  Variant *v = &d->v[d->nvariants];
  snprintf(v->name, sizeof v->name, "%s_v%d", ki->name, d->nvariants + 1);
  memcpy(v->ly, ly, sizeof v->ly);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n", ki->name, v->name);
  size_t head = sb.len;
  for (int p = 0; p < ki->narrays; p++) layout_steps(&sb, &g->r, ki->pname[p], ki->pshape[p], &g->z, &ly[p]);
  loop_steps(g, kind, ly, &sb);
  if (sb.len == head) sb_puts(&sb, "#pragma npu split(i, 2, io, ii)\n"); /* a schedule needs a step */
  v->steps = sb_take(&sb);
  return d->nvariants++;
}

/* ---------------- the program's schedule ---------------- */

static void add_step(Gen *g, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_step(Gen *g, int cls, const char *fmt, ...) {
  if (g->nsteps == MAX_STEPS) return;
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  g->step[g->nsteps].cls = cls;
  g->step[g->nsteps++].text = sb_take(&sb);
}

/* A layout unlike l for a mismatch on purpose: another pad value, or
 * another map. */
static Layout other_layout(Gen *g, const Layout *l, int shape) {
  Layout o = *l;
  if (l->padded && chance(&g->r, 60)) o.pad = l->pad == 0 ? 1 : 0;
  else if (l->kind != LY_LOGICAL && chance(&g->r, 50)) o.kind = LY_LOGICAL;
  else o = random_layout(&g->r, &g->z, shape);
  return o;
}

typedef enum { ACT_NONE, ACT_USE, ACT_INLINE } Action;

/* A call whose loops the program's steps may name: inlined, or the
 * program's own nest. */
static bool is_open(const Call *c, Action a) { return c->kind == K_HOST || a == ACT_INLINE; }

/* The names of an open call's outer and inner loops and main statement. */
static void open_names(const Call *c, char *i, char *j, char *st) {
  if (c->kind == K_HOST) {
    strcpy(i, "hi");
    strcpy(j, "hj");
    if (st) strcpy(st, "h");
    return;
  }
  sprintf(i, "%s_i", c->name);
  sprintf(j, "%s_j", c->name);
  if (st) sprintf(st, "%s_%s", c->name, kinds[c->kind].label);
}

static void gen_program_schedule(Gen *g) {
  Rng *r = &g->r;
  /* 1. layouts of up to two arrays the calls take */
  int nly = 0;
  for (int a = 0; a < g->narr && nly < (g->pad_chain ? 3 : 2); a++) {
    if (g->pad_chain) {
      if (g->arr[a].shape != SH_NM || g->arr[a].i8 || !strcmp(g->arr[a].name, "B") || chance(r, 10)) continue;
      g->arr[a].ly = g->pad_ly;
    } else {
      if (!chance(r, g->arr[a].shape == SH_MM ? 10 : 30)) continue;
      g->arr[a].ly = random_layout(r, &g->z, g->arr[a].shape);
    }
    if (g->arr[a].ly.kind == LY_LOGICAL) continue;
    StrBuf sb;
    sb_init(&sb);
    layout_steps(&sb, r, g->arr[a].name, g->arr[a].shape, &g->z, &g->arr[a].ly);
    /* each pragma line of the layout is a step of its own (for shuffling) */
    for (char *line = sb.data, *nl; line && *line; line = nl + 1) {
      nl = strchr(line, '\n');
      add_step(g, 0, "%.*s", (int)(nl - line + 1), line);
    }
    sb_free(&sb);
    nly++;
  }
  /* 2. what each call runs */
  Action act[MAX_CALLS];
  for (int i = 0; i < g->ncalls; i++) {
    Call *c = &g->call[i];
    const KindInfo *ki = &kinds[c->kind];
    act[i] = ACT_NONE;
    if (c->kind == K_HOST) continue;
    bool needs = false;
    Layout want[3];
    for (int p = 0; p < ki->narrays; p++) {
      want[p] = g->arr[c->args[p]].ly;
      needs |= want[p].kind != LY_LOGICAL;
    }
    int x = below(r, 100);
    act[i] = needs ? (x < 75 ? ACT_USE : x < 95 ? ACT_INLINE : ACT_NONE) : (x < 50 ? ACT_USE : x < 72 ? ACT_INLINE : ACT_NONE);
    if (act[i] == ACT_INLINE) {
      add_step(g, 2, "#pragma npu inline(%s)\n", c->name);
    } else if (act[i] == ACT_USE) {
      if (chance(r, g->pad_chain ? 3 : 7)) { /* a mismatch on purpose */
        int p = below(r, ki->narrays);
        want[p] = other_layout(g, &want[p], ki->pshape[p]);
      }
      bool logical = true;
      for (int p = 0; p < ki->narrays; p++) logical &= want[p].kind == LY_LOGICAL;
      int v = logical && chance(r, 15) ? -1 : variant_for(g, c->kind, want);
      if (v < 0 && !logical) {
        act[i] = ACT_INLINE;
        add_step(g, 2, "#pragma npu inline(%s)\n", c->name);
      } else {
        add_step(g, 2, "#pragma npu use(%s, %s)\n", c->name, v < 0 ? ki->name : g->def[c->kind].v[v].name);
        if (chance(r, 8)) add_step(g, 2, "#pragma npu inline(%s)\n", c->name); /* the variant's statements, inlined */
      }
    }
  }
  /* 3. scopes of intermediates */
  for (int a = 0; a < g->narr; a++)
    if (g->arr[a].local && chance(r, 25)) add_step(g, 1, "#pragma npu set_scope(%s, %s)\n", g->arr[a].name, scope_name(r, true));
  /* 4. loop steps across inlined calls (of the kernel as written) and the program's own nest */
  int nloop = 0, fresh = 0;
  for (int i = 0; i < g->ncalls && nloop < 3; i++) {
    Call *c = &g->call[i];
    const KindInfo *ki = &kinds[c->kind];
    if (!is_open(c, act[i])) continue;
    Call *n = i + 1 < g->ncalls && is_open(&g->call[i + 1], act[i + 1]) ? &g->call[i + 1] : NULL;
    char ci[32], cj[32], cs[40], ni[32], nj[32];
    open_names(c, ci, cj, cs);
    if (n) open_names(n, ni, nj, NULL);
    int x = below(r, 100);
    if (n && ki->map && kinds[n->kind].map && !c->loop[0] && !n->loop[0] && x < 45) {
      if (chance(r, 70)) {
        add_step(g, 3, "#pragma npu merge(%s, %s)\n", ci, ni);
        if (chance(r, 70)) add_step(g, 3, "#pragma npu merge(%s, %s)\n", cj, nj);
      } else {
        add_step(g, 3, "#pragma npu compute_at(%s, %s)\n", cs, chance(r, 60) ? ni : nj);
      }
      nloop++;
    } else if (ki->map && x < 60) {
      add_step(g, 3, "#pragma npu split(%s, %d, q%d, q%d)\n", ci, pick(r, (int[]){2, 4, 3}, 3), fresh, fresh + 1);
      fresh += 2;
      nloop++;
    } else if (ki->map && x < 72) {
      add_step(g, 3, "#pragma npu reorder(%s, %s)\n", cj, ci);
      nloop++;
    } else if (ki->map && x < 90 && g->arr[c->args[ki->narrays - 1]].local) {
      add_step(g, 3, "#pragma npu compute_inline(%s)\n", cs);
      nloop++;
    } else if (c->loop[0] && x < 100) {
      add_step(g, 3, "#pragma npu unroll(%s)\n", c->loop);
      nloop++;
    }
  }
  for (int i = 0; i < g->ncalls; i++) /* a loop around a call that stays one */
    if (g->call[i].loop[0] && act[i] != ACT_INLINE && chance(r, 15)) add_step(g, 3, "#pragma npu unroll(%s)\n", g->call[i].loop);
  if (!g->nsteps) add_step(g, 2, "#pragma npu use(%s, %s)\n", g->call[0].name, kinds[g->call[0].kind].name);
  /* 5. the order: the docs' (layouts, scopes, use/inline, loops), or shuffled */
  if (chance(r, g->pad_chain ? 8 : 22)) {
    for (int i = g->nsteps - 1; i > 0; i--) {
      int j = below(r, i + 1);
      Step t = g->step[i];
      g->step[i] = g->step[j];
      g->step[j] = t;
    }
  } else {
    for (int i = 1; i < g->nsteps; i++) /* stable insertion sort by class */
      for (int j = i; j > 0 && g->step[j - 1].cls > g->step[j].cls; j--) {
        Step t = g->step[j];
        g->step[j] = g->step[j - 1];
        g->step[j - 1] = t;
      }
  }
}

/* ---------------- the file ---------------- */

static void write_kernel(const Gen *g, int kind, StrBuf *sb) {
  const char *T = g->type;
  switch (kind) {
  case K_SCALE:
    sb_printf(sb, "void scale(const %s X[N][M], %s Y[N][M], int k) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++)\n      mul: Y[i][j] = X[i][j] * k + 1;\n}\n", T, T);
    break;
  case K_RELU:
    sb_printf(sb, "void relu(const %s X[N][M], %s Y[N][M]) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++)\n      rl: Y[i][j] = X[i][j] > 0 ? X[i][j] : 0;\n}\n", T, T);
    break;
  case K_ADD:
    sb_printf(sb, "void add(const %s X[N][M], const %s Y[N][M], %s Z[N][M]) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++)\n      ad: Z[i][j] = X[i][j] + Y[i][j];\n}\n", T, T, T);
    break;
  case K_TR:
    sb_printf(sb, "void tr(const %s X[N][M], %s Y[N][M]) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++)\n      tp: Y[j][i] = X[i][j];\n}\n", T, T);
    break;
  case K_MM:
    sb_printf(sb, "void mm(const %s X[N][M], const %s W[M][M], %s Y[N][M]) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++) {\n      init: Y[i][j] = 0;\n      for (int k = 0; k < M; k++)\n"
                  "        upd: Y[i][j] += X[i][k] * W[k][j];\n    }\n}\n", T, T, T);
    break;
  case K_RSUM:
    sb_printf(sb, "void rsum(const %s X[N][M], %s Z[N]) {\n  for (int i = 0; i < N; i++) {\n    z: Z[i] = 0;\n"
                  "    for (int j = 0; j < M; j++)\n      acc: Z[i] += X[i][j];\n  }\n}\n", T, T);
    break;
  case K_MM8:
    sb_printf(sb, "void mm8(const int8_t X[N][M], const int8_t W[M][M], int32_t Y[N][M]) {\n"
                  "  for (int i = 0; i < N; i++)\n    for (int j = 0; j < M; j++) {\n      init: Y[i][j] = 0;\n"
                  "      for (int k = 0; k < M; k++)\n        upd: Y[i][j] += (int32_t)X[i][k] * (int32_t)W[k][j];\n"
                  "    }\n}\n");
    break;
  case K_BIAS:
    sb_printf(sb, "void bias(const %s X[N][M], const %s b[N], %s Y[N][M]) {\n  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < M; j++)\n      bs: Y[i][j] = X[i][j] + b[i];\n}\n", T, T, T);
    break;
  default: break;
  }
}

static const char *shape_text(int shape) { return shape == SH_N ? "[N]" : shape == SH_MM ? "[M][M]" : "[N][M]"; }

static void write_program(const Gen *g, StrBuf *sb) {
  sb_puts(sb, "void prog(");
  bool first = true;
  for (int pass = 0; pass < 2; pass++) /* inputs, then outputs */
    for (int a = 0; a < g->narr; a++) {
      const Arr *x = &g->arr[a];
      if (!x->param || x->is_const != (pass == 0)) continue;
      sb_printf(sb, "%s%s%s %s%s", first ? "" : ", ", x->is_const ? "const " : "", x->i8 ? "int8_t" : g->type, x->name,
                shape_text(x->shape));
      first = false;
    }
  sb_puts(sb, ") {\n");
  for (int a = 0; a < g->narr; a++)
    if (g->arr[a].local) sb_printf(sb, "  %s %s%s;\n", g->type, g->arr[a].name, shape_text(g->arr[a].shape));
  for (int i = 0; i < g->ncalls; i++) {
    const Call *c = &g->call[i];
    const KindInfo *ki = &kinds[c->kind];
    const char *indent = "  ";
    if (c->kind == K_HOST) { /* h: Y = X * 2 + 1, loops hi and hj */
      sb_printf(sb, "  hi: for (int i = 0; i < N; i++)\n    hj: for (int j = 0; j < M; j++)\n"
                    "      h: %s[i][j] = %s[i][j] * 2 + 1;\n", g->arr[c->args[1]].name, g->arr[c->args[0]].name);
      continue;
    }
    if (c->loop[0]) {
      sb_printf(sb, "  for (int %s = 0; %s < 2; %s++)\n", c->loop, c->loop, c->loop);
      indent = "    ";
    }
    sb_printf(sb, "%s%s%s%s(", indent, c->label, c->label[0] ? ": " : "", ki->name);
    for (int p = 0; p < ki->narrays; p++) sb_printf(sb, "%s%s", p ? ", " : "", g->arr[c->args[p]].name);
    if (ki->scalar) {
      if (c->loop[0]) sb_printf(sb, ", %s + %d", c->loop, c->scalar);
      else sb_printf(sb, ", %d", c->scalar);
    }
    sb_puts(sb, ");\n");
  }
  sb_puts(sb, "}\n");
}

/* Random variants of a kernel that no call picked: 1-3 in some files. */
static void extra_variants(Gen *g) {
  for (int o = 0; o < g->nkinds; o++) {
    int kind = g->kind_order[o];
    if (g->def[kind].nvariants || !chance(&g->r, 40)) continue;
    Layout ly[3] = {{.kind = LY_LOGICAL}, {.kind = LY_LOGICAL}, {.kind = LY_LOGICAL}};
    int p = below(&g->r, kinds[kind].narrays);
    if (chance(&g->r, 40)) ly[p] = random_layout(&g->r, &g->z, kinds[kind].pshape[p]);
    variant_for(g, kind, ly);
  }
}

char *pg_generate(uint64_t seed) {
  Gen *g = calloc(1, sizeof *g);
  g->r.state = seed * 0x2545f4914f6cdd1dull + 0x70726f67ull;
  Rng *r = &g->r;
  g->pad_chain = chance(r, 20);
  g->is_float = chance(r, g->pad_chain ? 75 : 50);
  g->type = g->is_float ? "float" : "int32_t";
  if (chance(r, 25)) g->z.n = g->z.m = pick(r, (int[]){8, 16}, 2);
  else {
    g->z.n = pick(r, (int[]){4, 8, 12, 16}, 4);
    g->z.m = pick(r, (int[]){6, 8, 12, 16, 32}, 5);
  }
  if (g->pad_chain) {
    g->z.m = pick(r, (int[]){6, 12, 10}, 3);
    g->pad_ly = (Layout){.kind = LY_SPLIT, .axis = 1, .f = g->z.m == 12 ? 8 : 4, .padded = true, .pad = 0};
  }
  gen_chain(g);
  name_calls(g);
  gen_program_schedule(g);
  extra_variants(g);

  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "/* prog_random: seed %llu */\n#include <stdint.h>\n#define N %d\n#define M %d\n",
            (unsigned long long)seed, g->z.n, g->z.m);
  for (int o = 0; o < g->nkinds; o++) {
    int kind = g->kind_order[o];
    write_kernel(g, kind, &sb);
    for (int v = 0; v < g->def[kind].nvariants; v++) {
      sb_puts(&sb, g->def[kind].v[v].steps);
      free(g->def[kind].v[v].steps);
    }
  }
  write_program(g, &sb);
  sb_printf(&sb, "#pragma npu schedule(prog, %s)\n", PG_PROGRAM_VARIANT);
  for (int i = 0; i < g->nsteps; i++) {
    sb_puts(&sb, g->step[i].text);
    free(g->step[i].text);
  }
  free(g);
  return sb_take(&sb);
}

/* ---------------- running a case ---------------- */

static void set_message(PgCase *c, PgOutcome o, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_message(PgCase *c, PgOutcome o, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  if (c->message) sb_printf(&sb, "%s\n", c->message);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  free(c->message);
  c->message = sb_take(&sb);
  if (o > c->outcome || c->outcome == PG_PASSED) c->outcome = o;
}

/* "k.c:LINE:COL: error: " with a line and column past 0. */
static bool clear_message(const char *errs) {
  /* the first error's line (warnings, with their source lines, may come first) */
  for (const char *l = errs; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
    const char *nl = strchr(l, '\n'), *e = strstr(l, ": error: ");
    if (!e || (nl && e > nl)) continue;
    int line = 0, col = 0, n = 0;
    return sscanf(l, "k.c:%d:%d: error: %n", &line, &col, &n) == 2 && n > 0 && line > 0 && col > 0;
  }
  return false;
}

/* The names of the file's variants other than the program's, from its
 * schedule lines; counts the program's steps. */
static int schedule_names(const char *src, char names[][48], int max, int *program_steps) {
  int n = 0;
  bool in_program = false;
  *program_steps = 0;
  for (const char *p = strstr(src, "#pragma npu "); p; p = strstr(p + 1, "#pragma npu ")) {
    char k[48], v[48];
    if (sscanf(p, "#pragma npu schedule(%47[^,], %47[^)])", k, v) == 2) {
      in_program = !strcmp(v, PG_PROGRAM_VARIANT);
      if (!in_program && n < max) snprintf(names[n++], 48, "%s", v);
    } else if (in_program) {
      ++*program_steps;
    }
  }
  return n;
}

static void check_variant(NpgSession *s, int v, PgCase *c) {
  for (uint64_t seed = 1; seed <= 2; seed++) {
    NpgCheckResult res;
    if (!npg_check(s, v, seed, &res)) {
      set_message(c, PG_FAILED, "variant %s does not match its kernel as written (check seed %llu): %s",
                  npg_variant_name(s, v), (unsigned long long)seed, res.message);
      return;
    }
  }
  c->checked++;
}

/* Emits the program variant again from a session of its own: the same text. */
static void check_deterministic(NpgSession *s, int v, const char *src, PgCase *c) {
  NpgSession *t = npg_open_string("k.c", src, strlen(src));
  int w = npg_variant_index(t, PG_PROGRAM_VARIANT);
  if (w < 0) set_message(c, PG_FAILED, "the program variant built once, but not when the file was opened again");
  else if (strcmp(npg_emit_source(s, v), npg_emit_source(t, w)))
    set_message(c, PG_FAILED, "emission is not deterministic: two sessions emit different C for %s", PG_PROGRAM_VARIANT);
  else if (strcmp(npg_emit_header(s, v), npg_emit_header(t, w)))
    set_message(c, PG_FAILED, "emission is not deterministic: two sessions emit different headers for %s",
                PG_PROGRAM_VARIANT);
  npg_close(t);
}

bool pg_run_case(uint64_t seed, const char *src, PgCase *c) {
  memset(c, 0, sizeof *c);
  c->seed = seed;
  c->file = strdup(src);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  const char *errs = npg_error_count(s) ? npg_errors(s) : NULL;
  char names[3 * NKINDS][48];
  int nnames = schedule_names(src, names, 3 * NKINDS, &c->program_steps);
  c->callee_variants = nnames;
  for (int i = 0; i < nnames; i++) c->callee_refused += npg_variant_index(s, names[i]) < 0;
  int pv = npg_variant_index(s, PG_PROGRAM_VARIANT);
  if (errs) {
    c->message = strdup(errs);
    if (strstr(errs, "internal error")) c->outcome = PG_INTERNAL;
    else if (!clear_message(errs)) set_message(c, PG_FAILED, "the error above has no `k.c:LINE:COL: error:` location");
    else c->outcome = PG_REFUSED;
  }
  if (pv < 0 && !errs) set_message(c, PG_FAILED, "%s was not built, and there is no error message", PG_PROGRAM_VARIANT);
  /* every scheduled variant the file built: the callees' and the program's */
  for (int v = 0; v < npg_variant_count(s); v++)
    if (npg_variant_schedule(s, v)) check_variant(s, v, c);
  if (pv >= 0 && c->outcome != PG_FAILED) check_deterministic(s, pv, src, c);
  if (c->outcome != PG_INTERNAL && c->outcome != PG_FAILED) /* a callee variant alone may be refused */
    c->outcome = pv >= 0 ? PG_PASSED : PG_REFUSED;
  npg_close(s);
  return c->outcome != PG_INTERNAL && c->outcome != PG_FAILED;
}

void pg_case_free(PgCase *c) {
  free(c->file);
  free(c->message);
  memset(c, 0, sizeof *c);
}

char *pg_case_describe(const PgCase *c) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "== %s: prog_random seed %llu\n-- message:\n%s\n-- file (k.c):\n%s", pg_outcome_name(c->outcome),
            (unsigned long long)c->seed, c->message ? c->message : "", c->file ? c->file : "");
  return sb_take(&sb);
}

void pg_counts_add(PgCounts *n, const PgCase *c) {
  n->cases++;
  n->outcome[c->outcome]++;
  n->callee_variants += c->callee_variants;
  n->callee_refused += c->callee_refused;
  n->checked += c->checked;
  n->program_steps += c->program_steps;
  if ((c->outcome == PG_FAILED || c->outcome == PG_INTERNAL) && n->failures_len < PG_MAX_FAILURE_TEXT) {
    char *t = pg_case_describe(c);
    size_t len = strlen(t);
    n->failures = realloc(n->failures, n->failures_len + len + 1);
    memcpy(n->failures + n->failures_len, t, len + 1);
    n->failures_len += len;
    free(t);
  }
}

void pg_counts_free(PgCounts *n) {
  free(n->failures);
  memset(n, 0, sizeof *n);
}

char *pg_counts_summary(const PgCounts *n) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%ld cases: passed %ld, refused %ld, internal errors %ld, failed %ld; %ld program steps; callee "
                 "variants %ld, of them refused %ld; %ld variants checked\n",
            n->cases, n->outcome[PG_PASSED], n->outcome[PG_REFUSED], n->outcome[PG_INTERNAL], n->outcome[PG_FAILED],
            n->program_steps, n->callee_variants, n->callee_refused, n->checked);
  return sb_take(&sb);
}
