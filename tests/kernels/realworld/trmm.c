/* PolyBench trmm: B := alpha * A^T * B with A unit lower triangular (k = i + 1 start), double. */
#define M 33
#define N 39

void kernel_trmm(double alpha, const double A[M][M], double B[M][N]) {
  int i, j, k;

  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}
