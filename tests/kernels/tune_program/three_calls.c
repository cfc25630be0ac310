/* A small program for npugen tune --kernel net (tests/test_tune_program.c):
 * three calls of two kernels, scale twice. 32 x 64, so that the VU beats
 * the CU running each kernel as written (at 8 x 16 the CU took 256 cycles
 * against the VU's 817, and the kernel as written won each tune). */
#include <stdint.h>

#define R 32
#define C 64

void scale(const int32_t X[R][C], int32_t Y[R][C]) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      mul: Y[i][j] = X[i][j] * 3;
}

void relu(const int32_t X[R][C], int32_t Y[R][C]) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      clamp: Y[i][j] = X[i][j] > 0 ? X[i][j] : 0;
}

void net(const int32_t A[R][C], int32_t B[R][C]) {
  int32_t T[R][C];
  int32_t U[R][C];
  s1: scale(A, T);
  relu(T, U);
  s2: scale(U, B);
}
