/* Several kernels in one file: vector add, scale by an int scalar, ReLU in place, and a copy. */
#include <stdint.h>

#define N 777

void vadd_i32(const int32_t a[N], const int32_t b[N], int32_t c[N]) {
  for (int i = 0; i < N; i++)
    c[i] = a[i] + b[i];
}

void vscale_i32(const int32_t a[N], int s, int32_t c[N]) {
  for (int i = 0; i < N; i++)
    c[i] = a[i] * s;
}

void relu_inplace_f32(float x[N]) {
  for (int i = 0; i < N; i++)
    if (x[i] < 0.0f)
      x[i] = 0.0f;
}

void copy_i8(const int8_t src[N], int8_t dst[N]) {
  for (int i = 0; i < N; i++)
    dst[i] = src[i];
}
