/* Symbolic sizes: a time-stepped stencil, its length and step count
 * parameters. The stencil reads i - 1 and i + 1, so it needs n >= 3 only
 * where it runs at all: no assumption needed. */
void jacobi1d(int tsteps, int n, float A[n], float B[n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}
#pragma npu assume(jacobi1d, tsteps <= 20)
