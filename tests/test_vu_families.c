/* The VU's op families (npu_intrinsics/npu_vu_families.def): the generated
 * files are what the table gives, and every member, run in the simulator,
 * equals its semantics kernel JIT-run with libtcc, bit for bit, on operands
 * that pair every special value with every other: NaNs (quiet, negative,
 * with a payload, signaling), -0 and +0, the infinities, the smallest
 * subnormal and the integer extremes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"
#include "npu_intrinsics.h"
#include "npugen.h"
#include "schedule/vu_families.h"
#include "test_sched_util.h"
#include "test_sim_util.h"

Test(vu_families, generated_files_are_the_tables) {
  int n;
  const SchedVuOp *ops = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    char path[256];
    snprintf(path, sizeof path, "npu_intrinsics/%s.c", ops[i].name);
    char *text = read_file(path, NULL);
    cr_assert_not_null(text, "%s is missing: run make vu-ops", path);
    StrBuf want;
    sb_init(&want);
    sched_vu_op_semantics(&ops[i], &want);
    cr_expect_str_eq(text, want.data, "%s is stale: run make vu-ops", path);
    sb_free(&want);
    free(text);
  }
  char *h = read_file("npu_intrinsics/npu_vu_families.h", NULL);
  cr_assert_not_null(h);
  StrBuf want;
  sb_init(&want);
  sched_vu_ops_header(&want);
  cr_expect_str_eq(h, want.data, "npu_vu_families.h is stale: run make vu-ops");
  sb_free(&want);
  free(h);
}

/* A generated file whose row is gone would still be matched: none is left. */
Test(vu_families, every_generated_file_has_its_row) {
  FILE *ls = popen("grep -l 'Generated from npu_vu_families.def' npu_intrinsics/*.c", "r");
  cr_assert_not_null(ls);
  char line[512];
  int files = 0;
  while (fgets(line, sizeof line, ls)) {
    char name[256];
    cr_assert_eq(sscanf(line, "npu_intrinsics/%255[a-z0-9_].c", name), 1, "%s", line);
    cr_expect_not_null(sched_vu_op(name), "%s.c says it is generated, but the table has no row %s", name, name);
    files++;
  }
  pclose(ls);
  int n;
  sched_vu_ops(&n);
  cr_expect_eq(files, n);
}

static const uint32_t f32_special[] = {
    0x00000000u, 0x80000000u, 0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0x7f812345u, 0x7f800000u,
    0xff800000u, 0x3f800000u, 0xbf800000u, 0x00000001u, 0x7f7fffffu, 0xc0490fdbu, 0x3eaaaaabu,
};
static const int32_t i32_special[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 7, 65535, INT32_MAX - 1, INT32_MAX};
static const int8_t i8_special[] = {-128, -127, -1, 0, 1, 63, 126, 127};

enum { ESZ_MAX = 4 };

/* Element k of the special values of a type, as bytes into p. */
static int specials(const char *type) {
  return !strcmp(type, "f32") ? (int)(sizeof f32_special / 4) : !strcmp(type, "i32") ? (int)(sizeof i32_special / 4)
                                                                                     : (int)sizeof i8_special;
}
static void special(const char *type, int k, void *p) {
  if (!strcmp(type, "f32")) memcpy(p, &f32_special[k], 4);
  else if (!strcmp(type, "i32")) memcpy(p, &i32_special[k], 4);
  else memcpy(p, &i8_special[k], 1);
}
static int esz(const char *type) { return !strcmp(type, "i8") ? 1 : 4; }

typedef struct {
  uint8_t *dst, *m, *a, *b, *c; /* m: a byte mask */
  int n;
} Operands;

/* n = S*S elements: a[i] the (i % S)th special value, b[i] the (i / S)th,
 * c[i] the ((i + 3) % S)th; m[i] 0, 1 or 255. */
static Operands operands(const char *type, int S) {
  Operands o;
  o.n = S * S;
  size_t bytes = (size_t)o.n * (size_t)esz(type);
  o.dst = calloc(1, bytes), o.a = malloc(bytes), o.b = malloc(bytes), o.c = malloc(bytes), o.m = malloc((size_t)o.n);
  for (int i = 0; i < o.n; i++) {
    special(type, i % S, o.a + i * esz(type));
    special(type, i / S, o.b + i * esz(type));
    special(type, (i + 3) % S, o.c + i * esz(type));
    o.m[i] = (uint8_t)(i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 255);
  }
  return o;
}

static void operands_free(Operands *o) {
  free(o->dst), free(o->m), free(o->a), free(o->b), free(o->c);
}

static void *sim_entry(const char *name) {
  size_t count;
  const NpuSimSymbol *sym = npusim_symbols(&count);
  char at[128];
  snprintf(at, sizeof at, "%s_at", name);
  for (size_t i = 0; i < count; i++)
    if (!strcmp(sym[i].name, at)) return (void *)sym[i].addr;
  cr_assert_fail("libnpusim has no %s", at);
  return NULL;
}

typedef void (*SimP3)(const char *, int, void *, const void *, const void *, int);
typedef void (*SimP4)(const char *, int, void *, const void *, const void *, const void *, int);
typedef void (*SimP5)(const char *, int, void *, const void *, const void *, const void *, const void *, int);
typedef void (*SimP2)(const char *, int, void *, const void *, int);
typedef void (*SimStr)(const char *, int, void *, const void *, const void *, int, int, int);
typedef void (*SimPlane)(const char *, int, void *, const void *, const void *, int, int, int, int, int, int, int,
                         int, int);
