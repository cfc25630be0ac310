/* #define constants given as parenthesised expressions, math.h activations: sigmoid, GELU (tanhf), softplus. */
#include <stdint.h>
#include <math.h>

#define N (3 * 7 + 2)
#define M (N * 4 - 1)
#define HALF (M / 2)

void activations(const float x[N][M], float sig[N][M], float gelu[N][M], float sp[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      float v = x[i][j] * 4.0f;
      sig[i][j] = 1.0f / (1.0f + expf(-v));
      gelu[i][j] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
      sp[i][j] = logf(1.0f + expf(v));
    }
}

void fold_halves(const float x[N][M], float y[N][HALF]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < HALF; j++)
      y[i][j] = x[i][j] + x[i][M - 1 - j];
}
