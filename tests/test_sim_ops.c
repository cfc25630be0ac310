/* Each compute intrinsic, run in the simulator, equals its DSL semantics
 * kernel (npu_intrinsics/<name>.c, JIT-run with libtcc) on seeded random data:
 * sizes 1, odd sizes with padded leading dimensions, the largest operands the
 * default target's buffers hold, accumulate on and off. Results compare exactly
 * (bitwise for floats: the DSL kernels fix the order of every float sum). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "test_sim_util.h"

/* Compiles the DSL kernel `name` with its sizes set by `sizes`, a format
 * of space-separated NAME=value ("ROWS=%d COLS=%d"), and returns it. */
static void *simop_kernel(TccUnit **unit, const char *name, const char *sizes, ...)
    __attribute__((format(printf, 3, 4)));
static void *simop_kernel(TccUnit **unit, const char *name, const char *sizes, ...) {
  char text[512];
  va_list ap;
  va_start(ap, sizes);
  vsnprintf(text, sizeof text, sizes, ap);
  va_end(ap);
  const char *defs[17];
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(text, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save)) defs[n++] = t;
  defs[n] = NULL;
  char *src = simt_kernel_source(name, defs);
  char file[96];
  snprintf(file, sizeof file, "%s.c", name);
  *unit = simt_compile(src, file);
  free(src);
  void *fn = tcc_unit_symbol(*unit, name);
  cr_assert_not_null(fn, "%s.c does not define %s", name, name);
  return fn;
}

static void *simop_dup(const void *p, size_t n) {
  void *q = malloc(n ? n : 1);
  memcpy(q, p, n);
  return q;
}

static void simop_ok(NpuSim *s) { cr_assert(!npusim_failed(s), "simulator error: %s", npusim_error(s)); }

/* ---- NU matmul ---- */
typedef struct {
  int m, n, k, lda, ldb, ldc, acc;
} SimopMm;

static const SimopMm simop_mm_i8_cases[] = {
    {1, 1, 1, 1, 1, 1, 0},       {1, 1, 1, 1, 1, 1, 1},       {7, 13, 5, 9, 16, 15, 0},
    {7, 13, 5, 9, 16, 15, 1},    {33, 31, 67, 67, 31, 40, 1}, {32, 32, 32, 32, 32, 32, 0},
    {64, 1, 3, 3, 1, 1, 1},      {256, 256, 1024, 1024, 256, 256, 0},
    {256, 256, 1024, 1024, 256, 256, 1},
};

Test(sim_ops, matmul_i8_matches_dsl) {
  SimtRng rng;
  simt_seed(&rng, 11);
  for (size_t ci = 0; ci < sizeof simop_mm_i8_cases / sizeof simop_mm_i8_cases[0]; ci++) {
    const SimopMm *c = &simop_mm_i8_cases[ci];
    NpuSim *s = simt_new();
    int8_t *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
    int32_t *C = npu_scope_base(NPU_NU_OB, 0);
    size_t na = (size_t)c->m * c->lda, nb = (size_t)c->k * c->ldb, nc = (size_t)c->m * c->ldc;
    simt_fill_i8(&rng, A, na);
    simt_fill_i8(&rng, B, nb);
    for (size_t i = 0; i < nc; i++) C[i] = simt_range(&rng, -(1 << 20), 1 << 20);
    int8_t *rA = simop_dup(A, na), *rB = simop_dup(B, nb);
    int32_t *rC = simop_dup(C, nc * 4);

    npu_nu_matmul_i8(C, A, B, c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->acc);
    simop_ok(s);

    TccUnit *u;
    void (*ref)(int32_t *, const int8_t *, const int8_t *, int) =
        (void (*)(int32_t *, const int8_t *, const int8_t *, int))simop_kernel(&u, "npu_nu_matmul_i8", "M=%d N=%d K=%d LDA=%d LDB=%d LDC=%d", c->m, c->n, c->k, c->lda, c->ldb, c->ldc);
    ref(rC, rA, rB, c->acc);
    for (size_t i = 0; i < nc; i++)
      cr_assert_eq(C[i], rC[i], "case %zu (m=%d n=%d k=%d acc=%d): C[%zu] sim %d dsl %d", ci,
                   c->m, c->n, c->k, c->acc, i, C[i], rC[i]);
    tcc_unit_free(u);
    free(rA), free(rB), free(rC);
    simt_free(s);
  }
}

static const SimopMm simop_mm_f32_cases[] = {
    {1, 1, 1, 1, 1, 1, 0},   {1, 1, 1, 1, 1, 1, 1},         {7, 13, 5, 9, 16, 15, 0},
    {7, 13, 5, 9, 16, 15, 1}, {256, 256, 256, 256, 256, 256, 1},
};

Test(sim_ops, matmul_f32_matches_dsl) {
  SimtRng rng;
  simt_seed(&rng, 12);
  for (size_t ci = 0; ci < sizeof simop_mm_f32_cases / sizeof simop_mm_f32_cases[0]; ci++) {
    const SimopMm *c = &simop_mm_f32_cases[ci];
    NpuSim *s = simt_new();
    float *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
    float *C = npu_scope_base(NPU_NU_OB, 0);
    size_t na = (size_t)c->m * c->lda, nb = (size_t)c->k * c->ldb, nc = (size_t)c->m * c->ldc;
    for (size_t i = 0; i < na; i++) A[i] = simt_float(&rng);
    for (size_t i = 0; i < nb; i++) B[i] = simt_float(&rng);
    for (size_t i = 0; i < nc; i++) C[i] = simt_float(&rng);
    float *rA = simop_dup(A, na * 4), *rB = simop_dup(B, nb * 4), *rC = simop_dup(C, nc * 4);

    npu_nu_matmul_f32(C, A, B, c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->acc);
    simop_ok(s);

    TccUnit *u;
    void (*ref)(float *, const float *, const float *, int) =
        (void (*)(float *, const float *, const float *, int))simop_kernel(&u, "npu_nu_matmul_f32", "M=%d N=%d K=%d LDA=%d LDB=%d LDC=%d", c->m, c->n, c->k, c->lda, c->ldb, c->ldc);
    ref(rC, rA, rB, c->acc);
    cr_assert_eq(memcmp(C, rC, nc * 4), 0, "case %zu (m=%d n=%d k=%d acc=%d): results differ",
                 ci, c->m, c->n, c->k, c->acc);
    tcc_unit_free(u);
    free(rA), free(rB), free(rC);
    simt_free(s);
  }
}

/* ---- NU conv2d ---- */
typedef struct {
  int h, w, c, oc, kh, kw, sh, sw, ph, pw, dh, dw, acc;
} SimopConv;

