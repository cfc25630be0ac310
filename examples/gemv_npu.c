/* int8 matrix-vector product y = A x, 1024 x 1024, on the NU, written as
 * a GEMV: no unit dimensions. tensorize matches the nest against the NU's
 * matmul with its j loop left out (N = 1, run once): the call is
 * npu_nu_matmul_i8(..., 128, 1, 1024, 1024, 1, 1, 0); gemv_vu runs it on
 * the VU cores for comparison. `npugen check` runs both in the simulator
 * against this source. */
#include <stdint.h>

#define M 1024
#define K 1024

void gemv(const int8_t A[M][K], const int8_t x[K], int32_t y[M]) {
  for (int i = 0; i < M; i++) {
    init: y[i] = 0;
    for (int k = 0; k < K; k++)
      update: y[i] += (int32_t)A[i][k] * (int32_t)x[k];
  }
}

/* The matmul example's shape: 128-row bands of A in the input buffer
 * (double-buffered: the next band loads while the NU computes), x in the
 * weight buffer, the y tile in the output buffer (its copy out overlaps
 * the next band). x is cached at the root, above every loop: loaded once
 * (1 KiB), not once per band (8 KiB). A GEMV is bound by DDR (one MAC per
 * byte of A): 18,578 cycles against the bound of 16,464 (88.6%). With x
 * cached at io it was 18,553 (88.7%): the root's copy is waited for where
 * it starts, before the first band's load is issued, which costs more
 * than the 112 cycles that 7 KiB fewer save. */
#pragma npu schedule(gemv, gemv_nu)
#pragma npu split(i, 128, io, ii)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(x, nu_wb, root, x_wb)
#pragma npu cache_write(y, nu_ob, io, y_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(y_ob)

/* The same on the four VU cores, for comparison (docs/schedules.md, "GEMV:
 * the NU or the VU"). The VU has no int8 row dot product, so k goes
 * outside the rows: each k is one npu_vu_macs_i8_i32 of a column of A by
 * x[k] (its column loop run once). 51,409 cycles, 2.8 times the NU's:
 * 64 MACs per instruction against 4 cycles of overhead, 1024 instructions
 * a core, issued to the cores in turn (136,566 when each core's were
 * issued before the next core's). */
#pragma npu schedule(gemv, gemv_vu)
#pragma npu split(i, 256, io, ir)
#pragma npu split(ir, 64, core, ri)
#pragma npu fission(ri, init)
#pragma npu reorder(k, ri_1)
#pragma npu bind(core, vu)
#pragma npu cache_read(A, vu_vm, core, A_vm)
#pragma npu cache_read(x, vu_vm, core, x_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu vectorize(ri)
#pragma npu vectorize(ri_1)
