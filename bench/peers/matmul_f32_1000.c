/* The float matmul of `make bench-peers` at N = 1000: no power of two, so
 * a tile of 8, 16 or 32 leaves a tail (split off by loop_partition in the
 * tuned schedule). Otherwise matmul_f32.c. */
#define N 1000

void matmul_f32_1000(const float A[restrict N][N], const float B[restrict N][N], float C[restrict N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
