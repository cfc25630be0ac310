/* Counters near their types' limits for the random-schedule tester: what
 * fuse, split, tile and unroll write around them (a fused counter's type,
 * a tail guard, a tile count) must hold every value it takes (ir/fits.c).
 * A fuse of 16 x 16 uint8_t counters runs to 256; a split of a loop that
 * ends at INT_MAX has a last tile past it. */
#include <stdint.h>

/* 16 x 16 and 10 x 20 narrow counters: their products pass uint8_t and
 * int8_t */
void narrow8(const int A[16][16], int B[10][20], int C[16][16]) {
  for (uint8_t i = 0; i < 16; i++)
    for (uint8_t j = 0; j < 16; j++)
      c8: C[i][j] = A[i][j] * 3 + i - j;
  for (int8_t y = 0; y < 10; y++)
    for (int8_t x = 0; x < 20; x++)
      b8: B[y][x] = y * 20 + x;
}

/* 300 x 120 int16_t counters: the product passes int16_t; a uint8_t loop
 * of 250 split by most factors passes 255 in its last tile */
void narrow16(const int16_t A[300][120], int32_t S[300], int32_t T[250]) {
  for (int16_t i = 0; i < 300; i++) {
    s16: S[i] = 0;
    for (int16_t j = 0; j < 120; j++)
      a16: S[i] += A[i][j] - j;
  }
  for (uint8_t u = 0; u < 250; u++)
    t8: T[u] = u * 2;
}

/* loops that end at INT_MAX and start near INT_MIN: every tile past the
 * end of the type in the last one */
void near_int_max(const int a[647], int c[647], int d[40][47]) {
  for (int i = 2147483000; i < 2147483647; i++)
    top: c[i - 2147483000] = a[i - 2147483000] + (i & 7);
  for (int r = -2147483648; r < -2147483608; r++)
    for (int q = 2147483600; q < 2147483647; q++)
      box: d[r + 2147483648][q - 2147483600] = (r & 3) - (q & 5);
}
