/* Style: double math.h functions sqrt, exp, pow, fabs, fmin, fmax, log, tanh, also applied to float arrays. */
#include <math.h>

#define N 311

void math_double(const double x[N], const double y[N], double a[N], double b[N], double c[N], double d[N]) {
  int i;
  for (i = 0; i < N; i++) {
    a[i] = sqrt(x[i] * x[i] + y[i] * y[i] + 1e-12);
    b[i] = exp(x[i]) * pow(fabs(y[i]) + 0.5, 1.5);
    c[i] = fmin(x[i], y[i]) + fmax(x[i], 0.0);
    d[i] = log(1.0 + fabs(x[i])) + tanh(3.0 * y[i]);
  }
}

void double_fn_on_float(const float x[N], float y[N]) {
  int i;
  for (i = 0; i < N; i++)
    y[i] = sqrt(fabs(x[i])) + exp(x[i] * 0.5) - log(2.0 + x[i]);
}
