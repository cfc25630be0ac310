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
