/* PolyBench 2mm: D := alpha*A*B*C + beta*D, with the intermediate tmp as an output argument (double). */
#define NI 30
#define NJ 34
#define NK 38
#define NL 42

void kernel_2mm(double alpha, double beta, double tmp[NI][NJ], const double A[NI][NK],
                const double B[NK][NJ], const double C[NJ][NL], double D[NI][NL]) {
  int i, j, k;

  /* D := alpha*A*B*C + beta*D */
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < NK; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < NJ; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
}
