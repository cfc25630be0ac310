/* Row-wise softmax with expf, max subtraction and a reciprocal scale. */
#include <math.h>

#define R 13
#define L 67

void softmax_rows(const float x[R][L], float y[R][L]) {
  for (int r = 0; r < R; r++) {
    float m = x[r][0];
    for (int i = 1; i < L; i++)
      m = x[r][i] > m ? x[r][i] : m;
    float s = 0.0f;
    for (int i = 0; i < L; i++) {
      float e = expf(x[r][i] - m);
      y[r][i] = e;
      s += e;
    }
    float inv = 1.0f / s;
    for (int i = 0; i < L; i++)
      y[r][i] *= inv;
  }
}
