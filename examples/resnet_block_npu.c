/* An int8 ResNet basic block as a program of kernels (docs/programs.md):
 * 3x3 conv + bias + ReLU + requantize, 3x3 conv + bias + requantize, then
 * the residual add, ReLU and requantize, at 56x56x64 (a ResNet-18/34
 * stage-1 block). Activations are NHWC; the weights come pre-packed in
 * blocks of four output channels, [OC/4][3][3][C][4], the order the NU's
 * conv reads one block's weights in (a deployment flow packs them once).
 * The file is plain C: the block as written is the reference `npugen
 * check` runs every variant against.
 *
 * block_chip runs the whole block on the NPU with both intermediates in DM:
 * 265,143 simulated cycles against the block's bound of 225,792 (its MACs
 * at 1,024 a cycle), 85.2%, moving 676,352 bytes through DDR; block_ddr,
 * the same calls chained through DDR, moves 1,479,168 (bench/roofline.sh,
 * `npugen check`). */
#include <math.h>
#include <stdint.h>

#define H 56
#define W 56
#define C 64
#define OB 4 /* output channels per NU call */

/* conv 3x3, padding 1, bias, ReLU, requantize to int8. acc and act hold one
 * block of OB output channels. */
void conv_relu_q(const int8_t x[H][W][C], const int8_t wt[C / OB][3][3][C][OB], const int32_t bias[C],
                 int8_t y[H][W][C], int multiplier, int shift, int zero_point) {
  for (int oco = 0; oco < C / OB; oco++) {
    int32_t acc[H][W][OB];
    int32_t act[H][W][OB];
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++)
        for (int oci = 0; oci < OB; oci++) {
          init: acc[oh][ow][oci] = bias[oco * OB + oci];
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++)
              for (int c = 0; c < C; c++)
                if (oh + kh - 1 >= 0 && oh + kh - 1 < H && ow + kw - 1 >= 0 && ow + kw - 1 < W)
                  update: acc[oh][ow][oci] += (int32_t)x[oh + kh - 1][ow + kw - 1][c] * (int32_t)wt[oco][kh][kw][c][oci];
        }
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++)
        for (int oci = 0; oci < OB; oci++)
          relu: act[oh][ow][oci] = acc[oh][ow][oci] > 0 ? acc[oh][ow][oci] : 0;
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++)
        for (int oci = 0; oci < OB; oci++) {
          /* round to nearest, ties up, then saturate: npu_vu_requant_i8 */
          double r = floor(ldexp((double)act[oh][ow][oci] * (double)multiplier, -shift) + 0.5) + zero_point;
          requant: y[oh][ow][oco * OB + oci] = (int8_t)(r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r);
        }
  }
}

/* conv 3x3, padding 1, bias, requantize to int8 (no ReLU: the residual
 * add comes first). */
void conv_q(const int8_t x[H][W][C], const int8_t wt[C / OB][3][3][C][OB], const int32_t bias[C], int8_t y[H][W][C],
            int multiplier, int shift, int zero_point) {
  for (int oco = 0; oco < C / OB; oco++) {
    int32_t acc[H][W][OB];
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++)
        for (int oci = 0; oci < OB; oci++) {
          init: acc[oh][ow][oci] = bias[oco * OB + oci];
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++)
              for (int c = 0; c < C; c++)
                if (oh + kh - 1 >= 0 && oh + kh - 1 < H && ow + kw - 1 >= 0 && ow + kw - 1 < W)
                  update: acc[oh][ow][oci] += (int32_t)x[oh + kh - 1][ow + kw - 1][c] * (int32_t)wt[oco][kh][kw][c][oci];
        }
    for (int oh = 0; oh < H; oh++)
      for (int ow = 0; ow < W; ow++)
        for (int oci = 0; oci < OB; oci++) {
          double r = floor(ldexp((double)acc[oh][ow][oci] * (double)multiplier, -shift) + 0.5) + zero_point;
          requant: y[oh][ow][oco * OB + oci] = (int8_t)(r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r);
        }
  }
}

