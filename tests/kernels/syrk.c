/* Symmetric rank-k update on the lower triangle (j <= i): C = alpha A A^T + beta C. */
#define N 39
#define M 27

void syrk_lower(float alpha, float beta, const float A[N][M], float C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < M; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
}
