/* Triangular matrix-vector products: lower (j <= i) and upper (j from i) nests. */
#define N 67

void trmv_lower(const float L[N][N], const float x[N], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0.0f;
    for (int j = 0; j <= i; j++)
      y[i] += L[i][j] * x[j];
  }
}

void trmv_upper(const float U[N][N], const float x[N], float y[N]) {
  for (int i = 0; i < N; i++) {
    float s = 0.0f;
    for (int j = i; j < N; j++)
      s += U[i][j] * x[j];
    y[i] = s;
  }
}
