/* Semantics of npu_vu_select_from_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_select_from_f32(dst, a, N, s, lo, e)
 * A ?: whose condition is a suffix of the loop: lane i takes a where s + i
 * >= lo (s the index of lane 0 in the loop the call stands for, a tile's
 * start: `y[i] = i >= 7 ? x[i] : 0.0f`), else the scalar e; a is read on
 * those lanes only.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_from_f32(float dst[N], const float a[N], int s, int lo, float e) {
  for (int i = 0; i < N; i++)
    dst[i] = s + i >= lo ? a[i] : e;
}
