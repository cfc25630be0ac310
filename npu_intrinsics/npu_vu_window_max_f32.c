/* Semantics of npu_vu_window_max_f32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm
 * abi: npu_vu_window_max_f32(dst, a, ROWS, COLS, KH, KW, SH, SW, LDD, LDA)
 * A pooling window reduction over one plane: each dst element reduces a KH x KW window of a,
 * windows SH rows and SW columns apart. AH follows from the other sizes (not an argument).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 4
#define COLS 5
#define KH 2
#define KW 2
#define SH 2
#define SW 2
#define LDD 5
#define LDA 10
#define AH ((ROWS - 1) * SH + KH)

void npu_vu_window_max_f32(float dst[ROWS][LDD], const float a[AH][LDA]) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) {
      init: dst[r][c] = a[r * SH][c * SW];
      for (int p = 0; p < KH; p++)
        for (int q = 0; q < KW; q++)
          update: dst[r][c] = a[r * SH + p][c * SW + q] > dst[r][c] ? a[r * SH + p][c * SW + q] : dst[r][c];
    }
}
