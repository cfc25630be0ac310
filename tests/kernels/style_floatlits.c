/* Style: integer literals in float context, (float)N casts, double literals mixed with float arrays. */
#define N 201

void float_literals(const float x[N], float y[N], float z[N], float w[N]) {
  int i;
  for (i = 0; i < N; i++) {
    y[i] = 2 * x[i] + 1;
    z[i] = x[i] * 0.1 + 0.25;
    w[i] = (float)i / (float)N + x[i] / N;
  }
}

void mean_scale(const float x[N], float y[N]) {
  int i;
  float s = 0;
  for (i = 0; i < N; i++)
    s += x[i];
  s = s / (float)N;
  for (i = 0; i < N; i++)
    y[i] = (x[i] - s) * 1.5 + 3;
}

void int_to_float(const int a[N], double d[N], float f[N]) {
  int i;
  for (i = 0; i < N; i++) {
    d[i] = a[i] / 3.0 + 1;
    f[i] = a[i] / 3 + 0.5f * a[i];
  }
}