/* y = requantize(ReLU(a + b)), a row of W x C values at a time through
 * int32 temporaries. */
void add_relu_q(const int8_t a[H][W][C], const int8_t b[H][W][C], int8_t y[H][W][C], int multiplier, int shift,
                int zero_point) {
  for (int h = 0; h < H; h++) {
    int32_t wa[W][C];
    int32_t wb[W][C];
    int32_t sum[W][C];
    for (int w = 0; w < W; w++)
      for (int c = 0; c < C; c++)
        widen_a: wa[w][c] = (int32_t)a[h][w][c];
    for (int w = 0; w < W; w++)
      for (int c = 0; c < C; c++)
        widen_b: wb[w][c] = (int32_t)b[h][w][c];
    for (int w = 0; w < W; w++)
      for (int c = 0; c < C; c++)
        add: sum[w][c] = wa[w][c] + wb[w][c];
    for (int w = 0; w < W; w++)
      for (int c = 0; c < C; c++)
        relu: wa[w][c] = sum[w][c] > 0 ? sum[w][c] : 0;
    for (int w = 0; w < W; w++)
      for (int c = 0; c < C; c++) {
        double q = floor(ldexp((double)wa[w][c] * (double)multiplier, -shift) + 0.5) + zero_point;
        requant: y[h][w][c] = (int8_t)(q > 127.0 ? 127.0 : q < -128.0 ? -128.0 : q);
      }
  }
}

/* The block: t1 and t2 are its intermediates. */
void block(const int8_t x[H][W][C], const int8_t w1[C / OB][3][3][C][OB], const int32_t b1[C],
           const int8_t w2[C / OB][3][3][C][OB], const int32_t b2[C], int8_t y[H][W][C], int m1, int s1, int m2,
           int s2, int m3, int s3) {
  int8_t t1[H][W][C];
  int8_t t2[H][W][C];
  conv1: conv_relu_q(x, w1, b1, t1, m1, s1, 0);
  conv2: conv_q(t1, w2, b2, t2, m2, s2, 0);
  residual: add_relu_q(t2, x, y, m3, s3, 0);
}

/* conv_relu_q on the NU and the VU: the whole image stays in the NU input
 * buffer; per block of four output channels the NU starts from the bias
 * (a DMA broadcast from DM into its output buffer), the block moves to
 * vector memory in one DMA and the VU applies ReLU and the requantization
 * to all of it in one instruction each, while the NU computes the next
 * block (the VU's work is issued before the next conv and runs beside it).
 * The weights of the next block load ahead (double_buffer); each block's
 * int8 result goes out while the next is computed. split(oh_2, 56) makes
 * the one-iteration loop the block's copy into vector memory is staged in. */
#pragma npu schedule(conv_relu_q, conv_relu_nu)
#pragma npu compute_inline(s1)
#pragma npu transform_layout(act, (h, w, o), (h * 224 + w * 4 + o))
#pragma npu decompose_reduction(init, oh_1)
#pragma npu set_scope(acc, nu_ob)
#pragma npu set_scope(act, vu_vm)
#pragma npu cache_read(x, nu_ib, root, x_ib)
#pragma npu cache_read(bias, dm, root, bias_dm)
#pragma npu cache_read(wt, nu_wb, oco, wt_wb)
#pragma npu cache_write(y, vu_vm, oco, y_vm)
#pragma npu split(oh_2, 56, ho, hi)
#pragma npu cache_read(acc, vu_vm, ho, acc_vm)
#pragma npu transform_layout(acc_vm, (h, w, o), (h * 224 + w * 4 + o))
#pragma npu transform_layout(y_vm, (h, w, o), (h * 224 + w * 4 + o))
#pragma npu fuse(ow_2, oci_2, q1)
#pragma npu fuse(hi, q1, p1)
#pragma npu fuse(ow_3, oci_3, q2)
#pragma npu fuse(oh_3, q2, p2)
#pragma npu tensorize(oh_1, npu_nu_conv2d_i8)
#pragma npu tensorize(p1, npu_vu_relu_i32)
#pragma npu tensorize(p2, npu_vu_requant_i8)
#pragma npu double_buffer(wt_wb)
#pragma npu double_buffer(y_vm)

