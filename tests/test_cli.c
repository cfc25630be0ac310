/* The npugen command as a user runs it: exit codes, messages, emit --check. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "tests/test_cli_util.h"

Test(cli, check_passes_on_the_example) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --seed 3 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "matmul") && strstr(out, "PASS"), "%s", out);
  cr_expect(strstr(out, "matmul_tiled") && strstr(out, "matmul_nu") && strstr(out, "4 passed, 0 failed"), "%s", out);
}

/* A size set over the step budget shows on the verdict and closing lines. */
Test(cli, a_size_set_not_run_shows_in_the_summary) {
  const char *path = "/tmp/npugen_cli_not_run.c";
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs("void k(int n, float a[n][n][n]) {\n"
        "  for (int t = 0; t < 400; t++)\n"
        "    for (int i = 0; i < n; i++)\n"
        "      for (int j = 0; j < n; j++)\n"
        "        for (int l = 0; l < n; l++)\n"
        "          a[i][j][l] = a[i][j][l] * 0.5f + 1;\n"
        "}\n"
        "#pragma npu assume(k, n <= 2000)\n",
        f);
  fclose(f);
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s check --max-steps 100000 %s 2>&1", npugen(), path);
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "compared (seed 1); 2 size sets over the step budget, not run\n"), "%s", out);
  cr_expect(strstr(out, "\n1 passed, 0 failed (2 size sets over the step budget, not run)\n"), "%s", out);
  remove(path);
}

Test(cli, usage_errors_exit_2) {
  char cmd[512], out[8192];
  const char *bad[] = {"", "frobnicate x.c", "check", "check examples/matmul.c --seed -1",
                       "check examples/matmul.c --bogus", "emit examples/matmul.c --check",
                       "check examples/matmul.c --max-steps 0", "check examples/matmul.c --max-steps x",
                       "check examples/matmul.c --max-memory", "emit examples/matmul.c --max-memory 5",
                       "emit examples/matmul.c --prune", "check examples/matmul.c --list-outputs"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", npugen(), bad[i]);
    cr_expect_eq(run(cmd, out, sizeof out), 2, "'%s' -> %s", bad[i], out);
  }
}

Test(cli, check_limits_stop_a_run_before_it_starts) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --max-steps 1000 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "FAIL  not run: a run takes up to") && strstr(out, "past the step budget of 1000"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --max-memory 1 --max-steps 100000000 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
}

Test(cli, bad_input_exits_1_with_gcc_style_message) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf 'void f(float *p) {}\\n' > $d/bad.c && cd $d && %s%s check bad.c 2>&1; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen()[0] == '/' ? "" : "$OLDPWD/", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(!strncmp(out, "bad.c:1:14: error: pointer parameters are not supported", 55), "%s", out);
  snprintf(cmd, sizeof cmd, "%s check /nonexistent/k.c 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "/nonexistent/k.c: error: cannot read file"), "%s", out);
}

Test(cli, emit_check_detects_stale_files) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s emit examples/matmul.c -o $d && %s emit examples/matmul.c -o $d --check "
           "&& test -f $d/matmul.c && test -f $d/matmul.h && echo ok; rm -rf $d",
           npugen(), npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "ok"), "%s", out);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s emit examples/matmul.c -o $d && echo '/* edited */' >> $d/matmul.c && "
           "%s emit examples/matmul.c -o $d --check 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "matmul.c is stale"), "%s", out);
}

