/* kernel_random finding (fuzz/kernel_gen.c, seeds 28, 48, 54, 61 of the
 * first batch): a loop counter narrower than int was unbounded for the
 * bounds check, so every index using it was refused:
 *   ./build/npugen check fuzz/regressions/kgen_narrow_counter_refused.c
 *     -> error: cannot prove that index 'i' stays within dimension 1 of 'x'
 *        (extent 24): its value can range over [-32768, 32767]
 * The loop's start is the IR's conversion of 0 to short, and ir/affine.c
 * read no conversion below int as affine, so the domain had no lower
 * bound (and the triangular j, starting at i, none either).
 * Status: fixed (ir/affine.c, cast_keeps_value: a conversion is affine when
 * the operand's range fits the new type).
 * Expect: passes
 */
#include <stdint.h>
void f(const int x[24], int y[24], uint8_t z[24]) {
  for (int16_t i = 0; i < 24; i++) {
    y[i] = x[i];
    for (uint8_t j = i; j < 24; j++)
      z[j] += (uint8_t)x[23 - j];
  }
}
#pragma npu schedule(f, v)
#pragma npu annotate(i, note, 1)