static const SimopConv simop_conv_cases[] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {9, 7, 3, 5, 3, 3, 2, 1, 1, 2, 2, 1, 1},
    {11, 13, 5, 7, 3, 2, 3, 2, 0, 1, 1, 3, 0},
    {32, 32, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0}, /* out fills all of NU_OB */
};

Test(sim_ops, conv2d_i8_matches_dsl) {
  SimtRng rng;
  simt_seed(&rng, 13);
  for (size_t ci = 0; ci < sizeof simop_conv_cases / sizeof simop_conv_cases[0]; ci++) {
    const SimopConv *c = &simop_conv_cases[ci];
    int oh = (c->h + 2 * c->ph - c->dh * (c->kh - 1) - 1) / c->sh + 1;
    int ow = (c->w + 2 * c->pw - c->dw * (c->kw - 1) - 1) / c->sw + 1;
    NpuSim *s = simt_new();
    int8_t *in = npu_scope_base(NPU_NU_IB, 0), *wt = npu_scope_base(NPU_NU_WB, 0);
    int32_t *out = npu_scope_base(NPU_NU_OB, 0);
    size_t ni = (size_t)c->h * c->w * c->c, nw = (size_t)c->kh * c->kw * c->c * c->oc;
    size_t no = (size_t)oh * ow * c->oc;
    simt_fill_i8(&rng, in, ni);
    simt_fill_i8(&rng, wt, nw);
    for (size_t i = 0; i < no; i++) out[i] = simt_range(&rng, -(1 << 20), 1 << 20);
    int8_t *rin = simop_dup(in, ni), *rwt = simop_dup(wt, nw);
    int32_t *rout = simop_dup(out, no * 4);

    npu_nu_conv2d_i8(out, in, wt, c->h, c->w, c->c, c->oc, c->kh, c->kw, c->sh, c->sw, c->ph,
                     c->pw, c->dh, c->dw, c->acc);
    simop_ok(s);

    TccUnit *u;
    void (*ref)(int32_t *, const int8_t *, const int8_t *, int) =
        (void (*)(int32_t *, const int8_t *, const int8_t *, int))simop_kernel(
            &u, "npu_nu_conv2d_i8", "H=%d W=%d C=%d OC=%d KH=%d KW=%d SH=%d SW=%d PH=%d PW=%d DH=%d DW=%d OH=%d OW=%d", c->h,
            c->w, c->c, c->oc, c->kh, c->kw, c->sh, c->sw, c->ph, c->pw, c->dh, c->dw, oh, ow);
    ref(rout, rin, rwt, c->acc);
    for (size_t i = 0; i < no; i++)
      cr_assert_eq(out[i], rout[i], "conv case %zu: out[%zu] sim %d dsl %d", ci, i, out[i], rout[i]);
    tcc_unit_free(u);
    free(rin), free(rwt), free(rout);
    simt_free(s);
  }
}

/* ---- VU ---- */
typedef void (*SimopBin)(const char *, int, void *, const void *, const void *, int);
typedef void (*SimopUn)(const char *, int, void *, const void *, int);

static const int simop_vu_ns[] = {1, 37, 10922}; /* 10922: three int32 vectors fill the VM */

/* Random element of the given kind into p[i]. kind: 'i' int32 (+-2^29), 'm'
 * int32 (+-2^15, for mul), 'I' full int32, 'f' float, 'F' float specials,
 * 'b' int8. */
static void simop_fill(SimtRng *r, void *p, int n, char kind) {
  static const float specials[] = {0.0f, -0.0f, 0.5f, -0.5f, -1.75f, 2147483520.0f,
                                   -2147483648.0f, 2147483648.0f, 3e9f, -3e9f, 1e30f};
  for (int i = 0; i < n; i++) {
    switch (kind) {
    case 'i': ((int32_t *)p)[i] = simt_range(r, -(1 << 29), 1 << 29); break;
    case 'm': ((int32_t *)p)[i] = simt_range(r, -(1 << 15), 1 << 15); break;
    case 'I': ((int32_t *)p)[i] = (int32_t)(uint32_t)simt_next(r); break;
    case 'b': ((int8_t *)p)[i] = (int8_t)simt_range(r, -128, 127); break;
    case 'f': ((float *)p)[i] = simt_float(r); break;
    case 'F': {
      float x = simt_float(r) * (float)(1u << simt_range(r, 0, 31));
      if (i < (int)(sizeof specials / sizeof specials[0])) x = specials[i];
      if (i == 11) x = NAN;
      if (i == 12) x = INFINITY;
      if (i == 13) x = -INFINITY;
      ((float *)p)[i] = x;
      break;
    }
    }
  }
}

static size_t simop_esz(char kind) { return kind == 'b' ? 1 : 4; }

typedef struct {
  const char *name;
  SimopBin fn;
  char kind;
} SimopBinCase;

#define SIMOP_BIN(n, k) {#n, (SimopBin)n##_at, k}
static const SimopBinCase simop_bins[] = {
    SIMOP_BIN(npu_vu_add_i32, 'i'), SIMOP_BIN(npu_vu_sub_i32, 'i'), SIMOP_BIN(npu_vu_mul_i32, 'm'),
    SIMOP_BIN(npu_vu_max_i32, 'I'), SIMOP_BIN(npu_vu_min_i32, 'I'), SIMOP_BIN(npu_vu_add_f32, 'f'),
    SIMOP_BIN(npu_vu_sub_f32, 'f'), SIMOP_BIN(npu_vu_mul_f32, 'f'), SIMOP_BIN(npu_vu_max_f32, 'f'),
    SIMOP_BIN(npu_vu_min_f32, 'f'),
};

Test(sim_ops, vu_binary_match_dsl) {
  SimtRng rng;
  simt_seed(&rng, 14);
  for (size_t oi = 0; oi < sizeof simop_bins / sizeof simop_bins[0]; oi++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      const SimopBinCase *c = &simop_bins[oi];
      int n = simop_vu_ns[ni], core = (int)(oi % 4);
      NpuSim *s = simt_new();
      char *vm = npu_scope_base(NPU_VU_VM, core);
      void *dst = vm, *a = vm + (size_t)n * 4, *b = vm + (size_t)n * 8;
      simop_fill(&rng, a, n, c->kind);
      simop_fill(&rng, b, n, c->kind);
      void *ra = simop_dup(a, (size_t)n * 4), *rb = simop_dup(b, (size_t)n * 4), *rd = malloc((size_t)n * 4);
      c->fn(__FILE__, __LINE__, dst, a, b, n);
      simop_ok(s);
      TccUnit *u;
      void (*ref)(void *, const void *, const void *) =
          (void (*)(void *, const void *, const void *))simop_kernel(&u, c->name, "N=%d", n);
      ref(rd, ra, rb);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * 4), 0, "%s n=%d: sim and DSL differ", c->name, n);
      tcc_unit_free(u);
      free(ra), free(rb), free(rd);
      simt_free(s);
    }
}

