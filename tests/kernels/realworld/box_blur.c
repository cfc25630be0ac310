/* 3x3 box blur on a uint8 image: interior average with rounding, border pixels copied. */
#include <stdint.h>

#define HEIGHT 48
#define WIDTH 64

void box_blur_u8(const uint8_t src[HEIGHT][WIDTH], uint8_t dst[HEIGHT][WIDTH]) {
  int x, y;

  for (x = 0; x < WIDTH; x++) {
    dst[0][x] = src[0][x];
    dst[HEIGHT - 1][x] = src[HEIGHT - 1][x];
  }
  for (y = 1; y < HEIGHT - 1; y++) {
    dst[y][0] = src[y][0];
    dst[y][WIDTH - 1] = src[y][WIDTH - 1];
  }
  for (y = 1; y < HEIGHT - 1; y++) {
    for (x = 1; x < WIDTH - 1; x++) {
      int sum = src[y - 1][x - 1] + src[y - 1][x] + src[y - 1][x + 1]
              + src[y][x - 1]     + src[y][x]     + src[y][x + 1]
              + src[y + 1][x - 1] + src[y + 1][x] + src[y + 1][x + 1];
      dst[y][x] = (uint8_t)((sum + 4) / 9);
    }
  }
}