/* conv_q the same way, without the ReLU stage. */
#pragma npu schedule(conv_q, conv_nu)
#pragma npu compute_inline(s1)
#pragma npu decompose_reduction(init, oh_1)
#pragma npu set_scope(acc, nu_ob)
#pragma npu cache_read(x, nu_ib, root, x_ib)
#pragma npu cache_read(bias, dm, root, bias_dm)
#pragma npu cache_read(wt, nu_wb, oco, wt_wb)
#pragma npu cache_write(y, vu_vm, oco, y_vm)
#pragma npu split(oh_2, 56, ho, hi)
#pragma npu cache_read(acc, vu_vm, ho, acc_vm)
#pragma npu transform_layout(acc_vm, (h, w, o), (h * 224 + w * 4 + o))
#pragma npu transform_layout(y_vm, (h, w, o), (h * 224 + w * 4 + o))
#pragma npu fuse(ow_2, oci_2, q2)
#pragma npu fuse(hi, q2, p2)
#pragma npu tensorize(oh_1, npu_nu_conv2d_i8)
#pragma npu tensorize(p2, npu_vu_requant_i8)
#pragma npu double_buffer(wt_wb)
#pragma npu double_buffer(y_vm)

/* add_relu_q on the four VU cores, a row each, its rows loaded ahead and
 * written out behind (double_buffer); each stage is one VU instruction
 * over the row's 3,584 values. */
#pragma npu schedule(add_relu_q, add_relu_vu)
#pragma npu compute_inline(s1)
#pragma npu split(h, 4, ho, core)
#pragma npu bind(core, vu)
#pragma npu set_scope(wa, vu_vm)
#pragma npu set_scope(wb, vu_vm)
#pragma npu set_scope(sum, vu_vm)
#pragma npu cache_read(a, vu_vm, core, a_vm)
#pragma npu cache_read(b, vu_vm, core, b_vm)
#pragma npu cache_write(y, vu_vm, core, y_vm)
#pragma npu double_buffer(a_vm)
#pragma npu double_buffer(b_vm)
#pragma npu double_buffer(y_vm)
#pragma npu transform_layout(wa, (w, c), (w * 64 + c))
#pragma npu transform_layout(wb, (w, c), (w * 64 + c))
#pragma npu transform_layout(sum, (w, c), (w * 64 + c))
#pragma npu transform_layout(a_vm, (h, w, c), (h * 3584 + w * 64 + c))
#pragma npu transform_layout(b_vm, (h, w, c), (h * 3584 + w * 64 + c))
#pragma npu transform_layout(y_vm, (h, w, c), (h * 3584 + w * 64 + c))
#pragma npu fuse(w_1, c_1, e1)
#pragma npu fuse(w_2, c_2, e2)
#pragma npu fuse(w_3, c_3, e3)
#pragma npu fuse(w_4, c_4, e4)
#pragma npu fuse(w_5, c_5, e5)
#pragma npu vectorize(e1)
#pragma npu vectorize(e2)
#pragma npu vectorize(e3)
#pragma npu vectorize(e4)
#pragma npu vectorize(e5)

/* The three NPU variants chained through DDR: each call writes its result
 * out and the next reads it back. */
#pragma npu schedule(block, block_ddr)
#pragma npu use(conv1, conv_relu_nu)
#pragma npu use(conv2, conv_nu)
#pragma npu use(residual, add_relu_vu)

/* The same calls with both intermediates on chip, in DM: conv1's blocks go
 * from vector memory to t1 in DM, conv2 copies t1 from DM into the NU's
 * input buffer (an on-chip copy: the scopes clash), and the residual add
 * reads t2 from DM; only x, the weights, the biases and y cross DDR. */
#pragma npu schedule(block, block_chip)
#pragma npu set_scope(t1, dm)
#pragma npu set_scope(t2, dm)
#pragma npu use(conv1, conv_relu_nu)
#pragma npu use(conv2, conv_nu)
#pragma npu use(residual, add_relu_vu)
