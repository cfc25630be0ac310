/* Semantics of npu_nu_conv2d_i8 (npu_intrinsics.h), written in the kernel DSL.
 * abi: npu_nu_conv2d_i8(out, in, wt, H, W, C, OC, KH, KW, SH, SW, PH, PW, DH, DW, accumulate)
 * scopes: out nu_ob, in nu_ib, wt nu_wb
 * OH and OW follow from the other sizes (not arguments).
 * The sizes are one instance of the intrinsic; it is defined for any sizes
 * that satisfy the limits in npu_intrinsics.h. */
#include <stdint.h>
#define H 8
#define W 8
#define C 4
#define OC 8
#define KH 3
#define KW 3
#define SH 1
#define SW 1
#define PH 1
#define PW 1
#define DH 1
#define DW 1
#define OH ((H + 2 * PH - DH * (KH - 1) - 1) / SH + 1)
#define OW ((W + 2 * PW - DW * (KW - 1) - 1) / SW + 1)

void npu_nu_conv2d_i8(int32_t out[OH][OW][OC], const int8_t in[H][W][C],
                      const int8_t wt[KH][KW][C][OC], int accumulate) {
  for (int y = 0; y < OH; y++)
    for (int x = 0; x < OW; x++)
      for (int o = 0; o < OC; o++) {
        if (accumulate == 0) {
          init: out[y][x][o] = 0;
        }
        for (int r = 0; r < KH; r++)
          for (int s = 0; s < KW; s++)
            for (int ci = 0; ci < C; ci++)
              if (y * SH - PH + r * DH >= 0 && y * SH - PH + r * DH < H &&
                  x * SW - PW + s * DW >= 0 && x * SW - PW + s * DW < W) {
                update: out[y][x][o] += (int32_t)in[y * SH - PH + r * DH][x * SW - PW + s * DW][ci] *
                                        (int32_t)wt[r][s][ci][o];
              }
      }
}
