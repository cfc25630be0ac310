/* Semantics of npu_vu_add_str_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_add_str_f32(dst, a, b, N, SA, SB)
 * Strided operands: a's elements SA apart, b's SB apart (the corners of a pooling window).
 * AN and BN follow from the other sizes (not arguments).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define N 64
#define SA 2
#define SB 2
#define AN ((N - 1) * SA + 1)
#define BN ((N - 1) * SB + 1)

void npu_vu_add_str_f32(float dst[N], const float a[AN], const float b[BN]) {
  for (int i = 0; i < N; i++)
    dst[i] = a[i * SA] + b[i * SB];
}
