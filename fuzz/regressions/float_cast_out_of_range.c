/* frontend finding (UBSan, fuzz/fuzz_frontend.c's build; found by reading
 * the constant folder while the harness ran, then reproduced with it): a
 * cast of a floating constant to an integer type was folded with a plain C
 * conversion, undefined when the value does not fit:
 *   build/fuzz/fuzz_frontend fuzz/regressions/float_cast_out_of_range.c
 *     -> frontend/expr.c: runtime error: 1e+30 is outside the range of
 *        representable values of type 'long' (fe_eval_int, EX_CAST)
 * In the normal build the value was whatever the host produced, and a
 * kernel converting such a constant at run time (`int t = 1e10;`) is
 * undefined itself (gcc: -Woverflow).
 * Status: fixed (frontend/expr.c: constants fold only when they fit, C11
 * 6.3.1.4; a conversion of a floating constant that does not fit is refused,
 * as a constant division by zero is).
 * Expect: refused 23:17: error: the constant 1e+30 does not fit in 'int'
 * Expect: refused 28:38: error: the constant -3e+09 does not fit in 'int32_t'
 * Expect: refused 33:12: error: the constant inf does not fit in 'unsigned char'
 * Expect: refused 38:41: error: the constant 1e+10 does not fit in 'int'
 */
#include <stdint.h>
#define N 4
#define BIG 1e30

void f(int y[N][(int)BIG]) {
  for (int i = 0; i < N; i++) y[i][0] = 0;
}

void g(int y[N]) {
  for (int i = 0; i < N; i++) y[i] = (int32_t)-3e9;
}

void h(unsigned char y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = (unsigned char)1e999;
}

/* the same by implicit conversion; (int)2147483647.9 fits */
void k(int y[N]) {
  for (int i = 0; i < N; i++) { int t = 1e10; y[i] = t + (int)2147483647.9 * 0; }
}
