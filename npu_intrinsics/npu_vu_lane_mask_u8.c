/* Semantics of npu_vu_lane_mask_u8 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm
 * abi: npu_vu_lane_mask_u8(dst, N, s, m, r)
 * domain: m 1 65536
 * An index mask: lane i is kept where (s + i) % m == r, s the index of
 * lane 0 in the loop the call stands for (a tile's start), so the mask is
 * the loop's own `i % m == r`.
 * Each lane gets 1 where it is kept, else 0: a byte mask.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_lane_mask_u8(uint8_t dst[N], int s, int m, int r) {
  for (int i = 0; i < N; i++)
    dst[i] = (s + i) % m == r;
}