typedef void (*SimBox)(const char *, int, void *, const void *, int, int, int, int);
typedef void (*SimRows)(const char *, int, void *, const void *, const void *, int, int, int, int);
typedef void (*SimRed)(const char *, int, void *, const void *, int, int, int);
typedef void (*SimCols)(const char *, int, void *, const void *, const void *, const void *, int, int, int, int);
typedef void (*SimSelT)(const char *, int, void *, const void *, const void *, const void *, int, float);
typedef void (*SimSelTC)(const char *, int, void *, const void *, const void *, const void *, int, float, float);
typedef void (*SimSelTE)(const char *, int, void *, const void *, const void *, int, float, float);
typedef void (*SimSelE)(const char *, int, void *, const void *, const void *, int, float);
typedef void (*SemSelT)(void *, const void *, const void *, const void *, float);
typedef void (*SemSelTC)(void *, const void *, const void *, const void *, float, float);
typedef void (*SemSelTE)(void *, const void *, const void *, float, float);
typedef void (*SemSelE)(void *, const void *, const void *, float);
typedef void (*SimFill)(const char *, int, void *, int, int, int, int32_t);
typedef void (*SimVsF)(const char *, int, void *, const void *, int, float);
typedef void (*SimVsI)(const char *, int, void *, const void *, int, int32_t);
typedef void (*SemP3)(void *, const void *, const void *);
typedef void (*SemP4)(void *, const void *, const void *, const void *);
typedef void (*SemP5)(void *, const void *, const void *, const void *, const void *);
typedef void (*SemP2)(void *, const void *);
typedef void (*SemVsF)(void *, const void *, float);
typedef void (*SemVsI)(void *, const void *, int32_t);

/* The strides of the str form's checks: a's elements 2 apart, b's 3. */
enum { STR_SA = 2, STR_SB = 3 };

/* The elements a 1-D check runs over: all of o's, or for the str form as
 * many as b's stride leaves room for. */
static int check_n(const SchedVuOp *op, int n) { return strcmp(op->form, "str") ? n : (n - 1) / STR_SB + 1; }

/* Calls the 1-D member op's simulator entry fn on these operands (s: the
 * scalar of a vs form, as a float or an int). */
static void call_sim(const SchedVuOp *op, void *fn, void *vd, const void *vmk, const void *va, const void *vb,
                     const void *vc, int n, float sf, int32_t si) {
  const char *f = op->form;
  if (!strcmp(f, "vv") || !strcmp(f, "cmp")) ((SimP3)fn)("t.c", 1, vd, va, vb, n);
  else if (!strcmp(f, "un") || !strncmp(f, "from_", 5)) ((SimP2)fn)("t.c", 1, vd, va, n);
  else if (!strcmp(f, "rows") || !strncmp(f, "box_acc_", 8) || !strcmp(f, "red2_zero"))
    ((SimRows)fn)("t.c", 1, vd, va, vb, 1, n, n, n); /* one row */
  else if (!strcmp(f, "cols2")) ((SimCols)fn)("t.c", 1, vd, va, vb, vc, 1, n, n, n);
  else if (!strcmp(f, "box_un")) ((SimBox)fn)("t.c", 1, vd, va, 1, n, n, n);
  else if (!strncmp(f, "red_", 4)) ((SimRed)fn)("t.c", 1, vd, va, 1, n, n);
  else if (!strcmp(f, "fill")) ((SimFill)fn)("t.c", 1, (void *)va, 1, n, n, si); /* its one operand, dst, where a goes */
  else if (!strcmp(f, "str")) ((SimStr)fn)("t.c", 1, vd, va, vb, n, STR_SA, STR_SB);
  else if (!strcmp(f, "str_plane")) ((SimPlane)fn)("t.c", 1, vd, va, vb, 1, n, 1, 1, 1, 1, n, n, n); /* one row */
  else if (!strcmp(f, "sel")) ((SimP4)fn)("t.c", 1, vd, vmk, va, vb, n);
  else if (!strcmp(f, "sel_t")) ((SimSelT)fn)("t.c", 1, vd, vmk, va, vb, n, sf);
  else if (!strcmp(f, "sel_tc")) ((SimSelTC)fn)("t.c", 1, vd, vmk, va, vb, n, sf, sf);
  else if (!strcmp(f, "sel_te")) ((SimSelTE)fn)("t.c", 1, vd, vmk, va, n, sf, sf);
  else if (!strcmp(f, "sel_e")) ((SimSelE)fn)("t.c", 1, vd, vmk, va, n, sf);
  else if (!strcmp(f, "sel_pq")) ((SimP5)fn)("t.c", 1, vd, vmk, vc, va, vb, n); /* p, q, then a, b */
  else if (!strcmp(f, "mask")) ((SimP5)fn)("t.c", 1, vd, vmk, va, vb, vc, n);
  else if (!strcmp(op->type, "f32")) ((SimVsF)fn)("t.c", 1, vd, va, n, sf);
  else ((SimVsI)fn)("t.c", 1, vd, va, n, si);
}

/* Arithmetic that makes a NaN leaves its sign and payload open in C (tcc's
 * unary minus keeps a NaN's sign, which IEEE's negate flips), and the check
 * compares NaNs as NaNs: there, NaN for NaN. Everything else, and every
 * result of fmax, fmin, abs, the compares, selects and moves, bit for bit. */
static bool arithmetic(const char *op) {
  return !strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") || !strcmp(op, "div") || !strcmp(op, "neg") ||
         !strcmp(op, "window_sum") || !strcmp(op, "window_avg") || !strcmp(op, "reduce_sum") ||
         !strcmp(op, "select_muls") || !strcmp(op, "muladd") || !strcmp(op, "reduce_dot");
}

static bool same_value(const SchedVuOp *op, const uint8_t *want, const uint8_t *got, int bytes) {
  if (!memcmp(want, got, (size_t)bytes)) return true;
  if (strcmp(op->type, "f32") || !arithmetic(op->op)) return false;
  float w, g;
  memcpy(&w, want, 4), memcpy(&g, got, 4);
  return isnan(w) && isnan(g);
}

/* Runs the 1-D member op on o, once in the simulator and once as its
 * semantics (vs: with scalar number k of the special values), and compares
 * the bytes of dst. */
