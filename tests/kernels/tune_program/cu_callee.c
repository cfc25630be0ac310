/* A program whose second callee no NPU sketch takes (tests/test_tune_program.c):
 * a running sum down the columns (a scan: each row's sum needs the row
 * before; a 3-tap sum with the guards of a padded window was the case
 * until tune's vu:halo took it). In the simulated program it runs as
 * written, on the CU. 32 x 64:
 * at 8 x 16 the CU runs scale as written faster than the VU, so the kernel
 * as written, now a candidate of NPU rounds, rightly wins it too. */
#include <stdint.h>

#define R 32
#define C 64

void scale(const int32_t X[R][C], int32_t Y[R][C]) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      mul: Y[i][j] = X[i][j] * 3;
}

void column_sum(const int32_t X[R][C], int32_t Y[R][C]) {
  for (int j = 0; j < C; j++) {
    int32_t acc = 0;
    for (int i = 0; i < R; i++) {
      acc += X[i][j];
      Y[i][j] = acc;
    }
  }
}

void net(const int32_t A[R][C], int32_t B[R][C]) {
  int32_t T[R][C];
  scale(A, T);
  column_sum(T, B);
}
