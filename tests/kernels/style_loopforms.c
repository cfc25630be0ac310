/* Style: increasing loop forms i++, ++i, i += c, i = i + c, with top-declared and inline counters. */
#define N 299

void loop_forms(const int x[N], int a[N], int b[N], int c[N], int d[N]) {
  int i;

  for (i = 0; i < N; ++i)
    a[i] = 2 * x[i];
  for (i = 0; i < N; i++)
    b[i] = 0;
  for (i = 0; i < N; i += 3)
    b[i] = x[i] + 1;
  for (i = 0; i < N; ++i)
    c[i] = -1;
  for (i = 1; i < N; i = i + 2)
    c[i] = x[i] - x[i - 1];
  for (int j = 0; j < N; j++)
    d[j] = 0;
  for (int j = 4; j < N; j = j + 4)
    d[j] = x[j] * x[j - 4];
}