Test(cli, target_and_trace_options) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s check examples/matmul.c --target targets/default.ini --trace $d/t.json "
           "&& head -c 40 $d/t.json; rc=$?; rm -rf $d; exit $rc",
           npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "matmul                   PASS  the kernel as written: compiled, not compared; the reference's "
                        "run is its run (seed 1)\n"),
            "%s", out);
  cr_expect(strstr(out, "sim: 32324 cycles, bound by nu (busy 52.3%), roofline 50.7%"), "%s", out);
  cr_expect(strstr(out, "{\"displayTimeUnit\""), "%s", out);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '[npu]\\nbogus = 1\\n' > $d/bad.ini && "
           "%s check examples/matmul.c --target $d/bad.ini 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "bad.ini:2: unknown key 'bogus'"), "%s", out);
  /* emit plans for the target too: softmax_npu.c's schedule for it */
  snprintf(cmd, sizeof cmd, "%s emit examples/softmax_npu.c --target targets/small.ini 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, " * Target: small\n * Schedule softmax_vu_small:"), "%s", out);
  cr_expect(!strstr(out, "Schedule softmax_vu:"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s emit examples/softmax_npu.c --trace t.json 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  cr_expect(strstr(out, "npugen: --trace, --max-steps, --max-memory, --max-cpu and --rerun-as-written belong to 'check'"), "%s", out);
}

Test(cli, schedule_file_adds_variants_and_refusals_exit_1) {
  char cmd[1024], out[16384];
  const char *dir = "build/test-cli-sched";
  snprintf(cmd, sizeof cmd, "mkdir -p %s && printf '%%s\\n' '#pragma npu schedule(matmul, mm_split)' "
           "'#pragma npu split(i, 32, io, ii)' '#pragma npu schedule(matmul, mm_bad)' '#pragma npu parallel(k)' > %s/s.sched",
           dir, dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --schedule %s/s.sched 2>&1", npugen(), dir);
  cr_assert_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "s.sched:4:13: error: parallel: illegal: loop k would run its iterations in any order"), "%s", out);
  cr_expect(strstr(out, "mm_split") && strstr(out, "5 passed, 0 failed"), "%s", out);
  snprintf(cmd, sizeof cmd, "rm -rf %s/out && %s emit examples/matmul.c --schedule %s/s.sched -o %s/out 2>&1; ls %s/out", dir, npugen(), dir, dir, dir);
  run(cmd, out, sizeof out); /* into DIR, a refusal writes nothing (the variant's old files would go) */
  cr_expect(strstr(out, "/out left as it was: no file written or removed") && !strstr(out, "mm_split.c"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s emit examples/matmul.c --schedule %s/s.sched 2>/dev/null", npugen(), dir);
  run(cmd, out, sizeof out); /* to stdout, the variants that passed */
  cr_expect(strstr(out, "void mm_split(") && !strstr(out, "mm_bad"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s emit examples/matmul.c --schedule %s/s.sched --dump-ir=steps 2>/dev/null", npugen(), dir);
  run(cmd, out, sizeof out);
  cr_expect(strstr(out, "# variant mm_split\n# after split(i, 32, io, ii)\nkernel mm_split("), "%s", out);
}

/* Every command has a help, as `npugen help COMMAND` and `COMMAND --help`
 * (exit 0, on standard output), and the two are the same text. */
Test(cli, every_command_has_a_help) {
  const char *cmds[] = {"emit", "check", "tune", "intrinsics", "help"};
  char cmd[512], out[8192], again[8192];
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s %s --help 2>/dev/null", npugen(), cmds[i]);
    cr_expect_eq(run(cmd, out, sizeof out), 0, "%s --help: %s", cmds[i], out);
    char want[64];
    snprintf(want, sizeof want, "usage: npugen %s", cmds[i]);
    cr_expect(!strncmp(out, want, strlen(want)), "%s --help: %s", cmds[i], out);
    snprintf(cmd, sizeof cmd, "%s help %s 2>/dev/null", npugen(), cmds[i]);
    cr_expect_eq(run(cmd, again, sizeof again), 0);
    cr_expect_str_eq(out, again, "help %s", cmds[i]);
  }
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c -h 2>/dev/null", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0);
  cr_expect(strstr(out, "--max-memory MIB"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s help 2>/dev/null", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0);
  cr_expect(strstr(out, "  intrinsics   ") && strstr(out, "  tune         "), "%s", out);
}

Test(cli, unknown_commands_and_variants_get_a_did_you_mean) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s chek examples/matmul.c 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2);
  cr_expect(!strncmp(out, "npugen: unknown command 'chek'; did you mean 'check'?\n", 54), "%s", out);
  snprintf(cmd, sizeof cmd, "%s help intrinsic 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2);
  cr_expect(strstr(out, "unknown command 'intrinsic'; did you mean 'intrinsics'?"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --variant matmul_n 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1);
  cr_expect(strstr(out, "examples/matmul.c: error: no variant named 'matmul_n' in examples/matmul.c (variants: matmul, "
                        "matmul_tiled, matmul_flat_init, matmul_nu); did you mean 'matmul_nu'?"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --variant matmul_tiled 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "matmul_tiled ") && strstr(out, "1 passed, 0 failed"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s emit examples/matmul.c --variant matmul_tiled -o /tmp/x 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  snprintf(cmd, sizeof cmd, "%s intrinsics npu_nu_matmul_int8 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 1);
  cr_expect(strstr(out, "did you mean 'npu_nu_matmul_i8'?"), "%s", out);
}

Test(cli, intrinsics_lists_them) {
  static char out[1 << 20]; /* the whole listing: more than 64 KiB with the VU families */
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s intrinsics 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "npu_nu_matmul_i8  (NU)\n") && strstr(out, "npu_vu_requant_i8  (VU)\n"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s intrinsics npu_nu_matmul_i8 --target targets/small.ini 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "target small)") && strstr(out, "its semantics, the kernel tensorize matches"), "%s", out);
}

/* A reorder that changes nothing: a warning on stderr, exit 0. */
Test(cli, a_no_op_reorder_warns) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && printf '#pragma npu schedule(matmul, v)\\n#pragma npu reorder(i, j)\\n' > $d/s.sched && "
           "%s emit examples/matmul.c --schedule $d/s.sched --variant v 2>&1 >/dev/null; rc=$?; rm -rf $d; exit $rc",
           npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "s.sched:2:13: warning: reorder: loops i and j are already in this order; the step changes "
                        "nothing"), "%s", out);
}

/* The manual page describes every command the overview lists. */
Test(cli, the_manual_page_has_every_command) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s help 2>/dev/null", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0);
  FILE *f = fopen("docs/npugen.1", "r");
  cr_assert_not_null(f);
  static char man[65536];
  man[fread(man, 1, sizeof man - 1, f)] = 0;
  fclose(f);
  int n = 0;
  for (const char *p = strstr(out, "commands:\n"); p && (p = strstr(p, "\n  ")); n++) {
    char name[32], want[64];
    if (sscanf(p + 3, "%31s", name) != 1) break;
    snprintf(want, sizeof want, "\n.TP\n.B %s\n", name);
    cr_expect(strstr(man, want), "docs/npugen.1 has no entry for '%s'", name);
    p += 3;
  }
  cr_expect_eq(n, 5, "%s", out);
}

/* The kernel as written is not run a second time by default: its emitted
 * C compiles and the reference's run is its run, which the line says;
 * --rerun-as-written runs and compares it as any variant. A reference that
 * stops on undefined behaviour fails it either way. */
Test(cli, the_kernel_as_written_is_checked_by_the_reference) {
  char cmd[512], out[8192];
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --variant matmul 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "matmul                   PASS  the kernel as written: compiled, not compared; the reference's "
                        "run is its run (seed 1)\n"
                        "                               its code is the reference's without the checks (the same IR), so "
                        "it is not run a second time; --rerun-as-written runs and compares it\n1 passed, 0 failed\n"),
            "%s", out);
  snprintf(cmd, sizeof cmd, "%s check examples/matmul.c --variant matmul --rerun-as-written 2>&1", npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "matmul                   PASS  max error 0 (bit-exact), 32768 output elements compared (seed 1)"),
            "%s", out);
  const char *path = "/tmp/npugen_cli_by_reference.c";
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs("void sq(const int a[4], int b[4]) {\n"
        "  for (int i = 0; i < 4; i++)\n"
        "    b[i] = a[i] * 2147483647;\n"
        "}\n"
        "#pragma npu inputs(sq, a, 1, 9)\n",
        f);
  fclose(f);
  for (int rerun = 0; rerun < 2; rerun++) {
    snprintf(cmd, sizeof cmd, "%s check %s%s 2>&1", npugen(), path, rerun ? " --rerun-as-written" : "");
    cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "sq                       FAIL  ") && strstr(out, "signed overflow in 'a[i] * 2147483647'"),
              "%s", out);
  }
  remove(path);
}

