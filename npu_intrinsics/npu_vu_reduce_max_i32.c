/* Semantics of npu_vu_reduce_max_i32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_reduce_max_i32(dst, a, ROWS, COLS, LD)
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 16
#define COLS 16
#define LD 16

void npu_vu_reduce_max_i32(int32_t dst[ROWS], const int32_t a[ROWS][LD]) {
  for (int r = 0; r < ROWS; r++) {
    dst[r] = a[r][0];
    for (int c = 1; c < COLS; c++)
      dst[r] = a[r][c] > dst[r] ? a[r][c] : dst[r];
  }
}
