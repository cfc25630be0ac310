/* A small int8 matmul for npugen tune's test (tests/test_tune.c): sizes
 * that round tiles do not divide, so tails are in the space. */
#include <stdint.h>

#define M 96
#define N 80
#define K 64

void mm(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