static void check_1d(const SchedVuOp *op, void *sem, const Operands *o, int k) {
  const char *f = op->form;
  int n = check_n(op, o->n), out = !strcmp(f, "cmp") ? 1 : esz(op->type);
  uint8_t *want = calloc((size_t)n, (size_t)out), *got = calloc((size_t)n, (size_t)out);
  uint8_t s[ESZ_MAX] = {0};
  special(op->type, k, s);
  float sf;
  int32_t si;
  memcpy(&sf, s, 4);
  memcpy(&si, s, 4);
  void *fn = sim_entry(op->name);
  NpuSim *sim = simt_new();
  int32_t *vm = npu_scope_base(NPU_VU_VM, 0); /* operands in VM: dst, m, a, b, c */
  size_t bytes = (size_t)o->n * (size_t)esz(op->type);
  uint8_t *vd = (uint8_t *)vm, *vmk = vd + bytes, *va = vmk + o->n, *vb = va + bytes, *vc = vb + bytes;
  memcpy(vmk, o->m, (size_t)o->n), memcpy(va, o->a, bytes), memcpy(vb, o->b, bytes), memcpy(vc, o->c, bytes);
  bool is_f = !strcmp(op->type, "f32");
  call_sim(op, fn, vd, vmk, va, vb, vc, n, sf, si);
  if (!strcmp(f, "vv") || !strcmp(f, "cmp") || !strcmp(f, "str")) ((SemP3)sem)(want, o->a, o->b);
  else if (!strcmp(f, "un")) ((SemP2)sem)(want, o->a);
  else if (!strcmp(f, "sel")) ((SemP4)sem)(want, o->m, o->a, o->b);
  else if (!strcmp(f, "mask")) ((SemP5)sem)(want, o->m, o->a, o->b, o->c);
  else if (is_f) ((SemVsF)sem)(want, o->a, sf);
  else ((SemVsI)sem)(want, o->a, si);
  npusim_finish(sim);
  cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
  memcpy(got, vd, (size_t)n * (size_t)out);
  simt_free(sim);
  for (int i = 0; i < n; i++)
    cr_assert(same_value(op, want + i * out, got + i * out, out),
                 "%s, element %d (a = special %d, b = special %d, s = special %d): semantics %08x, simulator %08x",
                 op->name, i, i % specials(op->type), i / specials(op->type), k,
                 out == 1 ? want[i] : *(uint32_t *)(want + i * out), out == 1 ? got[i] : *(uint32_t *)(got + i * out));
  free(want);
  free(got);
}

static void *compile_member(TccUnit **unit, const SchedVuOp *op, const char *const *defs) {
  char *src = simt_kernel_source(op->name, defs);
  char file[96];
  snprintf(file, sizeof file, "%s.c", op->name);
  *unit = simt_compile(src, file);
  free(src);
  void *fn = tcc_unit_symbol(*unit, op->name);
  cr_assert_not_null(fn, "%s.c does not define %s", op->name, op->name);
  return fn;
}

typedef struct {
  int rows, cols, kh, kw, sh, sw, ldd, lda;
} WindowCase;

static const WindowCase windows_cases[] = {
    {4, 5, 2, 2, 2, 2, 5, 10}, {3, 4, 3, 3, 1, 1, 6, 8}, {1, 1, 1, 1, 1, 1, 1, 1}, {2, 3, 2, 3, 2, 1, 3, 7}, {5, 2, 4, 1, 1, 3, 2, 4},
};

typedef void (*SimWin)(const char *, int, void *, const void *, int, int, int, int, int, int, int, int);
typedef void (*SimWinS)(const char *, int, void *, const void *, int, int, int, int, int, int, int, int, float);
typedef void (*SemWinS)(void *, const void *, float);

/* The window member op over the case w, a filled with the special values
 * in a seeded order (each window meets several), for avg divided by a few
 * special scalars. */
static void check_window(const SchedVuOp *op, const WindowCase *w, int S) {
  char d[8][32];
  const char *keys[] = {"ROWS", "COLS", "KH", "KW", "SH", "SW", "LDD", "LDA"};
  const int vals[] = {w->rows, w->cols, w->kh, w->kw, w->sh, w->sw, w->ldd, w->lda};
  const char *defs[9];
  for (int i = 0; i < 8; i++) snprintf(d[i], sizeof d[i], "%s=%d", keys[i], vals[i]), defs[i] = d[i];
  defs[8] = NULL;
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  int e = esz(op->type), ah = (w->rows - 1) * w->sh + w->kh;
  size_t abytes = (size_t)ah * (size_t)w->lda * (size_t)e, dbytes = (size_t)w->rows * (size_t)w->ldd * (size_t)e;
  uint8_t *a = malloc(abytes), *want = calloc(1, dbytes), *got = calloc(1, dbytes);
  SimtRng r;
  simt_seed(&r, 40);
  for (size_t i = 0; i < abytes / (size_t)e; i++) special(op->type, simt_range(&r, 0, S - 1), a + i * (size_t)e);
  bool avg = !strcmp(op->form, "win_avg");
  const float scales[] = {4.0f, -0.0f, INFINITY, NAN, 3.0f};
  for (int k = 0; k < (avg ? 5 : 1); k++) {
    NpuSim *sim = simt_new();
    uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *va = vd + dbytes;
    memcpy(va, a, abytes);
    memset(want, 0, dbytes);
    memset(vd, 0, dbytes);
    if (avg) {
      ((SimWinS)sim_entry(op->name))("t.c", 1, vd, va, w->rows, w->cols, w->kh, w->kw, w->sh, w->sw, w->ldd, w->lda,
                                     scales[k]);
      ((SemWinS)sem)(want, a, scales[k]);
    } else {
      ((SimWin)sim_entry(op->name))("t.c", 1, vd, va, w->rows, w->cols, w->kh, w->kw, w->sh, w->sw, w->ldd, w->lda);
      ((SemP2)sem)(want, a);
    }
    npusim_finish(sim);
    cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
    memcpy(got, vd, dbytes);
    simt_free(sim);
    for (int rr = 0; rr < w->rows; rr++)
      for (int c = 0; c < w->cols; c++) {
        size_t at = ((size_t)rr * (size_t)w->ldd + (size_t)c) * (size_t)e;
        cr_assert(same_value(op, want + at, got + at, e), "%s %dx%d window %dx%d step %dx%d, (%d, %d), scale %d",
                     op->name, w->rows, w->cols, w->kh, w->kw, w->sh, w->sw, rr, c, k);
      }
  }
  free(a), free(want), free(got);
  tcc_unit_free(unit);
}