/* Every stale file's message in `emit --check` gives the one command that
 * regenerates them all: with --force when any file of the run was edited
 * by hand. Before, an unedited file's message (the other variant's, or
 * a .h beside an edited .c) left --force out, and following it was
 * refused by the edited file. */
Test(cli, emit_check_gives_every_stale_file_the_same_command) {
  char cmd[4096], out[8192];
  snprintf(cmd, sizeof cmd,
           "n=%s; case $n in /*) ;; *) n=$PWD/$n;; esac; d=$(mktemp -d) && cd $d && "
           "printf '%%s\\n' 'void k(const float x[8], float y[8]) {' '  for (int i = 0; i < 8; i++) y[i] = x[i] + 1.0f;' "
           "'}' '#pragma npu schedule(k, k_a)' '#pragma npu split(i, 2, io, ii)' '#pragma npu schedule(k, k_b)' "
           "'#pragma npu split(i, 4, io, ii)' > k.c && $n emit k.c -o out 2>&1 && echo '/* mine */' >> out/k_a.c && "
           "sed -i 's/1.0f/2.0f/' k.c && $n emit k.c -o out --check 2>&1; echo \"rc=$?\"; "
           "c=$($n emit k.c -o out --check 2>&1 | sed -n 's|^npugen: out/k_b.c is stale: run: npugen ||p'); "
           "echo \"b: $c\"; $n $c 2>&1 && $n emit k.c -o out --check 2>&1 && echo fresh; cd /; rm -rf $d",
           npugen());
  run(cmd, out, sizeof out);
  cr_expect(strstr(out, "rc=1\n"), "%s", out);
  cr_expect(strstr(out, "npugen: out/k_a.c is stale, and was edited by hand since npugen wrote it (its text is not the "
                        "one .npugen-manifest records); regenerating it loses the edit: run: npugen emit k.c -o out --force\n"),
            "%s", out);
  cr_expect(strstr(out, "b: emit k.c -o out --force\n") && strstr(out, "\nfresh\n"), "%s", out);
}

