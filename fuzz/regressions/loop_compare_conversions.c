/* frontend finding (review while fuzzing with fuzz/fuzz_frontend.c): loop
 * headers were lowered with exact arithmetic where C converts and wraps, so
 * the IR's loop was not the kernel's. In f, C compares i with 10u as
 * unsigned, so -5 becomes 4294967291 and the loop never runs; the IR ran it
 * 15 times, and a split variant followed the IR:
 *   ./build/npugen check (f alone, with split(i, 4, io, ii))
 *     -> v  FAIL  y[5]: expected 1, got 0
 * In g, the bound j - 1u wraps to 4294967295 at j = 0: the reference ran
 * for billions of iterations (npugen check hung) while the IR's loop was
 * empty. In h the bound 2^64 - 1 was read as -1 (the IR holds int64_t).
 * Status: fixed (frontend/stmt.c, check_compare: a comparison that C makes
 * in an unsigned type needs both sides non-negative, and 64-bit unsigned
 * constants below 2^63; ir/bounds.c, check_bound_range: every sum,
 * difference, product, negation and conversion in a bound stays in its
 * type). Loops that compare in unsigned types without a negative side
 * (k) still pass.
 * Expect: refused 25:20: error: the signed counter 'i' is compared with an unsigned bound
 * Expect: refused 30:30: error: loop bound 'j - 1u' ranges over [-1, 3]
 * Expect: refused 34:38: error: the loop bound 18446744073709551615 is too large
 * Expect: refused 38:28: error: the unsigned counter 'i' is compared with a signed bound
 */
#define N 20

void f(int y[N]) {
  for (int i = -5; i < 10u; i++) y[i + 5] = i;
}

void g(int y[N]) {
  for (unsigned j = 0; j < 5; j++)
    for (unsigned i = 0; i < j - 1u; i++) y[i] = 1;
}

void h(int y[N]) {
  for (unsigned long long i = 0; i < 18446744073709551615ULL; i++) y[0] = 1;
}

void h2(int y[N]) {
  for (unsigned i = 0; i < N - 21; i++) y[0] = 1;
}

void k(int y[N]) {
  for (int i = 0; i < 10u; i++) y[i] = i;
  for (unsigned i = 9; i >= 3; i--) y[i] += 1;
  for (unsigned j = 1; j < 5; j++)
    for (unsigned i = j - 1u; i < N; i += 2) y[i] += 2;
}
