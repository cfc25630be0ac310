/* The C API with caller-provided arrays, and the reference/variant split. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"

static const char *saxpy =
    "#define N 5\n"
    "void saxpy(const float x[N], float y[N], float a) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    y[i] += a * x[i];\n"
    "}\n";

Test(api, run_with_own_arrays) {
  NpgSession *s = npg_open_string("saxpy.c", saxpy, strlen(saxpy));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  cr_assert_eq(npg_variant_count(s), 1);
  cr_assert_str_eq(npg_variant_name(s, 0), "saxpy");
  cr_assert_eq(npg_variant_index(s, "saxpy"), 0);
  cr_assert_eq(npg_variant_index(s, "nope"), -1);
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50}, a = 2.0f;
  void *args[] = {x, y, &a};
  NpgJit *j = npg_jit_variant(s, 0);
  cr_assert_null(npg_jit_error(j), "%s", npg_jit_error(j));
  cr_assert(npg_jit_run(j, args));
  float want[5] = {12, 24, 36, 48, 60};
  for (int i = 0; i < 5; i++) cr_expect_float_eq(y[i], want[i], 0);
  npg_jit_free(j);

  j = npg_jit_reference(s, 0);
  cr_assert_null(npg_jit_error(j));
  cr_assert(npg_jit_run(j, args));
  for (int i = 0; i < 5; i++) cr_expect_float_eq(y[i], want[i] + 2 * x[i], 0);
  npg_jit_free(j);
  npg_close(s);
}

Test(api, check_reports_figures) {
  NpgSession *s = npg_open_string("saxpy.c", saxpy, strlen(saxpy));
  NpgCheckResult r;
  cr_assert(npg_check(s, 0, 7, &r), "%s", r.message);
  cr_expect_eq(r.compared, 5);
  cr_expect(r.exact);
  cr_expect_float_eq(r.max_error, 0.0, 0);
  cr_expect(!npg_check(s, 3, 7, &r));
  npg_close(s);
}

Test(api, a_crash_in_jit_code_is_an_error_not_a_signal) {
  /* Integer division by an input that the generator can make zero. */
  const char *src = "void q(const int a[64], int b[64]) {\n"
                    "  for (int i = 0; i < 64; i++) b[i] = 100 / a[i];\n"
                    "}\n";
  NpgSession *s = npg_open_string("q.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int a[64] = {0}, b[64];
  void *args[] = {a, b};
  NpgJit *j = npg_jit_variant(s, 0);
  cr_expect(!npg_jit_run(j, args));
  cr_expect(strstr(npg_jit_error(j), "SIGFPE") != NULL, "%s", npg_jit_error(j));
  npg_jit_free(j);
  npg_close(s);
}

Test(api, dump_ir_shows_names_and_roles) {
  const char *src = "#include <stdint.h>\n"
                    "void mm(const int8_t A[4][8], const int8_t B[8][2], int32_t C[4][2]) {\n"
                    "  for (int i = 0; i < 4; i++)\n"
                    "    for (int j = 0; j < 2; j++) {\n"
                    "      init: C[i][j] = 0;\n"
                    "      for (int k = 0; k < 8; k++)\n"
                    "        update: C[i][j] += A[i][k] * B[k][j];\n"
                    "    }\n"
                    "}\n";
  NpgSession *s = npg_open_string("mm.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  cr_assert_str_eq(npg_dump_ir(s, 0),
                   "kernel mm(A: int8_t[4][8] input, B: int8_t[8][2] input, C: int32_t[4][2] inout)\n"
                   "  for i in 0 .. < 4 step 1:  # line 3\n"
                   "    for j in 0 .. < 2 step 1:  # line 4\n"
                   "      init: C[i][j] = 0  # line 5\n"
                   "      for k in 0 .. < 8 step 1:  # line 6\n"
                   "        update: C[i][j] += A[i][k] * B[k][j]  # line 7\n");
  npg_close(s);
}

/* The IR after each step: a schedule program's variant prints it when
 * asked (its steps are replayed then), a variant of the C API as built. */
Test(api, dump_ir_steps_of_a_program_and_of_the_api) {
  char src[1024];
  snprintf(src, sizeof src, "%s#pragma npu schedule(saxpy, s)\n#pragma npu split(i, 2, io, ii)\n", saxpy);
  NpgSession *s = npg_open_string("saxpy.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  cr_assert_eq(npg_variant_count(s), 2);
  const char *steps = npg_dump_ir_steps(s, 1);
  cr_assert(steps && strstr(steps, "# after split(i, 2, io, ii)\n") && strstr(steps, "for ii in 0 .. < 2"), "%s",
            steps ? steps : "(null)");
  cr_assert_eq(npg_dump_ir_steps(s, 1), steps, "printed once");
  NpgSched *h = npg_sched_begin(s, "saxpy", "api");
  cr_assert(npg_sched_split(h, "i", 4, "io", "ii"));
  cr_assert_eq(npg_sched_end(h), 2);
  steps = npg_dump_ir_steps(s, 2);
  cr_assert(steps && strstr(steps, "# after split(i, 4, io, ii)\n"), "%s", steps ? steps : "(null)");
  npg_close(s);
}
