/* An int8 two-layer perceptron as a program: dense + bias + ReLU in int32, a requantize by shift with saturation, then a second dense layer. */
#include <stdint.h>

#define B 4
#define D0 32
#define D1 64
#define D2 16

void dense_relu(const int8_t x[B][D0], const int8_t w[D0][D1], const int32_t bias[D1], int32_t y[B][D1]) {
  for (int i = 0; i < B; i++)
    for (int j = 0; j < D1; j++) {
      int32_t s = bias[j];
      for (int k = 0; k < D0; k++) s += x[i][k] * w[k][j];
      y[i][j] = s > 0 ? s : 0;
    }
}

void requant(const int32_t x[B][D1], int8_t y[B][D1], int shift) {
  for (int i = 0; i < B; i++)
    for (int j = 0; j < D1; j++) {
      int32_t v = x[i][j] >> shift;
      y[i][j] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
    }
}

void dense2(const int8_t x[B][D1], const int8_t w[D1][D2], int32_t y[B][D2]) {
  for (int i = 0; i < B; i++)
    for (int j = 0; j < D2; j++) {
      y[i][j] = 0;
      for (int k = 0; k < D1; k++) y[i][j] += (int32_t)x[i][k] * (int32_t)w[k][j];
    }
}

void mlp(const int8_t x[B][D0], const int8_t w1[D0][D1], const int32_t b1[D1], const int8_t w2[D1][D2],
         int32_t out[B][D2], int shift) {
  int32_t h[B][D1];
  int8_t hq[B][D1];
  dense_relu(x, w1, b1, h);
  requant(h, hq, shift);
  dense2(hq, w2, out);
}
