/* PolyBench doitgen: multi-resolution analysis kernel on a 3-D array with a sum buffer argument (double). */
#define NR 10
#define NQ 8
#define NP 12

void kernel_doitgen(double A[NR][NQ][NP], const double C4[NP][NP], double sum[NP]) {
  int r, q, p, s;

  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++) {
      for (p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
}
