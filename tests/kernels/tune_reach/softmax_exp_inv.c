/* A row softmax written another way (issue 40, tests/test_tune_reach.c):
 * the exponential in a temporary that is stored and summed, and the
 * division as a product with the row's reciprocal, a local before the
 * last loop. */
#include <math.h>

#define ROWS 256
#define COLS 128

void softmax(const float x[ROWS][COLS], float y[ROWS][COLS]) {
  for (int r = 0; r < ROWS; r++) {
    float max = x[r][0];
    for (int c = 1; c < COLS; c++)
      max = x[r][c] > max ? x[r][c] : max;
    float sum = 0.0f;
    for (int c = 0; c < COLS; c++) {
      float e = expf(x[r][c] - max);
      y[r][c] = e;
      sum += e;
    }
    const float inv = 1.0f / sum;
    for (int c = 0; c < COLS; c++)
      y[r][c] *= inv;
  }
}
