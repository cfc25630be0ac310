/* PolyBench bicg: s = A^T r and q = A p in one sweep (float). */
#define M 39
#define N 41

void kernel_bicg(const float A[N][M], float s[M], float q[N], const float p[M], const float r[N]) {
  int i, j;

  for (i = 0; i < M; i++)
    s[i] = 0;
  for (i = 0; i < N; i++) {
    q[i] = 0.0f;
    for (j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}
