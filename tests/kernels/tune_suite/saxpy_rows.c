/* Rows of y += a x (float): a loop that vectorizes, for the vectorize
 * mark's effect on a host build (tests/test_tune_vectorize.c). */
#define N 64
void saxpy_rows(float a, const float X[N][N], float Y[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      Y[i][j] += a * X[i][j];
}
