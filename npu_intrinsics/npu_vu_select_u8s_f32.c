/* Semantics of npu_vu_select_u8s_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, m vu_vm, a vu_vm
 * abi: npu_vu_select_u8s_f32(dst, m, a, N, e)
 * Where the byte mask m is not 0, a; elsewhere the scalar e.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_u8s_f32(float dst[N], const uint8_t m[N], const float a[N], float e) {
  for (int i = 0; i < N; i++)
    dst[i] = m[i] ? a[i] : e;
}
