/* An int8 matmul as most C matmuls are written: a local int32_t
 * accumulator, the reduction over k into it, then one store (issue 40).
 * No schedule is written by hand: `npugen tune` (docs/tune.md) finds that
 * no NPU sketch fits the nest as written (its init is a declaration), tries
 * the sketches again with the scalar local expanded into its destination
 * (`expand(acc)`, schedule/expand.c: C[i][j] = 0; C[i][j] += ...), and the
 * NU's matmul sketch applies. The schedule below is what it wrote;
 * docs/schedules.md ("Kernels as written, through tune") has its cycles. */
#include <stdint.h>

#define M 256
#define K 512
#define N 256

void matmul(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int32_t acc = 0;
      for (int k = 0; k < K; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = acc;
    }
}



/* Found by: npugen tune examples/matmul_acc.c --seed 1 --trials 12 --jobs 1 -o matmul_acc.sched */
/* npugen tune examples/matmul_acc.c --kernel matmul --seed 1: best of 12 candidates (12 legal, 12 simulated)
 * nu:npu_nu_matmul_i8 ti=128 tj=64 order_ji=0 a_inner=0 b_inner=1 db_a=1 db_b=1 db_c=1
 * 38328 cycles, roofline 85.5%; passes npugen check (seed 1) */
#pragma npu schedule(matmul, matmul_acc_matmul_tuned)
#pragma npu expand(acc)
#pragma npu tile(i, j, 128, 64, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)
#pragma npu double_buffer(C_ob)
