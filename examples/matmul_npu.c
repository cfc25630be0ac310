/* int8 matmul 1024 x 1024 x 1024 on the NU, with double-buffered DMA: the
 * roofline example of docs/schedules.md. `npugen check` runs it in the
 * simulator; --trace writes its timeline for Perfetto. */
#include <stdint.h>

#define N 1024

void matmul(const int8_t A[N][N], const int8_t B[N][N], int32_t C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < N; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* 128 x 128 output tiles. A 128-row band of A per io in the NU input
 * buffer, a 128-column band of B per jo in the weight buffer, the C tile in
 * the output buffer; each is double-buffered, so the DMA of the next band
 * (and the copy out of the last tile) runs while the NU computes. */
#pragma npu schedule(matmul, matmul_nu)
#pragma npu tile(i, j, 128, 128, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)
