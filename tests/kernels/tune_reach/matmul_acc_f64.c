/* A double matmul with a local accumulator (tests/test_tune_reach.c): no
 * NPU op takes double, so no NPU sketch fits even its array form, and
 * tune tunes the kernel as written on the host. */
#define N 48

void matmul(const double A[N][N], const double B[N][N], double C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double acc = 0.0;
      for (int k = 0; k < N; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = acc;
    }
}
