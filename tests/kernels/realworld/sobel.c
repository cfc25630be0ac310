/* Sobel edge magnitude on a uint8 image: |gx| + |gy| with ?:, scaled, clamped to 255, zero border. */
#include <stdint.h>

#define H 45
#define W 61

void sobel_u8(const uint8_t src[H][W], uint8_t dst[H][W]) {
  int x, y;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      dst[y][x] = 0;

  for (y = 1; y < H - 1; y++) {
    for (x = 1; x < W - 1; x++) {
      int gx = -src[y - 1][x - 1] + src[y - 1][x + 1]
               - 2 * src[y][x - 1] + 2 * src[y][x + 1]
               - src[y + 1][x - 1] + src[y + 1][x + 1];
      int gy = -src[y - 1][x - 1] - 2 * src[y - 1][x] - src[y - 1][x + 1]
               + src[y + 1][x - 1] + 2 * src[y + 1][x] + src[y + 1][x + 1];
      int mag = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
      mag = mag * 4;
      if (mag > 255)
        mag = 255;
      dst[y][x] = (uint8_t)mag;
    }
  }
}
