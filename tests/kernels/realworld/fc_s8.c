/* CMSIS-NN-like int8 fully-connected layer: input offset, int32 bias, requantise (multiply, rounding shift), clamp. */
#include <stdint.h>

#define IN_DIM 256
#define OUT_DIM 45
#define ACT_MIN (-128)
#define ACT_MAX 127
#define OUT_MULT 1373

void arm_fully_connected_s8_like(const int8_t input[IN_DIM], const int8_t kernel[OUT_DIM][IN_DIM],
                                 const int32_t bias[OUT_DIM], int input_offset, int out_shift,
                                 int out_offset, int8_t output[OUT_DIM]) {
  int i, j;

  for (i = 0; i < OUT_DIM; i++) {
    int32_t acc = bias[i];
    for (j = 0; j < IN_DIM; j++) {
      int32_t in = input[j] + input_offset;
      acc += in * kernel[i][j];
    }
    acc = (acc * OUT_MULT + (1 << (out_shift + 3))) >> (out_shift + 4);
    acc += out_offset;
    acc = acc > ACT_MAX ? ACT_MAX : acc;
    acc = acc < ACT_MIN ? ACT_MIN : acc;
    output[i] = (int8_t)acc;
  }
}
