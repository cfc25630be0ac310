/* npu_nu_matmul_i8_bt, the NU's matmul with its weights output-channel
 * major (B[j][k], TFLite's filter layout): the simulator equals the DSL
 * semantics kernel (npu_intrinsics/npu_nu_matmul_i8_bt.c, JIT-run with
 * libtcc) on seeded random data, with the cycles of npu_nu_matmul_i8, and
 * refuses rows of B shorter than k. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "test_sim_util.h"

typedef struct {
  int m, n, k, lda, ldb, ldc, acc;
} MmBtCase;

/* sizes 1, odd sizes with padded rows, n and k past the simulator's
 * blocks of 32 columns and 256 reductions (their tails), k = 0 */
static const MmBtCase mmbt_cases[] = {
    {1, 1, 1, 1, 1, 1, 0},      {1, 1, 1, 1, 1, 1, 1},        {7, 13, 5, 9, 8, 15, 0},
    {7, 13, 5, 9, 8, 15, 1},    {9, 33, 300, 301, 303, 40, 1}, {32, 64, 32, 32, 32, 64, 0},
    {3, 5, 0, 1, 1, 5, 0},      {3, 5, 0, 1, 1, 5, 1},
};

static void *mmbt_dup(const void *p, size_t n) {
  void *q = malloc(n ? n : 1);
  memcpy(q, p, n);
  return q;
}

typedef void (*MmBtRef)(int32_t *, const int8_t *, const int8_t *, int);

static MmBtRef mmbt_reference(TccUnit **u, const MmBtCase *c) {
  char d[6][24];
  snprintf(d[0], sizeof d[0], "M=%d", c->m), snprintf(d[1], sizeof d[1], "N=%d", c->n);
  snprintf(d[2], sizeof d[2], "K=%d", c->k), snprintf(d[3], sizeof d[3], "LDA=%d", c->lda);
  snprintf(d[4], sizeof d[4], "LDB=%d", c->ldb), snprintf(d[5], sizeof d[5], "LDC=%d", c->ldc);
  const char *defs[] = {d[0], d[1], d[2], d[3], d[4], d[5], NULL};
  char *src = simt_kernel_source("npu_nu_matmul_i8_bt", defs);
  *u = simt_compile(src, "npu_nu_matmul_i8_bt.c");
  free(src);
  MmBtRef fn = (MmBtRef)tcc_unit_symbol(*u, "npu_nu_matmul_i8_bt");
  cr_assert_not_null(fn, "npu_nu_matmul_i8_bt.c does not define npu_nu_matmul_i8_bt");
  return fn;
}

Test(nu_matmul_bt, sim_matches_dsl) {
  SimtRng rng;
  simt_seed(&rng, 40);
  for (size_t ci = 0; ci < sizeof mmbt_cases / sizeof mmbt_cases[0]; ci++) {
    const MmBtCase *c = &mmbt_cases[ci];
    NpuSim *s = simt_new();
    int8_t *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
    int32_t *C = npu_scope_base(NPU_NU_OB, 0);
    size_t na = (size_t)c->m * c->lda, nb = (size_t)c->n * c->ldb, nc = (size_t)c->m * c->ldc;
    simt_fill_i8(&rng, A, na);
    simt_fill_i8(&rng, B, nb);
    for (size_t i = 0; i < nc; i++) C[i] = simt_range(&rng, -(1 << 20), 1 << 20);
    int8_t *rA = mmbt_dup(A, na), *rB = mmbt_dup(B, nb);
    int32_t *rC = mmbt_dup(C, nc * 4);

    npu_nu_matmul_i8_bt(C, A, B, c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->acc);
    cr_assert(!npusim_failed(s), "simulator error: %s", npusim_error(s));
    TccUnit *u;
    mmbt_reference(&u, c)(rC, rA, rB, c->acc);
    for (size_t i = 0; i < nc; i++)
      cr_assert_eq(C[i], rC[i], "case %zu (m=%d n=%d k=%d acc=%d): C[%zu] sim %d dsl %d", ci, c->m,
                   c->n, c->k, c->acc, i, C[i], rC[i]);
    tcc_unit_free(u);
    free(rA), free(rB), free(rC);
    simt_free(s);
  }
}

/* The same cycles as npu_nu_matmul_i8 for the same sizes: the NU reads its
 * weights in either order at one rate. */
Test(nu_matmul_bt, costs_what_the_matmul_costs) {
  uint64_t cycles[2];
  for (int bt = 0; bt < 2; bt++) {
    NpuSim *s = simt_new();
    int8_t *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
    int32_t *C = npu_scope_base(NPU_NU_OB, 0);
    memset(A, 1, 64 * 96), memset(B, 1, 96 * 48);
    if (bt) npu_nu_matmul_i8_bt(C, A, B, 64, 48, 96, 96, 96, 48, 0);
    else npu_nu_matmul_i8(C, A, B, 64, 48, 96, 96, 48, 48, 0);
    cr_assert(!npusim_failed(s), "simulator error: %s", npusim_error(s));
    NpuSimReport r;
    npusim_report(s, &r);
    cycles[bt] = r.total_cycles;
    cr_assert_eq(C[0], 96);
    simt_free(s);
  }
  cr_assert_eq(cycles[0], cycles[1], "matmul %llu cycles, matmul_bt %llu", (unsigned long long)cycles[0],
               (unsigned long long)cycles[1]);
}

/* B's rows are k long: a stride shorter than k would overlap them. */
Test(nu_matmul_bt, refuses_overlapping_weight_rows) {
  NpuSim *s = simt_new();
  npu_nu_matmul_i8_bt(npu_scope_base(NPU_NU_OB, 0), npu_scope_base(NPU_NU_IB, 0),
                      npu_scope_base(NPU_NU_WB, 0), 4, 4, 32, 32, 16, 4, 0);
  cr_assert(npusim_failed(s));
  cr_assert(strstr(npusim_error(s), "npu_nu_matmul_i8_bt: misaligned shape: ldb < k"), "%s", npusim_error(s));
  simt_free(s);
}