typedef struct {
  int rows, cols, ra, sa, rb, sb, ldd, lda, ldb;
} PlaneCase;

static const PlaneCase plane_cases[] = {
    {4, 5, 2, 2, 2, 2, 5, 10, 10}, {3, 7, 1, 1, 2, 3, 7, 7, 21}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {5, 4, 1, 2, 3, 1, 6, 8, 4},
};

/* The plane member op over case p, a and b filled with the special values
 * in a seeded order (each pair meets in some element). */
static void check_plane(const SchedVuOp *op, const PlaneCase *p, int S) {
  char d[9][32];
  const char *keys[] = {"ROWS", "COLS", "RA", "SA", "RB", "SB", "LDD", "LDA", "LDB"};
  const int vals[] = {p->rows, p->cols, p->ra, p->sa, p->rb, p->sb, p->ldd, p->lda, p->ldb};
  const char *defs[10];
  for (int i = 0; i < 9; i++) snprintf(d[i], sizeof d[i], "%s=%d", keys[i], vals[i]), defs[i] = d[i];
  defs[9] = NULL;
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  int e = esz(op->type);
  size_t abytes = (size_t)((p->rows - 1) * p->ra + 1) * (size_t)p->lda * (size_t)e;
  size_t bbytes = (size_t)((p->rows - 1) * p->rb + 1) * (size_t)p->ldb * (size_t)e;
  size_t dbytes = (size_t)p->rows * (size_t)p->ldd * (size_t)e;
  uint8_t *a = malloc(abytes), *b = malloc(bbytes), *want = calloc(1, dbytes), *got = calloc(1, dbytes);
  SimtRng r;
  simt_seed(&r, 41);
  for (size_t i = 0; i < abytes / (size_t)e; i++) special(op->type, simt_range(&r, 0, S - 1), a + i * (size_t)e);
  for (size_t i = 0; i < bbytes / (size_t)e; i++) special(op->type, simt_range(&r, 0, S - 1), b + i * (size_t)e);
  NpuSim *sim = simt_new();
  uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *va = vd + dbytes, *vb = va + abytes;
  memcpy(va, a, abytes);
  memcpy(vb, b, bbytes);
  ((SimPlane)sim_entry(op->name))("t.c", 1, vd, va, vb, p->rows, p->cols, p->ra, p->sa, p->rb, p->sb, p->ldd, p->lda,
                                  p->ldb);
  ((SemP3)sem)(want, a, b);
  npusim_finish(sim);
  cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
  memcpy(got, vd, dbytes);
  simt_free(sim);
  for (int rr = 0; rr < p->rows; rr++)
    for (int c = 0; c < p->cols; c++) {
      size_t at = ((size_t)rr * (size_t)p->ldd + (size_t)c) * (size_t)e;
      cr_assert(same_value(op, want + at, got + at, e), "%s %dx%d steps a %dx%d b %dx%d, (%d, %d)", op->name, p->rows,
                p->cols, p->ra, p->sa, p->rb, p->sb, rr, c);
    }
  free(a), free(b), free(want), free(got);
  tcc_unit_free(unit);
}

/* A cast member over every special value of its source type (the form
 * names it: from_i8). */
static void check_cast(const SchedVuOp *op) {
  const char *from = op->form + 5;
  int S = specials(from), e = esz(op->type), ea = esz(from);
  char nd[32];
  snprintf(nd, sizeof nd, "N=%d", S);
  const char *defs[] = {nd, NULL};
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  uint8_t *a = malloc((size_t)S * (size_t)ea), *want = calloc((size_t)S, (size_t)e);
  for (int i = 0; i < S; i++) special(from, i, a + i * ea);
  NpuSim *sim = simt_new();
  /* a after dst, at a vector's boundary: a narrowing cast's dst (int8)
   * would leave a (int32) unaligned */
  uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *va = vd + ((size_t)S * (size_t)e + 63) / 64 * 64;
  memcpy(va, a, (size_t)S * (size_t)ea);
  ((SimP2)sim_entry(op->name))("t.c", 1, vd, va, S);
  ((SemP2)sem)(want, a);
  npusim_finish(sim);
  cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
  for (int i = 0; i < S; i++)
    cr_assert(!memcmp(want + i * e, vd + i * e, (size_t)e), "%s, special %d: semantics and simulator differ", op->name, i);
  simt_free(sim);
  free(a), free(want);
  tcc_unit_free(unit);
}

/* A box member over S x S elements: rows (a[r][c] the c-th special value,
 * b[r] the r-th: every pair meets), box_un and the row reductions (a the
 * special values in a seeded order). */
