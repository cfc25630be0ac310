/* A 3x3 float convolution (one channel): the taps' loops r and s are a
 * window of 9 statement instances, which host:loops unrolls whole so that
 * the loop around them (x) is vectorized with the sum in a register. */
#define H 30
#define W 36
void conv(const float in[H + 2][W + 2], const float w[3][3], float out[H][W]) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      init: out[y][x] = 0.0f;
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
          update: out[y][x] += in[y + r][x + s] * w[r][s];
    }
}
