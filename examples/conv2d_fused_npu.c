/* Fused int8 conv2d + bias + ReLU + requantize, a ResNet stage-3 layer:
 * one 28x28 image, 128 -> 128 channels, 3x3, padding 1, int8 out. The
 * kernel is plain C with two int32 temporaries (acc, act); the schedule
 * keeps both on chip (their caches replace them, so they never reach DDR):
 * the NU computes each block of 16 output channels into its output buffer,
 * starting from the bias, and the VU applies ReLU and the requantization
 * from there; only the int8 result goes back to DDR. `npugen check` runs it
 * in the simulator against this source. */
#include <math.h>
#include <stdint.h>

#define N 1
#define C 128
#define OC 128
#define H 28
#define W 28

void conv_relu_q(const int8_t in[N][C][H][W], const int8_t wt[OC][C][3][3], const int32_t bias[OC],
                 int8_t out[N][OC][H][W], int multiplier, int shift, int zero_point) {
  int32_t acc[N][OC][H][W];
  int32_t act[N][OC][H][W];
  for (int n = 0; n < N; n++)
    for (int oc = 0; oc < OC; oc++)
      for (int oh = 0; oh < H; oh++)
        for (int ow = 0; ow < W; ow++) {
          init: acc[n][oc][oh][ow] = bias[oc];
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++)
              for (int c = 0; c < C; c++)
                if (oh + kh - 1 >= 0 && oh + kh - 1 < H && ow + kw - 1 >= 0 && ow + kw - 1 < W)
                  update: acc[n][oc][oh][ow] += (int32_t)in[n][c][oh + kh - 1][ow + kw - 1] *
                                                (int32_t)wt[oc][c][kh][kw];
          relu: act[n][oc][oh][ow] = acc[n][oc][oh][ow] > 0 ? acc[n][oc][oh][ow] : 0;
          /* round to nearest, ties up, then saturate: npu_vu_requant_i8 */
          double r = floor(ldexp((double)act[n][oc][oh][ow] * (double)multiplier, -shift) + 0.5) + zero_point;
          requant: out[n][oc][oh][ow] = (int8_t)(r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r);
        }
}

/* Layouts: input channels last (the NU conv's), weights in blocks of 16
 * output channels, and each 16-channel block of acc, act and out as one
 * row of 28*28*16 values (acc as [28][28][16], the conv's output tile).
 * Loops: 16-channel blocks outside, the conv, ReLU and requantization
 * split into three nests inside each block (fission), the bias init in a
 * nest of its own (a DMA broadcast from DM into the output buffer), the
 * epilogue nests flattened per image row (fuse) so each row is one VU call.
 * The weights of the next block load while the NU computes (double_buffer). */
#pragma npu schedule(conv_relu_q, fused)
#pragma npu transform_layout(in, (n, c, h, w), (n, h, w, c))
#pragma npu transform_layout(wt, (o, c, r, s), (o / 16, r, s, c, o % 16))
#pragma npu transform_layout(acc, (n, o, h, w), (n, o / 16, h, w, o % 16))
#pragma npu transform_layout(act, (n, o, h, w), (n, o / 16, h * 448 + w * 16 + o % 16))
#pragma npu transform_layout(out, (n, o, h, w), (n, o / 16, h * 448 + w * 16 + o % 16))
#pragma npu compute_inline(s1)
#pragma npu split(oc, 16, oco, oci)
#pragma npu reorder(oco, oh, ow, oci)
#pragma npu fission(oh, kh)
#pragma npu fission(oh_1, relu)
#pragma npu decompose_reduction(init, oh)
#pragma npu cache_read(in, nu_ib, n, in_ib)
#pragma npu cache_read(bias, dm, n, bias_dm)
#pragma npu cache_read(wt, nu_wb, oco, wt_wb)
#pragma npu cache_write(acc, nu_ob, oco, acc_ob)
#pragma npu cache_write(act, vu_vm, oco, act_vm)
#pragma npu cache_write(out, vu_vm, oco, out_vm)
#pragma npu cache_read(acc_ob, vu_vm, oh_1, acc_vm)
#pragma npu transform_layout(acc_vm, (a, b, c, w, o), (a, b, c, w * 16 + o))
#pragma npu fuse(ow_1, oci_1, q1)
#pragma npu fuse(ow_2, oci_2, q2)
#pragma npu tensorize(oh, npu_nu_conv2d_i8)
#pragma npu tensorize(q1, npu_vu_relu_i32)
#pragma npu tensorize(q2, npu_vu_requant_i8)
#pragma npu double_buffer(wt_wb)
