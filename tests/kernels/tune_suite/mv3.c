/* Three top-level nests: two matrix-vector products (A x and A^T y) and
 * an update of z from both (double). */
#define N 40

void kernel_mv3(const double A[N][N], const double x[N], const double y[N], double p[N], double q[N], double z[N]) {
  for (int i = 0; i < N; i++) {
    p[i] = 0.0;
    for (int j = 0; j < N; j++)
      p[i] += A[i][j] * x[j];
  }
  for (int i = 0; i < N; i++) {
    q[i] = 0.0;
    for (int j = 0; j < N; j++)
      q[i] += A[j][i] * y[j];
  }
  for (int i = 0; i < N; i++)
    z[i] = z[i] + p[i] - 0.5 * q[i];
}
