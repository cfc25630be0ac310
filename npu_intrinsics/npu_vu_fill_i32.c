/* Semantics of npu_vu_fill_i32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm
 * abi: npu_vu_fill_i32(dst, ROWS, COLS, LDD, value)
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 8
#define COLS 16
#define LDD 16

void npu_vu_fill_i32(int32_t dst[ROWS][LDD], int32_t value) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      dst[r][c] = value;
}
