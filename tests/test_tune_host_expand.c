/* A matmul with a local accumulator gets the host sketch too (issue 41):
 * host:cc takes the contraction nest `C[i][j] = ..; for k C[i][j] += ..`,
 * which the kernel's array form (expand(acc), schedule/expand.c) makes of
 * `float acc = 0; for k acc += ..; C[i][j] = acc;`. Before, `tune --host`
 * refused host:cc ("loop j holds loop k where the init `C[..] = ..;` must
 * come first", never naming expand) and host:cc was no candidate. Budgets
 * in trials, never seconds; no timing is asserted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_cli_util.h"
#include "tune/tune.h"

static const char *matmul_acc =
    "#define N 32\n"
    "void mm(const float A[N][N], const float B[N][N], float C[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++) {\n"
    "      float acc = 0;\n"
    "      for (int k = 0; k < N; k++)\n"
    "        acc += A[i][k] * B[k][j];\n"
    "      C[i][j] = acc;\n"
    "    }\n"
    "}\n";

/* The search space of `tune --host`: host:cc, its candidates starting with
 * expand(acc), and the note says so. */
Test(tune_host_expand, host_cc_takes_the_array_form_of_a_local_accumulator) {
  NpgSession *s = npg_open_string("mmacc.c", matmul_acc, strlen(matmul_acc));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "mm", true, why, sizeof why), "%s", why);
  cr_expect(sp.host && sp.nsketch == 1 && !strcmp(sp.sketch[0].name, "host:cc"), "%s", sp.notes);
  cr_expect_str_eq(sp.prefix, "#pragma npu expand(acc)\n");
  cr_expect(strstr(sp.notes, "host:cc: applies after expand(acc) (the kernel's array form)"), "%s", sp.notes);
  tune_space_free(&sp);
  npg_close(s);
}

/* The schedule `tune --host` proposes first (its seed, as --plan writes
 * it: a timed run may pick the kernel as written instead): expand(acc),
 * then host:cc's steps, and it passes npugen check. */
Test(tune_host_expand, tune_host_writes_expand_and_host_cc_steps_that_pass_the_check) {
  static char out[1 << 16];
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && cat > $d/mmacc.c <<'EOF'\n%sEOF\n"
           "%s tune $d/mmacc.c --host --seed 1 --plan $d/p --trials 1 >/dev/null 2>&1 && cat $d/p/trials/*.sched && "
           "%s check $d/mmacc.c --schedule $d/p/trials/*.sched 2>&1 | tail -1; rc=$?; rm -rf $d; exit $rc",
           matmul_acc, npugen(), npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "#pragma npu expand(acc)\n#pragma npu decompose_reduction(s1, i)\n#pragma npu tile(i, j, "),
            "%s", out);
  cr_expect(strstr(out, "#pragma npu split(k, ") && strstr(out, "#pragma npu reorder("), "%s", out);
  cr_expect(strstr(out, " passed, 0 failed"), "%s", out);
}

/* Where the array form is no contraction either (a 1-D sum into a local),
 * the note says so in one line, host:loops tunes the kernel as written,
 * and no step of the array form is left in front of its candidates. */
Test(tune_host_expand, an_array_form_refused_alike_says_so_and_leaves_the_kernel_as_written) {
  const char *sum = "void s(const float A[64], float B[1]) {\n"
                    "  float acc = 0;\n"
                    "  for (int i = 0; i < 64; i++)\n"
                    "    acc += A[i];\n"
                    "  B[0] = acc;\n"
                    "}\n";
  NpgSession *s = npg_open_string("sum.c", sum, strlen(sum));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "s", true, why, sizeof why), "%s", why);
  cr_expect(sp.host && sp.nsketch == 1 && !strcmp(sp.sketch[0].name, "host:loops") && !sp.prefix[0], "%s", sp.notes);
  cr_expect(strstr(sp.notes, "host:cc: the kernel's array form (after expand(acc)) is refused for the same reason\n") &&
                !strstr(sp.notes, "again:"),
            "%s", sp.notes);
  tune_space_free(&sp);
  npg_close(s);
}

/* A text is proven once (issue 41, tune's own CPU): each probe of a
 * space is a text of its own, and a probe of a text met before adds no
 * variant to the session and gives the same IR (before: every probe was
 * applied and proven again: the array form's steps in the NPU round and
 * again in host:cc's, a knob's step once per order it was asked in). */
Test(tune_host_expand, a_probe_of_a_text_met_before_is_not_proven_again) {
  NpgSession *s = npg_open_string("mmacc.c", matmul_acc, strlen(matmul_acc));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneSpace sp;
  char why[4096];
  cr_assert(tune_space_build(&sp, s, "mm", true, why, sizeof why), "%s", why);
  int variants = npg_variant_count(s);
  cr_expect_eq(sp.probes, sp.nmemo, "each probe a text of its own: %d probes, %d texts", sp.probes, sp.nmemo);
  cr_expect_str_eq(sp.prefix, "#pragma npu expand(acc)\n");
  const Kernel *a = tune_probe_steps(&sp, "#pragma npu split(i, 8, io, ii)\n", NULL);
  const Kernel *b = tune_probe_steps(&sp, "#pragma npu split(i, 8, io, ii)\n", NULL);
  cr_expect(a && a == b);
  cr_expect_eq(npg_variant_count(s), variants + 1, "the second probe of the text added no variant");
  tune_space_free(&sp);
  npg_close(s);
}
