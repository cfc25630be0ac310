/* Row-wise softmax in fp32 (attention scores: 256 rows of 256), on the four
 * VU cores. Written in the stages the VU runs: the row maximum, the shift by
 * it, the exponential, the row sum, the division. `npugen check` runs it in
 * the simulator against this source. */
#include <math.h>

#define R 256
#define C 256

void softmax(const float X[R][C], float Y[R][C]) {
  float mx[R], d[R][C], e[R][C], sum[R];
  for (int r = 0; r < R; r++) {
    mx[r] = X[r][0];
    for (int c = 1; c < C; c++)
      rmax: mx[r] = X[r][c] > mx[r] ? X[r][c] : mx[r];
    for (int c = 0; c < C; c++)
      shift: d[r][c] = X[r][c] - mx[r];
    for (int c = 0; c < C; c++)
      ex: e[r][c] = expf(d[r][c]);
    sum[r] = 0.0f;
    for (int c = 0; c < C; c++)
      acc: sum[r] += e[r][c];
    for (int c = 0; c < C; c++)
      norm: Y[r][c] = e[r][c] / sum[r];
  }
}

/* 64 rows a pass, 16 on each core (bind). Each core stages its rows of X in
 * its vector memory, keeps every temporary there (cache_write of a local
 * array: it never reaches DDR) and runs the five stages as five VU
 * instructions over its 16x256 box (fission cuts the row loop into them).
 * X and Y have two copies per core (double_buffer): the next pass's rows
 * load, and the last pass's results drain, while this pass computes. */
#pragma npu schedule(softmax, softmax_vu, default)
#pragma npu split(r, 64, ro, rr)
#pragma npu split(rr, 16, core, ri)
#pragma npu bind(core, vu)
#pragma npu fission(ri, rmax, shift, ex, acc)
#pragma npu cache_read(X, vu_vm, core, X_vm)
#pragma npu cache_write(Y, vu_vm, core, Y_vm)
#pragma npu cache_write(mx, vu_vm, core, mx_vm)
#pragma npu cache_write(d, vu_vm, core, d_vm)
#pragma npu cache_write(e, vu_vm, core, e_vm)
#pragma npu cache_write(sum, vu_vm, core, sum_vm)
#pragma npu double_buffer(X_vm)
#pragma npu double_buffer(Y_vm)
#pragma npu tensorize(ri, npu_vu_reduce_max_f32)
#pragma npu tensorize(ri_1, npu_vu_sub_rows_f32)
#pragma npu tensorize(ri_2, npu_vu_exp_f32)
#pragma npu tensorize(ri_3, npu_vu_reduce_sum_f32)
#pragma npu tensorize(ri_4, npu_vu_div_rows_f32)

/* The same for targets/small.ini (npugen --target targets/small.ini): two
 * cores with 64 KiB each. 8 rows a core keep the six 8x256 fp32 boxes
 * (X and Y double-buffered, d, e) in 48 KiB; 16 rows a pass. */
#pragma npu schedule(softmax, softmax_vu_small, small)
#pragma npu split(r, 16, ro, rr)
#pragma npu split(rr, 8, core, ri)
#pragma npu bind(core, vu)
#pragma npu fission(ri, rmax, shift, ex, acc)
#pragma npu cache_read(X, vu_vm, core, X_vm)
#pragma npu cache_write(Y, vu_vm, core, Y_vm)
#pragma npu cache_write(mx, vu_vm, core, mx_vm)
#pragma npu cache_write(d, vu_vm, core, d_vm)
#pragma npu cache_write(e, vu_vm, core, e_vm)
#pragma npu cache_write(sum, vu_vm, core, sum_vm)
#pragma npu double_buffer(X_vm)
#pragma npu double_buffer(Y_vm)
#pragma npu vectorize(ri)
#pragma npu vectorize(ri_1)
#pragma npu vectorize(ri_2)
#pragma npu vectorize(ri_3)
#pragma npu vectorize(ri_4)
