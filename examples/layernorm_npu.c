/* Layer normalization over rows in fp32 (a transformer's 256 tokens of 256
 * features), with a scale and a shift per feature, on the four VU cores.
 * Written in the stages the VU runs: the row mean, the centred values, the
 * variance, the reciprocal standard deviation, the normalized row, the
 * scale and shift. `npugen check` runs it in the simulator against this
 * source. */
#include <math.h>

#define R 256
#define C 256

void layernorm(const float X[R][C], const float gamma[C], const float beta[C], float Y[R][C]) {
  float sum[R], mean[R], d[R][C], ssq[R], var[R], rstd[R], n[R][C];
  for (int r = 0; r < R; r++) {
    sum[r] = 0.0f;
    for (int c = 0; c < C; c++)
      rsum: sum[r] += X[r][c];
    avg: mean[r] = sum[r] / C;
    for (int c = 0; c < C; c++)
      centre: d[r][c] = X[r][c] - mean[r];
    ssq[r] = 0.0f;
    for (int c = 0; c < C; c++)
      sq: ssq[r] += d[r][c] * d[r][c];
    varc: var[r] = ssq[r] / C;
    inv: rstd[r] = 1.0f / sqrtf(var[r] + 1e-5f);
    for (int c = 0; c < C; c++)
      norm: n[r][c] = d[r][c] * rstd[r];
    for (int c = 0; c < C; c++)
      affine: Y[r][c] = n[r][c] * gamma[c] + beta[c];
  }
}

/* 64 rows a pass, 16 on each core (bind). Each core stages its rows of X
 * and the whole gamma and beta in its vector memory, keeps every temporary
 * there (cache_write of a local array: it never reaches DDR) and runs the
 * eight stages as eight VU instructions (fission cuts the row loop into
 * them). vectorize of a stage over vector memory picks the instruction
 * that computes it: reduce_sum, divs, sub_rows, reduce_dot, divs, rsqrt,
 * mul_rows and muladd_cols (softmax_npu.c names them with tensorize).
 * X and Y have two copies per core (double_buffer), used in turn by the
 * passes; gamma and beta, the same in every pass, are loaded once. */
#pragma npu schedule(layernorm, layernorm_vu)
#pragma npu split(r, 64, ro, rr)
#pragma npu split(rr, 16, core, ri)
#pragma npu bind(core, vu)
#pragma npu fission(ri, rsum, avg, centre, sq, varc, inv, norm)
#pragma npu cache_read(X, vu_vm, core, X_vm)
#pragma npu cache_read(gamma, vu_vm, core, gamma_vm)
#pragma npu cache_read(beta, vu_vm, core, beta_vm)
#pragma npu cache_write(Y, vu_vm, core, Y_vm)
#pragma npu cache_write(sum, vu_vm, core, sum_vm)
#pragma npu cache_write(mean, vu_vm, core, mean_vm)
#pragma npu cache_write(d, vu_vm, core, d_vm)
#pragma npu cache_write(ssq, vu_vm, core, ssq_vm)
#pragma npu cache_write(var, vu_vm, core, var_vm)
#pragma npu cache_write(rstd, vu_vm, core, rstd_vm)
#pragma npu cache_write(n, vu_vm, core, n_vm)
#pragma npu double_buffer(X_vm)
#pragma npu double_buffer(Y_vm)
#pragma npu vectorize(ri)
#pragma npu vectorize(ri_1)
#pragma npu vectorize(ri_2)
#pragma npu vectorize(ri_3)
#pragma npu vectorize(ri_4)
#pragma npu vectorize(ri_5)
#pragma npu vectorize(ri_6)
#pragma npu vectorize(ri_7)
