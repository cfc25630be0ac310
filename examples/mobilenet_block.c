/* A MobileNetV2 inverted-residual block, int8, as a program of kernels
 * written plainly (docs/programs.md, "A MobileNetV2 block"): a 1x1 expand
 * with ReLU6, a 3x3 depthwise with ReLU6, a 1x1 project, each requantised
 * as TFLite's reference kernels do (per channel: the bias, then
 * MultiplyByQuantizedMultiplier written out with int64 arithmetic, the
 * output offset, the activation clamp), and the residual add, requantised
 * with one multiplier. 16x16 pixels, 16 -> 64 -> 16 channels, NHWC with the
 * pixels flattened (P = H * W); filters stored input-channel major, the
 * depthwise's [3][3][C] as TFLite's [1][3][3][C]. ReLU6 is the clamp to
 * [act_min, act_max], TFLite's output_activation_min/max: the zero point
 * and zero point + 6 / scale, in the quantised domain.
 *
 * The file is plain C: the block as written is the reference `npugen
 * check` runs every variant against.
 *
 * examples/mobilenet_block.sched is the schedule `npugen tune --kernel
 * block` wrote, with no hand step: expand and project on the NU with
 * their requantisation on the VU, the depthwise on the VU cores (tune's
 * vu:halo: its padded input staged in the DM with the halo in front), the
 * residual add and its requantisation on the VU, e, j in dm, d in nu_ib.
 * 30,834 simulated cycles (87,602 before the cores were issued to in
 * turn, 453,980 before vu:halo), bit-exact, vs the calls' own bounds,
 * 6,976 (22.6%): the depthwise's short VU instructions, four per tap and
 * pixel, are most of the figure (docs/programs.md, "A
 * MobileNetV2 block, tuned": what and where bytes move). */
#include <stdint.h>

#define H 16
#define W 16
#define P (H * W)
#define CI 16 /* the block's channels */
#define CE 64 /* expanded (expansion factor 4) */

/* 1x1 convolution with bias, TFLite requantisation and an activation
 * clamp: the expand (ReLU6) and, with a clamp of [-128, 127], the project. */
void expand(const int8_t input[P][CI], const int8_t filter[CI][CE], const int32_t bias[CE],
            const int32_t output_multiplier[CE], const int32_t output_shift[CE], int8_t output[P][CE],
            int32_t output_offset, int32_t act_min, int32_t act_max) {
  for (int p = 0; p < P; p++)
    for (int oc = 0; oc < CE; oc++) {
      int32_t acc = 0;
      for (int ic = 0; ic < CI; ic++)
        acc += input[p][ic] * filter[ic][oc];
      acc += bias[oc];
      /* MultiplyByQuantizedMultiplier(acc, output_multiplier[oc], output_shift[oc]) */
      int64_t ab = (int64_t)acc * output_multiplier[oc];
      int32_t high = acc == (-2147483647 - 1) && output_multiplier[oc] == (-2147483647 - 1)
                         ? 2147483647
                         : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
      int32_t mask = (int32_t)(((int64_t)1 << -output_shift[oc]) - 1);
      acc = (high >> -output_shift[oc]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
      acc += output_offset;
      acc = acc > act_min ? acc : act_min;
      acc = acc < act_max ? acc : act_max;
      output[p][oc] = (int8_t)acc;
    }
}

/* 3x3 depthwise convolution, stride 1, padding 1 (TFLite's SAME), bias,
 * requantisation per channel, ReLU6. */
void depthwise(const int8_t input[P][CE], const int8_t filter[3][3][CE], const int32_t bias[CE],
               const int32_t output_multiplier[CE], const int32_t output_shift[CE], int8_t output[P][CE],
               int32_t output_offset, int32_t act_min, int32_t act_max) {
  for (int oy = 0; oy < H; oy++)
    for (int ox = 0; ox < W; ox++)
      for (int c = 0; c < CE; c++) {
        int32_t acc = 0;
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++)
            if (oy + ky - 1 >= 0 && oy + ky - 1 < H && ox + kx - 1 >= 0 && ox + kx - 1 < W)
              acc += input[(oy + ky - 1) * W + ox + kx - 1][c] * filter[ky][kx][c];
        acc += bias[c];
        int64_t ab = (int64_t)acc * output_multiplier[c];
        int32_t high = acc == (-2147483647 - 1) && output_multiplier[c] == (-2147483647 - 1)
                           ? 2147483647
                           : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
        int32_t mask = (int32_t)(((int64_t)1 << -output_shift[c]) - 1);
        acc = (high >> -output_shift[c]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
        acc += output_offset;
        acc = acc > act_min ? acc : act_min;
        acc = acc < act_max ? acc : act_max;
        output[oy * W + ox][c] = (int8_t)acc;
      }
}

/* 1x1 projection, 64 -> 16 channels, no activation (a linear bottleneck). */
void project(const int8_t input[P][CE], const int8_t filter[CE][CI], const int32_t bias[CI],
             const int32_t output_multiplier[CI], const int32_t output_shift[CI], int8_t output[P][CI],
             int32_t output_offset) {
  for (int p = 0; p < P; p++)
    for (int oc = 0; oc < CI; oc++) {
      int32_t acc = 0;
      for (int ic = 0; ic < CE; ic++)
        acc += input[p][ic] * filter[ic][oc];
      acc += bias[oc];
      int64_t ab = (int64_t)acc * output_multiplier[oc];
      int32_t high = acc == (-2147483647 - 1) && output_multiplier[oc] == (-2147483647 - 1)
                         ? 2147483647
                         : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
      int32_t mask = (int32_t)(((int64_t)1 << -output_shift[oc]) - 1);
      acc = (high >> -output_shift[oc]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
      acc += output_offset;
      acc = acc > -128 ? acc : -128;
      acc = acc < 127 ? acc : 127;
      output[p][oc] = (int8_t)acc;
    }
}

/* The residual add: both int8 inputs widened and summed, the sum
 * requantised by one Q31 multiplier (the inputs share a scale), offset and
 * saturated to int8. */
void residual_add(const int8_t a[P][CI], const int8_t b[P][CI], int8_t output[P][CI], int32_t output_multiplier,
                  int32_t output_shift, int32_t output_offset) {
  for (int p = 0; p < P; p++)
    for (int c = 0; c < CI; c++) {
      int32_t acc = (int32_t)a[p][c] + (int32_t)b[p][c];
      int64_t ab = (int64_t)acc * output_multiplier;
      int32_t high = acc == (-2147483647 - 1) && output_multiplier == (-2147483647 - 1)
                         ? 2147483647
                         : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));
      int32_t mask = (int32_t)(((int64_t)1 << -output_shift) - 1);
      acc = (high >> -output_shift) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);
      acc += output_offset;
      acc = acc > -128 ? acc : -128;
      acc = acc < 127 ? acc : 127;
      output[p][c] = (int8_t)acc;
    }
}

