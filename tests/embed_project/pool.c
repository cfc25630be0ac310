/* 2x2 average pooling over C channels: C is this file's own macro, and
 * no header of its variants defines it (docs/embedding.md). */
#define C 16
#define H 8
#define W 8

void pool(const float in[C][H][W], float out[C][H / 2][W / 2]) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H / 2; i++)
      for (int j = 0; j < W / 2; j++)
        out[c][i][j] = (in[c][2 * i][2 * j] + in[c][2 * i][2 * j + 1] + in[c][2 * i + 1][2 * j] +
                        in[c][2 * i + 1][2 * j + 1]) * 0.25f;
}
