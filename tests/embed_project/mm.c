/* A matmul whose output parameter is named C: a header that defined the
 * pool's C would have made it `float 16[M][N]`. */
#define M 8
#define N 8
#define K 8

void mm(const float A[M][K], const float B[K][N], float C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0.0f;
      for (int k = 0; k < K; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
