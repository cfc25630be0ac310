/* int8 matrix multiply with int32 accumulation: the kernel of DESIGN.md. */
#include <stdint.h>

#define M 256

void matmul(const int8_t A[M][512], const int8_t B[512][128], int32_t C[M][128]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 128; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < 512; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* Schedules: each is a variant (its own emitted function), checked against
 * the kernel above by `npugen check`. */

/* Tiles of 64x32 outputs, the reduction in the middle, a vectorizable row. */
#pragma npu schedule(matmul, matmul_tiled)
#pragma npu decompose_reduction(init, i)
#pragma npu tile(i, j, 64, 32, io, jo, ii, ji)
#pragma npu reorder(io, jo, ii, k, ji)
#pragma npu split(k, 4, ko, ki)
#pragma npu reorder(io, jo, ko, ii, ji, ki)
#pragma npu unroll(ki)
#pragma npu vectorize(ji)
#pragma npu parallel(io)
#pragma npu annotate(jo, "tile", (64, 32))

/* The init fused into one flat loop, then a k-outer update sweep. */
#pragma npu schedule(matmul, matmul_flat_init)
#pragma npu fission(i, init)
#pragma npu fuse(i, j, ij)
#pragma npu reorder(k, j_1)

/* On the NPU: a 64-row band of A per io staged by DMA in the NU's input
 * buffer, a 32-column band of B per jo in its weight buffer, the C tile in
 * its output buffer (copied back after the tile); each copy is one 1-D or
 * 2-D DMA and its wait. The 64x32x512 tile product is one NU matmul. */
#pragma npu schedule(matmul, matmul_nu)
#pragma npu tile(i, j, 64, 32, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
