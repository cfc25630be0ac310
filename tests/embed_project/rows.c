/* Rows sized by a parameter: the prototype has a variable-length array,
 * which C++ and tcc 0.9.27 do not take; the header gives them their own. */
#include <stdint.h>

#define K 4

void rows(int n, const int32_t x[n][K], int32_t y[n][K]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < K; k++)
      y[i][k] = 2 * x[i][k] + k;
}

#pragma npu assume(rows, n >= 1, n <= 4096)
#pragma npu sizes(rows, n = 5)
