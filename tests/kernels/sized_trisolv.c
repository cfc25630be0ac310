/* Symbolic sizes: forward substitution, L lower triangular with a
 * diagonal in [1, 2) so that the solution stays finite. */
void trisolv(int n, const float L[n][n], float x[n], const float b[n]) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
#pragma npu inputs(trisolv, L, 1, 2)
#pragma npu inputs(trisolv, b, -1, 1)
