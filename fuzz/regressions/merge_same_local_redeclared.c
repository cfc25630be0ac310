/* sched_random finding: merge(first, second) appends the second loop's body
 * to the first's in one scope, so locals both bodies declare under the same
 * name are declared twice:
 *   ./build/npugen check fuzz/regressions/merge_same_local_redeclared.c
 *     -> v FAIL internal error: emitted C does not compile:
 *        v.c: error: redeclaration of 't'
 * Found on realworld/sobel.c (seed 21474836603): unroll(y_2, 6) makes
 * sibling copies of the x loop, each declaring gx, gy and mag; merging two
 * of them fails the same way. Expected: the merged bodies keep their own
 * scopes (a block each, as unroll does for copies with locals) or the
 * second body's locals are renamed.
 *
 * Status: fixed in 7b5496a (the name-hygiene check after every step
 * refuses the merge: "'t' would be declared twice in one scope").
 * Expect: refused merge: refused: the emitted C would capture a name: 't' would be declared twice in one scope
 */
#define N 16
void f(const int x[N], int y[N], int z[N]) {
  for (int i = 0; i < N; i++) {
    int t = x[i] * 2;
    y[i] = t;
  }
  for (int i = 0; i < N; i++) {
    int t = x[i] + 1;
    z[i] = t;
  }
}
#pragma npu schedule(f, v)
#pragma npu merge(i_1, i_2)
