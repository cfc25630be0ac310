/* Semantics of npu_vu_reduce_dot_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_reduce_dot_f32(dst, a, b, ROWS, COLS, LDA, LDB)
 * a and b may be the same array (a sum of squares: d[r][c] * d[r][c]).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 8
#define COLS 16
#define LDA 16
#define LDB 16

void npu_vu_reduce_dot_f32(float dst[ROWS], const float a[ROWS][LDA], const float b[ROWS][LDB]) {
  for (int r = 0; r < ROWS; r++) {
    dst[r] = 0.0f;
    for (int c = 0; c < COLS; c++)
      dst[r] += a[r][c] * b[r][c];
  }
}
