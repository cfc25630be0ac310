/* Style: symmetric and transposed stores: mirror C[j][i] = C[i][j], symmetrise in place, A + A^T. */
#define N 43
#define K 17

void syrk_mirror(const float A[N][K], float C[N][N]) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] = 0.0f;
      for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * A[j][k];
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < i; j++)
      C[j][i] = C[i][j];
}

void symmetrize_inplace(float A[N][N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = i + 1; j < N; j++)
      A[i][j] = A[j][i] = 0.5f * (A[i][j] + A[j][i]);
}

void add_transpose(const int A[N][N], int B[N][N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[j][i] = A[i][j] + A[j][i];
}
