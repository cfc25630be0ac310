/* Semantics of npu_vu_log_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_log_f32(dst, a, ROWS, COLS, LDD, LDA)
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#include <math.h>
#define ROWS 8
#define COLS 16
#define LDD 16
#define LDA 16

void npu_vu_log_f32(float dst[ROWS][LDD], const float a[ROWS][LDA]) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      dst[r][c] = logf(a[r][c]);
}

/* logf is finite where its operand is > 0: a is drawn in [0.5, 4) */
#pragma npu inputs(npu_vu_log_f32, a, 0.5, 4)
