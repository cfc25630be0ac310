/* Buffer layouts (docs/layouts.md): each variant below is checked by
 * `npugen check examples/layouts.c` and emitted by `make run`. */
#include <stdint.h>

/* The TY-NNP pre-RFC's conv weight: W[32][3][7][7] -> [8][1][4][4][7][7]. */
void conv7x7(const float X[3][13][13], const float W[32][3][7][7], float Y[32][7][7]) {
  for (int o = 0; o < 32; o++)
    for (int y = 0; y < 7; y++)
      for (int x = 0; x < 7; x++) {
        init: Y[o][y][x] = 0.0f;
        for (int i = 0; i < 3; i++)
          for (int h = 0; h < 7; h++)
            for (int w = 0; w < 7; w++)
              update: Y[o][y][x] += X[i][y + h][x + w] * W[o][i][h][w];
      }
}

#pragma npu schedule(conv7x7, conv7x7_w4x4)
#pragma npu buffer_split(W, 0, 4)
#pragma npu buffer_split(W, 2, 4, 0)
#pragma npu buffer_reorder(W, 0, 2, 1, 3, 4, 5)

/* RFC #77's 127 x 127 x 127 matmul, padded to 128: no guard is left. */
#define N 127
void matmul127(const float A[N][N], const float B[N][N], float C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}

#pragma npu schedule(matmul127, matmul128_padded)
#pragma npu buffer_pad(A, (128, 128), 0)
#pragma npu buffer_pad(B, (128, 128), 0)
#pragma npu buffer_pad(C, (128, 128), 0)
#pragma npu split(i, 32, io, ii)
#pragma npu split(j, 32, jo, ji)
#pragma npu split(k, 32, ko, ki)

/* The same, split and fused back: plain loops of 128, no guard. */
#pragma npu schedule(matmul127, matmul128_loops)
#pragma npu buffer_pad(A, (128, 128), 0)
#pragma npu buffer_pad(B, (128, 128), 0)
#pragma npu buffer_pad(C, (128, 128), 0)
#pragma npu split(i, 32, io, ii)
#pragma npu fuse(io, ii, i128)
#pragma npu split(j, 32, jo, ji)
#pragma npu fuse(jo, ji, j128)
#pragma npu split(k, 32, ko, ki)
#pragma npu fuse(ko, ki, k128)

/* NHWC -> NCHWc (c blocked by 4), and a 2-D physical array by an axis
 * separator. */
void bias_relu(const int8_t X[1][14][14][16], const int32_t bias[16], int32_t Y[1][14][14][16]) {
  for (int n = 0; n < 1; n++)
    for (int h = 0; h < 14; h++)
      for (int w = 0; w < 14; w++)
        for (int c = 0; c < 16; c++) {
          int32_t v = (int32_t)X[n][h][w][c] + bias[c];
          Y[n][h][w][c] = v > 0 ? v : 0;
        }
}

#pragma npu schedule(bias_relu, bias_relu_nchw4c)
#pragma npu transform_layout(X, (n, h, w, c), (n, c / 4, h, w, c % 4))
#pragma npu transform_layout(Y, (n, h, w, c), (n, c / 4, h, w, c % 4))

#pragma npu schedule(bias_relu, bias_relu_rows)
#pragma npu transform_layout(Y, (n, h, w, c), (n, h, axis_separator, w, c))
