/* int8 conv2d in NCHW with 3x3 kernels and zero padding expressed as a condition; stride 1 and stride 2. */
#include <stdint.h>

#define C 3
#define H 17
#define W 19
#define OC 8
#define KH 3
#define KW 3
#define OH2 ((H + 2 - KH) / 2 + 1)
#define OW2 ((W + 2 - KW) / 2 + 1)

void conv2d_i8_nchw(const int8_t in[C][H][W], const int8_t wt[OC][C][KH][KW],
                    const int32_t bias[OC], int32_t out[OC][H][W]) {
  for (int oc = 0; oc < OC; oc++)
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++) {
        int32_t acc = bias[oc];
        for (int c = 0; c < C; c++)
          for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
              int ih = oh + kh - 1;
              int iw = ow + kw - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                acc += (int32_t)in[c][ih][iw] * (int32_t)wt[oc][c][kh][kw];
            }
        out[oc][oh][ow] = acc;
      }
}

void conv2d_i8_nchw_s2(const int8_t in[C][H][W], const int8_t wt[OC][C][KH][KW],
                       int32_t out[OC][OH2][OW2]) {
  for (int oc = 0; oc < OC; oc++)
    for (int oh = 0; oh < OH2; oh++)
      for (int ow = 0; ow < OW2; ow++) {
        out[oc][oh][ow] = 0;
        for (int c = 0; c < C; c++)
          for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
              int ih = 2 * oh + kh - 1;
              int iw = 2 * ow + kw - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                out[oc][oh][ow] += in[c][ih][iw] * wt[oc][c][kh][kw];
            }
      }
}
