/* kernel_random finding (as kgen_unsigned_guard_oob.c): an index through
 * (unsigned) was read as the identity, so (long)(unsigned)(i - 1) + 1 was
 * taken for i, in bounds; at i = 0 it is 4294967296:
 *   ./build/npugen check fuzz/regressions/kgen_cast_index_oob.c
 *     -> f  FAIL  reference kernel 'f': the code raised SIGSEGV
 * Status: fixed (ir/affine.c, cast_keeps_value): now refused.
 * Expect: refused cannot prove that index '(long)(unsigned)(i - 1) + 1' stays within dimension 1 of 'x'
 */
void f(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++)
    y[i] = x[(long)(unsigned)(i - 1) + 1];
}
