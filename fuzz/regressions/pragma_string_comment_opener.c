/* sched_random finding (minor, frontend): a schedule pragma whose string
 * argument holds a comment opener (slash-star) is rejected as
 * "syntax error at '#pragma'", although the file is valid C (gcc builds it:
 * inside a string literal the two characters open no comment). tree-sitter-c
 * seems to lex the opener inside the pragma's argument as a comment.
 *   ./build/npugen check fuzz/regressions/pragma_string_comment_opener.c
 *     -> error: syntax error at '#pragma' (exit 1)
 * Expected: the pragma parses (then the annotate refusal of test
 * fuzz_regressions/annotate_comment_opener applies), or
 * a message that names the real problem.
 *
 * Status: open. The Expect line below records the current (wrong)
 * refusal; once the pragma parses, it should be refused by annotate
 * ("the value cannot contain ..."): update it then.
 * Expect: refused syntax error at '#pragma'
 */
#define N 16
void f(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    s: y[i] = x[i] + 1;
}
#pragma npu schedule(f, v)
#pragma npu annotate(s, note, "a/*b")
