/* Producer/consumer nests for the random-schedule tester: the suite's
 * kernels are mostly single nests, where compute_at, reverse_compute_at and
 * the inlining primitives have little to move. Each kernel here has a local
 * array (or an output) written by one nest and read by a later one. */
#include <stdint.h>

#define H 34
#define W 40
#define N 96
#define K 5
#define P 2
#define R 12
#define C 20

/* separable 3x3 box blur through a local row-filtered image */
void blur2(const float in[H][W], float out[H - 2][W - 2]) {
  float tmp[H][W - 2];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W - 2; x++)
      prod: tmp[y][x] = (in[y][x] + in[y][x + 1] + in[y][x + 2]) / 3.0f;
  for (int y = 0; y < H - 2; y++)
    for (int x = 0; x < W - 2; x++)
      cons: out[y][x] = (tmp[y][x] + tmp[y + 1][x] + tmp[y + 2][x]) / 3.0f;
}

/* an elementwise chain through two local arrays */
void chain(const int16_t a[N], const int16_t b[N], int32_t out[N]) {
  int32_t t[N];
  int32_t u[N];
  for (int i = 0; i < N; i++)
    scale: t[i] = a[i] * 3;
  for (int i = 0; i < N; i++)
    add: u[i] = t[i] + b[i];
  for (int i = 0; i < N; i++)
    shift: out[i] = u[i] >> 1;
}

/* zero padding into a local buffer, then a 1-D convolution */
void padconv(const int8_t x[N], const int8_t w[K], int32_t y[N]) {
  int8_t xp[N + K - 1];
  for (int i = 0; i < N + K - 1; i++)
    pad: xp[i] = (i >= P && i < N + P) ? x[i - P] : 0;
  for (int i = 0; i < N; i++) {
    init: y[i] = 0;
    for (int k = 0; k < K; k++)
      mac: y[i] += (int32_t)xp[i + k] * (int32_t)w[k];
  }
}

/* row sums, then each element divided by its row's sum */
void rownorm(const float x[R][C], float y[R][C]) {
  float s[R];
  for (int r = 0; r < R; r++) {
    zero: s[r] = 1.0f;
    for (int c = 0; c < C; c++)
      sum: s[r] += x[r][c] * x[r][c];
  }
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      norm: y[r][c] = x[r][c] / s[r];
}

/* a transposed copy of B in a local array, then a matrix product */
void mm_bt(const int8_t A[R][C], const int8_t B[C][R], int32_t D[R][R]) {
  int8_t bt[R][C];
  for (int j = 0; j < R; j++)
    for (int k = 0; k < C; k++)
      tr: bt[j][k] = B[k][j];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < R; j++) {
      dinit: D[i][j] = 0;
      for (int k = 0; k < C; k++)
        dmac: D[i][j] += (int32_t)A[i][k] * (int32_t)bt[j][k];
    }
}

/* a scalar temporary per element (compute_inline / reverse_compute_inline) */
void tmp_chain(const float a[N], const float b[N], float out[N]) {
  for (int i = 0; i < N; i++) {
    float t = a[i] * b[i];
    float u = t + 1.0f;
    out[i] = u * u;
  }
}
