/* Style: loop counters declared at the top of the function (int i, j, k;) and reused across loop nests. */
#define NI 31
#define NJ 27
#define NK 23

void mm_topdecl(const float A[NI][NK], const float B[NK][NJ], float C[NI][NJ]) {
  int i, j, k;

  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      C[i][j] = 0.0f;
  for (i = 0; i < NI; i++)
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += A[i][k] * B[k][j];
}

void colsum_topdecl(const int A[NI][NJ], int s[NJ], int t[NI]) {
  int i;
  int j;
  int acc;

  for (j = 0; j < NJ; j++) {
    acc = 0;
    for (i = 0; i < NI; i++)
      acc += A[i][j];
    s[j] = acc;
  }
  for (i = 0; i < NI; i++) {
    t[i] = 0;
    for (j = 0; j < NJ; j++)
      t[i] = t[i] + A[i][j];
  }
}