typedef struct {
  const char *name;
  SimopUn fn;
  char in_kind, out_kind;
} SimopUnCase;

#define SIMOP_UN(n, ki, ko) {#n, (SimopUn)n##_at, ki, ko}
static const SimopUnCase simop_uns[] = {
    SIMOP_UN(npu_vu_relu_i32, 'I', 'I'),    SIMOP_UN(npu_vu_relu_f32, 'F', 'f'),
    SIMOP_UN(npu_vu_cast_i8_i32, 'b', 'I'), SIMOP_UN(npu_vu_cast_i32_f32, 'I', 'f'),
    SIMOP_UN(npu_vu_cast_f32_i32, 'F', 'I'),
};

Test(sim_ops, vu_unary_and_casts_match_dsl) {
  SimtRng rng;
  simt_seed(&rng, 15);
  for (size_t oi = 0; oi < sizeof simop_uns / sizeof simop_uns[0]; oi++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      const SimopUnCase *c = &simop_uns[oi];
      int n = simop_vu_ns[ni];
      size_t bi = (size_t)n * simop_esz(c->in_kind), bo = (size_t)n * simop_esz(c->out_kind);
      NpuSim *s = simt_new();
      char *vm = npu_scope_base(NPU_VU_VM, 1);
      void *dst = vm, *a = vm + bo;
      simop_fill(&rng, a, n, c->in_kind);
      void *ra = simop_dup(a, bi), *rd = malloc(bo);
      c->fn(__FILE__, __LINE__, dst, a, n);
      simop_ok(s);
      TccUnit *u;
      void (*ref)(void *, const void *) = (void (*)(void *, const void *))simop_kernel(&u, c->name, "N=%d", n);
      ref(rd, ra);
      cr_assert_eq(memcmp(dst, rd, bo), 0, "%s n=%d: sim and DSL differ", c->name, n);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

Test(sim_ops, requant_matches_dsl) {
  SimtRng rng;
  simt_seed(&rng, 16);
  const int32_t mults[] = {1, 1 << 21, -(1 << 21), 1518500, -77777, 0};
  const int shifts[] = {0, 1, 47, 20, 31, 9};
  for (size_t pi = 0; pi < sizeof mults / sizeof mults[0]; pi++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      int n = simop_vu_ns[ni];
      int32_t mult = mults[pi];
      int shift = shifts[pi], zp = simt_range(&rng, -128, 127);
      NpuSim *s = simt_new();
      char *vm = npu_scope_base(NPU_VU_VM, 2);
      int8_t *dst = (int8_t *)vm;
      int32_t *a = (int32_t *)(vm + ((n + 63) / 64) * 64);
      simop_fill(&rng, a, n, pi % 2 ? 'I' : 'm');
      a[0] = INT32_MIN;
      if (n > 1) a[1] = INT32_MAX;
      if (n > 3 && shift >= 1 && shift <= 31) /* exact ties when multiplier is 1 */
        a[2] = (int32_t)(1u << (shift - 1)), a[3] = -a[2];
      int32_t *ra = simop_dup(a, (size_t)n * 4);
      int8_t *rd = malloc((size_t)n);
      npu_vu_requant_i8(dst, a, n, mult, shift, zp);
      simop_ok(s);
      TccUnit *u;
      void (*ref)(int8_t *, const int32_t *, int, int, int) =
          (void (*)(int8_t *, const int32_t *, int, int, int))simop_kernel(&u, "npu_vu_requant_i8", "N=%d", n);
      ref(rd, ra, (int)mult, shift, zp);
      for (int i = 0; i < n; i++)
        cr_assert_eq(dst[i], rd[i], "requant m=%d shift=%d zp=%d a=%d: sim %d dsl %d", (int)mult,
                     shift, zp, ra[i], dst[i], rd[i]);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

Test(sim_ops, requant_rounding_by_hand) {
  NpuSim *s = simt_new();
  int8_t *d = npu_scope_base(NPU_VU_VM, 0);
  int32_t *a = (int32_t *)(d + 64);
  const int32_t in[6] = {5, -5, 6, -6, 1000, -1000};
  memcpy(a, in, sizeof in);
  npu_vu_requant_i8(d, a, 6, 1, 2, 3); /* x/4 rounded half up, + 3 */
  simop_ok(s);
  /* 1.25->1, -1.25->-1, 1.5->2, -1.5->-1; 250+3 and -250+3 saturate */
  const int8_t want[6] = {4, 2, 5, 2, 127, -128};
  for (int i = 0; i < 6; i++) cr_assert_eq(d[i], want[i], "element %d: %d, want %d", i, d[i], want[i]);
  simt_free(s);
}

typedef struct {
  const char *name;
  char kind;
} SimopRedCase;

Test(sim_ops, reductions_match_dsl) {
  static const SimopRedCase ops[] = {{"npu_vu_reduce_sum_i32", 'i'}, {"npu_vu_reduce_max_i32", 'I'},
                                     {"npu_vu_reduce_sum_f32", 'f'}, {"npu_vu_reduce_max_f32", 'f'}};
  static const int shapes[][3] = {{1, 1, 1}, {7, 13, 16}, {3, 1, 5}, {256, 127, 127}};
  typedef void (*Red)(const char *, int, void *, const void *, int, int, int);
  const Red fns[] = {(Red)npu_vu_reduce_sum_i32_at, (Red)npu_vu_reduce_max_i32_at,
                     (Red)npu_vu_reduce_sum_f32_at, (Red)npu_vu_reduce_max_f32_at};
  SimtRng rng;
  simt_seed(&rng, 17);
  for (size_t oi = 0; oi < 4; oi++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      int rows = shapes[si][0], cols = shapes[si][1], ld = shapes[si][2];
      size_t na = (size_t)rows * ld;
      NpuSim *s = simt_new();
      char *vm = npu_scope_base(NPU_VU_VM, 3);
      void *dst = vm, *a = vm + (size_t)rows * 4;
      simop_fill(&rng, a, (int)na, ops[oi].kind == 'i' ? 'm' : ops[oi].kind);
      void *ra = simop_dup(a, na * 4), *rd = malloc((size_t)rows * 4);
      fns[oi](__FILE__, __LINE__, dst, a, rows, cols, ld);
      simop_ok(s);
      TccUnit *u;
      void (*ref)(void *, const void *) = (void (*)(void *, const void *))simop_kernel(&u, ops[oi].name, "ROWS=%d COLS=%d LD=%d", rows, cols, ld);
      ref(rd, ra);
      cr_assert_eq(memcmp(dst, rd, (size_t)rows * 4), 0, "%s %dx%d ld %d: sim and DSL differ",
                   ops[oi].name, rows, cols, ld);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

/* rows, cols, ldd: the elements between rows keep their values */
Test(sim_ops, fill_matches_dsl) {
  static const int shapes[][3] = {{1, 1, 1}, {1, 37, 37}, {7, 13, 16}, {56, 56, 58}, {128, 255, 255}};
  SimtRng rng;
  simt_seed(&rng, 19);
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    int rows = shapes[si][0], cols = shapes[si][1], ldd = shapes[si][2];
    size_t nd = (size_t)rows * ldd;
    int32_t value = (int32_t)(uint32_t)simt_next(&rng);
    NpuSim *s = simt_new();
    int32_t *dst = npu_scope_base(NPU_VU_VM, 1);
    simop_fill(&rng, dst, (int)nd, 'I');
    int32_t *rd = simop_dup(dst, nd * 4);
    npu_vu_fill_i32(dst, rows, cols, ldd, value);
    simop_ok(s);
    TccUnit *u;
    void (*ref)(int32_t *, int32_t) = (void (*)(int32_t *, int32_t))simop_kernel(&u, "npu_vu_fill_i32", "ROWS=%d COLS=%d LDD=%d", rows, cols, ldd);
    ref(rd, value);
    cr_assert_eq(memcmp(dst, rd, nd * 4), 0, "fill %dx%d ldd %d: sim and DSL differ", rows, cols, ldd);
    tcc_unit_free(u);
    free(rd);
    simt_free(s);
  }
}

/* rows, cols, ldd, lda: padded leading dimensions, one row, the largest box */
Test(sim_ops, macs_matches_dsl) {
  static const int shapes[][4] = {{1, 1, 1, 1}, {7, 13, 16, 15}, {1, 37, 37, 37}, {56, 56, 56, 58}, {96, 160, 160, 164}};
  SimtRng rng;
  simt_seed(&rng, 20);
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    int rows = shapes[si][0], cols = shapes[si][1], ldd = shapes[si][2], lda = shapes[si][3];
    size_t nd = (size_t)rows * ldd, na = (size_t)rows * lda;
    NpuSim *s = simt_new();
    char *vm = npu_scope_base(NPU_VU_VM, 3);
    int32_t *dst = (int32_t *)vm;
    int8_t *a = (int8_t *)(vm + nd * 4), *b = a + na;
    simop_fill(&rng, dst, (int)nd, 'I'); /* full range: the sums wrap */
    simop_fill(&rng, a, (int)na, 'b');
    b[0] = (int8_t)simt_range(&rng, -128, 127);
    if (si == 0) b[0] = -128;
    int32_t *rd = simop_dup(dst, nd * 4);
    int8_t *ra = simop_dup(a, na + 1);
    npu_vu_macs_i8_i32(dst, a, b, rows, cols, ldd, lda);
    simop_ok(s);
    TccUnit *u;
    void (*ref)(int32_t *, const int8_t *, const int8_t *) =
        (void (*)(int32_t *, const int8_t *, const int8_t *))simop_kernel(&u, "npu_vu_macs_i8_i32", "ROWS=%d COLS=%d LDD=%d LDA=%d", rows, cols, ldd, lda);
    ref(rd, ra, ra + na);
    cr_assert_eq(memcmp(dst, rd, nd * 4), 0, "macs %dx%d ldd %d lda %d: sim and DSL differ", rows, cols, ldd, lda);
    tcc_unit_free(u);
    free(ra), free(rd);
    simt_free(s);
  }
}

/* A misshapen call is an error that names the operands, not a wild write. */
Test(sim_ops, macs_refuses_short_leading_dimension) {
  NpuSim *s = simt_new();
  char *vm = npu_scope_base(NPU_VU_VM, 0);
  npu_vu_macs_i8_i32((int32_t *)vm, (int8_t *)vm + 4096, (int8_t *)vm + 8192, 4, 16, 8, 16);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "misaligned shape: rows=4 cols=16 ldd=8 lda=16"), "%s", npusim_error(s));
  simt_free(s);
}

/* A strided 3-D DMA moves exactly the bytes a host loop would. */
Test(sim_ops, dma_3d_moves_the_right_bytes) {
  SimtRng rng;
  simt_seed(&rng, 18);
  NpuSim *s = simt_new();
  enum { P = 3, R = 5, L = 7, SS = 11, SS2 = 64, DS = 8, DS2 = 48 };
  uint8_t host[P * SS2];
  simt_fill_i8(&rng, (int8_t *)host, sizeof host);
  uint8_t *dm = npu_scope_base(NPU_DM, 0);
  memset(dm, 0xEE, 4096);
  npu_token_t t = npu_dma_3d(2, dm, DS, DS2, host, SS, SS2, L, R, P);
  npu_dma_wait(t);
  simop_ok(s);
  for (int i = 0; i < 4096; i++) {
    int p = i / DS2, r = (i % DS2) / DS, l = i % DS2 % DS;
    int in = p < P && r < R && l < L && i % DS2 < DS * R;
    uint8_t want = in ? host[p * SS2 + r * SS + l] : 0xEE;
    cr_assert_eq(dm[i], want, "dm[%d]", i);
  }
  simt_free(s);
}

/* ---- f32 ops for row-wise kernels: 2-D boxes with padded leading
 * dimensions, one row, one column, the box the softmax example issues ---- */
typedef struct {
  const char *name;
  void *fn;
  char form; /* 'u' exp, 'r' row broadcast, 'c' column muladd, 'd' row dot */
} SimopBoxCase;

static const SimopBoxCase simop_boxes[] = {
    {"npu_vu_exp_f32", (void *)npu_vu_exp_f32_at, 'u'},
    {"npu_vu_add_rows_f32", (void *)npu_vu_add_rows_f32_at, 'r'},
    {"npu_vu_sub_rows_f32", (void *)npu_vu_sub_rows_f32_at, 'r'},
    {"npu_vu_mul_rows_f32", (void *)npu_vu_mul_rows_f32_at, 'r'},
    {"npu_vu_div_rows_f32", (void *)npu_vu_div_rows_f32_at, 'r'},
    {"npu_vu_muladd_cols_f32", (void *)npu_vu_muladd_cols_f32_at, 'c'},
    {"npu_vu_reduce_dot_f32", (void *)npu_vu_reduce_dot_f32_at, 'd'},
};

Test(sim_ops, f32_box_ops_match_dsl) {
  static const int shapes[][4] = {{1, 1, 1, 1}, {7, 13, 16, 15}, {1, 37, 37, 37}, {16, 256, 256, 256}, {3, 5, 5, 9}};
  typedef void (*Un)(const char *, int, float *, const float *, int, int, int, int);
  typedef void (*Bin)(const char *, int, float *, const float *, const float *, int, int, int, int);
  typedef void (*Tri)(const char *, int, float *, const float *, const float *, const float *, int, int, int, int);
  SimtRng rng;
  simt_seed(&rng, 21);
  for (size_t oi = 0; oi < sizeof simop_boxes / sizeof simop_boxes[0]; oi++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      const SimopBoxCase *c = &simop_boxes[oi];
      int rows = shapes[si][0], cols = shapes[si][1], ldd = shapes[si][2], lda = shapes[si][3];
      /* dst: rows x ldd (rows for the dot); a: rows x lda; b, g: rows x lda for
       * the dot, else one value per row or column */
      size_t nd = c->form == 'd' ? (size_t)rows : (size_t)rows * ldd;
      size_t na = (size_t)rows * (ldd > lda ? ldd : lda), nb = na;
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)(oi % 4)), *a = dst + nd, *b = a + na, *g = b + nb;
      simop_fill(&rng, dst, (int)nd, 'f');
      simop_fill(&rng, a, (int)(na + 2 * nb), 'f');
      float *rd = simop_dup(dst, nd * 4), *ra = simop_dup(a, (na + 2 * nb) * 4);
      float *rb = ra + na, *rg = rb + nb;
      TccUnit *u;
      void *ref = simop_kernel(&u, c->name, c->form == 'd' ? "ROWS=%d COLS=%d LDA=%d LDB=%d" : "ROWS=%d COLS=%d LDD=%d LDA=%d", rows, cols, ldd, lda);
      switch (c->form) {
      case 'u':
        ((Un)c->fn)(__FILE__, __LINE__, dst, a, rows, cols, ldd, lda);
        ((void (*)(float *, const float *))ref)(rd, ra);
        break;
      case 'r':
      case 'd': /* the dot: dst[r] over a and b, each with its leading dimension */
        ((Bin)c->fn)(__FILE__, __LINE__, dst, a, b, rows, cols, ldd, lda);
        ((void (*)(float *, const float *, const float *))ref)(rd, ra, rb);
        break;
      case 'c':
        ((Tri)c->fn)(__FILE__, __LINE__, dst, a, g, b, rows, cols, ldd, lda);
        ((void (*)(float *, const float *, const float *, const float *))ref)(rd, ra, rg, rb);
        break;
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, nd * 4), 0, "%s %dx%d ld %d,%d: sim and DSL differ", c->name, rows, cols, ldd, lda);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

/* The dot of a row with itself (a sum of squares) is one operand twice. */
Test(sim_ops, reduce_dot_of_a_row_with_itself) {
  NpuSim *s = simt_new();
  float *dst = npu_scope_base(NPU_VU_VM, 0), *a = dst + 4;
  const float in[6] = {1, 2, 3, -1, 0.5f, 4};
  memcpy(a, in, sizeof in);
  npu_vu_reduce_dot_f32(dst, a, a, 2, 3, 3, 3);
  simop_ok(s);
  cr_assert(dst[0] == 14.0f && dst[1] == 17.25f, "%g %g", dst[0], dst[1]);
  simt_free(s);
}

Test(sim_ops, f32_scalar_ops_match_dsl) {
  static const char *names[] = {"npu_vu_muls_f32", "npu_vu_divs_f32", "npu_vu_rsqrt_f32"};
  typedef void (*Sc)(const char *, int, float *, const float *, int, float);
  const Sc fns[] = {npu_vu_muls_f32_at, npu_vu_divs_f32_at, npu_vu_rsqrt_f32_at};
  const float scalars[] = {0.5f, 3.0f, 1e-5f, -7.25f};
  SimtRng rng;
  simt_seed(&rng, 22);
  for (size_t oi = 0; oi < 3; oi++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      int n = simop_vu_ns[ni] * 3 / 4; /* two f32 operands in one VM */
      float y = scalars[(oi + ni) % 4];
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, 2), *a = dst + n;
      simop_fill(&rng, a, n, 'f');
      if (oi == 2) /* the square root of a variance: a >= 0 */
        for (int i = 0; i < n; i++) a[i] = fabsf(a[i]);
      float *ra = simop_dup(a, (size_t)n * 4), *rd = malloc((size_t)n * 4);
      fns[oi](__FILE__, __LINE__, dst, a, n, y);
      simop_ok(s);
      TccUnit *u;
      void (*ref)(float *, const float *, float) = (void (*)(float *, const float *, float))simop_kernel(&u, names[oi], "N=%d", n);
      ref(rd, ra, y);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * 4), 0, "%s n=%d s=%g: sim and DSL differ", names[oi], n, y);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

