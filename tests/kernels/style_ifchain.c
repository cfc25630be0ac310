/* Style: piecewise functions with long else-if chains over neighbours, guarded by affine conditions on the counter. */
#define N 250

void piecewise_lerp(const float x[N], float y[N]) {
  int i;
  for (i = 0; i < N; i++) {
    float v = x[i] * 4.0f;
    if (v < -3.0f)
      y[i] = -1.0f;
    else if (v < -1.0f)
      y[i] = -1.0f + 0.25f * (v + 3.0f);
    else if (v < 1.0f)
      y[i] = v * 0.5f;
    else if (v < 3.0f)
      y[i] = 0.5f + 0.25f * (v - 1.0f);
    else
      y[i] = 1.0f;
  }
}

void local_extrema(const int x[N], int kind[N]) {
  int i;
  for (i = 0; i < N; i++) {
    if (i == 0 || i == N - 1) {
      kind[i] = 0;
    } else {
      if (x[i] > x[i - 1] && x[i] > x[i + 1])
        kind[i] = 1;
      else if (x[i] < x[i - 1] && x[i] < x[i + 1])
        kind[i] = -1;
      else
        kind[i] = 0;
    }
  }
}
