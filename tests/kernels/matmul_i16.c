/* int16 x int16 -> int32 matrix multiply with a bias row and odd sizes; labels on init/update/bias. */
#include <stdint.h>

#define M 33
#define K 57
#define N 29

void matmul_i16_bias(const int16_t A[M][K], const int16_t B[K][N], const int32_t bias[N],
                     int32_t C[M][N]) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
    }
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        update: C[i][j] += A[i][k] * B[k][j];
    for (int j = 0; j < N; j++)
      bias: C[i][j] += bias[j];
  }
}
