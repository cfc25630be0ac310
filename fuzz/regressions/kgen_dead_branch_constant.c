/* kernel_random finding (fuzz/kernel_gen.c, seeds 73, 90, 180, 221, 246 of
 * the first batch): an index in a branch that never runs (an always-true
 * affine guard, here i >= 0) was refused although it is in bounds for any
 * value of n:
 *   ./build/npugen check fuzz/regressions/kgen_dead_branch_constant.c
 *     -> error: cannot prove that index '(n % 5 + 5) % 5' stays within
 *        dimension 1 of 'y' (extent 5): its value can range over [-4, 4]
 * Over the empty domain, ir/affine.c's interval() read every affine part
 * as [0, 0], the constant 5 included, so (n % 5 + 5) % 5 became
 * (n % 5 + 0) % 5.
 * Status: fixed (ir/affine.c, aff_range: an empty domain holds every value
 * in range, before any interval is computed).
 * Expect: passes
 */
void f(const int x[4], int y[5], int n) {
  for (int i = 0; i < 4; i++)
    if (i >= 0)
      y[i] = x[i];
    else
      y[(n % 5 + 5) % 5] = 0;
}
#pragma npu schedule(f, v)
#pragma npu annotate(i, note, 1)