Test(sim_ops, box_ops_refuse_short_leading_dimension) {
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 0);
  npu_vu_div_rows_f32(vm, vm + 1024, vm + 2048, 4, 16, 16, 8);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "npu_vu_div_rows_f32"), "%s", npusim_error(s));
  cr_assert(strstr(npusim_error(s), "misaligned shape: rows=4 cols=16 ldd=16 lda=8"), "%s", npusim_error(s));
  simt_free(s);
}

/* ---- window reductions (pooling) ---- */
typedef void (*SimopWinMax)(const char *, int, float *, const float *, int, int, int, int, int, int, int, int);
typedef void (*SimopWinAvg)(const char *, int, float *, const float *, int, int, int, int, int, int, int, int, float);

Test(sim_ops, window_reductions_match_dsl) {
  /* rows, cols, kh, kw, sh, sw, ldd, lda: one window, 2x2 pooling of a
   * 56 x 56 plane, 3x3 windows 2 apart (they overlap), padded leading
   * dimensions, windows wider than their step and a step wider than the
   * window (elements skipped) */
  static const int shapes[][8] = {{1, 1, 1, 1, 1, 1, 1, 1},   {28, 28, 2, 2, 2, 2, 28, 56}, {7, 7, 3, 3, 2, 2, 7, 15},
                                  {5, 3, 2, 3, 1, 2, 4, 9},   {3, 4, 1, 1, 3, 3, 6, 12},    {1, 9, 4, 1, 1, 1, 9, 9}};
  const float divisors[] = {4.0f, 9.0f, 3.0f, -0.5f};
  SimtRng rng;
  simt_seed(&rng, 31);
  for (int op = 0; op < 2; op++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      const int *z = shapes[si];
      int arows = (z[0] - 1) * z[4] + z[2];
      size_t nd = (size_t)z[0] * (size_t)z[6], na = (size_t)arows * (size_t)z[7];
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)si % 4), *a = dst + nd;
      simop_fill(&rng, dst, (int)nd, 'f');
      simop_fill(&rng, a, (int)na, si == 2 ? 'F' : 'f'); /* zeros of both signs, NaN, infinities */
      float *rd = simop_dup(dst, nd * 4), *ra = simop_dup(a, na * 4);
      float div = divisors[si % 4];
      const char *name = op ? "npu_vu_window_avg_f32" : "npu_vu_window_max_f32";
      TccUnit *u;
      void *ref = simop_kernel(&u, name, "ROWS=%d COLS=%d KH=%d KW=%d SH=%d SW=%d LDD=%d LDA=%d", z[0], z[1], z[2],
                               z[3], z[4], z[5], z[6], z[7]);
      if (op) {
        ((SimopWinAvg)npu_vu_window_avg_f32_at)(__FILE__, __LINE__, dst, a, z[0], z[1], z[2], z[3], z[4], z[5], z[6],
                                                z[7], div);
        ((void (*)(float *, const float *, float))ref)(rd, ra, div);
      } else {
        ((SimopWinMax)npu_vu_window_max_f32_at)(__FILE__, __LINE__, dst, a, z[0], z[1], z[2], z[3], z[4], z[5], z[6],
                                                z[7]);
        ((void (*)(float *, const float *))ref)(rd, ra);
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, nd * 4), 0, "%s shape %zu: sim and DSL differ", name, si);
      tcc_unit_free(u);
      free(ra), free(rd);
      simt_free(s);
    }
}

