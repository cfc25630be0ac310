/* A row softmax that computes each exponential twice, as many write it:
 * once in the sum (`sum += expf(x - max)`, a reduction of an expression)
 * and again in the output. tune stages the sum's terms into an array
 * (stage), so the VU subtracts, exponentiates and reduces them; before,
 * that loop stayed on the CU (4% of the roofline). */
#include <math.h>
#define ROWS 128
#define COLS 256

void softmax(const float x[ROWS][COLS], float y[ROWS][COLS]) {
  for (int r = 0; r < ROWS; r++) {
    float mx = x[r][0];
    for (int c = 1; c < COLS; c++)
      if (x[r][c] > mx) mx = x[r][c];
    float sum = 0.0f;
    for (int c = 0; c < COLS; c++)
      sum += expf(x[r][c] - mx);
    for (int c = 0; c < COLS; c++)
      y[r][c] = expf(x[r][c] - mx) / sum;
  }
}
