/* The NU: matmul (int8 and fp32) and conv2d. Cycles per instruction:
 * overhead + ceil(MACs / MACs-per-cycle of the data type). */
#include <stdio.h>
#include <string.h>

#include "sim/internal.h"

/* C = (acc ? C : 0) + A x B; row-major, int32 sums that wrap on overflow (the
 * accumulators are 32-bit registers). An int8 product fits in int16. The j
 * loop runs in fixed blocks of NU_J so that gcc -O2 (whose cost model only
 * vectorizes loops without a scalar epilogue) turns each block into SIMD. */
#define NU_J 32

static inline void mm_i8_block4(int32_t *restrict c, const int8_t *restrict b0,
                                const int8_t *restrict b1, const int8_t *restrict b2,
                                const int8_t *restrict b3, int16_t a0, int16_t a1, int16_t a2,
                                int16_t a3) {
  for (int j = 0; j < NU_J; j++)
    c[j] = (int32_t)((uint32_t)c[j] + (uint32_t)((int32_t)(int16_t)(a0 * b0[j]) +
                                                 (int16_t)(a1 * b1[j]) + (int16_t)(a2 * b2[j]) +
                                                 (int16_t)(a3 * b3[j])));
}

static void mm_i8(int32_t *restrict C, const int8_t *restrict A, const int8_t *restrict B,
                  int m, int n, int k, int lda, int ldb, int ldc, int acc) {
  int nb = n - n % NU_J;
  for (int i = 0; i < m; i++) {
    int32_t *restrict c = C + (ptrdiff_t)i * ldc;
    const int8_t *a = A + (ptrdiff_t)i * lda;
    if (!acc) memset(c, 0, (size_t)n * sizeof *c);
    int p = 0;
    for (; p + 4 <= k; p += 4) {
      const int8_t *b0 = B + (ptrdiff_t)p * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
      int16_t a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
      for (int j = 0; j < nb; j += NU_J)
        mm_i8_block4(c + j, b0 + j, b1 + j, b2 + j, b3 + j, a0, a1, a2, a3);
      for (int j = nb; j < n; j++)
        c[j] = (int32_t)((uint32_t)c[j] + (uint32_t)((int32_t)(int16_t)(a0 * b0[j]) +
                                                     (int16_t)(a1 * b1[j]) + (int16_t)(a2 * b2[j]) +
                                                     (int16_t)(a3 * b3[j])));
    }
    for (; p < k; p++) {
      const int8_t *restrict b = B + (ptrdiff_t)p * ldb;
      int16_t ap = a[p];
      for (int j = 0; j < n; j++) c[j] = (int32_t)((uint32_t)c[j] + (uint32_t)(int16_t)(ap * b[j]));
    }
  }
}

/* fp32: per element the sum runs p = 0 .. k-1 with one rounding per step. */
static void mm_f32(float *restrict C, const float *restrict A, const float *restrict B, int m,
                   int n, int k, int lda, int ldb, int ldc, int acc) {
  for (int i = 0; i < m; i++) {
    float *restrict c = C + (ptrdiff_t)i * ldc;
    const float *a = A + (ptrdiff_t)i * lda;
    if (!acc)
      for (int j = 0; j < n; j++) c[j] = 0.0f;
    for (int p = 0; p < k; p++) {
      const float *restrict b = B + (ptrdiff_t)p * ldb;
      float ap = a[p];
      for (int j = 0; j < n; j++) {
        float prod = ap * b[j];
        c[j] = c[j] + prod;
      }
    }
  }
}

/* B[j][k] (output-channel major, npu_nu_matmul_i8_bt): the same sums, B
 * transposed block by block into a scratch tile (n*k moves against m*n*k
 * MACs) so that the vectorized loop above computes both forms. Wrapping
 * int32 sums do not depend on the order of their terms. */
enum { BT_K = 256 };

static void mm_i8_bt(int32_t *restrict C, const int8_t *restrict A, const int8_t *restrict B,
                     int m, int n, int k, int lda, int ldb, int ldc, int acc) {
  int8_t tile[BT_K * NU_J];
  if (k == 0 && !acc)
    for (int i = 0; i < m; i++) memset(C + (ptrdiff_t)i * ldc, 0, (size_t)n * sizeof *C);
  for (int j0 = 0; j0 < n; j0 += NU_J)
    for (int p0 = 0; p0 < k; p0 += BT_K) {
      int jb = n - j0 < NU_J ? n - j0 : NU_J, pb = k - p0 < BT_K ? k - p0 : BT_K;
      for (int j = 0; j < jb; j++)
        for (int p = 0; p < pb; p++) tile[p * jb + j] = B[(ptrdiff_t)(j0 + j) * ldb + p0 + p];
      mm_i8(C + j0, A + p0, tile, m, jb, pb, lda, jb, ldc, acc || p0 > 0);
    }
}

