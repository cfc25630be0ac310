/* Semantics of npu_vu_cast_i32_i8 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_cast_i32_i8(dst, a, N)
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_cast_i32_i8(int8_t dst[N], const int32_t a[N]) {
  for (int i = 0; i < N; i++)
    dst[i] = (int8_t)a[i];
}
