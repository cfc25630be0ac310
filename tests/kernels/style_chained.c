/* Style: chained assignments a = b = expr to locals and to array elements. */
#define N 45

void chained_init(const float x[N][N], float C[N][N], float D[N][N], float out[3]) {
  int i, j;
  float lo, hi, acc;

  lo = hi = x[0][0];
  acc = out[0] = 0.0f;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      C[i][j] = D[i][j] = x[i][j] * 2.0f;
      if (x[i][j] < lo) lo = x[i][j];
      if (x[i][j] > hi) hi = x[i][j];
      acc = acc + x[i][j];
    }
  out[0] = out[1] = hi - lo;
  out[2] = acc;
}

void chained_int(const int a[N], int b[N], int c[N], int d[N]) {
  int i;
  int t, u;
  for (i = 0; i < N; i++) {
    t = u = a[i] * 3;
    b[i] = c[i] = d[i] = t + u;
    c[i] += 1;
  }
}
