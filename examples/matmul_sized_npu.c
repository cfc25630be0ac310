/* int8 matmul with a symbolic row count m (K and N constant) on the NU:
 * one variant for every m the assumption allows, its last row tile a
 * run-time tail (the DMA counts and the NU's row count are computed at
 * run time). `npugen check` runs it at the size sets below. */
#include <stdint.h>

#define K 512
#define N 512

void matmul(int m, const int8_t A[m][K], const int8_t B[K][N], int32_t C[m][N]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* the NU buffers are sized from the tile, so m is bounded only by what
 * the row count of a DMA and the NU take */
#pragma npu assume(matmul, m >= 1, m <= 65536)
#pragma npu sizes(matmul, m = 77)
#pragma npu sizes(matmul, m = 1000)
#pragma npu sizes(matmul, m = 1024)

/* 128 x 128 output tiles, as examples/matmul_npu.c; the last row tile is
 * m % 128 rows when 128 does not divide m */
#pragma npu schedule(matmul, matmul_nu)
#pragma npu tile(i, j, 128, 128, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)
