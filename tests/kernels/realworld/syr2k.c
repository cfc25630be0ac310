/* PolyBench syr2k: C := alpha*A*B^T + alpha*B*A^T + beta*C on the lower triangle, float. */
#define M 26
#define N 35

void kernel_syr2k(float alpha, float beta, float C[N][N], const float A[N][M], const float B[N][M]) {
  int i, j, k;

  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++) {
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
      }
  }
}