Test(sim_ops, window_reduction_cycles_and_refusals) {
  /* 2x2 pooling of a 56 x 56 plane: a's box is 56 * 56 * 4 bytes, 196
   * vectors, + 4 cycles of overhead */
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 1);
  memset(vm, 0, 56 * 56 * 4);
  npu_vu_window_max_f32(vm + 56 * 56, vm, 28, 28, 2, 2, 2, 2, 28, 56);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  const NpuSimUnitStats *vu1 = NULL;
  for (int i = 0; i < r.unit_count; i++)
    if (!strcmp(r.units[i].name, "vu1")) vu1 = &r.units[i];
  cr_assert(vu1 && vu1->busy == 200, "vu1 busy %llu", vu1 ? (unsigned long long)vu1->busy : 0ull);
  simt_free(s);
  /* a leading dimension narrower than the windows' width (2 * 27 + 2) */
  s = simt_new();
  npu_vu_window_avg_f32(vm, vm + 4096, 28, 28, 2, 2, 2, 2, 28, 55, 4.0f);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "npu_vu_window_avg_f32: misaligned shape: rows=28 cols=28 ldd=28 lda=55 "
                                    "(ldd >= cols, lda >= 56: the windows' width)"), "%s", npusim_error(s));
  simt_free(s);
  s = simt_new();
  npu_vu_window_max_f32(vm, vm + 4096, 2, 2, 2, 0, 2, 2, 2, 4);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "bad shape: cols=2 kh=2 kw=0 sh=2 sw=2"), "%s", npusim_error(s));
  simt_free(s);
}

