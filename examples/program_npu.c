/* A dense layer as a program of kernels (docs/programs.md): an int8
 * matmul, then bias, then ReLU, each a kernel of its own that the layer
 * calls. The file is plain C: the layer as written is the reference the
 * check runs every variant against. */
#include <stdint.h>

#define M 128
#define K 256
#define N 128

void matmul(const int8_t A[M][K], const int8_t B[K][N], int32_t C[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0;
      for (int k = 0; k < K; k++)
        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

/* The matmul on the NU: 64 x 64 output tiles, each band of A and B
 * double-buffered in the NU's input and weight buffers. */
#pragma npu schedule(matmul, matmul_nu)
#pragma npu tile(i, j, 64, 64, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, jo, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)

void add_bias(const int32_t X[M][N], const int32_t bias[N], int32_t Y[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      add: Y[i][j] = X[i][j] + bias[j];
}

void relu(const int32_t X[M][N], int32_t Y[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      clamp: Y[i][j] = X[i][j] > 0 ? X[i][j] : 0;
}

void layer(const int8_t A[M][K], const int8_t W[K][N], const int32_t bias[N], int32_t Y[M][N]) {
  int32_t acc[M][N];
  int32_t biased[M][N];
  mm: matmul(A, W, acc);
  add_bias(acc, bias, biased);
  relu(biased, Y);
}

/* The layer with its matmul on the NU (a call of matmul_nu), and bias and
 * ReLU inlined and merged into one pass over the matmul's result: after
 * inline, their loops and statements are the layer's, named after the
 * calls; compute_inline then drops the intermediate `biased`. */
#pragma npu schedule(layer, layer_nu)
#pragma npu use(mm, matmul_nu)
#pragma npu inline(add_bias)
#pragma npu inline(relu)
#pragma npu merge(add_bias_i, relu_i)
#pragma npu merge(add_bias_j, relu_j)
#pragma npu compute_inline(add_bias_add)

/* The same layer with every call on the NPU and its intermediates on chip
 * (docs/programs.md, "Scopes across calls"). matmul_ob keeps the whole
 * result in the NU's output buffer; add_bias_vu reads X a band of 32 rows
 * at a time into vector memory and stages its whole result Y there;
 * relu_vu stages its whole input X there. */
#pragma npu schedule(matmul, matmul_ob)
#pragma npu tile(i, j, 64, 64, io, jo, ii, ji)
#pragma npu cache_read(A, nu_ib, io, A_ib)
#pragma npu cache_read(B, nu_wb, jo, B_wb)
#pragma npu cache_write(C, nu_ob, root, C_ob)
#pragma npu tensorize(ii, npu_nu_matmul_i8)
#pragma npu double_buffer(A_ib)
#pragma npu double_buffer(B_wb)

#pragma npu schedule(add_bias, add_bias_vu)
#pragma npu split(i, 32, io, ii)
#pragma npu cache_read(X, vu_vm, io, X_vm)
#pragma npu cache_read(bias, vu_vm, root, bias_vm)
#pragma npu cache_write(Y, vu_vm, root, Y_vm)
#pragma npu vectorize(j)

#pragma npu schedule(relu, relu_vu)
#pragma npu split(i, 32, io, ii)
#pragma npu cache_read(X, vu_vm, root, X_vm)
#pragma npu cache_write(Y, vu_vm, io, Y_vm)
#pragma npu vectorize(j)

/* The three NPU variants chained through DDR: each writes its result out
 * and the next reads it back (426,496 DMA bytes, all through DDR). */
#pragma npu schedule(layer, layer_ddr)
#pragma npu use(mm, matmul_ob)
#pragma npu use(add_bias, add_bias_vu)
#pragma npu use(relu, relu_vu)

/* The same calls with acc in nu_ob and biased in vector memory: the NU
 * writes acc where matmul_ob stages it, add_bias copies it to vector
 * memory band by band on chip and writes biased in place, and relu reads
 * biased in place. 164,352 bytes cross DDR (A and W, bias, Y), and 65,536
 * move on chip (acc, nu_ob -> vu_vm). */
#pragma npu schedule(layer, layer_chip)
#pragma npu use(mm, matmul_ob)
#pragma npu use(add_bias, add_bias_vu)
#pragma npu use(relu, relu_vu)
#pragma npu set_scope(acc, nu_ob)
#pragma npu set_scope(biased, vu_vm)
