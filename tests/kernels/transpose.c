/* Transposes with non-square odd extents: float and int8. */
#include <stdint.h>

#define R 33
#define C 47

void transpose_f32(const float in[R][C], float out[C][R]) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      out[j][i] = in[i][j];
}

void transpose_i8(const int8_t in[C][R], int8_t out[R][C]) {
  for (int j = 0; j < R; j++)
    for (int i = 0; i < C; i++)
      out[j][i] = in[i][j];
}
