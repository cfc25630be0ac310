/* npu_intrinsics.h -- the NPU intrinsic ABI that npugen's emitted C calls.
 *
 * Plain C99, no dependency on npugen. libnpusim (sim/) implements every
 * function below on the host; a vendor implements the same names on hardware.
 *
 * Every public name is a macro that adds the call site (__FILE__, __LINE__)
 * and calls the matching `<name>_at` function, so a simulator error points at
 * a line of emitted code. The `_at` functions are the ABI's linkable symbols.
 *
 * Conventions (docs/npu-model.md has the full model):
 *  - Scopes: NPU_DDR (host arrays, passed as plain pointers), NPU_DM,
 *    NPU_NU_IB, NPU_NU_WB, NPU_NU_OB, NPU_VU_VM (one per VU core). On-chip
 *    addresses are npu_scope_base(scope, core) + a byte offset.
 *  - Sizes and counts are `int` (>= 0; a negative one is an error, zero is a
 *    no-op that still costs its issue slot). Strides and leading dimensions
 *    are in bytes for DMA and in elements for compute intrinsics.
 *  - Matrices are row-major. Element operands must be naturally aligned.
 *  - Compute intrinsics are asynchronous: the unit runs them in issue order;
 *    the hardware interlocks units on overlapping on-chip addresses. DMAs are
 *    asynchronous and must be waited for (npu_dma_wait) before anything else
 *    touches their destination or overwrites their source.
 */
#ifndef NPU_INTRINSICS_H
#define NPU_INTRINSICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scopes ---- */
enum {
  NPU_DDR = 0,   /* off-chip: the host's arrays */
  NPU_DM = 1,    /* global on-chip buffer */
  NPU_NU_IB = 2, /* NU input buffer (matmul A, conv input) */
  NPU_NU_WB = 3, /* NU weight buffer (matmul B, conv weights) */
  NPU_NU_OB = 4, /* NU output buffer (int32 / fp32 accumulators) */
  NPU_VU_VM = 5, /* vector memory of VU core `core` */
  NPU_SCOPE_COUNT = 6
};

/* A DMA completion token (> 0). */
typedef int32_t npu_token_t;

/* Base address of an on-chip scope (core selects the VU core for NPU_VU_VM,
 * and must be 0 otherwise). NULL for NPU_DDR or a bad scope/core. */
void *npu_scope_base_at(const char *file, int line, int scope, int core);
/* Capacity in bytes of that scope. */
size_t npu_scope_size_at(const char *file, int line, int scope, int core);
#define npu_scope_base(scope, core) npu_scope_base_at(__FILE__, __LINE__, (scope), (core))
#define npu_scope_size(scope, core) npu_scope_size_at(__FILE__, __LINE__, (scope), (core))

/* ---- DMA: asynchronous strided copies on channel `ch` (0 .. channels-1) ----
 * 1-D: bytes contiguous bytes.
 * 2-D: rows rows of row_bytes bytes; row r at dst + r*dst_stride, src + r*src_stride.
 * 3-D: planes planes of the 2-D copy; plane p adds p*dst_stride2 / p*src_stride2.
 * Strides are in bytes and >= 0; destination rows must not overlap.
 * Returns a token for npu_dma_wait. */
npu_token_t npu_dma_1d_at(const char *file, int line, int ch, void *dst, const void *src,
                          int bytes);
npu_token_t npu_dma_2d_at(const char *file, int line, int ch, void *dst, ptrdiff_t dst_stride,
                          const void *src, ptrdiff_t src_stride, int row_bytes, int rows);
npu_token_t npu_dma_3d_at(const char *file, int line, int ch, void *dst, ptrdiff_t dst_stride,
                          ptrdiff_t dst_stride2, const void *src, ptrdiff_t src_stride,
                          ptrdiff_t src_stride2, int row_bytes, int rows, int planes);
/* Blocks the control unit until the DMA of `token` has completed. Tokens
 * are never 0: waiting for 0 returns at once, so code can keep 0 for a
 * DMA it did not issue. */
void npu_dma_wait_at(const char *file, int line, npu_token_t token);
#define npu_dma_1d(...) npu_dma_1d_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_dma_2d(...) npu_dma_2d_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_dma_3d(...) npu_dma_3d_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_dma_wait(token) npu_dma_wait_at(__FILE__, __LINE__, (token))

/* ---- NU (neural unit) ----
 * matmul: C[i*ldc+j] = (accumulate ? C[i*ldc+j] : 0) + sum_{p<k} A[i*lda+p]*B[p*ldb+j]
 * for i < m, j < n. A in NU_IB, B in NU_WB, C in NU_OB. int8 products are
 * summed in int32; fp32 sums run in order p = 0 .. k-1, one rounding per step. */
