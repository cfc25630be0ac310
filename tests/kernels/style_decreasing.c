/* Style: decreasing loops i--, --i, i -= c with > and >= conditions; reverse cumulative sum, back substitution. */
#include <math.h>

#define N 257
#define M 47

void reverse_cumsum(const int x[N], int y[N]) {
  int i;
  int s = 0;

  for (i = N - 1; i >= 0; i--) {
    s += x[i];
    y[i] = s;
  }
}

void dec_forms(const float x[N], float a[N], float b[N], float c[N]) {
  int i;

  for (i = N - 1; i > 0; --i)
    a[i] = x[i] - x[i - 1];
  a[0] = x[0];
  for (i = 0; i < N; i++)
    b[i] = 0.0f;
  for (i = N - 1; i >= 0; i -= 2)
    b[i] = x[i] * 0.5f;
  for (i = N; i > 0; i--)
    c[i - 1] = x[N - i];
}

void back_substitution(const float U[M][M], const float b[M], float x[M]) {
  int i, j;

  for (i = M - 1; i >= 0; i--) {
    float s = b[i];
    for (j = M - 1; j > i; j--)
      s -= U[i][j] * x[j];
    x[i] = s / (2.0f + fabsf(U[i][i]));
  }
}
