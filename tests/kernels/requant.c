/* Requantisation int32 -> int8/int16: multiplier, rounding right shift, zero point, clamps via ?: and if. */
#include <stdint.h>

#define N 517

void requant_i8_ternary(const int32_t acc[N], const int32_t bias[N], int mult, int shift, int zp,
                        int8_t out[N]) {
  for (int i = 0; i < N; i++) {
    int32_t v = (acc[i] + bias[i]) * mult * 37;
    v = (v + (1 << (shift - 1))) >> shift;
    v = v + zp;
    v = v < -128 ? -128 : v;
    v = v > 127 ? 127 : v;
    out[i] = (int8_t)v;
  }
}

void requant_i16_if(const int32_t acc[N], int shift, int16_t out[N]) {
  for (int i = 0; i < N; i++) {
    int32_t v = acc[i] * 500000;
    int32_t r = v >> shift;
    if (r > 32767)
      r = 32767;
    else if (r < -32768)
      r = -32768;
    out[i] = (int16_t)r;
  }
}

void relu6_requant_i8(const int32_t acc[N], int8_t out[N]) {
  for (int i = 0; i < N; i++) {
    int v = (acc[i] * 23 + 8) >> 4;
    if (v < 0)
      v = 0;
    if (v > 6)
      v = 6;
    out[i] = (int8_t)v;
  }
}
