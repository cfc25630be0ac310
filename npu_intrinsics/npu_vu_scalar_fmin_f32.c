/* Semantics of npu_vu_scalar_fmin_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_scalar_fmin_f32(dst, a, N, s)
 * libm: fminf
 * C's fmaxf/fminf: a NaN operand gives the other; operands that compare equal (+0 and -0)
 * give the second. tensorize matches it only where the C library the check links does the same.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#include <math.h>
#define N 64

void npu_vu_scalar_fmin_f32(float dst[N], const float a[N], float s) {
  for (int i = 0; i < N; i++)
    dst[i] = fminf(a[i], s);
}
