/* sched_random finding (performance): the legality proof of unroll by a
 * factor grows steeply with the factor. On PolyBench mvt (N = 60),
 * unroll(j_2, f) took (npugen check, 2-CPU machine under load):
 *   f = 4: 0.2 s, f = 8: 0.9 s, f = 16: 5.5 s, f = 24: 43 s;
 * after fuse(i_2, j_2, ij) (3600 iterations), unroll(ij, 16) took 10 s and
 * unroll(ij, 24) over 120 s; the primitive allows factors up to 256.
 * Nearly all the time is in isl_union_map_subtract(deps, order) in
 * sched_legal (schedule/legality.c): `order` is
 * isl_union_map_lex_lt_union_map(sched, sched) of the rewritten schedule,
 * whose pieces multiply with the copies (and with the number of statements:
 * unroll(r) of style_manylocals.c, 8 copies of ~50 statements, took 50 s and
 * 2 GB in isl_map_lex_lt_map). Checking each dependence in time space (apply
 * the schedule to both ends of `deps` and test lexicographic positivity per
 * statement pair) avoids building the full order relation.
 *   time ./build/npugen check fuzz/regressions/unroll_factor_slow.c
 * Expected: a result in well under a second, like unroll(j_2, 4).
 *
 * Status: fixed in af9822c (statement copies coalesced: 0.2 s now, and
 * unroll by 200 of the fused loop 0.3 s; since cbeea3b factors above 64 are
 * refused); see unroll_many_statements_slow.sched for what remains.
 * Expect: passes
 */
#define N 60

void kernel_mvt(double x1[N], double x2[N], const double y_1[N], const double y_2[N], const double A[N][N]) {
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
}

#pragma npu schedule(kernel_mvt, v)
#pragma npu unroll(j_2, 24)
