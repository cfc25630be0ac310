#include <stdint.h>
/* pointwise (1x1) conv, NHWC: 28x28 pixels, 128 -> 256 channels */
void pw(const int8_t in[784][128], const int8_t w[128][256], int32_t out[784][256]) {
  for (int p = 0; p < 784; p++)
    for (int o = 0; o < 256; o++) {
      out[p][o] = 0;
      for (int c = 0; c < 128; c++)
        out[p][o] += (int32_t)in[p][c] * (int32_t)w[c][o];
    }
}