/* The block: e and d are its intermediates (the expanded activations
 * before and after the depthwise), j the projection before the add. */
void block(const int8_t x[P][CI], const int8_t f1[CI][CE], const int32_t b1[CE], const int32_t m1[CE],
           const int32_t s1[CE], const int8_t f2[3][3][CE], const int32_t b2[CE], const int32_t m2[CE],
           const int32_t s2[CE], const int8_t f3[CE][CI], const int32_t b3[CI], const int32_t m3[CI],
           const int32_t s3[CI], int8_t y[P][CI], int32_t m4, int32_t s4, int32_t zp, int32_t relu6_max) {
  int8_t e[P][CE];
  int8_t d[P][CE];
  int8_t j[P][CI];
  expand(x, f1, b1, m1, s1, e, zp, zp, relu6_max);
  depthwise(e, f2, b2, m2, s2, d, zp, zp, relu6_max);
  project(d, f3, b3, m3, s3, j, zp);
  residual_add(j, x, y, m4, s4, zp);
}

/* Q31 multipliers for scales in [0.5, 1), right shifts that bring each
 * layer's sums near the int8 range; one zero point, and ReLU6's top at
 * zero point + 6 / scale (scale 1/16: 96 steps, capped at 127). */
#pragma npu inputs(block, m1, 1073741824, 2147483647)
#pragma npu inputs(block, s1, -12, -8)
#pragma npu inputs(block, m2, 1073741824, 2147483647)
#pragma npu inputs(block, s2, -12, -8)
#pragma npu inputs(block, m3, 1073741824, 2147483647)
#pragma npu inputs(block, s3, -14, -10)
#pragma npu inputs(block, m4, 1073741824, 2147483647)
#pragma npu inputs(block, s4, -2, -1)
#pragma npu inputs(block, zp, -16, 16)
#pragma npu inputs(block, relu6_max, 80, 111)

/* Each layer's own inputs, for its check and its tuning alone. */
#pragma npu inputs(expand, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(expand, output_shift, -12, -8)
#pragma npu inputs(expand, output_offset, -16, 16)
#pragma npu inputs(expand, act_min, -16, 16)
#pragma npu inputs(expand, act_max, 80, 111)
#pragma npu inputs(depthwise, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(depthwise, output_shift, -12, -8)
#pragma npu inputs(depthwise, output_offset, -16, 16)
#pragma npu inputs(depthwise, act_min, -16, 16)
#pragma npu inputs(depthwise, act_max, 80, 111)
#pragma npu inputs(project, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(project, output_shift, -14, -10)
#pragma npu inputs(project, output_offset, -16, 16)
#pragma npu inputs(residual_add, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(residual_add, output_shift, -2, -1)
#pragma npu inputs(residual_add, output_offset, -16, 16)
