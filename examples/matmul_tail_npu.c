/* int8 matmul of 1000 x 1000 x 1000 on the NU: sizes that 128 does not
 * divide. The last row tile has 104 rows (1000 = 7 x 128 + 104), the column
 * tiles are 125 wide (8 x 125). `npugen check` runs it in the simulator. */
#include <stdint.h>

#define M 1000
#define N 1000
#define K 1000

void matmul(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* Tiles of 128 x 125. The last row tile's loop runs to 128 under the
 * split's guard; the caches copy up to the array's end, and the NU matmul
 * takes its row count at run time (104 in the last tile). An A band (128 KB
 * of the 256 KiB input buffer) is loaded once per row tile; the B bands
 * (125 KB) and C tiles are double-buffered as in matmul_npu.c, so their DMA
 * overlaps the NU. */
#pragma npu schedule(matmul, matmul_tail_guarded)
#pragma npu tile(i, j, 128, 125, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)

/* The same with the tail tile peeled: loop_partition cuts io at 7, and the
 * tail's row loop then runs 104 times with no guard, a matmul of its own on
 * the NU with its own caches. This is the way for an intrinsic whose sizes
 * other sizes derive from (the NU conv2d), whose sizes cannot shrink at run
 * time. */
#pragma npu schedule(matmul, matmul_tail)
#pragma npu tile(i, j, 128, 125, io, jo, ii, ji)
#pragma npu loop_partition(io, 7)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)
#pragma npu cache_read(A, nu_ib, io_1, A_t)
#pragma npu cache_read(B, nu_wb, jo_1, B_t)
#pragma npu cache_write(C, nu_ob, jo_1, C_t)
#pragma npu tensorize(ii_1, npu_nu_matmul_i8)
#pragma npu double_buffer(B_t)
#pragma npu double_buffer(C_t)
