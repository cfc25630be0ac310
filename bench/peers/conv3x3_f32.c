/* The 3x3 float convolution of `make bench-peers`: a 2048 x 2048 image
 * filtered by a 3x3 window of weights (one channel, no padding: the input
 * has two more rows and columns), the same sum halide_conv3x3.cpp computes
 * in Halide's JIT. restrict as in matmul_f32.c: the arrays never overlap. */
#define H 2048
#define W 2048

void conv3x3_f32(const float in[restrict H + 2][W + 2], const float w[restrict 3][3], float out[restrict H][W]) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      init: out[y][x] = 0.0f;
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
          update: out[y][x] += in[y + r][x + s] * w[r][s];
    }
}
