/* A kernel of two top-level nests, 2mm's shape (tests/test_tune_reach.c):
 * T = A B, then D = T C, in fp32. Each nest is a contraction the NU's
 * matmul takes; tune's nests sketch gives each its own (before: no NPU
 * sketch applied to a body of two nests, and it was timed on the host). */
#define NI 16
#define NK 16
#define NJ 16
#define NL 16

void two_matmuls(const float A[NI][NK], const float B[NK][NJ], const float C[NJ][NL], float T[NI][NJ],
                 float D[NI][NL]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      T[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        T[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      D[i][j] = 0.0f;
      for (int k = 0; k < NJ; k++)
        D[i][j] += T[i][k] * C[k][j];
    }
}
