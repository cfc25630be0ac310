/* In-place Gauss-Seidel stencils: seidel-2d 9-point in double, and an int32 1-d smoother. */
#include <stdint.h>

#define T 4
#define N 45
#define L 333

void seidel_2d(double A[N][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                 + A[i][j - 1] + A[i][j] + A[i][j + 1]
                 + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}

void gauss_seidel_1d_i32(int32_t x[L]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < L - 1; i++)
      x[i] = (x[i - 1] + 2 * x[i] + x[i + 1]) / 4;
}
