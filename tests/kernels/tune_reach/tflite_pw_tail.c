/* TFLite's pointwise convolution (examples/conv_pw_tflite.c) over a 7 x 7
 * feature map: 49 pixels, which no tile of the NU sketch with an epilogue
 * divides (its tiles are multiples of 8 rows a VU core): the last tile is a
 * tail. Before, the sketch was left out without a word and the kernel was
 * tuned on the host (trial 40, D3). */
#include <stdint.h>

#define P 49
#define IC 64
#define OC 64

void conv_pw(const int8_t input[P][IC], const int8_t filter[IC][OC], const int32_t bias[OC],
             const int32_t output_multiplier[OC], const int32_t output_shift[OC], int8_t output[P][OC],
             int32_t output_offset) {
  for (int p = 0; p < P; p++)
    for (int oc = 0; oc < OC; oc++) {
      int32_t acc = 0;
      for (int ic = 0; ic < IC; ic++)
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
      acc = acc > -128 ? acc : -128;
      acc = acc < 127 ? acc : 127;
      output[p][oc] = (int8_t)acc;
    }
}

/* Q31 multipliers for scales in [0.5, 1), right shifts (TFLite's
 * output_shift <= 0; at 0 the kernel's own int32 sum with the offset
 * could overflow), an int8 zero point */
#pragma npu inputs(conv_pw, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(conv_pw, output_shift, -31, -1)
#pragma npu inputs(conv_pw, output_offset, -128, 127)
