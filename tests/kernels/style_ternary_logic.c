/* Style: nested ?:, && and || in conditions and in values, if / else-if / else chains. */
#define N 389

void nested_ternary(const int x[N], const int y[N], int out[N], int flags[N]) {
  int i;
  for (i = 0; i < N; i++) {
    out[i] = x[i] > y[i] ? (x[i] > 0 ? x[i] : -x[i]) : (y[i] > 4 ? 4 : y[i] < -4 ? -4 : y[i]);
    flags[i] = (x[i] > 0 && y[i] > 0) || (x[i] < 0 && y[i] < 0);
  }
}

void classify(const float x[N], int cls[N], float g[N]) {
  int i;
  for (i = 0; i < N; i++) {
    if (x[i] < -0.5f) {
      cls[i] = 0;
      g[i] = -1.0f;
    } else if (x[i] < 0.0f) {
      cls[i] = 1;
      g[i] = 2.0f * x[i];
    } else if (x[i] < 0.5f || x[i] == 0.75f) {
      cls[i] = 2;
      g[i] = x[i] * x[i];
    } else {
      cls[i] = 3;
      g[i] = 1.0f;
    }
  }
}

void logic_values(const int a[N], const int b[N], int land[N], int lor[N], int lnot[N]) {
  int i;
  for (i = 0; i < N; i++) {
    land[i] = a[i] && b[i];
    lor[i] = a[i] || !b[i];
    lnot[i] = !(a[i] > b[i]) + (a[i] != 0 ? 10 : 20);
  }
}
