/* Float matrix-vector products: y = A x (row form) and z = A^T x (column form). */
#define M 71
#define N 53

void gemv(const float A[M][N], const float x[N], float y[M]) {
  for (int i = 0; i < M; i++) {
    float acc = 0.0f;
    for (int j = 0; j < N; j++)
      acc += A[i][j] * x[j];
    y[i] = acc;
  }
}

void gemv_t(const float A[M][N], const float x[M], float z[N]) {
  for (int j = 0; j < N; j++)
    z[j] = 0.0f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      z[j] += A[i][j] * x[i];
}
