/* Semantics of npu_vu_select_gts_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, m vu_vm, a vu_vm
 * abi: npu_vu_select_gts_f32(dst, m, a, N, t, e)
 * A compare and a predicated move in one instruction (C's compare: false for a NaN); b may be dst:
 * a masked store.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_select_gts_f32(float dst[N], const float m[N], const float a[N], float t, float e) {
  for (int i = 0; i < N; i++)
    dst[i] = m[i] > t ? a[i] : e;
}