static void check_box(const SchedVuOp *op, int S) {
  bool rows = !strcmp(op->form, "rows"), reduce = !strncmp(op->form, "red_", 4);
  char d[4][32];
  snprintf(d[0], sizeof d[0], "ROWS=%d", S), snprintf(d[1], sizeof d[1], "COLS=%d", S);
  snprintf(d[2], sizeof d[2], reduce ? "LD=%d" : "LDD=%d", S), snprintf(d[3], sizeof d[3], "LDA=%d", S);
  const char *defs[] = {d[0], d[1], d[2], reduce ? NULL : d[3], NULL};
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  int e = esz(op->type);
  size_t abytes = (size_t)S * (size_t)S * (size_t)e, dbytes = reduce ? (size_t)S * (size_t)e : abytes;
  uint8_t *a = malloc(abytes), *b = malloc((size_t)S * (size_t)e), *want = calloc(1, dbytes);
  SimtRng r;
  simt_seed(&r, 42);
  for (int i = 0; i < S * S; i++) special(op->type, rows ? i % S : simt_range(&r, 0, S - 1), a + i * e);
  for (int i = 0; i < S; i++) special(op->type, i, b + i * e);
  NpuSim *sim = simt_new();
  uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *va = vd + abytes, *vb = va + abytes;
  memcpy(va, a, abytes), memcpy(vb, b, (size_t)S * (size_t)e);
  void *fn = sim_entry(op->name);
  if (rows) ((SimRows)fn)("t.c", 1, vd, va, vb, S, S, S, S), ((SemP3)sem)(want, a, b);
  else if (reduce) ((SimRed)fn)("t.c", 1, vd, va, S, S, S), ((SemP2)sem)(want, a);
  else ((SimBox)fn)("t.c", 1, vd, va, S, S, S, S), ((SemP2)sem)(want, a);
  npusim_finish(sim);
  cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
  for (size_t i = 0; i < dbytes / (size_t)e; i++)
    cr_assert(same_value(op, want + i * (size_t)e, vd + i * (size_t)e, e), "%s, element %zu", op->name, i);
  simt_free(sim);
  free(a), free(b), free(want);
  tcc_unit_free(unit);
}

typedef void (*SemFill)(void *, int32_t);

/* A fill member (int32) over a 3 x 5 box of rows 7 apart, with each
 * special value; the elements between the rows stay as they were. */
static void check_fill(const SchedVuOp *op) {
  const char *defs[] = {"ROWS=3", "COLS=5", "LDD=7", NULL};
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  int S = specials(op->type);
  for (int k = 0; k < S; k++) {
    int32_t value, want[21];
    special(op->type, k, &value);
    memset(want, 0x5a, sizeof want);
    NpuSim *sim = simt_new();
    int32_t *vd = npu_scope_base(NPU_VU_VM, 0);
    memset(vd, 0x5a, sizeof want);
    ((SimFill)sim_entry(op->name))("t.c", 1, vd, 3, 5, 7, value);
    ((SemFill)sem)(want, value);
    npusim_finish(sim);
    cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
    cr_assert(!memcmp(want, vd, sizeof want), "%s, value = special %d: semantics and simulator differ", op->name, k);
    simt_free(sim);
  }
  tcc_unit_free(unit);
}

/* A select with its compare in the instruction (fp32) over n = S*S
 * elements: the compared m (or p) the (i % S)th special value, q the
 * (i / S)th, a and b two other orders, a byte mask 0, 1 or 255; the
 * scalar t each special value in turn (e and c with it, shifted). */
static void check_select(const SchedVuOp *op, int S) {
  const char *f = op->form;
  int n = S * S;
  char nd[32];
  snprintf(nd, sizeof nd, "N=%d", n);
  const char *defs[] = {nd, NULL};
  TccUnit *unit;
  void *sem = compile_member(&unit, op, defs);
  size_t bytes = (size_t)n * 4;
  float *m = malloc(bytes), *q = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes), *want = malloc(bytes);
  uint8_t *mk = malloc((size_t)n);
  for (int i = 0; i < n; i++) {
    special("f32", i % S, &m[i]), special("f32", i / S, &q[i]);
    special("f32", (i + 3) % S, &a[i]), special("f32", (i / S + 5) % S, &b[i]);
    mk[i] = (uint8_t)(i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 255);
  }
  bool byte_mask = !strcmp(f, "sel_e");
  for (int k = 0; k < S; k++) {
    float t, e, c;
    special("f32", k, &t), special("f32", (k + 1) % S, &e), special("f32", (k + 2) % S, &c);
    NpuSim *sim = simt_new();
    uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *vm = vd + bytes, *vq = vm + bytes, *va = vq + bytes, *vb = va + bytes;
    memcpy(vm, byte_mask ? (void *)mk : (void *)m, byte_mask ? (size_t)n : bytes);
    memcpy(vq, q, bytes), memcpy(va, a, bytes), memcpy(vb, b, bytes);
    void *fn = sim_entry(op->name);
    if (!strcmp(f, "sel_t")) ((SimSelT)fn)("t.c", 1, vd, vm, va, vb, n, t), ((SemSelT)sem)(want, m, a, b, t);
    else if (!strcmp(f, "sel_tc")) ((SimSelTC)fn)("t.c", 1, vd, vm, va, vb, n, t, c), ((SemSelTC)sem)(want, m, a, b, t, c);
    else if (!strcmp(f, "sel_te")) ((SimSelTE)fn)("t.c", 1, vd, vm, va, n, t, e), ((SemSelTE)sem)(want, m, a, t, e);
    else if (byte_mask) ((SimSelE)fn)("t.c", 1, vd, vm, va, n, e), ((SemSelE)sem)(want, mk, a, e);
    else ((SimP5)fn)("t.c", 1, vd, vm, vq, va, vb, n), ((SemP5)sem)(want, m, q, a, b);
    npusim_finish(sim);
    cr_assert(!npusim_failed(sim), "%s: %s", op->name, npusim_error(sim));
    for (int i = 0; i < n; i++)
      cr_assert(same_value(op, (uint8_t *)&want[i], vd + (size_t)i * 4, 4), "%s, element %d, t = special %d", op->name,
                i, k);
    simt_free(sim);
  }
  free(m), free(q), free(a), free(b), free(want), free(mk);
  tcc_unit_free(unit);
}

/* Runs the three-operand box member op once in the simulator and once as
 * its semantics, both on the same operands (the semantics on host copies),
 * and compares the dst_bytes of dst. defs: the semantics' sizes. */
typedef struct {
  const SchedVuOp *op;
  void *sem;
  int rows, cols, ld1, ld2;          /* the call's sizes after rows and cols: ldd, lda (or lda, ldb) */
  uint8_t *dst, *a, *b, *g;          /* host operands: dst its value before the op */
  size_t dst_bytes, a_bytes, b_bytes, g_bytes;
} PairBox;

typedef void (*SemAcc)(void *, const void *, const void *);

