/* uint8 image kernels: alpha blend with a scalar weight, saturating brighten, and threshold. */
#include <stdint.h>

#define H 37
#define W 53

void blend_u8(const uint8_t a[H][W], const uint8_t b[H][W], int w, uint8_t out[H][W]) {
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      out[i][j] = (uint8_t)((a[i][j] * w + b[i][j] * (8 - w) + 4) >> 3);
}

void brighten_u8(uint8_t img[H][W], int delta) {
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      int v = img[i][j] * 20 + delta;
      img[i][j] = (uint8_t)(v > 255 ? 255 : v);
    }
}

void threshold_u8(const uint8_t img[H][W], uint8_t mask[H][W]) {
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      mask[i][j] = img[i][j] >= 8 ? 255 : 0;
}
