/* Histograms with data-dependent indices whose range follows from the uint8_t type of the index. */
#include <stdint.h>

#define N 2000
#define H 29
#define W 31

void histogram_u8(const uint8_t x[N], int32_t hist[256]) {
  for (int b = 0; b < 256; b++)
    init: hist[b] = 0;
  for (int i = 0; i < N; i++)
    update: hist[x[i]] += 1;
}

void histogram2d_u8(const uint8_t img[H][W], int32_t hist[256]) {
  for (int b = 0; b < 256; b++)
    hist[b] = 0;
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      hist[img[i][j]]++;
}

void gather_u8(const uint8_t idx[N], const float table[256], float out[N]) {
  for (int i = 0; i < N; i++)
    out[i] = table[idx[i]] * 2.0f;
}
