/* PolyBench lu: in-place LU decomposition without pivoting; the diagonal is boosted first so pivots stay large. */
#define N 40

void kernel_lu(double A[N][N]) {
  int i, j, k;

  for (i = 0; i < N; i++)
    A[i][i] = A[i][i] + 2.0 * N;

  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (j = i; j < N; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}
