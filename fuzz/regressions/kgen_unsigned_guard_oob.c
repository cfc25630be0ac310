/* kernel_random finding (while reading ir/affine.c for the narrow counter
 * of kgen_narrow_counter_refused.c): every integer conversion of size 4 or
 * more was read as the identity, also a change of sign. The guard below
 * compares in unsigned int: at i = 0, i - 1 is 4294967295 >= 3, so x[-1]
 * is read. The bounds check took the guard as i - 1 >= 3 (never true for
 * i < 4), found the statement dead, and accepted the kernel:
 *   ./build/npugen check fuzz/regressions/kgen_unsigned_guard_oob.c
 *     -> PASS (reading x[-1] and y[-1]... out of bounds, unnoticed)
 * Status: fixed (ir/affine.c, cast_keeps_value): now refused.
 * Expect: refused index 'i - 1' is out of bounds: it ranges over [-1, 2]
 */
void f(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++)
    if (i - 1 >= 3u)
      y[i] = x[i - 1];
}
