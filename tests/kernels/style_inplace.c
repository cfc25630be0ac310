/* Style: in-place updates of non-const input arrays: scale-shift, in-place prefix sum, row normalisation. */
#include <math.h>

#define N 500
#define R 17
#define C 29

void scale_shift_inplace(float x[N], const float b[N], float s) {
  int i;
  for (i = 0; i < N; i++)
    x[i] = x[i] * s + b[i];
}

void prefix_inplace(int x[N]) {
  int i;
  for (i = 1; i < N; i++)
    x[i] += x[i - 1];
}

void normalize_rows_inplace(float A[R][C]) {
  int i, j;
  for (i = 0; i < R; i++) {
    float n = 0.0f;
    for (j = 0; j < C; j++)
      n += A[i][j] * A[i][j];
    n = sqrtf(n) + 1e-6f;
    for (j = 0; j < C; j++)
      A[i][j] /= n;
  }
}

void swap_halves_inplace(int x[N]) {
  int i;
  for (i = 0; i < N / 2; i++) {
    int t = x[i];
    x[i] = x[i + N / 2];
    x[i + N / 2] = t;
  }
}
