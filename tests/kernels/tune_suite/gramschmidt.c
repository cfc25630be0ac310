/* PolyBench gramschmidt (QR by modified Gram-Schmidt, double): a k loop
 * around a norm with sqrt, a scaling and a triangular j nest. */
#include <math.h>
#define M 20
#define N 30
void kernel_gramschmidt(double A[M][N], double R[N][N], double Q[M][N]) {
  int i, j, k;
  double nrm;
  for (k = 0; k < N; k++) {
    nrm = 0.0;
    for (i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < N; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}
