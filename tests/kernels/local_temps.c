/* Local temporaries: scalar accumulators and small local arrays (window buffer, row sums). */
#include <stdint.h>

#define N 250
#define H 27
#define W 33

void moving_avg5(const float x[N], float y[N - 4]) {
  float win[5];
  for (int i = 0; i < N - 4; i++) {
    for (int k = 0; k < 5; k++)
      win[k] = x[i + k];
    float s = 0.0f;
    for (int k = 0; k < 5; k++)
      s += win[k];
    y[i] = s * 0.2f;
  }
}

void row_col_sums(const int16_t img[H][W], int32_t out[H][W]) {
  int32_t colsum[W];
  for (int j = 0; j < W; j++)
    colsum[j] = 0;
  for (int i = 0; i < H; i++) {
    int32_t rowsum = 0;
    for (int j = 0; j < W; j++) {
      rowsum += img[i][j];
      colsum[j] += img[i][j];
      out[i][j] = rowsum + colsum[j];
    }
  }
}
