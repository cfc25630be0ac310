/* CMSIS-DSP-like q15 FIR block: reversed coefficient loop (k--), q31 accumulator, saturating shift to q15. */
#include <stdint.h>

#define NUM_TAPS 29
#define BLOCK 160

void arm_fir_q15_like(const int16_t coeffs[NUM_TAPS], const int16_t state[BLOCK + NUM_TAPS - 1],
                      int16_t out[BLOCK]) {
  int n, k;
  int32_t acc;

  for (n = 0; n < BLOCK; n++) {
    acc = 0;
    for (k = NUM_TAPS - 1; k >= 0; k--)
      acc += coeffs[k] * state[n + NUM_TAPS - 1 - k];
    acc = acc * 64;
    acc = acc >> 2;
    if (acc > 32767)
      acc = 32767;
    else if (acc < -32768)
      acc = -32768;
    out[n] = (int16_t)acc;
  }
}
