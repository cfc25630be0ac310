/* frontend finding (UBSan, fuzz/fuzz_frontend.c's build): a loop step of
 * INT64_MIN written as `-= c` (or `i = i - c`) was negated in int64_t:
 *   build/fuzz/fuzz_frontend fuzz/regressions/loop_step_int64_min.c
 *     -> frontend/stmt.c: runtime error: negation of -9223372036854775808
 *        cannot be represented in type 'int64_t'
 * Status: fixed (frontend/stmt.c, minus_step: such a step is refused).
 * Expect: refused 13:38: error: the loop step -9223372036854775808 is too large
 * Expect: refused 18:41: error: the loop step -9223372036854775808 is too large
 */
#define MIN (-9223372036854775807LL - 1)

void f(int y[4]) {
  for (long long i = 0; i > -5; i -= MIN)
    y[0] = 1;
}

void g(int y[4]) {
  for (long long i = 0; i > -5; i = i - MIN)
    y[0] = 1;
}
