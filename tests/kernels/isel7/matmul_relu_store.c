/* A local-accumulator int8 matmul whose store is its epilogue, a ReLU
 * (`C[i][j] = acc > 0 ? acc : 0`), with no reassignment of acc between
 * (tests/test_tune_reach.c). Small sizes: the test checks the sketch's
 * seed by execution. */
#include <stdint.h>

#define M 196
#define N 8
#define K 8

void matmul(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int32_t acc = 0;
      for (int k = 0; k < K; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = acc > 0 ? acc : 0;
    }
}