void npu_nu_matmul_i8_at(const char *file, int line, int32_t *C, const int8_t *A,
                         const int8_t *B, int m, int n, int k, int lda, int ldb, int ldc,
                         int accumulate);
void npu_nu_matmul_f32_at(const char *file, int line, float *C, const float *A, const float *B,
                          int m, int n, int k, int lda, int ldb, int ldc, int accumulate);
/* matmul_i8_bt: the weights output-channel major (TFLite's OHWI filter):
 * C[i*ldc+j] = (accumulate ? C[i*ldc+j] : 0) + sum_{p<k} A[i*lda+p]*B[j*ldb+p];
 * the same cycles as npu_nu_matmul_i8. */
void npu_nu_matmul_i8_bt_at(const char *file, int line, int32_t *C, const int8_t *A,
                            const int8_t *B, int m, int n, int k, int lda, int ldb, int ldc,
                            int accumulate);
#define npu_nu_matmul_i8(...) npu_nu_matmul_i8_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_nu_matmul_i8_bt(...) npu_nu_matmul_i8_bt_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_nu_matmul_f32(...) npu_nu_matmul_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* conv2d, one image, channels last:
 *   in[h][w][c] (NU_IB), wt[kh][kw][c][oc] (NU_WB), out[oh][ow][oc] int32 (NU_OB)
 *   oh = (h + 2*pad_h - dil_h*(kh-1) - 1) / stride_h + 1   (ow alike)
 *   out[y][x][o] = (accumulate ? out[y][x][o] : 0)
 *     + sum_{r,s,ci} in[y*stride_h - pad_h + r*dil_h][x*stride_w - pad_w + s*dil_w][ci]
 *                    * wt[r][s][ci][o]     (input outside the image reads as 0) */
void npu_nu_conv2d_i8_at(const char *file, int line, int32_t *out, const int8_t *in,
                         const int8_t *wt, int h, int w, int c, int oc, int kh, int kw,
                         int stride_h, int stride_w, int pad_h, int pad_w, int dil_h, int dil_w,
                         int accumulate);
#define npu_nu_conv2d_i8(...) npu_nu_conv2d_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- VU (vector units): every operand in the VU_VM of one core; the op runs
 * on that core. The op families (add, sub, mul, div, min, max, fmax, fmin,
 * abs, neg, relu, exp, casts, compares, selects, masked ops, row broadcasts,
 * row and window reductions over int8, int32 and fp32) are declared in
 * npu_vu_families.h, generated from one table (npu_vu_families.def); the
 * ops below are the others (docs/architecture.md says why). */
#include "npu_vu_families.h"

/* Requantize int32 -> int8:
 *   dst[i] = clamp(floor(a[i] * multiplier / 2^shift + 1/2) + zero_point, -128, 127)
 * i.e. the exact product, rounded to nearest with ties toward +infinity.
 * Operand limits: |multiplier| <= 2^21, 0 <= shift <= 47, -128 <= zero_point <= 127
 * (so the DSL kernel computes it exactly in double). */
void npu_vu_requant_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n,
                          int32_t multiplier, int shift, int zero_point);
#define npu_vu_requant_i8(...) npu_vu_requant_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* TFLite's integer requantisation, int32 -> int8, exactly as its reference
 * kernels compute it (MultiplyByQuantizedMultiplier, then the output offset
 * and the clamp):
 *   high = SaturatingRoundingDoublingHighMul(a[i], multiplier)   (gemmlowp)
 *   r    = RoundingDivideByPOT(high, -shift)   (nearest, ties away from zero)
 *   dst[i] = clamp(r + zero_point, -128, 127)
 * multiplier is any int32 (a Q31 multiplier, [2^30, 2^31) for a scale in
 * [0.5, 1)); shift is TFLite's output_shift, -31 <= shift <= 0. The
 * per-channel form takes element i's multiplier[i] and shift[i] (int32
 * arrays in the same VM). The semantics kernels spell out the C. */
void npu_vu_requant_q31_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n, int32_t multiplier,
                              int shift, int32_t zero_point);
void npu_vu_requant_q31_pc_i8_at(const char *file, int line, int8_t *dst, const int32_t *a,
                                 const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point);
#define npu_vu_requant_q31_i8(...) npu_vu_requant_q31_i8_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_vu_requant_q31_pc_i8(...) npu_vu_requant_q31_pc_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* The same with TFLite's activation bounds (output_activation_min/max,
 * scalars) in place of int8's own, clamped as its reference kernels do,
 * std::max then std::min, before the conversion to int8:
 *   q      = r + zero_point
 *   dst[i] = (int8_t)min(max(q, act_min), act_max)
 * (TFLite's act_min <= act_max lie in [-128, 127]; others are computed as
 * the formula says, the conversion wrapping.) */
