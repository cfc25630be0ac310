/* examples/matmul.c's kernel and schedules at a size valgrind runs in
 * seconds (make valgrind-subset: a whole check from the command line,
 * parse, schedule, lower, JIT, simulate; at examples/matmul.c's size the
 * check took 14 s of CPU under valgrind, at this one 6 s). */
#include <stdint.h>

#define M 128

void matmul(const int8_t A[M][64], const int8_t B[64][64], int32_t C[M][64]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 64; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < 64; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

#pragma npu schedule(matmul, matmul_tiled)
#pragma npu decompose_reduction(init, i)
#pragma npu tile(i, j, 64, 32, io, jo, ii, ji)
#pragma npu reorder(io, jo, ii, k, ji)
#pragma npu split(k, 4, ko, ki)
#pragma npu reorder(io, jo, ko, ii, ji, ki)
#pragma npu unroll(ki)
#pragma npu vectorize(ji)
#pragma npu parallel(io)

#pragma npu schedule(matmul, matmul_flat_init)
#pragma npu fission(i, init)
#pragma npu fuse(i, j, ij)
#pragma npu reorder(k, j_1)

#pragma npu schedule(matmul, matmul_nu)
#pragma npu tile(i, j, 64, 32, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
