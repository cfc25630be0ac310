/* In-place Cholesky factorisation (lower triangle) of a matrix made diagonally dominant first. */
#include <math.h>

#define N 41

void cholesky(float A[N][N]) {
  for (int i = 0; i < N; i++)
    A[i][i] += 2.0f * N;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrtf(A[i][i]);
  }
}
