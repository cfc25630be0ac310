/* Float GEMM C = alpha * A * B + beta * C with scalar float parameters (C is in-out). */
#define NI 37
#define NJ 41
#define NK 29

void gemm(float alpha, float beta, const float A[NI][NK], const float B[NK][NJ], float C[NI][NJ]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      scale: C[i][j] *= beta;
      for (int k = 0; k < NK; k++)
        update: C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
