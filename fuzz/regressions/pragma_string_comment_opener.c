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
 * Status: fixed (frontend/cst.c, fe_parse): tree-sitter-c's preproc_arg
 * token ends at every opener; the directive's line is lexed again as C
 * tokens and openers inside literals are left out of the file's parse, so
 * the pragma parses and annotate refuses the value. Variant w shows a
 * pragma that is not ours, with an opener in its string, and a following
 * schedule line that the false comment used to hide.
 * Expect: refused annotate: the value cannot contain
 */
#define N 16
void f(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    s: y[i] = x[i] + 1;
}
#pragma npu schedule(f, v)
#pragma npu annotate(s, note, "a/*b")
#pragma message("x/*y")
#pragma npu schedule(f, w)
#pragma npu annotate(s, note, "a/b")
