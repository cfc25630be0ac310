/* tune counts a loop's iterations as the IR does (tune_trip is
 * ir_trip_count): a step-2 loop runs half its span, an empty loop none.
 * Before, tune_trip said "unknown" (-1) for both, so a program's call in
 * an empty loop was counted as run once. */
#include <criterion/criterion.h>
#include <string.h>

#include "frontend/frontend.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

static Module *parse(const char *src, DiagList *dl) {
  diag_init(dl);
  Module *m = frontend_parse("k.c", src, strlen(src), dl);
  cr_assert(m && !dl->errors, "the kernel parses");
  return m;
}

Test(tune_trips, a_step_two_loop_runs_half_its_span) {
  const char *src = "void k(const float A[16][8], float B[16][8]) {\n"
                    "  for (int i = 0; i < 16; i += 2)\n"
                    "    for (int j = 0; j < 8; j++)\n"
                    "      B[i][j] = A[i][j] * 2.0f;\n"
                    "}\n";
  DiagList dl;
  Module *m = parse(src, &dl);
  TuneShape sh;
  cr_assert(tune_shape(m->kernels, &sh));
  cr_expect_eq(sh.nchain, 2);
  cr_expect_eq(sh.trip[0], 8, "i += 2 over [0, 16): %lld", (long long)sh.trip[0]);
  cr_expect_eq(sh.trip[1], 8);
  module_free(m);
  diag_free(&dl);
}

Test(tune_trips, an_empty_loop_runs_no_iteration) {
  const char *src = "void k(const float A[8], float B[8]) {\n"
                    "  for (int i = 4; i < 4; i++)\n"
                    "    B[i] = A[i];\n"
                    "}\n";
  DiagList dl;
  Module *m = parse(src, &dl);
  TuneShape sh;
  cr_assert(tune_shape(m->kernels, &sh));
  cr_expect_eq(sh.trip[0], 0, "[4, 4): %lld", (long long)sh.trip[0]);
  module_free(m);
  diag_free(&dl);
}

/* A call in an empty loop never runs: counted 0 times, its trip known. */
Test(tune_trips, a_call_in_an_empty_loop_is_counted_zero_times) {
  const char *src = "#define N 8\n"
                    "void scale(const float X[N], float Y[N]) {\n"
                    "  for (int i = 0; i < N; i++)\n"
                    "    Y[i] = X[i] * 3.0f;\n"
                    "}\n"
                    "void net(const float A[N], float B[N]) {\n"
                    "  for (int r = 0; r < 0; r++)\n"
                    "    never: scale(A, B);\n"
                    "  for (int r = 0; r < 6; r += 2)\n"
                    "    thrice: scale(A, B);\n"
                    "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneProgram p;
  cr_assert(tune_program_find(s, "net", &p));
  cr_assert_eq(p.ncalls, 2);
  cr_expect_eq(p.call[0].times, 0, "the call in the empty loop: %llu", (unsigned long long)p.call[0].times);
  cr_expect_eq(p.call[1].times, 3, "the call in the step-2 loop: %llu", (unsigned long long)p.call[1].times);
  cr_expect(!p.trips_unknown);
  tune_program_free(&p);
  npg_close(s);
}