/* The window's first element wins ties and a NaN compares false: C's
 * `x > m ? x : m` in window order, not fmaxf. */
Test(sim_ops, window_max_by_hand) {
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 0);
  const float in[6] = {0.0f, -0.0f, NAN, 1.0f, 1.0f, NAN};
  memcpy(vm + 8, in, sizeof in);
  npu_vu_window_max_f32(vm, vm + 8, 1, 3, 1, 2, 1, 2, 3, 6);
  simop_ok(s);
  cr_assert(vm[0] == 0.0f && !signbit(vm[0]), "%g", vm[0]);
  cr_assert(isnan(vm[1]), "%g", vm[1]);
  cr_assert(vm[2] == 1.0f, "%g", vm[2]);
  simt_free(s);
}

/* ---- selects ---- */
typedef void (*SimopSel)(const char *, int, float *, const float *, const float *, const float *, int, float);
typedef void (*SimopSels)(const char *, int, float *, const float *, const float *, int, float, float);

Test(sim_ops, selects_match_dsl) {
  /* m has zeros of both signs, NaN and infinities first (the compare is
   * C's: false for a NaN); thresholds on both sides of 0 */
  const float ts[] = {0.0f, -0.5f, 0.25f}, es[] = {0.0f, -1.5f, 7.0f};
  SimtRng rng;
  simt_seed(&rng, 32);
  for (int op = 0; op < 2; op++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      int n = simop_vu_ns[ni] * 3 / 4; /* four f32 operands in one VM */
      float t = ts[ni % 3], e = es[ni % 3];
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)ni % 4), *m = dst + n, *a = m + n, *b = a + n;
      simop_fill(&rng, m, n, 'F');
      simop_fill(&rng, a, 2 * n, 'f');
      float *rm = simop_dup(m, (size_t)n * 12), *rd = malloc((size_t)n * 4);
      const char *name = op ? "npu_vu_select_gts_f32" : "npu_vu_select_gt_f32";
      TccUnit *u;
      void *ref = simop_kernel(&u, name, "N=%d", n);
      if (op) {
        ((SimopSels)npu_vu_select_gts_f32_at)(__FILE__, __LINE__, dst, m, a, n, t, e);
        ((void (*)(float *, const float *, const float *, float, float))ref)(rd, rm, rm + n, t, e);
      } else {
        ((SimopSel)npu_vu_select_gt_f32_at)(__FILE__, __LINE__, dst, m, a, b, n, t);
        ((void (*)(float *, const float *, const float *, const float *, float))ref)(rd, rm, rm + n, rm + 2 * n, t);
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * 4), 0, "%s n=%d t=%g: sim and DSL differ", name, n, t);
      tcc_unit_free(u);
      free(rm), free(rd);
      simt_free(s);
    }
}

typedef void (*SimopSelU8)(const char *, int, float *, const uint8_t *, const float *, const float *, int);
typedef void (*SimopSelU8s)(const char *, int, float *, const uint8_t *, const float *, int, float);

