/* PolyBench correlation: means, standard deviations with sqrt and an eps guard via ?:, correlation matrix (float). */
#include <math.h>

#define M 26
#define N 30

void kernel_correlation(float data[N][M], float corr[M][M], float mean[M], float stddev[M]) {
  int i, j, k;
  float float_n = (float)N;
  float eps = 0.1f;

  for (j = 0; j < M; j++) {
    mean[j] = 0.0f;
    for (i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (j = 0; j < M; j++) {
    stddev[j] = 0.0f;
    for (i = 0; i < N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = sqrtf(stddev[j]);
    /* The following in an inelegant but usual way to handle
       near-zero std. dev. values, which below would cause a zero-
       divide. */
    stddev[j] = stddev[j] <= eps ? 1.0f : stddev[j];
  }

  /* Center and reduce the column vectors. */
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrtf(float_n) * stddev[j];
    }

  /* Calculate the m * m correlation matrix. */
  for (i = 0; i < M - 1; i++) {
    corr[i][i] = 1.0f;
    for (j = i + 1; j < M; j++) {
      corr[i][j] = 0.0f;
      for (k = 0; k < N; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[M - 1][M - 1] = 1.0f;
}
