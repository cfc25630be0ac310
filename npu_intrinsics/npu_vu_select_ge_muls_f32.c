/* Semantics of npu_vu_select_ge_muls_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, m vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_select_ge_muls_f32(dst, m, a, b, N, t, c)
 * Where m[i] >= t, a; elsewhere b times c: a leaky ReLU when m, a and b
 * are one array (`x[i] >= 0 ? x[i] : 0.1f * x[i]`). C's compare: false
 * for a NaN.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_ge_muls_f32(float dst[N], const float m[N], const float a[N], const float b[N], float t, float c) {
  for (int i = 0; i < N; i++)
    dst[i] = m[i] >= t ? a[i] : b[i] * c;
}
