/* Semantics of npu_vu_requant_i8 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_requant_i8(dst, a, N, multiplier, shift, zero_point)
 * domain: multiplier -2097152 2097152, shift 0 47, zero_point -128 127
 * Rounds to nearest, ties toward +infinity; the product is exact in double
 * because |multiplier| <= 2^21.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#include <math.h>
#define N 64

void npu_vu_requant_i8(int8_t dst[N], const int32_t a[N], int multiplier, int shift,
                       int zero_point) {
  for (int i = 0; i < N; i++) {
    double r = floor(ldexp((double)a[i] * (double)multiplier, -shift) + 0.5) + zero_point;
    dst[i] = (int8_t)(r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r);
  }
}
