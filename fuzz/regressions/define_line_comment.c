/* frontend finding (review while fuzzing with fuzz/fuzz_frontend.c): a
 * #define with a trailing // comment, valid and common C, was refused:
 *   ./build/npugen check fuzz/regressions/define_line_comment.c
 *     -> error: expected ';' (at the end of the #define line)
 * The body is parsed by tree-sitter in the snippet "int __npg_macro = BODY;",
 * where the comment swallowed the ';'.
 * Status: fixed (frontend/preproc.c: a newline ends the body in the
 * snippet, as the pragma snippets already did).
 * Expect: passes
 */
#define N 16 // elements
#define F (N / 4) // vector width
void f(const int x[N], int y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] + F;
}
#pragma npu schedule(f, v)
#pragma npu split(i, F, io, ii)
