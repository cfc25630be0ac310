/* tests/kernels/tflite_pw_offset.c (TFLite's pointwise int8 convolution
 * with its input offset, `filter * (input + input_offset)`, the offset an
 * int16_t parameter) at 256 x 256 x 256: the figure of docs/schedules.md
 * ("Kernels as written, through tune"). IC = 256 is the most the int16_t
 * offset allows: hoist_offset proves from the types that offset * a sum
 * of IC filter elements fits int32. */
#include <stdint.h>

#define P 256
#define IC 256
#define OC 256

void conv_pw(const int8_t input[P][IC], const int8_t filter[OC][IC], const int32_t bias[OC],
             const int32_t output_multiplier[OC], const int32_t output_shift[OC], int8_t output[P][OC],
             int16_t input_offset, int32_t output_offset) {
  for (int p = 0; p < P; p++)
    for (int oc = 0; oc < OC; oc++) {
      int32_t acc = 0;
      for (int ic = 0; ic < IC; ic++)
        acc += filter[oc][ic] * (input[p][ic] + input_offset);
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

/* Q31 multipliers for scales in [0.5, 1), right shifts, int8 zero points
 * (the input offset is -zero_point) */
#pragma npu inputs(conv_pw, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(conv_pw, output_shift, -31, -1)
#pragma npu inputs(conv_pw, output_offset, -128, 127)
#pragma npu inputs(conv_pw, input_offset, -127, 128)
