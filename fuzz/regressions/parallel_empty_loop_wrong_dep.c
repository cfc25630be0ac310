/* sched_random finding: a wrong refusal, same root cause as
 * tile_empty_nest_overflow.c. decompose_reduction(upd, k) accepts the
 * update itself and leaves loop k { j { } } empty (its statement moves to a
 * new nest k_1 before it; the emitted C keeps the empty loops). parallel(k)
 * or vectorize(k) on that empty loop is then refused with the dependence of
 * the statement that now sits in k_1:
 *   ./build/npugen check fuzz/regressions/parallel_empty_loop_wrong_dep.c
 *     -> error: parallel: illegal: loop k would run its iterations in any
 *        order, but it carries the flow dependence on C from upd (line 26)
 *        to upd (line 26), distance (0, 1, 0)
 * dep_model_build drops time dimensions that are constant over every
 * statement occurrence; a loop holding no statement keeps a prefix/dim in
 * those dropped dimensions, so it is confused with its sibling k_1 (and
 * tile reads `newdim` out of bounds). Expected: parallel(k) applies (an
 * empty loop carries nothing), or decompose_reduction refuses to move a
 * statement that is not an init (it is C[i][j] += ...), leaving no empty
 * nest behind.
 *
 * Status: fixed in af9822c (as tile_empty_nest_overflow.c): the first
 * step is now refused, so no empty nest is left.
 * Expect: refused decompose_reduction: upd (line 28) is not a reduction's init
 */
#define N 8
void f(const float A[N][N], float C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      for (int j = 0; j < N; j++)
        upd: C[i][j] += A[i][k];
}
#pragma npu schedule(f, v)
#pragma npu decompose_reduction(upd, k)
#pragma npu parallel(k)
