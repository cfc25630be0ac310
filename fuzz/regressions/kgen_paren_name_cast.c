/* kernel_random finding (fuzz/kernel_gen.c, seeds 5256, 10002, 10529,
 * 11069, 11208, 12172, 12320 of early batches): valid expressions that
 * start with a parenthesized name are refused:
 *   ./build/npugen check fuzz/regressions/kgen_paren_name_cast.c
 *     f1 `(t) + u * 2`       -> error: unknown type 't'
 *     f2 `(x[i]) + u * 2`    -> error: cast to a pointer or array type is not supported
 *     f3 `(i) && u != 15`    -> error: unknown type 'i'
 *     f4 `(t * (u)) + u * 2` -> error: cast to a pointer or array type is not supported
 * In C each is a binary expression (t, x, i are variables, so no cast),
 * but tree-sitter-c does not know which names are types: it parses a
 * parenthesized name, name[...], name(...) or name * (...) followed by an
 * operator that is also a prefix one (+ - * & &&) as a cast of the rest
 * when that parse binds more tightly ((t)(+u) * 2; (i)(&&u), GNU's label
 * address). `(t) + u`, `(i) && u`, `(t) * u * 2`, `(t * u) + u * 2` parse as
 * expected.
 * Expected: each kernel passes (a cast_expression whose type descriptor
 * names no type, a variable or a #define, re-read as the binary
 * expression, re-associated by precedence).
 * Status: OPEN (frontend/; not fixed here). The Expect lines record
 * today's refusals so that `make test` stays green; when fixed, replace
 * them with `Expect: passes` and add a schedule line (any primitive), as
 * the harness wants an applied variant. fuzz/kernel_gen.c avoids the form
 * (no redundant parentheses around text that starts with a name).
 * Expect: refused 32:13: error: unknown type 't'
 * Expect: refused 39:13: error: cast to a pointer or array type is not supported in kernels
 * Expect: refused 46:13: error: unknown type 'i'
 * Expect: refused 53:13: error: cast to a pointer or array type is not supported in kernels
 */
void f1(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++) {
    int t = x[i], u = x[3 - i];
    y[i] = (t) + u * 2;
  }
}

void f2(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++) {
    int u = x[3 - i];
    y[i] = (x[i]) + u * 2;
  }
}

void f3(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++) {
    int u = x[3 - i];
    y[i] = (i) && u != 15;
  }
}

void f4(const int x[4], int y[4]) {
  for (int i = 0; i < 4; i++) {
    int t = x[i], u = x[3 - i];
    y[i] = (t * (u)) + u * 2;
  }
}
