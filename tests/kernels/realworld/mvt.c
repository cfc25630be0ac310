/* PolyBench mvt: x1 += A y1, x2 += A^T y2 (in-place updates of x1, x2; double). */
#define N 60

void kernel_mvt(double x1[N], double x2[N], const double y_1[N], const double y_2[N], const double A[N][N]) {
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
}