void npu_vu_requant_q31_range_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n,
                                    int32_t multiplier, int shift, int32_t zero_point, int32_t act_min,
                                    int32_t act_max);
void npu_vu_requant_q31_pc_range_i8_at(const char *file, int line, int8_t *dst, const int32_t *a,
                                       const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point,
                                       int32_t act_min, int32_t act_max);
#define npu_vu_requant_q31_range_i8(...) npu_vu_requant_q31_range_i8_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_vu_requant_q31_pc_range_i8(...) npu_vu_requant_q31_pc_range_i8_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- Run-time windows: a guard that keeps part of a loop ----
 * An instruction for a loop of n iterations under `if (start + i >= lo &&
 * start + i < hi)` (a tail that is not a prefix: `i >= 7`, or a split's
 * tile that the guard cuts) runs over the window alone: its operands start
 * at npu_clamp(lo - start, n) and it runs npu_clamp(hi - start, n) minus
 * that many elements. x clamped to [0, n]; not an instruction (host
 * arithmetic on the addresses, like a prefix tail's length). */
static inline int npu_clamp(int x, int n) { return x < 0 ? 0 : x < n ? x : n; }

/* ---- VU index masks: lane i kept where (s + i) % m == r ----
 * s is the index of lane 0 in the user's loop (a tile's start), so the
 * mask is the loop's `i % m == r` across tiles; m in [1, 65536]. C's %:
 * a negative s + i has a remainder <= 0. Operands marked "kept" are read
 * or written on kept lanes alone (a predicated access: a cache of only the
 * elements the loop touches holds them).
 *   npu_vu_lane_mask_u8:     dst[i] = (s + i) % m == r          (a byte mask)
 *   npu_vu_store_lane_f32:   if kept, dst[i] = a[i]             (dst, a kept: a masked store)
 *   npu_vu_muls_lane_f32:    if kept, dst[i] = a[i] * c         (dst, a kept)
 *   npu_vu_select_lanes_f32: dst[i] = kept ? a[i] : e           (a kept)
 * One vector of work per vector of the widest operand, over all n lanes. */
void npu_vu_lane_mask_u8_at(const char *file, int line, uint8_t *dst, int n, int s, int m, int r);
void npu_vu_store_lane_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r);
void npu_vu_muls_lane_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r,
                             float c);
void npu_vu_select_lanes_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r,
                                float e);
#define npu_vu_lane_mask_u8(...) npu_vu_lane_mask_u8_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_vu_store_lane_f32(...) npu_vu_store_lane_f32_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_vu_muls_lane_f32(...) npu_vu_muls_lane_f32_at(__FILE__, __LINE__, __VA_ARGS__)
#define npu_vu_select_lanes_f32(...) npu_vu_select_lanes_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- A ?: whose condition is a suffix of the loop ----
 *   npu_vu_select_from_f32: dst[i] = s + i >= lo ? a[i] : e  (a read from lane lo - s on)
 * s is the index of lane 0 in the user's loop (`y[i] = i >= 7 ? x[i] : 0.0f`). */
void npu_vu_select_from_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int lo, float e);
#define npu_vu_select_from_f32(...) npu_vu_select_from_f32_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- barrier: the control unit waits until every unit and every DMA channel
 * is idle; all outstanding DMA tokens count as waited. ---- */
void npu_barrier_at(const char *file, int line);
#define npu_barrier() npu_barrier_at(__FILE__, __LINE__)

/* ---- check-only instrumentation: npugen emits these calls only into the C
 * that `npugen check` runs, never into the C it writes out. Host code (a
 * loop the control unit runs itself) reads (mode NPU_CU_READ), writes
 * (NPU_CU_WRITE) or updates (NPU_CU_UPDATE: `+=` and the like) the `bytes`
 * at p: the simulator checks the access against DMAs in flight, waits for
 * a unit still using those bytes and charges the CU [cu] access_cycles.
 * Returns p, bound or not, so the access is written *(T *)npu_cu_access(&x,
 * sizeof x, mode). A hardware build needs no definition. ---- */
enum { NPU_CU_READ = 1, NPU_CU_WRITE = 2, NPU_CU_UPDATE = 3 };
void *npu_cu_access_at(const char *file, int line, const void *p, int bytes, int mode);
#define npu_cu_access(p, bytes, mode) npu_cu_access_at(__FILE__, __LINE__, p, bytes, mode)
/* Check-only too: the nest as written runs instead of `intrinsic`, whose
 * scalar operands are outside the domain it is defined for. Counted, and
 * named on the check's line (a weakened verdict: an error under --strict). */
void npu_cu_fallback_at(const char *file, int line, const char *intrinsic);
#define npu_cu_fallback(intrinsic) npu_cu_fallback_at(__FILE__, __LINE__, intrinsic)

#ifdef __cplusplus
}
#endif

#endif
