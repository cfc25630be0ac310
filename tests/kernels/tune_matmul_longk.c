/* An int8 matmul with a long reduction, for npugen tune's test
 * (tests/test_tune.c): a 128-row band of A over all of K does not fit half
 * the NU's input buffer, so the space has a K-split sketch. */
#include <stdint.h>

#define M 64
#define N 32
#define K 2048

void mmk(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
