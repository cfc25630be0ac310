/* Rows of doubles scaled (tests/test_tune_reach.c): the VU sketch applies
 * to the row loop, but no VU op computes a double, so its vectorize stays
 * a hint, and the sketch's note names the nearest op. */
void dscale(const double X[8][16], double Y[8][16]) {
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 16; c++)
      Y[r][c] = X[r][c] * 2.0;
}
