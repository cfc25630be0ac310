/* sched_random finding: split accepts the factor 2^31 (sched_positive allows
 * values up to and including 1 << 31) although the loop counter is an int.
 * The emitted inner loop is `for (int ii = 0; ii < 2147483648; ii++)`, whose
 * test is always true: ii overflows (undefined behaviour) and the guarded
 * body indexes x[io * 2147483648 + ii] out of bounds.
 *   ./build/npugen check fuzz/regressions/split_factor_2pow31.c
 *     -> v  FAIL  emitted 'f': the code raised SIGSEGV (an out-of-bounds memory access)
 * Expected: a refusal (the factor does not fit the counter type; arguably any
 * factor above the trip count could be clamped to it, since the inner loop
 * otherwise runs `factor` guarded iterations: split(i, 2147483647, ...)
 * passes but runs 2^31 iterations for a 10-iteration loop).
 *
 * Status: fixed in af9822c (factors bounded by the trip count and the
 * counter type: "split: the split factor 2147483648 is too large").
 * Expect: refused split: the split factor 2147483648 is too large
 */
#define N 10
void f(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] + 1;
}
#pragma npu schedule(f, v)
#pragma npu split(i, 2147483648, io, ii)
