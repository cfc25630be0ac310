/* Style: local scalars carried across iterations (sum = sum + x[i]; y[i] = sum;) and two-term recurrences. */
#define N 600

void running_sum(const int x[N], int y[N]) {
  int i;
  int sum = 0;
  for (i = 0; i < N; i++) {
    sum = sum + x[i];
    y[i] = sum;
  }
}

void two_term(const float x[N], float y[N]) {
  int i;
  float prev = 0.0f;
  float prev2 = 0.0f;
  for (i = 0; i < N; i++) {
    float cur = x[i] + 0.5f * prev - 0.25f * prev2;
    prev2 = prev;
    prev = cur;
    y[i] = cur;
  }
}

void ema_and_count(const float x[N], float ema[N], int cnt[N]) {
  int i;
  float e = x[0];
  int c = 0;
  for (i = 0; i < N; i++) {
    e = 0.9f * e + 0.1f * x[i];
    if (x[i] > e)
      c = c + 1;
    ema[i] = e;
    cnt[i] = c;
  }
}
