/* TFLite's residual add, int8, requantised by one Q31 multiplier, written as
 * its reference kernel writes it (a local, its temporaries, reassignments,
 * the store): tune's VU sketches after the chain is folded into the store
 * (tune/sketch_vu_fold.c, tests/test_tune_halo.c). 8 rows of 16. */
#include <stdint.h>

#define P 8
#define CI 16

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
#pragma npu inputs(residual_add, output_multiplier, 1073741824, 2147483647)
#pragma npu inputs(residual_add, output_shift, -2, -1)
#pragma npu inputs(residual_add, output_offset, -16, 16)
