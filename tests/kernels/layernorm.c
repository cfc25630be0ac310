/* Row-wise layer normalisation with sqrtf and gamma/beta, plus RMS normalisation. */
#include <math.h>

#define R 9
#define D 96

void layernorm_rows(const float x[R][D], const float gamma[D], const float beta[D], float y[R][D]) {
  for (int r = 0; r < R; r++) {
    float mean = 0.0f;
    for (int i = 0; i < D; i++)
      mean += x[r][i];
    mean = mean / D;
    float var = 0.0f;
    for (int i = 0; i < D; i++) {
      float d = x[r][i] - mean;
      var += d * d;
    }
    var = var / D;
    float rstd = 1.0f / sqrtf(var + 1e-5f);
    for (int i = 0; i < D; i++)
      y[r][i] = (x[r][i] - mean) * rstd * gamma[i] + beta[i];
  }
}

void rmsnorm_rows(const float x[R][D], const float w[D], float y[R][D]) {
  for (int r = 0; r < R; r++) {
    float ss = 0.0f;
    for (int i = 0; i < D; i++)
      ss += x[r][i] * x[r][i];
    float scale = 1.0f / sqrtf(ss / D + 1e-6f);
    for (int i = 0; i < D; i++)
      y[r][i] = w[i] * (x[r][i] * scale);
  }
}
