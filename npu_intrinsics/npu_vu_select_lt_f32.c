/* Semantics of npu_vu_select_lt_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, p vu_vm, q vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_select_lt_f32(dst, p, q, a, b, N)
 * A compare and a predicated move in one instruction (C's compare: false for a NaN); b may be dst:
 * a masked store.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_lt_f32(float dst[N], const float p[N], const float q[N], const float a[N], const float b[N]) {
  for (int i = 0; i < N; i++)
    dst[i] = p[i] < q[i] ? a[i] : b[i];
}
