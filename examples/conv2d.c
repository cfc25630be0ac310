/* int8 conv2d (NCHW, 3x3, zero padding 1, int32 accumulation) with
 * scheduled variants, each checked against the kernel as written. */
#include <stdint.h>

#define C 16
#define H 28
#define W 28
#define OC 32

void conv2d(const int8_t in[C][H][W], const int8_t wt[OC][C][3][3], const int32_t bias[OC],
            int32_t out[OC][H][W]) {
  for (int oc = 0; oc < OC; oc++)
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++) {
        int32_t acc = bias[oc];
        for (int c = 0; c < C; c++)
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++) {
              int ih = oh + kh - 1;
              int iw = ow + kw - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                mac: acc += (int32_t)in[c][ih][iw] * (int32_t)wt[oc][c][kh][kw];
            }
        store: out[oc][oh][ow] = acc;
      }
}

/* Output rows in tiles of 7x14, channels in the middle, the 3x3 window
 * unrolled; output channels in parallel. */
#pragma npu schedule(conv2d, conv2d_tiled)
#pragma npu tile(oh, ow, 7, 14, oho, owo, ohi, owi)
#pragma npu unroll(kw)
#pragma npu unroll(kh)
#pragma npu parallel(oc)
#pragma npu vectorize(owi)

/* Output pixels as one flat loop per channel, split in vector-sized chunks
 * with the last partial chunk peeled off: 784 = 48 * 16 + 16. */
#pragma npu schedule(conv2d, conv2d_flat)
#pragma npu fuse(oh, ow, p)
#pragma npu split(p, 48, po, pi)
#pragma npu loop_partition(po, 16)
