/* PolyBench syrk: C := alpha*A*A^T + beta*C on the lower triangle (j <= i), double. */
#define M 30
#define N 37

void kernel_syrk(double alpha, double beta, double C[N][N], const double A[N][M]) {
  int i, j, k;

  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++) {
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
  }
}
