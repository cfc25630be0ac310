/* Semantics of npu_nu_matmul_i8_bt (npu_intrinsics.h), written in the kernel DSL:
 * npu_nu_matmul_i8 with its weights read output-channel major, B[j][k], as
 * TFLite stores a filter (OHWI) and NPUs read their weights.
 * scopes: C nu_ob, A nu_ib, B nu_wb
 * abi: npu_nu_matmul_i8_bt(C, A, B, M, N, K, LDA, LDB, LDC, accumulate)
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define M 32
#define N 32
#define K 32
#define LDA 32
#define LDB 32
#define LDC 32

void npu_nu_matmul_i8_bt(int32_t C[M][LDC], const int8_t A[M][LDA], const int8_t B[N][LDB],
                         int accumulate) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      if (accumulate == 0) {
        init: C[i][j] = 0;
      }
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[j][k];
    }
}
