/* Expressions: ?:, shifts, casts, bitwise ops, integer promotions of int8/uint8, float/int conversions. */
#include <stdint.h>

#define N 403

void relu_sign_abs(const int8_t x[N], int8_t relu[N], int8_t sgn[N], uint8_t ab[N]) {
  for (int i = 0; i < N; i++) {
    relu[i] = x[i] > 0 ? x[i] : 0;
    sgn[i] = (int8_t)(x[i] > 0 ? 1 : (x[i] < 0 ? -1 : 0));
    ab[i] = (uint8_t)(x[i] < 0 ? -x[i] : x[i]);
  }
}

void shifts_bits(const int32_t a[N], const uint8_t b[N], int32_t out[N], uint8_t packed[N]) {
  for (int i = 0; i < N; i++) {
    out[i] = ((a[i] & 0xF) << 4) | ((a[i] >> 2) ^ (int32_t)(b[i] << 3));
    packed[i] = (uint8_t)((b[i] << 4) | (b[i] >> 1));
  }
}

void casts(const float f[N], const int16_t s[N], int32_t qi[N], float back[N], uint8_t u[N]) {
  for (int i = 0; i < N; i++) {
    qi[i] = (int32_t)(f[i] * 100.0f);
    back[i] = (float)s[i] / 3 + (float)(int)(f[i] * 7.5);
    u[i] = (uint8_t)(s[i] + 8) * 15;
  }
}

void promote_u8(const uint8_t a[N], const uint8_t b[N], int32_t diff[N], uint8_t wrap[N]) {
  for (int i = 0; i < N; i++) {
    diff[i] = a[i] - b[i];
    wrap[i] = (uint8_t)(a[i] - b[i]);
  }
}
