/* int8 matrix multiply with int32 accumulation: the kernel of DESIGN.md. */
#include <stdint.h>

#define M 256

void matmul(const int8_t A[M][512], const int8_t B[512][128], int32_t C[M][128]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 128; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < 512; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