/* emit -o writes each kernel as written and each scheduled variant, as
 * the manual says; --scheduled-only writes the variants alone (and
 * --list-outputs, --check and the stale message's command agree). Before,
 * there was no way to leave the kernel as written out. */
Test(cli, emit_scheduled_only_leaves_out_the_kernel_as_written) {
  char cmd[4096], out[8192];
  snprintf(cmd, sizeof cmd,
           "n=%s; case $n in /*) ;; *) n=$PWD/$n;; esac; d=$(mktemp -d) && cd $d && "
           "printf '%%s\\n' 'void k(const float x[8], float y[8]) {' '  for (int i = 0; i < 8; i++) y[i] = x[i] + 1.0f;' "
           "'}' '#pragma npu schedule(k, k_a)' '#pragma npu split(i, 2, io, ii)' > k.c && "
           "$n emit k.c -o all 2>&1 && echo all: $(ls all) && $n emit k.c -o v --scheduled-only 2>&1 && "
           "echo v: $(ls v) && echo list: $($n emit k.c --list-outputs --scheduled-only) && "
           "$n emit k.c -o v --scheduled-only --check 2>&1 && echo fresh && sed -i 's/1.0f/2.0f/' k.c && "
           "$n emit k.c -o v --scheduled-only --check 2>&1 | head -1; cd /; rm -rf $d",
           npugen());
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect_str_eq(out, "all: k.c k.h k_a.c k_a.h\nv: k_a.c k_a.h\nlist: k_a.c k_a.h\nfresh\n"
                        "npugen: v/k_a.c is stale: run: npugen emit k.c -o v --scheduled-only\n");
}
