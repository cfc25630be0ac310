/* Two GEMVs, the second reading what the first writes (t = A x; y = B t,
 * fp32; tests/test_tune_reach.c): each nest gets the NU's GEMV sketch, the
 * second with t staged at its band loop, not at the root above the first
 * nest (before: that probe was refused and the second nest stayed on the
 * CU). */
#define N 32

void chained_gemvs(const float A[N][N], const float x[N], const float B[N][N], float t[N], float y[N]) {
  for (int i = 0; i < N; i++) {
    t[i] = 0.0f;
    for (int j = 0; j < N; j++)
      t[i] += A[i][j] * x[j];
  }
  for (int i = 0; i < N; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < N; j++)
      y[i] += B[i][j] * t[j];
  }
}
