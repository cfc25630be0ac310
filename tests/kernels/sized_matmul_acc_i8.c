/* An int8 matmul with all three extents sized, written as most C matmuls
 * are, with a local accumulator; on the NU with K in tiles. expand(acc)
 * makes C's element the accumulator; the tile's tail guards (no tile
 * divides the sizes) go along with the init that decompose_reduction
 * moves out, and sink under the K tiles that reorder moves out; each K
 * tile is then one NU call that accumulates, its length a run-time tail. */
#include <stdint.h>

void mm(int m, int n, int k, const int8_t A[m][k], const int8_t B[k][n], int32_t C[m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      int32_t acc = 0;
      for (int p = 0; p < k; p++)
        acc += (int32_t)A[i][p] * (int32_t)B[p][j];
      C[i][j] = acc;
    }
}
#pragma npu assume(mm, m <= 4096, n <= 4096, k <= 4096)
#pragma npu sizes(mm, m = 1, n = 1, k = 1)
#pragma npu sizes(mm, m = 20, n = 36, k = 70)
#pragma npu sizes(mm, m = 33, n = 16, k = 64)

#pragma npu schedule(mm, mm_ksplit)
#pragma npu expand(acc)
#pragma npu tile(i, j, 16, 16, io, jo, ii, ji)
#pragma npu decompose_reduction(s1, ii)
#pragma npu split(p, 32, po, pi)
#pragma npu reorder(po, ii, ji, pi)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu cache_read(A, nu_ib, po, A_ib)
#pragma npu cache_read(B, nu_wb, po, B_wb)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)
