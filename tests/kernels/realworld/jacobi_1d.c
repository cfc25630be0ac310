/* PolyBench jacobi-1d: 3-point Jacobi ping-pong between A and B (double); B's ends are read as given. */
#define TSTEPS 20
#define N 120

void kernel_jacobi_1d(double A[N], double B[N]) {
  int t, i;

  for (t = 0; t < TSTEPS; t++) {
    for (i = 1; i < N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
