/* PolyBench atax: y = A^T (A x), with tmp as an output argument (double). */
#define M 38
#define N 42

void kernel_atax(const double A[M][N], const double x[N], double y[N], double tmp[M]) {
  int i, j;

  for (i = 0; i < N; i++)
    y[i] = 0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}
