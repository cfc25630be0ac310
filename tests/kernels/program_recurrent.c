/* A recurrence as a program: a call in a loop, its result copied back into the state by another call, the caller's own loop between them. */
#define N 16
#define T 5

void step(const float x[N], const float a[N][N], float y[N]) {
  for (int i = 0; i < N; i++) {
    float s = 0.0f;
    for (int j = 0; j < N; j++) s += a[i][j] * x[j];
    y[i] = s * 0.5f + x[i];
  }
}

void copyv(const float x[N], float y[N]) {
  for (int i = 0; i < N; i++) y[i] = x[i];
}

void run(const float x0[N], const float a[N][N], float xs[T][N]) {
  float cur[N];
  float next[N];
  copyv(x0, cur);
  for (int t = 0; t < T; t++) {
    step(cur, a, next);
    copyv(next, cur);
    for (int i = 0; i < N; i++) xs[t][i] = cur[i];
  }
}
