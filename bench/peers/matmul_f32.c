/* The float matmul of `make bench-peers`: C = A B, 1024^3, the same
 * product Halide's JIT computes in halide_matmul.cpp. The arrays are
 * declared restrict (they never overlap), so the emitted signature keeps
 * it and gcc can hold C's register block across the k loop. */
#define N 1024

void matmul_f32(const float A[restrict N][N], const float B[restrict N][N], float C[restrict N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
