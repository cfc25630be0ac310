/* Semantics of npu_vu_muladd_cols_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm, g vu_vm, b vu_vm
 * abi: npu_vu_muladd_cols_f32(dst, a, g, b, ROWS, COLS, LDD, LDA)
 * g and b hold one value per column (layernorm's gamma and beta).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 8
#define COLS 16
#define LDD 16
#define LDA 16

void npu_vu_muladd_cols_f32(float dst[ROWS][LDD], const float a[ROWS][LDA], const float g[COLS], const float b[COLS]) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      dst[r][c] = a[r][c] * g[c] + b[c];
}
