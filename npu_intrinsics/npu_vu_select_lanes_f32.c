/* Semantics of npu_vu_select_lanes_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_select_lanes_f32(dst, a, N, s, m, r, e)
 * domain: m 1 65536
 * An index mask: lane i is kept where (s + i) % m == r, s the index of
 * lane 0 in the loop the call stands for (a tile's start), so the mask is
 * the loop's own `i % m == r`.
 * Kept lanes take a, the others the scalar e; a is read on kept lanes only.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_lanes_f32(float dst[N], const float a[N], int s, int m, int r, float e) {
  for (int i = 0; i < N; i++)
    dst[i] = (s + i) % m == r ? a[i] : e;
}
