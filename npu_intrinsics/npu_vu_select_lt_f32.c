/* Semantics of npu_vu_select_lt_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, p vu_vm, q vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_select_lt_f32(dst, p, q, a, b, N)
 * Where p[i] < q[i], a; elsewhere b (b in place, dst[i] = ... : dst[i]:
 * a masked store under a compare of two arrays). C's compare: false for
 * a NaN.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_lt_f32(float dst[N], const float p[N], const float q[N], const float a[N], const float b[N]) {
  for (int i = 0; i < N; i++)
    dst[i] = p[i] < q[i] ? a[i] : b[i];
}
