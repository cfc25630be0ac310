/* int8 matmul 128 x 128 with a long reduction, K = 8192: a 128-row band of
 * A over all of K is 1 MiB, four times the NU's input buffer, so the tuned
 * schedule splits K (the nu:...+ksplit sketch, docs/tune.md). */
#include <stdint.h>

void mm_longk(const int8_t A[128][8192], const int8_t B[8192][128], int32_t C[128][128]) {
  for (int i = 0; i < 128; i++)
    for (int j = 0; j < 128; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < 8192; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
