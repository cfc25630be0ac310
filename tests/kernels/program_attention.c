/* Single-head attention as a program: scores (Q K^T scaled), a row softmax with its running max, then the weighted sum of V. */
#include <math.h>
#define S 8
#define D 16

void scores(const float q[S][D], const float k[S][D], float s[S][S], float scale) {
  for (int i = 0; i < S; i++)
    for (int j = 0; j < S; j++) {
      float acc = 0.0f;
      for (int d = 0; d < D; d++) acc += q[i][d] * k[j][d];
      s[i][j] = acc * scale;
    }
}

void softmax_rows(const float s[S][S], float p[S][S]) {
  for (int i = 0; i < S; i++) {
    float m = s[i][0];
    for (int j = 1; j < S; j++) m = fmaxf(m, s[i][j]);
    float sum = 0.0f;
    for (int j = 0; j < S; j++) {
      p[i][j] = expf(s[i][j] - m);
      sum += p[i][j];
    }
    for (int j = 0; j < S; j++) p[i][j] = p[i][j] / sum;
  }
}

void apply(const float p[S][S], const float v[S][D], float o[S][D]) {
  for (int i = 0; i < S; i++)
    for (int d = 0; d < D; d++) {
      float acc = 0.0f;
      for (int j = 0; j < S; j++) acc += p[i][j] * v[j][d];
      o[i][d] = acc;
    }
}

void attention(const float q[S][D], const float k[S][D], const float v[S][D], float o[S][D]) {
  float s[S][S];
  float p[S][S];
  scores(q, k, s, 0.25f);
  softmax_rows(s, p);
  apply(p, v, o);
}
