/* docs/tutorial.md: an int8 matmul from plain loops to the NU, one
 * variant per step (each schedule repeats the steps before it). Check it:
 *   build/npugen check docs/tutorial/matmul.c */
#include <stdint.h>

#define N 256

void matmul(const int8_t A[N][N], const int8_t B[N][N], int32_t C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < N; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* Step 1: tiles staged on chip by DMA; the control unit still computes. */
#pragma npu schedule(matmul, step1_staged)
#pragma npu tile(i, j, 64, 64, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)

/* Step 2: the tile's loop nest becomes one NU instruction. */
#pragma npu schedule(matmul, step2_nu)
#pragma npu tile(i, j, 64, 64, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)

/* Step 3: bigger tiles, fewer DMAs and instructions. */
#pragma npu schedule(matmul, step3_tiles)
#pragma npu tile(i, j, 128, 128, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)

/* Step 4: the next tiles' DMAs overlap the NU's work. */
#pragma npu schedule(matmul, step4_overlap)
#pragma npu tile(i, j, 128, 128, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)
