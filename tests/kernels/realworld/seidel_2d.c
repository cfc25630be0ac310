/* PolyBench seidel-2d: in-place 9-point Gauss-Seidel sweep with <= bounds (float). */
#define TSTEPS 5
#define N 40

void kernel_seidel_2d(float A[N][N]) {
  int t, i, j;

  for (t = 0; t <= TSTEPS - 1; t++)
    for (i = 1; i <= N - 2; i++)
      for (j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                 + A[i][j - 1] + A[i][j] + A[i][j + 1]
                 + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0f;
}
