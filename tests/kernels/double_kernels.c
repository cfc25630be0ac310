/* Double precision: small dgemm, daxpy with a scalar, and a vector 2-norm with sqrt. */
#include <math.h>

#define M 23
#define N 31
#define K 19
#define L 777

void dgemm(const double A[M][K], const double B[K][N], double C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double acc = 0.0;
      for (int k = 0; k < K; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = acc;
    }
}

void daxpy(double a, const double x[L], double y[L]) {
  for (int i = 0; i < L; i++)
    y[i] = a * x[i] + y[i];
}

void dnrm2(const double x[L], double out[1]) {
  double ss = 0.0;
  for (int i = 0; i < L; i++)
    ss += x[i] * x[i];
  out[0] = sqrt(ss);
}
