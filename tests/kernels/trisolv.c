/* Forward substitution L x = b over a triangular nest (diagonal kept away from zero). */
#include <math.h>

#define N 59

void trisolv(const float L[N][N], const float b[N], float x[N]) {
  for (int i = 0; i < N; i++) {
    float s = b[i];
    for (int j = 0; j < i; j++)
      s -= L[i][j] * x[j];
    x[i] = s / (fabsf(L[i][i]) + 1.0f);
  }
}
