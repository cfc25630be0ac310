/* Dot products: int16 -> int32 and float, results written to one-element output arrays. */
#include <stdint.h>

#define N 1000

void dot_i16(const int16_t a[N], const int16_t b[N], int32_t out[1]) {
  int32_t acc = 0;
  for (int i = 0; i < N; i++)
    acc += a[i] * b[i];
  out[0] = acc;
}

void dot_f32(const float a[N], const float b[N], float out[1]) {
  out[0] = 0.0f;
  for (int i = 0; i < N; i++)
    out[0] += a[i] * b[i];
}