static void run_pair_box(const PairBox *p, const char *what) {
  const char *f = p->op->form;
  uint8_t *want = malloc(p->dst_bytes);
  memcpy(want, p->dst, p->dst_bytes);
  NpuSim *sim = simt_new();
  uint8_t *vd = npu_scope_base(NPU_VU_VM, 0), *va = vd + p->dst_bytes, *vb = va + p->a_bytes, *vg = vb + p->b_bytes;
  memcpy(vd, p->dst, p->dst_bytes), memcpy(va, p->a, p->a_bytes), memcpy(vb, p->b, p->b_bytes);
  if (p->g) memcpy(vg, p->g, p->g_bytes);
  void *fn = sim_entry(p->op->name);
  if (!strcmp(f, "cols2")) {
    ((SimCols)fn)("t.c", 1, vd, va, vg, vb, p->rows, p->cols, p->ld1, p->ld2);
    ((SemP4)p->sem)(want, p->a, p->g, p->b);
  } else {
    ((SimRows)fn)("t.c", 1, vd, va, vb, p->rows, p->cols, p->ld1, p->ld2);
    ((SemAcc)p->sem)(want, p->a, p->b);
  }
  npusim_finish(sim);
  cr_assert(!npusim_failed(sim), "%s: %s", p->op->name, npusim_error(sim));
  int e = 4; /* every dst of these forms: int32_t or float */
  for (size_t i = 0; i < p->dst_bytes / (size_t)e; i++)
    cr_assert(same_value(p->op, want + i * (size_t)e, vd + i * (size_t)e, e), "%s, %s, element %zu: semantics %08x, "
              "simulator %08x", p->op->name, what, i, *(uint32_t *)(want + i * (size_t)e),
              *(uint32_t *)(vd + i * (size_t)e));
  simt_free(sim);
  free(want);
}

static void *compile_sized(TccUnit **unit, const SchedVuOp *op, int rows, int cols, const char *n1, int ld1,
                           const char *n2, int ld2) {
  char d[4][32];
  snprintf(d[0], sizeof d[0], "ROWS=%d", rows), snprintf(d[1], sizeof d[1], "COLS=%d", cols);
  snprintf(d[2], sizeof d[2], "%s=%d", n1, ld1), snprintf(d[3], sizeof d[3], "%s=%d", n2, ld2);
  const char *defs[] = {d[0], d[1], d[2], d[3], NULL};
  return compile_member(unit, op, defs);
}

/* box_acc_i8: dst[r][c] the r-th int32 special value, a[r][c] the c-th
 * int8 one, b[0] each int8 one in turn: every triple meets, the int32 sums
 * wrap. */
static void check_box_acc(const SchedVuOp *op) {
  const char *src = op->form + 8;
  int R = specials(op->type), C = specials(src);
  TccUnit *unit;
  PairBox p = {op, compile_sized(&unit, op, R, C, "LDD", C, "LDA", C), R, C, C, C, NULL, NULL, NULL, NULL,
               (size_t)R * (size_t)C * 4, (size_t)R * (size_t)C, 1, 0};
  p.dst = malloc(p.dst_bytes), p.a = malloc(p.a_bytes), p.b = malloc(1);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) special(op->type, r, p.dst + (r * C + c) * 4), special(src, c, p.a + r * C + c);
  for (int k = 0; k < C; k++) {
    special(src, k, p.b);
    char what[32];
    snprintf(what, sizeof what, "b = special %d", k);
    run_pair_box(&p, what);
  }
  free(p.dst), free(p.a), free(p.b);
  tcc_unit_free(unit);
}

/* cols2 (fp32) over S rows of S*S columns: a[r][c] the r-th special value,
 * g[c] the (c % S)-th, b[c] the (c / S)-th: every triple meets. */
static void check_cols(const SchedVuOp *op, int S) {
  int C = S * S;
  TccUnit *unit;
  PairBox p = {op, compile_sized(&unit, op, S, C, "LDD", C, "LDA", C), S, C, C, C, NULL, NULL, NULL, NULL,
               (size_t)S * (size_t)C * 4, (size_t)S * (size_t)C * 4, (size_t)C * 4, (size_t)C * 4};
  p.dst = calloc(1, p.dst_bytes), p.a = malloc(p.a_bytes), p.b = malloc(p.b_bytes), p.g = malloc(p.g_bytes);
  for (int r = 0; r < S; r++)
    for (int c = 0; c < C; c++) special(op->type, r, p.a + (r * C + c) * 4);
  for (int c = 0; c < C; c++) special(op->type, c % S, p.g + c * 4), special(op->type, c / S, p.b + c * 4);
  run_pair_box(&p, "every triple");
  free(p.dst), free(p.a), free(p.b), free(p.g);
  tcc_unit_free(unit);
}

/* red2_zero (fp32) over S*S rows of two elements: the first pair of each
 * row is a pair of special values (every pair meets: 0 + -0 * 1 is +0),
 * the second two special values in a seeded order; a's rows padded. */
static void check_dot(const SchedVuOp *op, int S) {
  int rows = S * S, cols = 2, lda = 3;
  TccUnit *unit;
  PairBox p = {op, compile_sized(&unit, op, rows, cols, "LDA", lda, "LDB", cols), rows, cols, lda, cols,
               NULL, NULL, NULL, NULL, (size_t)rows * 4, (size_t)rows * (size_t)lda * 4,
               (size_t)rows * (size_t)cols * 4, 0};
  p.dst = calloc(1, p.dst_bytes), p.a = calloc(1, p.a_bytes), p.b = malloc(p.b_bytes);
  SimtRng rng;
  simt_seed(&rng, 43);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      special(op->type, c ? simt_range(&rng, 0, S - 1) : r % S, p.a + (r * lda + c) * 4);
      special(op->type, c ? simt_range(&rng, 0, S - 1) : r / S, p.b + (r * cols + c) * 4);
    }
  run_pair_box(&p, "pairs of specials");
  free(p.dst), free(p.a), free(p.b);
  tcc_unit_free(unit);
}