Test(sim_ops, byte_mask_selects_match_dsl) {
  /* masks of 0, 1 and every other byte value; a and b with NaN and
   * infinities, which the select moves as they are */
  SimtRng rng;
  simt_seed(&rng, 33);
  for (int op = 0; op < 2; op++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      int n = simop_vu_ns[ni] * 3 / 4; /* three f32 operands and the mask in one VM */
      float e = ni % 2 ? -1.5f : 0.0f;
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)ni % 4), *a = dst + n, *b = a + n;
      uint8_t *m = (uint8_t *)(b + n);
      simop_fill(&rng, a, 2 * n, 'F');
      for (int i = 0; i < n; i++) m[i] = (uint8_t)(i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : simt_range(&rng, 0, 255));
      float *ra = simop_dup(a, (size_t)n * 8), *rd = malloc((size_t)n * 4);
      uint8_t *rm = simop_dup(m, (size_t)n);
      const char *name = op ? "npu_vu_select_u8s_f32" : "npu_vu_select_u8_f32";
      TccUnit *u;
      void *ref = simop_kernel(&u, name, "N=%d", n);
      if (op) {
        ((SimopSelU8s)npu_vu_select_u8s_f32_at)(__FILE__, __LINE__, dst, m, a, n, e);
        ((void (*)(float *, const uint8_t *, const float *, float))ref)(rd, rm, ra, e);
      } else {
        ((SimopSelU8)npu_vu_select_u8_f32_at)(__FILE__, __LINE__, dst, m, a, b, n);
        ((void (*)(float *, const uint8_t *, const float *, const float *))ref)(rd, rm, ra, ra + n);
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * 4), 0, "%s n=%d: sim and DSL differ", name, n);
      tcc_unit_free(u);
      free(ra), free(rm), free(rd);
      simt_free(s);
    }
}

/* A masked store in place under a byte mask; 16 elements cost one vector
 * and the overhead, as the fp32 selects. */
Test(sim_ops, byte_mask_select_in_place_by_hand) {
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 1);
  uint8_t *m = (uint8_t *)(vm + 64);
  const float x[4] = {-1.0f, 0.5f, NAN, 2.0f}, y[4] = {7.0f, 8.0f, 9.0f, 10.0f};
  const uint8_t mask[4] = {0, 1, 255, 0};
  memcpy(vm, x, sizeof x);
  memcpy(vm + 16, y, sizeof y);
  memset(m, 0, 16);
  memcpy(m, mask, sizeof mask);
  npu_vu_select_u8_f32(vm + 16, m, vm, vm + 16, 4);
  cr_assert(vm[16] == 7.0f && vm[17] == 0.5f && isnan(vm[18]) && vm[19] == 10.0f, "%g %g %g %g", vm[16], vm[17],
            vm[18], vm[19]);
  npu_vu_select_u8s_f32(vm + 32, m, vm, 16, 3.0f);
  cr_assert(vm[32] == 3.0f && vm[33] == 0.5f && isnan(vm[34]) && vm[35] == 3.0f);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  uint64_t busy = UINT64_MAX;
  for (int i = 0; i < r.unit_count; i++)
    if (!strcmp(r.units[i].name, "vu1")) busy = r.units[i].busy;
  cr_assert_eq(busy, 2 * 5); /* 4 + 1 each */
  simt_free(s);
}

/* In place: a ReLU with threshold (m and a one array), a masked store (b
 * is dst); 16 elements cost one vector and the overhead. */
Test(sim_ops, selects_in_place_by_hand) {
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 3);
  const float x[4] = {-1.0f, 0.5f, NAN, 2.0f}, m[4] = {1.0f, 0.0f, NAN, -0.0f};
  memcpy(vm, x, sizeof x);
  npu_vu_select_gts_f32(vm + 8, vm, vm, 4, 0.25f, 0.0f);
  cr_assert(vm[8] == 0.0f && vm[9] == 0.5f && vm[10] == 0.0f && vm[11] == 2.0f, "%g %g %g %g", vm[8], vm[9], vm[10],
            vm[11]);
  memcpy(vm + 16, m, sizeof m);
  npu_vu_select_gt_f32(vm, vm + 16, vm + 8, vm, 4, 0.0f); /* where m > 0, the relu's value; else x kept */
  cr_assert(vm[0] == 0.0f && vm[1] == 0.5f && isnan(vm[2]) && vm[3] == 2.0f, "%g %g %g %g", vm[0], vm[1], vm[2], vm[3]);
  npu_vu_select_gts_f32(vm + 32, vm + 32, vm + 32, 16, 0.0f, 1.0f);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  uint64_t busy = UINT64_MAX;
  for (int i = 0; i < r.unit_count; i++)
    if (!strcmp(r.units[i].name, "vu3")) busy = r.units[i].busy;
  cr_assert_eq(busy, 3 * 5); /* 4 + 1 each */
  simt_free(s);
}

/* ---- masks: index masks, compares into a byte mask, selects under a
 * compare of two arrays, leaky ReLUs, a ?: on a suffix ---- */

/* Every op against its DSL kernel on random operands (NaN and infinities
 * where the op only moves or compares them, finite where it multiplies),
 * index masks with starts below 0, moduli 1 to 5 and remainders of both
 * signs (C's %); dst starts random, so lanes an op keeps must stay. */
typedef struct {
  int s, m, r;
} SimopLane;
static const SimopLane simop_lanes[] = {{0, 2, 0}, {256, 2, 1}, {7, 3, 1}, {-5, 4, 0}, {-9, 4, -1}, {3, 1, 0}, {0, 5, 7}};

Test(sim_ops, index_mask_ops_match_dsl) {
  SimtRng rng;
  simt_seed(&rng, 34);
  for (int op = 0; op < 5; op++)
    for (size_t li = 0; li < sizeof simop_lanes / sizeof simop_lanes[0]; li++) {
      const SimopLane *l = &simop_lanes[li];
      int n = simop_vu_ns[li % (sizeof simop_vu_ns / sizeof simop_vu_ns[0])] / 2 + 1, lo = l->m; /* suffix start */
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)li % 4), *a = dst + n;
      simop_fill(&rng, dst, 2 * n, op == 2 ? 'f' : 'F');
      float *rd = simop_dup(dst, (size_t)n * 8);
      static const char *const names[] = {"npu_vu_lane_mask_u8", "npu_vu_store_lane_f32", "npu_vu_muls_lane_f32",
                                          "npu_vu_select_lanes_f32", "npu_vu_select_from_f32"};
      TccUnit *u;
      void *ref = simop_kernel(&u, names[op], "N=%d", n);
      switch (op) {
      case 0:
        npu_vu_lane_mask_u8_at(__FILE__, __LINE__, (uint8_t *)dst, n, l->s, l->m, l->r);
        ((void (*)(uint8_t *, int, int, int))ref)((uint8_t *)rd, l->s, l->m, l->r);
        break;
      case 1:
        npu_vu_store_lane_f32_at(__FILE__, __LINE__, dst, a, n, l->s, l->m, l->r);
        ((void (*)(float *, const float *, int, int, int))ref)(rd, rd + n, l->s, l->m, l->r);
        break;
      case 2:
        npu_vu_muls_lane_f32_at(__FILE__, __LINE__, dst, a, n, l->s, l->m, l->r, -1.5f);
        ((void (*)(float *, const float *, int, int, int, float))ref)(rd, rd + n, l->s, l->m, l->r, -1.5f);
        break;
      case 3:
        npu_vu_select_lanes_f32_at(__FILE__, __LINE__, dst, a, n, l->s, l->m, l->r, 0.25f);
        ((void (*)(float *, const float *, int, int, int, float))ref)(rd, rd + n, l->s, l->m, l->r, 0.25f);
        break;
      default:
        npu_vu_select_from_f32_at(__FILE__, __LINE__, dst, a, n, l->s, lo, 0.25f);
        ((void (*)(float *, const float *, int, int, float))ref)(rd, rd + n, l->s, lo, 0.25f);
        break;
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * (op ? 4 : 1)), 0, "%s n=%d s=%d m=%d r=%d: sim and DSL differ", names[op],
                   n, l->s, l->m, l->r);
      tcc_unit_free(u);
      free(rd);
      simt_free(s);
    }
}

