/* Loop bounds written as folded constants: arithmetic on literals and
 * macros, casts, negatives. The check's reference unrolls accumulations of
 * 8 or more trips; it once read such bounds from a literal's field (0), so
 * each kernel here failed against itself or read past its arrays. */
#include <stdint.h>
#define N 16
#define H 12

void sum_minus(const int p[8], int out[1]) {
  out[0] = 0;
  for (int h = 0; h < 10 - 2; h++)
    out[0] += p[h];
}

void sum_half(const int p[N], int out[1]) {
  out[0] = 0;
  for (int h = 0; h < N / 2 + 4; h++)
    out[0] += p[h];
}

/* lo below 0 and from a sum: the unrolled rounds must start at lo */
void sum_shifted(const int p[24], int out[2]) {
  out[0] = 0;
  for (int h = -4; h < 16; h++)
    out[0] += p[h + 4];
  out[1] = 0;
  for (int h = 1 + 0; h < 17; h++)
    out[1] += p[h + 7];
}

void sum_cast(const int p[N], int out[2]) {
  out[0] = 0;
  for (int h = 0; h < (int)16u; h++)
    out[0] += p[h];
  out[1] = 0;
  for (int h = (int)(2u + 0u); h < (int)14u; h++)
    out[1] += p[h];
}

void sum_inclusive(const int p[N], int out[1]) {
  out[0] = 0;
  for (int h = N - 16; h <= N - 1; h++)
    out[0] += p[h];
}

/* a 1-D convolution whose taps are counted with a folded bound */
void conv1d(const int x[40], const int w[9], int y[32]) {
  for (int i = 0; i < 32; i++) {
    y[i] = 0;
    for (int t = 0; t < 3 * 3; t++)
      y[i] += x[i + t] * w[t];
  }
}

/* pooling loops to H / 2, as a program's layer writes them */
void pool_sum(const int in[H][H], int out[H / 2][H / 2]) {
  for (int i = 0; i < H / 2; i++)
    for (int j = 0; j < H / 2; j++) {
      out[i][j] = 0;
      for (int k = 0; k < 2 * 2 * 2 + 1; k++)
        out[i][j] += in[2 * i + k % 2][2 * j + k / 2 % 2];
    }
}

#pragma npu schedule(sum_minus, sum_minus_split)
#pragma npu split(h, 3, ho, hi)
#pragma npu schedule(conv1d, conv1d_split)
#pragma npu split(i, 5, io, ii)
