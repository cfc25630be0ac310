/* A kernel of two top-level nests, mvt's shape (tests/test_tune_reach.c):
 * y = A x and w = B z, fp32. Each nest is a GEMV the NU's matmul takes;
 * tune's nests sketch gives each its own (before: no NPU sketch applied
 * to a body of two nests, and it was timed on the host). */
#define N 32

void two_gemvs(const float A[N][N], const float x[N], const float B[N][N], const float z[N], float y[N],
               float w[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < N; j++)
      y[i] += A[i][j] * x[j];
  }
  for (int i = 0; i < N; i++) {
    w[i] = 0.0f;
    for (int j = 0; j < N; j++)
      w[i] += B[i][j] * z[j];
  }
}
