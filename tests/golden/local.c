/* Locals: a scalar accumulator and a temporary row, read after they are
 * set (the reference tracks both); the check's C runs i backwards. */
#include <stdint.h>
#define N 8
void rowsum(const int16_t A[N][N], int32_t S[N]) {
  for (int i = 0; i < N; i++) {
    int32_t acc = 0;
    int32_t tmp[N];
    for (int j = 0; j < N; j++) {
      tmp[j] = A[i][j] * 2;
      acc += tmp[j];
    }
    S[i] = acc;
  }
}

#pragma npu schedule(rowsum, rowsum_par)
#pragma npu parallel(i)
