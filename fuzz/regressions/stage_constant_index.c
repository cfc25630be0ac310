/* random-schedule finding: stage staged a constant expression (HEIGHT - 1)
 * that the statement used as an array index; the index became data
 * (r0_a[0]) and the variant failed the static bounds check.
 * Status: fixed (schedule/stage.c: a constant is refused, and so is an
 * occurrence inside an index, which must stay an expression of the loop
 * counters).
 * Expect: refused 'HEIGHT - 1' is a name or a constant: staging it computes nothing
 */
/* 3x3 box blur on a uint8 image: interior average with rounding, border pixels copied. */
#include <stdint.h>

#define HEIGHT 48
#define WIDTH 64

void box_blur_u8(const uint8_t src[HEIGHT][WIDTH], uint8_t dst[HEIGHT][WIDTH]) {
  int x, y;

  for (x = 0; x < WIDTH; x++) {
    dst[0][x] = src[0][x];
    dst[HEIGHT - 1][x] = src[HEIGHT - 1][x];
  }
  for (y = 1; y < HEIGHT - 1; y++) {
    dst[y][0] = src[y][0];
    dst[y][WIDTH - 1] = src[y][WIDTH - 1];
  }
  for (y = 1; y < HEIGHT - 1; y++) {
    for (x = 1; x < WIDTH - 1; x++) {
      int sum = src[y - 1][x - 1] + src[y - 1][x] + src[y - 1][x + 1]
              + src[y][x - 1]     + src[y][x]     + src[y][x + 1]
              + src[y + 1][x - 1] + src[y + 1][x] + src[y + 1][x + 1];
      dst[y][x] = (uint8_t)((sum + 4) / 9);
    }
  }
}

/* sched_random: seed 3337189589884, FAILED */
#pragma npu schedule(box_blur_u8, box_blur_u8_rs)
#pragma npu stage(s2, "HEIGHT - 1", r0_a)
#pragma npu parallel(y_1)
#pragma npu vectorize(x_2)
#pragma npu reorder(y_2, x_2)
