/* A float matmul whose sizes the host sketch's seed tile (a register
 * block of 6 rows by 16 columns) does not divide: the tail rows and
 * columns are split off by loop_partition. C is restrict, as the block
 * needs (the compiler keeps C in registers across k). */
#define M 44
#define N 24
#define K 16
void mm(const float A[restrict M][K], const float B[restrict K][N], float C[restrict M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
