/* int8 x int8 -> int32 matrix multiply with labelled init/update statements (DESIGN.md section 3 example, smaller sizes). */
#include <stdint.h>

#define M 48
#define K 96
#define N 40

void matmul_i8(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
