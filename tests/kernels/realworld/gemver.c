/* PolyBench gemver: rank-2 update of A, then x = beta A^T y + z, w = alpha A x (float). */
#define N 55

void kernel_gemver(float alpha, float beta, float A[N][N], const float u1[N], const float v1[N],
                   const float u2[N], const float v2[N], float w[N], float x[N], const float y[N],
                   const float z[N]) {
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];

  for (i = 0; i < N; i++)
    x[i] = x[i] + z[i];

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
}
