/* int8 matmul of a size no example has: 384 x 320, K = 768 (npugen tune figures, docs/tune.md). */
#include <stdint.h>
void mm(const int8_t A[384][768], const int8_t B[768][320], int32_t C[384][320]) {
  for (int i = 0; i < 384; i++)
    for (int j = 0; j < 320; j++) {
      C[i][j] = 0;
      for (int k = 0; k < 768; k++)
        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
