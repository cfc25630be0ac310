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
