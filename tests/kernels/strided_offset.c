/* Strided loops (i += 2, i += 3) and offset loops (1 .. N-2, 2 .. N-3) with neighbour accesses. */
#define N 301
#define HALF ((N + 1) / 2)

void haar_pairs(const float x[N], float y[N]) {
  y[N - 1] = x[N - 1];
  for (int i = 0; i < N - 1; i += 2) {
    y[i] = 0.5f * (x[i] + x[i + 1]);
    y[i + 1] = 0.5f * (x[i] - x[i + 1]);
  }
}

void gather_even(const float x[N], float even[HALF]) {
  for (int i = 0; i < HALF; i++)
    even[i] = x[2 * i];
}

void stride3_sum(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = 0;
  for (int i = 0; i < N - 2; i += 3)
    y[i] = x[i] + x[i + 1] + x[i + 2];
}

void offset_diff(const float x[N], float d1[N], float d2[N]) {
  for (int i = 1; i < N - 1; i++)
    d1[i] = x[i + 1] - x[i - 1];
  d1[0] = 0.0f;
  d1[N - 1] = 0.0f;
  for (int i = 2; i < N - 2; i++)
    d2[i] = x[i + 2] - 2.0f * x[i] + x[i - 2];
  for (int i = 0; i < 2; i++) {
    d2[i] = 0.0f;
    d2[N - 1 - i] = 0.0f;
  }
}
