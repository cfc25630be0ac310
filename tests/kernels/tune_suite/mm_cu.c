/* An int8 matmul and a variant that stages A in DM but leaves every
 * multiply-add on the CU (no tensorize): its roofline is the kernel's
 * bound, far below its cycles, and its CU share is shown. */
#include <stdint.h>
void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < 64; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
#pragma npu schedule(mm, mm_cu)
#pragma npu cache_read(A, dm, i, A_dm)
