/* Semantics of npu_vu_muls_lane_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_muls_lane_f32(dst, a, N, s, m, r, c)
 * domain: m 1 65536
 * A scaled masked store under an index mask: lane i is kept where (s + i)
 * % m == r, s the index of lane 0 in the loop the call stands for (a
 * tile's start): `if (i % 2 == 0) y[i] = 2.0f * x[i];`. Kept lanes take a
 * times c; the others are neither read nor written.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_muls_lane_f32(float dst[N], const float a[N], int s, int m, int r, float c) {
  for (int i = 0; i < N; i++)
    if ((s + i) % m == r)
      dst[i] = a[i] * c;
}
