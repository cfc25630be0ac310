/* Semantics of npu_vu_add_u8_i8 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, m vu_vm, a vu_vm, b vu_vm, c vu_vm
 * abi: npu_vu_add_u8_i8(dst, m, a, b, c, N)
 * The op where the byte mask m is not 0; elsewhere c (c may be dst: an update under a mask).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64

void npu_vu_add_u8_i8(int8_t dst[N], const uint8_t m[N], const int8_t a[N], const int8_t b[N], const int8_t c[N]) {
  for (int i = 0; i < N; i++)
    dst[i] = m[i] ? (a[i] + b[i]) : c[i];
}
