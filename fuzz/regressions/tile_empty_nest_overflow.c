/* sched_random finding: heap-buffer-overflow in dep_model_build (ir/deps.c,
 * the loop-prefix remapping `newdim[d]` for d < l->dim) when tile's legality
 * check models a loop nest that holds no statement.
 *
 * decompose_reduction(upd, k) accepts the update itself as the "init" and
 * moves it into its own nest before k, leaving k { j { } } empty; tiling that
 * empty nest then reads past `newdim` (loop dim > kept time dims).
 *   ./build/asan/npugen check fuzz/regressions/tile_empty_nest_overflow.c
 *     -> AddressSanitizer: heap-buffer-overflow, dep_model_build ir/deps.c
 *        <- sched_legal <- prim_tile
 *   ./build/npugen check ... -> "gmp: overflow in mpz type", abort (exit 134)
 * Expected: a refusal or a passing variant, exit 0/1, never a signal.
 * Found by fuzz/fuzz_schedules (seed 4294968231, realworld/syr2k.c).
 *
 * Status: fixed in af9822c (loops without statements get no time dimension;
 * decompose_reduction now refuses a statement that is not a plain init).
 * Expect: refused decompose_reduction: upd (line 24) is not a reduction's init
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
#pragma npu tile(k, j, 4, 4, ko, jo, ki, ji)