/* bt: B is read B[j][k], its rows are k long. */
static bool matmul_check(NpuSim *s, Site site, const char *op, int m, int n, int k, int lda,
                         int ldb, int ldc, bool bt) {
  if (m < 0 || n < 0 || k < 0) {
    sim_fail(s, site, op, "negative shape: m=%d n=%d k=%d", m, n, k);
    return false;
  }
  const char *bad = m > 1 && lda < k ? "lda < k" : !bt && k > 1 && ldb < n ? "ldb < n"
                  : bt && n > 1 && ldb < k ? "ldb < k" : m > 1 && ldc < n ? "ldc < n" : NULL;
  if (bad) {
    sim_fail(s, site, op, "misaligned shape: %s (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): rows "
             "would overlap", bad, m, n, k, lda, ldb, ldc);
    return false;
  }
  return true;
}

static bool matmul_issue(NpuSim *s, Site site, const char *op, const void *C, const void *A,
                         const void *B, int m, int n, int k, int lda, int ldb, int ldc, int acc,
                         int esz, int64_t rate, bool bt) {
  Operand o[3] = {{"A", {0}, OP_READ}, {"B", {0}, OP_READ},
                  {"C", {0}, acc ? OP_READ | OP_WRITE : OP_WRITE}};
  if (!region_make(s, site, op, "A", A, (int64_t)k * esz, m, (int64_t)lda * esz, 1, 0,
                   NPU_NU_IB, -1, esz, &o[0].r) ||
      !region_make(s, site, op, "B", B, (int64_t)(bt ? k : n) * esz, bt ? n : k,
                   (int64_t)ldb * esz, 1, 0, NPU_NU_WB, -1, esz, &o[1].r) ||
      !region_make(s, site, op, "C", C, (int64_t)n * 4, m, (int64_t)ldc * 4, 1, 0, NPU_NU_OB,
                   -1, 4, &o[2].r))
    return false;
  uint64_t macs = (uint64_t)m * (uint64_t)n * (uint64_t)k;
  uint64_t dur = (uint64_t)s->t.nu_overhead + ceil_div_u64(macs, (uint64_t)rate);
  char detail[96] = "";
  if (s->tracing)
    snprintf(detail, sizeof detail, "m=%d n=%d k=%d acc=%d, %llu MACs", m, n, k, acc != 0,
             (unsigned long long)macs);
  if (!unit_exec(s, site, op, TRACK_NU, o, 3, dur, detail)) return false;
  s->macs += macs;
  s->nu_work += dur - (uint64_t)s->t.nu_overhead;
  return true;
}

void npu_nu_matmul_i8_at(const char *file, int line, int32_t *C, const int8_t *A,
                         const int8_t *B, int m, int n, int k, int lda, int ldb, int ldc,
                         int accumulate) {
  Site site;
  const char *op = "npu_nu_matmul_i8";
  NpuSim *s = sim_enter(file, line, op, &site);
  if (!s) return;
  if (!matmul_check(s, site, op, m, n, k, lda, ldb, ldc, false) ||
      !matmul_issue(s, site, op, C, A, B, m, n, k, lda, ldb, ldc, accumulate, 1,
                    s->t.nu_macs_int8, false))
    return;
  mm_i8(C, A, B, m, n, k, lda, ldb, ldc, accumulate);
}

/* The same cycles as npu_nu_matmul_i8: the NU reads its weights in
 * either order at the same rate. */
void npu_nu_matmul_i8_bt_at(const char *file, int line, int32_t *C, const int8_t *A,
                            const int8_t *B, int m, int n, int k, int lda, int ldb, int ldc,
                            int accumulate) {
  Site site;
  const char *op = "npu_nu_matmul_i8_bt";
  NpuSim *s = sim_enter(file, line, op, &site);
  if (!s) return;
  if (!matmul_check(s, site, op, m, n, k, lda, ldb, ldc, true) ||
      !matmul_issue(s, site, op, C, A, B, m, n, k, lda, ldb, ldc, accumulate, 1,
                    s->t.nu_macs_int8, true))
    return;
  mm_i8_bt(C, A, B, m, n, k, lda, ldb, ldc, accumulate);
}

void npu_nu_matmul_f32_at(const char *file, int line, float *C, const float *A, const float *B,
                          int m, int n, int k, int lda, int ldb, int ldc, int accumulate) {
  Site site;
  const char *op = "npu_nu_matmul_f32";
  NpuSim *s = sim_enter(file, line, op, &site);
  if (!s) return;
  if (!matmul_check(s, site, op, m, n, k, lda, ldb, ldc, false) ||
      !matmul_issue(s, site, op, C, A, B, m, n, k, lda, ldb, ldc, accumulate, 4,
                    s->t.nu_macs_fp32, false))
    return;
  mm_f32(C, A, B, m, n, k, lda, ldb, ldc, accumulate);
}

