/* Semantics of npu_vu_requant_q31_pc_range_i8 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm, multiplier vu_vm, shift vu_vm
 * abi: npu_vu_requant_q31_pc_range_i8(dst, a, multiplier, shift, N, zero_point, act_min, act_max)
 * TFLite's integer requantisation per channel with its activation bounds:
 * npu_vu_requant_q31_range_i8 with element i's own multiplier[i] and
 * shift[i] (a row of a channels-last output, one channel per element), as
 * TFLite's per-channel convolutions end: the output offset, then
 * std::max with act_min and std::min with act_max. Each shift[i] in
 * [-31, 0]: the simulator stops the op on another. The name sorts after
 * npu_vu_requant_q31_pc_i8's (a clamp to -128 and 127 is that op's).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_requant_q31_pc_range_i8(int8_t dst[N], const int32_t a[N], const int32_t multiplier[N],
                                    const int32_t shift[N], int32_t zero_point, int32_t act_min, int32_t act_max) {
  for (int i = 0; i < N; i++) {
    int64_t ab = (int64_t)a[i] * multiplier[i];
    int32_t high = a[i] == (-2147483647 - 1) && multiplier[i] == (-2147483647 - 1) ? 2147483647
                   : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
    int32_t mask = (int32_t)(((int64_t)1 << -shift[i]) - 1);
    int32_t r = (high >> -shift[i]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
    int32_t q = r + zero_point;
    int32_t above = q > act_min ? q : act_min;
    dst[i] = (int8_t)(above < act_max ? above : act_max);
  }
}
/* The check of this file as a kernel (tests/test_kernels.c): TFLite's shifts, an
 * int8 zero point, values whose r + zero_point C computes in int32, and
 * bounds on both sides of each other. */
#pragma npu inputs(npu_vu_requant_q31_pc_range_i8, a, -1073741824, 1073741824)
#pragma npu inputs(npu_vu_requant_q31_pc_range_i8, shift, -31, 0)
#pragma npu inputs(npu_vu_requant_q31_pc_range_i8, zero_point, -128, 127)
#pragma npu inputs(npu_vu_requant_q31_pc_range_i8, act_min, -128, 16)
#pragma npu inputs(npu_vu_requant_q31_pc_range_i8, act_max, -16, 127)
