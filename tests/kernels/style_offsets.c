/* Style: inclusive bounds, j = i + 1 starts, k < i bounds, n - 1 - i reversed indices, 1-based loops. */
#define N 73

void reverse(const float x[N], float y[N]) {
  int i;
  for (i = 0; i <= N - 1; i++)
    y[i] = x[N - 1 - i];
}

void one_based(const int x[N], int y[N]) {
  int i;
  for (i = 1; i <= N; i++)
    y[i - 1] = x[i - 1] * i;
}

void strict_upper_pairs(const float x[N], float A[N][N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = 0.0f;
  for (i = 0; i < N - 1; i++)
    for (j = i + 1; j < N; j++)
      A[i][j] = x[i] - x[j];
}

void strict_lower_dot(const float L[N][N], const float x[N], float y[N]) {
  int i, k;
  for (i = 0; i < N; i++) {
    y[i] = x[i];
    for (k = 0; k < i; k++)
      y[i] += L[i][k] * x[k];
  }
}

void mirror_halves(const int x[N], int y[N]) {
  int i;
  for (i = 0; i < N / 2; i++) {
    y[i] = x[i] + x[N - 1 - i];
    y[N - 1 - i] = x[i] - x[N - 1 - i];
  }
  y[N / 2] = x[N / 2];
}
