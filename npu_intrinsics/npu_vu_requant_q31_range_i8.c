/* Semantics of npu_vu_requant_q31_range_i8 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_requant_q31_range_i8(dst, a, N, multiplier, shift, zero_point, act_min, act_max)
 * domain: shift -31 0
 * npu_vu_requant_q31_i8 with TFLite's activation bounds: the requantised
 * value plus the output offset, q, clamped to [act_min, act_max] as
 * TFLite's reference kernels clamp it (std::max(q, output_activation_min),
 * then std::min(., output_activation_max)), then converted to int8: one op
 * for a requantisation and its ReLU6 (or any activation clamp), where
 * npu_vu_requant_q31_i8 clamps to int8's own range only. Bounds outside
 * int8's range are computed as written (the conversion wraps). The name
 * sorts after npu_vu_requant_q31_i8's: a clamp to the constants -128 and
 * 127 is that op's (vectorize takes the first match in name order).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_requant_q31_range_i8(int8_t dst[N], const int32_t a[N], int32_t multiplier, int shift,
                                 int32_t zero_point, int32_t act_min, int32_t act_max) {
  for (int i = 0; i < N; i++) {
    int64_t ab = (int64_t)a[i] * multiplier;
    int32_t high = a[i] == (-2147483647 - 1) && multiplier == (-2147483647 - 1) ? 2147483647
                   : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
    int32_t mask = (int32_t)(((int64_t)1 << -shift) - 1);
    int32_t r = (high >> -shift) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
    int32_t q = r + zero_point;
    int32_t above = q > act_min ? q : act_min;
    dst[i] = (int8_t)(above < act_max ? above : act_max);
  }
}
/* The check of this file as a kernel (tests/test_kernels.c): TFLite's shifts, an
 * int8 zero point, values whose r + zero_point C computes in int32, and
 * bounds on both sides of each other. */
#pragma npu inputs(npu_vu_requant_q31_range_i8, a, -1073741824, 1073741824)
#pragma npu inputs(npu_vu_requant_q31_range_i8, shift, -31, 0)
#pragma npu inputs(npu_vu_requant_q31_range_i8, zero_point, -128, 127)
#pragma npu inputs(npu_vu_requant_q31_range_i8, act_min, -128, 16)
#pragma npu inputs(npu_vu_requant_q31_range_i8, act_max, -16, 127)
