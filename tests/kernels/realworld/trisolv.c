/* PolyBench trisolv: forward substitution; the diagonal of L is first moved away from zero (in place). */
#define N 60

void kernel_trisolv(float L[N][N], float x[N], const float b[N]) {
  int i, j;

  for (i = 0; i < N; i++)
    L[i][i] = L[i][i] < 0.0f ? L[i][i] - 2.0f : L[i][i] + 2.0f;

  for (i = 0; i < N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
