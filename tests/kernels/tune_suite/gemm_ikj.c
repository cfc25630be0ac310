/* PolyBench gemm as it is written there: C := alpha*A*B + beta*C, the
 * loops i-k-j with the `*= beta` prologue in the i loop (double). */
#define NI 20
#define NJ 25
#define NK 30

void kernel_gemm(double alpha, double beta, double C[NI][NJ], const double A[NI][NK], const double B[NK][NJ]) {
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
