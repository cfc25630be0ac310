/* Inclusive loop bounds (<=) on plain, offset and triangular loops. */
#define N 64
#define M 40

void scale_inclusive(const float x[N], float y[N]) {
  for (int i = 0; i <= N - 1; i++)
    y[i] = 3.0f * x[i];
}

void lower_tri_sum(const int A[M][M], int rowsum[M]) {
  for (int i = 0; i <= M - 1; i++) {
    rowsum[i] = 0;
    for (int j = 0; j <= i; j++)
      rowsum[i] += A[i][j];
  }
}

void band_copy(const float A[M][M], float B[M][M]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      B[i][j] = 0.0f;
  for (int i = 1; i <= M - 2; i++)
    for (int j = i - 1; j <= i + 1; j++)
      B[i][j] = A[i][j];
}
