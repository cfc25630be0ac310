/* A kernel with sizes: the reference checks X[i] * s for overflow; the
 * check's C runs the parallel loop io backwards (tests/test_golden.c). */
#include <stdint.h>
void scale(int n, const int32_t X[n], int32_t Y[n], int32_t s) {
  for (int i = 0; i < n; i++)
    Y[i] = X[i] * s + 1;
}
#pragma npu assume(scale, n <= 64)
#pragma npu sizes(scale, n = 7) /* the check's one size set: the golden reference is at n = 7 */

#pragma npu schedule(scale, scale_par)
#pragma npu split(i, 4, io, ii)
#pragma npu parallel(io)
