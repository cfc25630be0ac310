/* Max pooling: int8 2x2 stride 2 (odd input, floor) and float 3x3 stride 2 with ?: maxima. */
#include <stdint.h>

#define C 4
#define H 21
#define W 18
#define OH (H / 2)
#define OW (W / 2)
#define OH3 ((H - 3) / 2 + 1)
#define OW3 ((W - 3) / 2 + 1)

void maxpool2x2_i8(const int8_t in[C][H][W], int8_t out[C][OH][OW]) {
  for (int c = 0; c < C; c++)
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        int8_t m = in[c][2 * oh][2 * ow];
        for (int kh = 0; kh < 2; kh++)
          for (int kw = 0; kw < 2; kw++) {
            int8_t v = in[c][2 * oh + kh][2 * ow + kw];
            m = v > m ? v : m;
          }
        out[c][oh][ow] = m;
      }
}

void maxpool3x3s2_f32(const float in[C][H][W], float out[C][OH3][OW3]) {
  for (int c = 0; c < C; c++)
    for (int oh = 0; oh < OH3; oh++)
      for (int ow = 0; ow < OW3; ow++) {
        out[c][oh][ow] = in[c][2 * oh][2 * ow];
        for (int kh = 0; kh < 3; kh++)
          for (int kw = 0; kw < 3; kw++)
            if (in[c][2 * oh + kh][2 * ow + kw] > out[c][oh][ow])
              out[c][oh][ow] = in[c][2 * oh + kh][2 * ow + kw];
      }
}
