/* row-wise fp32: scale each row by the reciprocal of its sum of squares */
void rownorm(const float X[512][128], float Y[512][128]) {
  float ss[512];
  for (int r = 0; r < 512; r++) {
    ss[r] = 0.0f;
    for (int c = 0; c < 128; c++)
      sq: ss[r] += X[r][c] * X[r][c];
    for (int c = 0; c < 128; c++)
      sc: Y[r][c] = X[r][c] / ss[r];
  }
}