void npu_nu_conv2d_i8_at(const char *file, int line, int32_t *out, const int8_t *in,
                         const int8_t *wt, int h, int w, int c, int oc, int kh, int kw,
                         int stride_h, int stride_w, int pad_h, int pad_w, int dil_h, int dil_w,
                         int accumulate) {
  Site site;
  const char *op = "npu_nu_conv2d_i8";
  NpuSim *s = sim_enter(file, line, op, &site);
  if (!s) return;
  if (h < 1 || w < 1 || c < 1 || oc < 1 || kh < 1 || kw < 1 || pad_h < 0 || pad_w < 0) {
    sim_fail(s, site, op, "bad shape: h=%d w=%d c=%d oc=%d kh=%d kw=%d pad=%d,%d (sizes must be "
             ">= 1, padding >= 0)", h, w, c, oc, kh, kw, pad_h, pad_w);
    return;
  }
  if (stride_h < 1 || stride_w < 1 || dil_h < 1 || dil_w < 1) {
    sim_fail(s, site, op, "bad shape: stride=%d,%d dilation=%d,%d (must be >= 1)", stride_h,
             stride_w, dil_h, dil_w);
    return;
  }
  int64_t eh = (int64_t)h + 2 * (int64_t)pad_h - (int64_t)dil_h * (kh - 1) - 1;
  int64_t ew = (int64_t)w + 2 * (int64_t)pad_w - (int64_t)dil_w * (kw - 1) - 1;
  if (eh < 0 || ew < 0) {
    sim_fail(s, site, op, "bad shape: the dilated %dx%d kernel is larger than the padded %dx%d "
             "input", kh, kw, h, w);
    return;
  }
  int oh = (int)(eh / stride_h + 1), ow = (int)(ew / stride_w + 1);
  Operand o[3] = {{"in", {0}, OP_READ}, {"wt", {0}, OP_READ},
                  {"out", {0}, accumulate ? OP_READ | OP_WRITE : OP_WRITE}};
  if (!region_make(s, site, op, "in", in, (int64_t)h * w * c, 1, 0, 1, 0, NPU_NU_IB, -1, 1,
                   &o[0].r) ||
      !region_make(s, site, op, "wt", wt, (int64_t)kh * kw * c * oc, 1, 0, 1, 0, NPU_NU_WB, -1,
                   1, &o[1].r) ||
      !region_make(s, site, op, "out", out, (int64_t)oh * ow * oc * 4, 1, 0, 1, 0, NPU_NU_OB, -1,
                   4, &o[2].r))
    return;
  uint64_t macs = (uint64_t)oh * (uint64_t)ow * (uint64_t)oc * (uint64_t)kh * (uint64_t)kw *
                  (uint64_t)c;
  uint64_t dur = (uint64_t)s->t.nu_overhead + ceil_div_u64(macs, (uint64_t)s->t.nu_macs_int8);
  char detail[128] = "";
  if (s->tracing)
    snprintf(detail, sizeof detail, "%dx%dx%d -> %dx%dx%d, kernel %dx%d, %llu MACs", h, w, c, oh,
             ow, oc, kh, kw, (unsigned long long)macs);
  if (!unit_exec(s, site, op, TRACK_NU, o, 3, dur, detail)) return;
  s->macs += macs;
  s->nu_work += dur - (uint64_t)s->t.nu_overhead;

  for (int y = 0; y < oh; y++)
    for (int x = 0; x < ow; x++) {
      int32_t *restrict orow = out + ((ptrdiff_t)y * ow + x) * oc;
      if (!accumulate) memset(orow, 0, (size_t)oc * sizeof *orow);
      for (int r = 0; r < kh; r++) {
        int iy = y * stride_h - pad_h + r * dil_h;
        if (iy < 0 || iy >= h) continue;
        for (int q = 0; q < kw; q++) {
          int ix = x * stride_w - pad_w + q * dil_w;
          if (ix < 0 || ix >= w) continue;
          const int8_t *ipix = in + ((ptrdiff_t)iy * w + ix) * c;
          const int8_t *wk = wt + ((ptrdiff_t)r * kw + q) * c * oc;
          for (int ci = 0; ci < c; ci++) {
            int16_t a = ipix[ci];
            const int8_t *restrict wrow = wk + (ptrdiff_t)ci * oc;
            for (int o2 = 0; o2 < oc; o2++)
              orow[o2] = (int32_t)((uint32_t)orow[o2] + (uint32_t)(int16_t)(a * wrow[o2]));
          }
        }
      }
    }
}
