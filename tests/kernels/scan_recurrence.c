/* Recurrences: inclusive prefix sum (int32), running max (float), and a first-order IIR filter. */
#include <stdint.h>

#define N 1500

void prefix_sum_i32(const int32_t x[N], int32_t y[N]) {
  int32_t s = 0;
  for (int i = 0; i < N; i++) {
    s += x[i];
    y[i] = s;
  }
}

void running_max(const float x[N], float y[N]) {
  y[0] = x[0];
  for (int i = 1; i < N; i++)
    y[i] = x[i] > y[i - 1] ? x[i] : y[i - 1];
}

void iir1(const float x[N], float a, float y[N]) {
  float state = 0.0f;
  for (int i = 0; i < N; i++) {
    state = 0.5f * a * state + x[i];
    y[i] = state;
  }
}
