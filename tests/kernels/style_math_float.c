/* Style: float math.h functions sqrtf, expf, powf, fabsf, fminf, fmaxf, logf, tanhf. */
#include <math.h>

#define N 311

void math_float(const float x[N], const float y[N], float a[N], float b[N], float c[N], float d[N]) {
  int i;
  for (i = 0; i < N; i++) {
    a[i] = sqrtf(x[i] * x[i] + y[i] * y[i] + 1e-6f);
    b[i] = expf(x[i]) * powf(fabsf(y[i]) + 0.5f, 1.5f);
    c[i] = fminf(x[i], y[i]) + fmaxf(x[i], 0.0f);
    d[i] = logf(1.0f + fabsf(x[i])) + tanhf(3.0f * y[i]);
  }
}

void powf_int_exp(const float x[N], float y[N]) {
  int i;
  for (i = 0; i < N; i++)
    y[i] = powf(x[i], 2.0f) + powf(x[i], 3.0f);
}
