/* int8 matmul 8192 x 8192, K = 256: the kernel as written takes about 3.4e10
 * steps, past the check's default budget (2^32); its NU variants take a few
 * thousand NU calls (npugen tune budgets trials by the variant's own work,
 * docs/tune.md). */
#include <stdint.h>
void mm(const int8_t A[8192][256], const int8_t B[256][8192], int32_t C[8192][8192]) {
  for (int i = 0; i < 8192; i++)
    for (int j = 0; j < 8192; j++) {
      C[i][j] = 0;
      for (int k = 0; k < 256; k++)
        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}
