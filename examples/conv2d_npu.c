/* int8 conv2d as in a ResNet stage: one 56x56 image, 64 -> 64 channels,
 * 3x3 kernel, zero padding 1, int32 results. The kernel is written in the
 * framework's NCHW / OIHW layouts; the schedule moves the input to NCHWc
 * (c = 64: channels last, what the NU's conv reads), the weights to tiles
 * of 4 output channels (OIHW -> O/4, H, W, I, 4o: one NU call's weights are
 * one dense 3x3x64x4 block) and the output to NCHW4c, and runs the conv on
 * the NU. `npugen check` runs it in the simulator against this source. */
#include <stdint.h>

#define N 1
#define C 64
#define OC 64
#define H 56
#define W 56

void conv2d(const int8_t in[N][C][H][W], const int8_t wt[OC][C][3][3], int32_t out[N][OC][H][W]) {
  for (int n = 0; n < N; n++)
    for (int oc = 0; oc < OC; oc++)
      for (int oh = 0; oh < H; oh++)
        for (int ow = 0; ow < W; ow++) {
          init: out[n][oc][oh][ow] = 0;
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++)
              for (int c = 0; c < C; c++)
                if (oh + kh - 1 >= 0 && oh + kh - 1 < H && ow + kw - 1 >= 0 && ow + kw - 1 < W)
                  update: out[n][oc][oh][ow] += (int32_t)in[n][c][oh + kh - 1][ow + kw - 1] *
                                                (int32_t)wt[oc][c][kh][kw];
        }
}

/* The whole image (196 KiB) stays in the NU input buffer; per block of 4
 * output channels the NU computes all 56x56 pixels in one conv2d call (the
 * padding guard matches the intrinsic's own padding), while the DMA brings
 * the next block's weights and drains the last block's output
 * (double-buffered, 2 x 49 KiB of the output buffer). */
#pragma npu schedule(conv2d, conv2d_nu)
#pragma npu transform_layout(in, (n, c, h, w), (n, c / 64, h, w, c % 64))
#pragma npu transform_layout(wt, (o, c, r, s), (o / 4, r, s, c, o % 4))
#pragma npu transform_layout(out, (n, o, h, w), (n, o / 4, h, w, o % 4))
#pragma npu split(oc, 4, oco, oci)
#pragma npu reorder(oco, oh, ow, oci)
#pragma npu cache_read(in, nu_ib, n, in_ib)
#pragma npu cache_read(wt, nu_wb, oco, wt_wb)
#pragma npu cache_write(out, nu_ob, oco, out_ob)
#pragma npu tensorize(oh, npu_nu_conv2d_i8)
#pragma npu double_buffer(wt_wb)
#pragma npu double_buffer(out_ob)
