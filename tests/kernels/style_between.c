/* Style: scalar statements before, between and after loop nests (statistics, then centring). */
#define N 411

void center_and_stats(const float x[N], float y[N], float stats[4]) {
  int i;
  float mn = x[0];
  float mx = x[0];
  float sum = 0.0f;

  for (i = 0; i < N; i++) {
    sum += x[i];
    if (x[i] < mn) mn = x[i];
    if (x[i] > mx) mx = x[i];
  }
  float mean = sum / N;
  float range = mx - mn + 1e-3f;
  stats[0] = mean;
  for (i = 0; i < N; i++)
    y[i] = (x[i] - mean) / range;
  float ss = 0.0f;
  for (i = 0; i < N; i++)
    ss += y[i] * y[i];
  stats[1] = mn;
  stats[2] = mx;
  stats[3] = ss;
}

void two_phase_int(const int a[N], int b[N], int out[2]) {
  int total = 0;
  int i;
  out[0] = 7;
  for (i = 0; i < N; i++)
    total += a[i];
  out[1] = total;
  total = total / 4;
  for (i = 0; i < N; i++)
    b[i] = a[i] * 4 - total;
  out[0] = out[0] + b[0];
}
