/* PolyBench symm: C := alpha*A*B + beta*C with A symmetric (lower part used), temp2 recurrence, k < i bound. */
#define M 30
#define N 36

void kernel_symm(double alpha, double beta, double C[M][N], const double A[M][M], const double B[M][N]) {
  int i, j, k;
  double temp2;

  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