static void check_forms(bool windows) {
  int count;
  const SchedVuOp *ops = sched_vu_ops(&count);
  int checked = 0;
  for (int i = 0; i < count; i++) {
    const SchedVuOp *op = &ops[i];
    if ((strncmp(op->form, "win_", 4) == 0) != windows) continue;
    int S = specials(op->type);
    if (windows) {
      for (size_t w = 0; w < sizeof windows_cases / sizeof windows_cases[0]; w++)
        check_window(op, &windows_cases[w], S);
    } else if (!strcmp(op->form, "str_plane")) {
      for (size_t c = 0; c < sizeof plane_cases / sizeof plane_cases[0]; c++) check_plane(op, &plane_cases[c], S);
    } else if (!strncmp(op->form, "from_", 5)) {
      check_cast(op);
    } else if (!strncmp(op->form, "sel_", 4)) {
      check_select(op, S);
    } else if (!strcmp(op->form, "fill")) {
      check_fill(op);
    } else if (!strncmp(op->form, "box_acc_", 8)) {
      check_box_acc(op);
    } else if (!strcmp(op->form, "cols2")) {
      check_cols(op, S);
    } else if (!strcmp(op->form, "red2_zero")) {
      check_dot(op, S);
    } else if (!strcmp(op->form, "rows") || !strcmp(op->form, "box_un") || !strncmp(op->form, "red_", 4)) {
      check_box(op, S);
    } else {
      char nd[32], sa[16], sb[16];
      snprintf(nd, sizeof nd, "N=%d", check_n(op, S * S));
      snprintf(sa, sizeof sa, "SA=%d", STR_SA);
      snprintf(sb, sizeof sb, "SB=%d", STR_SB);
      const char *defs[] = {nd, strcmp(op->form, "str") ? NULL : sa, sb, NULL};
      TccUnit *unit;
      void *sem = compile_member(&unit, op, defs);
      Operands o = operands(op->type, S);
      for (int k = 0; k < (!strcmp(op->form, "vs") ? S : 1); k++) check_1d(op, sem, &o, k);
      operands_free(&o);
      tcc_unit_free(unit);
    }
    checked++;
  }
  cr_expect_gt(checked, 0);
}

Test(vu_families, every_element_wise_member_matches_its_semantics) { check_forms(false); }
Test(vu_families, every_window_member_matches_its_semantics) { check_forms(true); }

/* `npugen intrinsics` opens with the families: each with its forms and
 * types, then its members. */
Test(vu_families, npugen_intrinsics_lists_the_families) {
  char err[512];
  char *text = npg_intrinsics_describe(NULL, NULL, err, sizeof err);
  cr_assert_not_null(text, "%s", err);
  cr_expect(strstr(text, "The VU's op families: one table, npu_intrinsics/npu_vu_families.def"), "%s", text);
  cr_expect(strstr(text, "  add          vv: i8 i32 f32  vs: i8 i32 f32  mask: i8 i32 f32  rows: f32  str: i32 f32  str_plane: i32 f32\n"
                         "               npu_vu_add_i8 npu_vu_add_i32 npu_vu_add_f32 npu_vu_adds_i8"), "%s", text);
  cr_expect(strstr(text, "  window_sum   win_zero: i8 i32 f32\n"), "%s", text);
  /* a member's call comes from npu_vu_families.h */
  cr_expect(strstr(text, "npu_vu_window_sum_i32  (VU)\n  call:        void npu_vu_window_sum_i32(int32_t *dst, const "
                         "int32_t *a, int rows, int cols, int kh, int kw, int sh, int sw, int ldd, int lda);"), "%s", text);
  free(text);
}

/* A member's operands go through the simulator's checks as a hand-written
 * op's do: its a outside the VM stops it, naming the op and the operand;
 * an a that a DMA in flight still writes stops it too. */
Test(vu_families, every_member_checks_its_operands_scope_and_hazards) {
  int count;
  const SchedVuOp *ops = sched_vu_ops(&count);
  for (int i = 0; i < count; i++) {
    const SchedVuOp *op = &ops[i];
    if (!strncmp(op->form, "win_", 4)) continue;
    for (int hazard = 0; hazard < 2; hazard++) {
      NpuSim *s = simt_new();
      uint8_t *vm = npu_scope_base(NPU_VU_VM, 0), *dm = npu_scope_base(NPU_DM, 0);
      static int32_t host[64];
      uint8_t *a = hazard ? vm + 1024 : dm;
      if (hazard) npu_dma_1d(0, a, host, 256);
      call_sim(op, sim_entry(op->name), vm, vm + 512, a, vm + 1536, vm + 2048, 64, 1.0f, 1);
      cr_assert(npusim_failed(s), "%s ran with a %s", op->name, hazard ? "DMA in flight" : "in DM");
      bool fill = !strcmp(op->form, "fill"); /* its one operand, dst, where a goes */
      const char *want = fill ? (hazard ? "WAW hazard: operand dst vu_vm" : "operand dst is in dm")
                              : hazard ? "RAW hazard: operand a vu_vm" : "operand a is in dm";
      cr_expect(strstr(npusim_error(s), op->name) && strstr(npusim_error(s), want), "%s: %s", op->name,
                npusim_error(s));
      simt_free(s);
    }
  }
}

/* The VU ops that are not rows of npu_vu_families.def, each for the reason
 * docs/architecture.md ("VU ops outside the table") gives. A new VU op is a
 * row; one that cannot be is named here and there. */
static const char *const vu_not_rows[] = {
    "npu_vu_requant_i8",     "npu_vu_requant_q31_i8",   "npu_vu_requant_q31_pc_i8", /* operand domain checks, multi-step */
    "npu_vu_requant_q31_range_i8", "npu_vu_requant_q31_pc_range_i8",
    "npu_vu_lane_mask_u8",   "npu_vu_store_lane_f32",   "npu_vu_select_lanes_f32",  /* index masks: the kept lanes' hull */
    "npu_vu_muls_lane_f32",  "npu_vu_select_from_f32",                              /* a suffix of the loop */
};

