/* int16 kernels: FIR filter with int32 accumulation and saturating narrowing, saturating add. */
#include <stdint.h>

#define N 300
#define TAPS 16

void fir_i16(const int16_t x[N + TAPS - 1], const int16_t h[TAPS], int16_t y[N]) {
  for (int i = 0; i < N; i++) {
    int32_t acc = 0;
    for (int t = 0; t < TAPS; t++)
      acc += x[i + t] * h[t];
    acc = acc * 300;
    if (acc > 32767) acc = 32767;
    if (acc < -32768) acc = -32768;
    y[i] = (int16_t)acc;
  }
}

void add_sat_i16(const int16_t a[N], const int16_t b[N], int scale, int16_t c[N]) {
  for (int i = 0; i < N; i++) {
    int s = a[i] * 1000 * scale + b[i] * 999;
    c[i] = (int16_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s);
  }
}
