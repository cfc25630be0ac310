/* A 3x3 depthwise convolution with zero padding written as a guard (the
 * window's reads outside the image are skipped), float, 8x8 pixels of 16
 * channels: the smallest case of tune's vu:halo sketch
 * (tests/test_tune_halo.c). */
#define H 8
#define W 8
#define C 16

void depthwise(const float in[H][W][C], const float f[3][3][C], float out[H][W][C]) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < C; c++) {
        float acc = 0.0f;
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++)
            if (y + ky - 1 >= 0 && y + ky - 1 < H && x + kx - 1 >= 0 && x + kx - 1 < W)
              acc += in[y + ky - 1][x + kx - 1][c] * f[ky][kx][c];
        out[y][x][c] = acc;
      }
}
