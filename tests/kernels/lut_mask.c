/* Data-dependent table indices made provably in range by & mask and % with constants. */
#include <stdint.h>

#define N 1001

void lut_mask(const int32_t idx[N], const int16_t tab[16], int16_t out[N]) {
  for (int i = 0; i < N; i++)
    out[i] = tab[idx[i] & 15];
}

void lut_mod_u8(const uint8_t idx[N], const float tab[10], float out[N]) {
  for (int i = 0; i < N; i++)
    out[i] = tab[idx[i] % 10];
}

void lut_shift_mask(const int8_t x[N], const int8_t tab[8], int8_t out[N]) {
  for (int i = 0; i < N; i++)
    out[i] = tab[(x[i] >> 1) & 7];
}

void scatter_count(const uint8_t keys[N], int32_t buckets[32]) {
  for (int b = 0; b < 32; b++)
    buckets[b] = 0;
  for (int i = 0; i < N; i++)
    buckets[keys[i] & 31] += 1;
}
