/* sched_random finding (ASan build): reverse_compute_at leaks isl objects
 * when it refuses with "cannot narrow loop ...": an isl_pw_aff from
 * isl_pw_aff_union_max in narrow_loop (schedule/region.c, via at_narrow <-
 * reverse_region in schedule/compute_at.c) is never freed, so
 * isl_ctx_free in sched_free keeps the whole context alive:
 *   ASAN_OPTIONS=detect_leaks=1 ./build/asan/npugen check \
 *       fuzz/regressions/reverse_compute_at_refusal_leak.c
 *     -> error: reverse_compute_at: cannot narrow loop i_2 ... (expected)
 *        LeakSanitizer: detected memory leaks (about 23 KB in 700
 *        allocations) on stderr
 * In the Criterion suite the same leak is printed at the end of the
 * sched_random shard that hits it (the test still passes).
 * Minor, same step: the refusal quotes two raw isl relations ("from
 * { [o0, o1] -> [(398)] : o1 = 399 and ... }"), unlike the other messages.
 * Expected: no leak; a message in the kernel's terms.
 * Status: leak fixed in b8b22a5 (tests/test_fuzz_regressions.c checks for
 * leaks in the ASan build); the message quoting isl relations is open.
 * Expect: refused reverse_compute_at: cannot narrow loop i_2
 */
/* Jacobi-1d: ping-pong between two arrays over time steps (boundaries of B copied first). */
#define T 20
#define N 401

void jacobi_1d(float A[N], float B[N]) {
  B[0] = A[0];
  B[N - 1] = A[N - 1];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}

#pragma npu schedule(jacobi_1d, v)
#pragma npu reverse_compute_at(s4, i_1)
