/* fp32 matmul 1000^3 (no tile of 2^k divides it: tails split off) in host memory, for the host sketch (npugen tune --host):
 * tuned for the CPU, its emitted C compiled with the system compiler. */
#define N 1000

void mm_f32(const float A[N][N], const float B[N][N], float C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
