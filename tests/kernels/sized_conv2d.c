/* Symbolic sizes: a 3x3 convolution over an h x w image with a border of
 * 1, height and width parameters; the input's extents are h + 2, w + 2. */
#include <stdint.h>

void conv3x3(int h, int w, const int8_t in[h + 2][w + 2], const int8_t k[3][3], int32_t out[h][w]) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int32_t acc = 0;
      for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++)
          acc += (int32_t)in[y + dy][x + dx] * (int32_t)k[dy][dx];
      out[y][x] = acc;
    }
}
#pragma npu assume(conv3x3, h <= 4096, w <= 4096)
