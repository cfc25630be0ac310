/* Average pooling: int16 3x3 stride 1 (integer division) and float 2x2 stride 2 with padding count. */
#include <stdint.h>

#define C 3
#define H 23
#define W 20
#define OH (H - 2)
#define OW (W - 2)
#define PH ((H + 1) / 2)
#define PW ((W + 1) / 2)

void avgpool3x3_i16(const int16_t in[C][H][W], int16_t out[C][OH][OW]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < OH; i++)
      for (int j = 0; j < OW; j++) {
        int sum = 0;
        for (int di = 0; di < 3; di++)
          for (int dj = 0; dj < 3; dj++)
            sum += in[c][i + di][j + dj];
        out[c][i][j] = (int16_t)(sum / 9);
      }
}

void avgpool2x2_ceil_f32(const float in[C][H][W], float out[C][PH][PW]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < PH; i++)
      for (int j = 0; j < PW; j++) {
        float s = 0.0f;
        int cnt = 0;
        for (int di = 0; di < 2; di++)
          for (int dj = 0; dj < 2; dj++) {
            int y = 2 * i + di;
            int x = 2 * j + dj;
            if (y < H && x < W) {
              s += in[c][y][x];
              cnt += 1;
            }
          }
        out[c][i][j] = s / (float)cnt;
      }
}
