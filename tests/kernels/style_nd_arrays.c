/* Style: 3-D and 4-D arrays: NCHW <-> NHWC layout transforms, channel reductions, a 4-D broadcast add. */
#include <stdint.h>

#define NB 2
#define C 5
#define H 9
#define W 11

void nchw_to_nhwc(const int8_t in[NB][C][H][W], int8_t out[NB][H][W][C]) {
  int n, c, h, w;
  for (n = 0; n < NB; n++)
    for (c = 0; c < C; c++)
      for (h = 0; h < H; h++)
        for (w = 0; w < W; w++)
          out[n][h][w][c] = in[n][c][h][w];
}

void channel_sum3d(const float x[C][H][W], float s[H][W], float m[C]) {
  int c, h, w;
  for (h = 0; h < H; h++)
    for (w = 0; w < W; w++)
      s[h][w] = 0.0f;
  for (c = 0; c < C; c++) {
    m[c] = 0.0f;
    for (h = 0; h < H; h++)
      for (w = 0; w < W; w++) {
        s[h][w] += x[c][h][w];
        m[c] += x[c][h][w] / (H * W);
      }
  }
}

void bias_add4d(const float x[NB][C][H][W], const float bias[C], float y[NB][C][H][W]) {
  int n, c, h, w;
  for (n = 0; n < NB; n++)
    for (c = 0; c < C; c++)
      for (h = 0; h < H; h++)
        for (w = 0; w < W; w++)
          y[n][c][h][w] = x[n][c][h][w] + bias[c];
}
