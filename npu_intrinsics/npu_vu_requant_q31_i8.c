/* Semantics of npu_vu_requant_q31_i8 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_requant_q31_i8(dst, a, N, multiplier, shift, zero_point)
 * domain: shift -31 0
 * TFLite's integer requantisation, per tensor, as its reference kernels
 * compute it (MultiplyByQuantizedMultiplier with a shift <= 0, then the
 * output offset and the int8 clamp): high is gemmlowp's
 * SaturatingRoundingDoublingHighMul(a, multiplier) (the rounded high half of
 * 2 * a * multiplier; the one overflow, INT32_MIN squared, saturates), and
 * r its RoundingDivideByPOT by 2^-shift (round to nearest, ties away from
 * zero). multiplier is the Q31 multiplier ([2^30, 2^31) for a scale in
 * [0.5, 1)); shift is TFLite's output_shift, a right shift when <= 0.
 * INT32_MIN and INT32_MAX are written out (the kernel language has no
 * <stdint.h> limits). r + zero_point is int32 arithmetic, as in TFLite.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_requant_q31_i8(int8_t dst[N], const int32_t a[N], int32_t multiplier, int shift, int32_t zero_point) {
  for (int i = 0; i < N; i++) {
    int64_t ab = (int64_t)a[i] * multiplier;
    int32_t high = a[i] == (-2147483647 - 1) && multiplier == (-2147483647 - 1) ? 2147483647
                   : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
    int32_t mask = (int32_t)(((int64_t)1 << -shift) - 1);
    int32_t r = (high >> -shift) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
    int32_t q = r + zero_point;
    dst[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
  }
}
/* The check of this file as a kernel (tests/test_kernels.c): TFLite's shifts, an
 * int8 zero point, and values whose r + zero_point C computes in int32. */
#pragma npu inputs(npu_vu_requant_q31_i8, a, -1073741824, 1073741824)
#pragma npu inputs(npu_vu_requant_q31_i8, shift, -31, 0)
#pragma npu inputs(npu_vu_requant_q31_i8, zero_point, -128, 127)
