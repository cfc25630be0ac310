/* Semantics of npu_vu_min_str_plane_i32 (npu_intrinsics.h), written in the kernel DSL.
 * Generated from npu_vu_families.def (make vu-ops): change the table, not this file.
 * scopes: dst vu_vm, a vu_vm, b vu_vm
 * abi: npu_vu_min_str_plane_i32(dst, a, b, ROWS, COLS, RA, SA, RB, SB, LDD, LDA, LDB)
 * Strided operands over a plane: a's rows RA apart and elements SA apart, b's RB and SB;
 * LDD, LDA and LDB are the row lengths. AH and BH follow from the other sizes.
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define ROWS 4
#define COLS 5
#define RA 2
#define SA 2
#define RB 2
#define SB 2
#define LDD 5
#define LDA 10
#define LDB 10
#define AH ((ROWS - 1) * RA + 1)
#define BH ((ROWS - 1) * RB + 1)

void npu_vu_min_str_plane_i32(int32_t dst[ROWS][LDD], const int32_t a[AH][LDA], const int32_t b[BH][LDB]) {
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      dst[r][c] = a[r * RA][c * SA] < b[r * RB][c * SB] ? a[r * RA][c * SA] : b[r * RB][c * SB];
}
