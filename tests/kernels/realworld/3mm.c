/* PolyBench 3mm: G := (A*B)*(C*D) with E and F as output temporaries (float). */
#define NI 24
#define NJ 28
#define NK 32
#define NL 26
#define NM 30

void kernel_3mm(float E[NI][NJ], const float A[NI][NK], const float B[NK][NJ], float F[NJ][NL],
                const float C[NJ][NM], const float D[NM][NL], float G[NI][NL]) {
  int i, j, k;

  /* E := A*B */
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      E[i][j] = 0.0f;
      for (k = 0; k < NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C*D */
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++) {
      F[i][j] = 0.0f;
      for (k = 0; k < NM; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E*F */
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      G[i][j] = 0.0f;
      for (k = 0; k < NJ; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
}
