/* Semantics of npu_vu_reduce_fmin_f32 (npu_intrinsics.h), written in the kernel DSL.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_reduce_fmin_f32(dst, a, ROWS, COLS, LD)
 * libm: fminf
 * A running fminf over each row, from its first element: C's fminf as the
 * simulator computes it (sim/vu_family.c: a NaN operand gives the other, two
 * operands that compare equal, +0 and -0, give the second, so a NaN first
 * element gives the next one). npu_vu_reduce_min_f32 is another op: its
 * `a > m ? a : m` keeps a NaN first element and the running value on a tie.
 * tensorize matches this one only where the C library the check links
 * makes fminf's choices (schedule/intrinsics.c).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#include <math.h>
#define ROWS 16
#define COLS 16
#define LD 16

void npu_vu_reduce_fmin_f32(float dst[ROWS], const float a[ROWS][LD]) {
  for (int r = 0; r < ROWS; r++) {
    dst[r] = a[r][0];
    for (int c = 1; c < COLS; c++)
      dst[r] = fminf(dst[r], a[r][c]);
  }
}
