/* Semantics of npu_vu_macs_i8_i32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_macs_i8_i32(dst, a, b, ROWS, COLS, LDD, LDA)
 * b is one element: a user's array of any rank binds to it when the indices
 * are fixed inside the nest (w[c][r][s] under the loops over c, r and s).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 8
#define COLS 16
#define LDD 16
#define LDA 16

void npu_vu_macs_i8_i32(int32_t dst[ROWS][LDD], const int8_t a[ROWS][LDA], const int8_t b[1]) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      dst[r][c] += (int32_t)a[r][c] * (int32_t)b[0];
}