static bool not_a_row(const char *name) {
  for (size_t i = 0; i < sizeof vu_not_rows / sizeof vu_not_rows[0]; i++)
    if (!strcmp(vu_not_rows[i], name)) return true;
  return false;
}

/* Every VU intrinsic libnpusim binds is a row of the table or named above;
 * each name above is bound and is not a row (the list does not go stale). */
Test(vu_families, every_bound_vu_op_is_a_row_or_a_named_exception) {
  size_t count;
  const NpuSimSymbol *sym = npusim_symbols(&count);
  int vu = 0, named = 0;
  for (size_t i = 0; i < count; i++) {
    if (strncmp(sym[i].name, "npu_vu_", 7)) continue;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(sym[i].name) - 3), sym[i].name); /* less "_at" */
    bool row = sched_vu_op(name) != NULL, listed = not_a_row(name);
    cr_expect(row != listed, "%s: %s", name,
              row ? "a row of npu_vu_families.def is not an exception" : "neither a row of npu_vu_families.def nor "
                                                                       "a named exception");
    vu++, named += listed;
  }
  cr_expect_eq(named, (int)(sizeof vu_not_rows / sizeof vu_not_rows[0]), "an exception is not bound by libnpusim");
  cr_expect_gt(vu, named);
}

/* An activation's clamp as C writes it, `v = v > lo ? v : lo; v = v < hi
 * ? v : hi;` with lo and hi scalar parameters (TFLite's
 * output_activation_min/max), reaches the VU as a max and a min with a
 * scalar (here int8; int32 and fp32 are the same form, each row checked
 * against the simulator above), the kernel's local expanded into the
 * output and each reassignment a nest of its own. An int32 clamp to the
 * constants [0, 96] is the ReLU (still npu_vu_relu_i32: it sorts before
 * the scalar ops, and `v > 0 ? v : 0` is a max with the scalar 0 too) and
 * a min with 96. Each variant passes the check by execution. Before: no
 * VU op took a scalar bound ("nearest npu_vu_max_i8: the expressions
 * differ"), and the nests stayed on the CU. */
static const char *clamp_kernel(const char *t, const char *lo, const char *hi) {
  static char src[2048];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "void k(const %s X[4][64], %s Y[4][64], %s lo, %s hi) {\n"
           "  for (int r = 0; r < 4; r++)\n"
           "    for (int c = 0; c < 64; c++) {\n"
           "      %s v = X[r][c];\n"
           "      v = v > %s ? v : %s;\n"
           "      v = v < %s ? v : %s;\n"
           "      Y[r][c] = v;\n"
           "    }\n"
           "}\n"
           "#pragma npu inputs(k, lo, -20, 0)\n"
           "#pragma npu inputs(k, hi, 1, 30)\n",
           t, t, t, t, t, lo, lo, hi, hi);
  return src;
}

static const char clamp_steps[] = "#pragma npu schedule(k, v)\n"
                                  "#pragma npu expand(v)\n"
                                  "#pragma npu fission(c, s2)\n"
                                  "#pragma npu fission(c, s1)\n"
                                  "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                                  "#pragma npu cache_write(Y, vu_vm, r, Y_vm)\n"
                                  "#pragma npu vectorize(c_2)\n"
                                  "#pragma npu vectorize(c_1)\n";

static void clamps_on_the_vu(const char *t, const char *lo, const char *hi, const char *want_max,
                             const char *want_min) {
  NpgSession *s = open_ok(clamp_kernel(t, lo, hi), clamp_steps);
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, want_max);
  has(c, want_min);
  lacks(c, "stays a hint");
  npg_close(s);
}

Test(vu_families, an_activation_clamp_is_a_max_and_a_min_with_a_scalar_and_a_relu_stays_one) {
  clamps_on_the_vu("int8_t", "lo", "hi", "npu_vu_scalar_max_i8(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64, lo);",
                   "npu_vu_scalar_min_i8(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64, hi);");
  clamps_on_the_vu("int32_t", "0", "96", "npu_vu_relu_i32(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64);",
                   "npu_vu_scalar_min_i32(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64, /*s=*/96);");
}

/* An int8 clamp to constants, `v = v > -20 ? v : -20; v = v < 96 ? v :
 * 96;`, is the same max and min with a scalar: the semantics compare the
 * int8 operand s as C promotes it, (int)s, and a constant int8 holds binds
 * to it. A bound int8 does not hold, `v < 300 ? v : 300` (v itself), is
 * no min with the scalar (int8_t)300, 44: that nest stays on the CU (the
 * check by execution would see 44 where v is in (44, 96]). Before: the
 * literals met `(int)s` ("the expressions differ") and the nests stayed
 * on the CU. */
Test(vu_families, an_int8_clamp_to_constants_is_a_max_and_a_min_with_a_scalar) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const int8_t X[4][64], int8_t Y[4][64]) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int c = 0; c < 64; c++) {\n"
                          "      int8_t v = X[r][c];\n"
                          "      v = v > -20 ? v : -20;\n"
                          "      v = v < 96 ? v : 96;\n"
                          "      v = v < 300 ? v : 300;\n"
                          "      Y[r][c] = v;\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu expand(v)\n"
                          "#pragma npu fission(c, s3)\n"
                          "#pragma npu fission(c, s2)\n"
                          "#pragma npu fission(c, s1)\n"
                          "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                          "#pragma npu cache_write(Y, vu_vm, r, Y_vm)\n"
                          "#pragma npu vectorize(c_1)\n"
                          "#pragma npu vectorize(c_2)\n"
                          "#pragma npu vectorize(c_3)\n");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, "    npu_vu_scalar_max_i8(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64, /*s=*/-20);\n"
         "    npu_vu_scalar_min_i8(&Y_vm[0][0], &Y_vm[0][0], /*n=*/64, /*s=*/96);\n");
  has(c, "stays a hint: no VU instruction computes this nest (nearest npu_vu_min_i8: the expressions differ: '300' in "
         "s4 (line 8)");
  lacks(c, "/*s=*/300");
  npg_close(s);
}
