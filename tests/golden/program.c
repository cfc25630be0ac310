/* A program: two calls of one kernel through a local array; its variant
 * runs scale's parallel variant for both calls. */
#include <stdint.h>
#define N 8
void scale(const int32_t X[N][N], int32_t Y[N][N], int k) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      Y[i][j] = X[i][j] * k;
}

void net(const int32_t A[N][N], int32_t B[N][N], int k) {
  int32_t T[N][N];
  s1: scale(A, T, k + 1);
  s2: scale(T, B, 2);
}

#pragma npu schedule(scale, scale_par)
#pragma npu parallel(i)

#pragma npu schedule(net, net_par)
#pragma npu use(s1, scale_par)
#pragma npu use(s2, scale_par)
