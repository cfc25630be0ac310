/* frontend finding (review while fuzzing with fuzz/fuzz_frontend.c): a
 * correct step was refused after enough schedule arguments that are not
 * integer constants. Each argument is first tried as a constant expression
 * (const_value in frontend/schedule.c); an error there unwinds fe_expr by
 * longjmp without counting its nesting depth down, so the depth leaked, and
 * once it passed FE_MAX_NESTING (200) every later constant "failed" quietly:
 *   ./build/npugen check fuzz/regressions/pragma_nesting_count_leak.c
 *     -> error: split: expected an integer constant, got '4'
 * The nested list below leaks about 250 levels (each level is tried again
 * as the list is flattened); 70 annotates of `(q / 4)` or 200 of `(a, b)`
 * across a file did the same.
 * Status: fixed (const_value restores the depth; each top-level item starts
 * at depth 0).
 * Expect: passes
 */
#define N 16
void f(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    s: y[i] = x[i] + 1;
}
#pragma npu schedule(f, v)
#pragma npu annotate(s, note, ((((((((((((((((((((((a)))))))))))))))))))))))
#pragma npu split(i, 4, io, ii)
