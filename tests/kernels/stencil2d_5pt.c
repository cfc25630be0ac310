/* 2-D 5-point stencil out of place: copy borders, then interior with offset loops. */
#define H 61
#define W 75

void stencil_5pt(const float in[H][W], float out[H][W]) {
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      out[i][j] = in[i][j];
  for (int i = 1; i < H - 1; i++)
    for (int j = 1; j < W - 1; j++)
      out[i][j] = 0.2f * (in[i][j] + in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
