/* frontend finding (review while fuzzing with fuzz/fuzz_frontend.c): a
 * #define body with a top-level comma was accepted as its first operand:
 * `#define N 4, M` gave N = 4, since the body, parsed in the snippet
 * "int __npg_macro = BODY;", declared M as a second variable there. In C
 * the uses read `4, M`: `int y[N]` does not compile, and `y[i] = N` stores
 * M. The emitted C copied the #define, so it did not compile either.
 * Status: fixed (frontend/preproc.c: a second declarator in the snippet is
 * refused as a body that is not a single constant).
 * Expect: refused 13:12: error: the comma operator is not supported in kernels
 * Expect: refused 14:11: error: macro 'N' must be a single constant or be parenthesized
 */
#define M 3
#define K (4, M)
#define N 4, M
void f(int y[M]) {
  for (int i = 0; i < M; i++)
    y[i] = N;
}
