/* Depthwise 3x3 int8 conv with padding, per-channel bias, requantised back to int8 with a clamp. */
#include <stdint.h>

#define C 6
#define H 15
#define W 13

void depthwise_i8(const int8_t in[C][H][W], const int8_t wt[C][3][3], const int32_t bias[C],
                  int shift, int8_t out[C][H][W]) {
  for (int c = 0; c < C; c++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int32_t acc = bias[c];
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++) {
            int iy = y + ky - 1;
            int ix = x + kx - 1;
            if (iy >= 0 && iy < H && ix >= 0 && ix < W)
              acc += in[c][iy][ix] * wt[c][ky][kx];
          }
        acc = (acc * 29) >> shift;
        out[c][y][x] = (int8_t)(acc < -128 ? -128 : (acc > 127 ? 127 : acc));
      }
}
