/* What tune reads of a kernel and its own notes without searching
 * text: tune/contraction.c's arrays an update reads (every load of its
 * right-hand side, ir_walk_expr, those in a call's arguments too), and
 * tune/space.c's notes, one line for each reason. */
#include <criterion/criterion.h>
#include <string.h>

#include "frontend/frontend.h"
#include "tune/tune.h"

/* An input read inside a call's arguments is still read: the update
 * `C[i][j] += A[i][k] * fabsf(B[k][j])` reads A and B, not A alone. */
Test(tune_reads, a_load_in_a_calls_arguments_is_a_read) {
  const char *src = "#include <math.h>\n#define M 8\n#define N 8\n#define K 8\n"
                    "void k(const float A[M][K], const float B[K][N], float C[M][N]) {\n"
                    "  for (int i = 0; i < M; i++)\n    for (int j = 0; j < N; j++) {\n      C[i][j] = 0;\n"
                    "      for (int k = 0; k < K; k++)\n        C[i][j] += A[i][k] * fabsf(B[k][j]);\n    }\n}\n";
  DiagList dl;
  diag_init(&dl);
  Module *m = frontend_parse("k.c", src, strlen(src), &dl);
  cr_assert(m && !dl.errors, "the kernel parses");
  TuneShape sh;
  cr_assert(tune_shape(m->kernels, &sh));
  TuneContraction f;
  char why[256] = "";
  bool ok = tune_contraction(&sh, &f, why, sizeof why);
  cr_expect(ok && !strcmp(f.a, "A") && !strcmp(f.b, "B"), "%s", why);
  module_free(m);
  diag_free(&dl);
}

/* tune's notes keep one line for each reason: a line equal to an earlier
 * one is left out, but not a line that is part of an earlier one (before,
 * a search of the notes' text dropped it). */
Test(tune_reads, a_note_that_is_part_of_an_earlier_one_is_kept) {
  static TuneSpace sp; /* its notes are 4 KiB: not on the stack */
  memset(&sp, 0, sizeof sp);
  tune_note(&sp, "vu: the top loop i has fewer iterations than the 4 VU cores\n");
  tune_note(&sp, "vu: the top loop i has fewer iterations than the 4 VU cores\n");
  tune_note(&sp, "the top loop i has fewer iterations than the 4 VU cores\n");
  cr_expect_str_eq(sp.notes, "  vu: the top loop i has fewer iterations than the 4 VU cores\n"
                             "  the top loop i has fewer iterations than the 4 VU cores\n");
}