typedef void (*SimopCmp)(const char *, int, uint8_t *, const float *, const float *, int);
typedef void (*SimopSel2)(const char *, int, float *, const float *, const float *, const float *, const float *, int);
typedef void (*SimopSelMuls)(const char *, int, float *, const float *, const float *, const float *, int, float,
                             float);

Test(sim_ops, compare_ops_match_dsl) {
  /* p and q share a third of their elements (== holds there), NaN and
   * infinities among them */
  static const struct {
    const char *name;
    void *fn;
    int kind; /* 0 compare, 1 select of two arrays, 2 leaky */
  } ops[] = {{"npu_vu_cmplt_f32", (void *)npu_vu_cmplt_f32_at, 0},
             {"npu_vu_cmple_f32", (void *)npu_vu_cmple_f32_at, 0},
             {"npu_vu_cmpeq_f32", (void *)npu_vu_cmpeq_f32_at, 0},
             {"npu_vu_select_lt_f32", (void *)npu_vu_select_lt_f32_at, 1},
             {"npu_vu_select_le_f32", (void *)npu_vu_select_le_f32_at, 1},
             {"npu_vu_select_eq_f32", (void *)npu_vu_select_eq_f32_at, 1},
             {"npu_vu_select_gt_muls_f32", (void *)npu_vu_select_gt_muls_f32_at, 2},
             {"npu_vu_select_ge_muls_f32", (void *)npu_vu_select_ge_muls_f32_at, 2},
             {"npu_vu_select_lt_muls_f32", (void *)npu_vu_select_lt_muls_f32_at, 2},
             {"npu_vu_select_le_muls_f32", (void *)npu_vu_select_le_muls_f32_at, 2}};
  SimtRng rng;
  simt_seed(&rng, 35);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (size_t ni = 0; ni < sizeof simop_vu_ns / sizeof simop_vu_ns[0]; ni++) {
      int n = simop_vu_ns[ni] / 2 + 1; /* five f32 operands in one VM */
      NpuSim *s = simt_new();
      float *dst = npu_scope_base(NPU_VU_VM, (int)ni % 4), *p = dst + n, *q = p + n, *a = q + n, *b = a + n;
      simop_fill(&rng, p, 4 * n, ops[o].kind == 2 ? 'f' : 'F');
      for (int i = 0; i < n; i += 3) q[i] = p[i];
      if (ops[o].kind == 2) p[0] = 0.0f, p[n - 1] = -0.0f; /* the threshold's own value */
      float *rp = simop_dup(p, (size_t)n * 16), *rd = malloc((size_t)n * 4);
      TccUnit *u;
      void *ref = simop_kernel(&u, ops[o].name, "N=%d", n);
      if (ops[o].kind == 0) {
        ((SimopCmp)ops[o].fn)(__FILE__, __LINE__, (uint8_t *)dst, p, q, n);
        ((void (*)(uint8_t *, const float *, const float *))ref)((uint8_t *)rd, rp, rp + n);
      } else if (ops[o].kind == 1) {
        ((SimopSel2)ops[o].fn)(__FILE__, __LINE__, dst, p, q, a, b, n);
        ((void (*)(float *, const float *, const float *, const float *, const float *))ref)(rd, rp, rp + n, rp + 2 * n,
                                                                                         rp + 3 * n);
      } else {
        ((SimopSelMuls)ops[o].fn)(__FILE__, __LINE__, dst, p, a, b, n, 0.0f, 0.125f);
        ((void (*)(float *, const float *, const float *, const float *, float, float))ref)(rd, rp, rp + 2 * n,
                                                                                        rp + 3 * n, 0.0f, 0.125f);
      }
      simop_ok(s);
      cr_assert_eq(memcmp(dst, rd, (size_t)n * (ops[o].kind ? 4 : 1)), 0, "%s n=%d: sim and DSL differ", ops[o].name,
                   n);
      tcc_unit_free(u);
      free(rp), free(rd);
      simt_free(s);
    }
}

/* A masked store under an index mask touches the kept lanes' hull alone:
 * a cache of 255 elements (the tile's even ones) holds it, and the
 * lanes past it are not read (a DMA writing there does not collide);
 * cycles cover all 256 lanes: 1024 bytes = 16 vectors + 4 overhead. A
 * modulus of 0 is refused. */
Test(sim_ops, index_mask_store_touches_the_kept_hull) {
  NpuSim *s = simt_new();
  float *vm = npu_scope_base(NPU_VU_VM, 2);
  for (int i = 0; i < 512; i++) vm[i] = (float)i;
  static const float ddr[1] = {-1.0f};
  npu_token_t t = npu_dma_1d(0, vm + 255, ddr, 4); /* in flight just past a's hull */
  npu_vu_store_lane_f32(vm + 256, vm, 256, 1000, 2, 0);
  simop_ok(s);
  cr_assert(vm[256] == 0.0f && vm[257] == 257.0f && vm[258] == 2.0f && vm[510] == 254.0f && vm[511] == 511.0f);
  npu_dma_wait(t);
  cr_assert_eq(npusim_finish(s), 0, "%s", npusim_error(s));
  NpuSimReport r;
  npusim_report(s, &r);
  uint64_t busy = UINT64_MAX;
  for (int i = 0; i < r.unit_count; i++)
    if (!strcmp(r.units[i].name, "vu2")) busy = r.units[i].busy;
  cr_assert_eq(busy, 4 + 16);
  simt_free(s);
  s = simt_new();
  npu_vu_store_lane_f32(vm + 256, vm, 256, 0, 0, 0);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "npu_vu_store_lane_f32: bad lane modulus m=0 (1 <= m <= 65536)"), "%s",
            npusim_error(s));
  simt_free(s);
}
