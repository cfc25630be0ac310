/* npugen emit in a project's tree, as trial 44e used it: options given
 * twice, --check run from another directory, and the manifest's owner of
 * the kernel's own variants when two schedule files emit into one
 * directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_cli_util.h"

/* Runs a script in a fresh directory $d, the repository $r, the command $n. */
static int in_tmp(const char *script, char *out, size_t n) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "r=$PWD; n=%s; case $n in /*) ;; *) n=$r/$n;; esac; d=$(mktemp -d) && cd $d && { %s; } 2>&1; "
           "rc=$?; cd $r; rm -rf $d; exit $rc",
           npugen(), script);
  return run(cmd, out, n);
}

/* k.c with one scheduled variant, and two schedule files of one each. */
#define KERNEL_AND_TWO_SCHEDULES                                                                                   \
  "printf 'void k(const float x[64], float y[64]) {\\n  for (int i = 0; i < 64; i++) y[i] = 2 * x[i];\\n}\\n' > k.c " \
  "&& printf '#pragma npu schedule(k, k_a)\\n#pragma npu split(i, 16, io, ii)\\n' > a.sched "                      \
  "&& printf '#pragma npu schedule(k, k_b)\\n#pragma npu split(i, 32, io, ii)\\n' > b.sched"

/* A second --schedule (or -o, --target, --seed...) is a usage error:
 * before, the last one won silently, and emit -o then removed the first
 * schedule's variants as no longer emitted. */
Test(embed_cli, an_option_of_one_value_given_twice_is_a_usage_error) {
  char out[16384];
  int rc = in_tmp(KERNEL_AND_TWO_SCHEDULES " && $n emit k.c --schedule a.sched --schedule b.sched -o out > said 2>&1; "
                  "echo rc=$?; head -1 said; ls out 2>&1 | head -1; $n check k.c --seed 1 --seed 2 2>&1 | head -1",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "rc=2\n"
                        "npugen: option '--schedule' is given twice: it takes one value (one schedule file: put both "
                        "files' pragmas in one, or emit each into its own directory)\n"
                        "ls: cannot access 'out': No such file or directory\n"
                        "npugen: option '--seed' is given twice: it takes one value\n");
}

/* --check gives one verdict from any working directory: the opening
 * comment spells the kernel file as the writing run was given it
 * ("from k.c"), and a run from sub/ (or by an absolute path) spells it
 * otherwise; the manifest proves it is the same file, so the files are
 * fresh, and emit leaves them as they are. An edit is still stale. Before,
 * every file was stale from sub/. */
Test(embed_cli, check_gives_one_verdict_from_any_directory) {
  char out[16384];
  int rc = in_tmp(KERNEL_AND_TWO_SCHEDULES " && mkdir sub && $n emit k.c --schedule a.sched -o out && cp -r out before && "
                  "cd sub && $n emit ../k.c --schedule ../a.sched -o ../out --check && echo fresh && "
                  "$n emit $d/k.c --schedule $d/a.sched -o $d/out "
                  "--check && echo fresh && $n emit ../k.c --schedule ../a.sched -o ../out && diff -r ../before ../out && "
                  "sed -i 's/2 \\*/3 */' ../k.c && $n emit ../k.c -o ../out --check; echo rc=$?",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "fresh\nfresh\n"
                        "npugen: ../out/k.c is stale: run: npugen emit ../k.c --schedule ../a.sched -o ../out\n"
                        "npugen: ../out/k_a.c is stale: run: npugen emit ../k.c --schedule ../a.sched -o ../out\n"
                        "rc=1\n");
}

/* Two schedule files of one kernel file emitted into one directory: the
 * kernel's own variant (k.c, k.h: no schedule file's) is recorded with no
 * schedule file, so neither run takes it from the other; --check with
 * the first schedule file, or the inputs recorded, finds everything fresh, and the manifest is the
 * same after the runs in either order. Before, the last run owned k.c,
 * and --check with the other schedule file called it stale. */
Test(embed_cli, two_schedule_files_into_one_directory_keep_the_kernels_files_stable) {
  char out[16384];
  int rc = in_tmp(KERNEL_AND_TWO_SCHEDULES " && $n emit k.c --schedule a.sched -o out 2>/dev/null && "
                  "$n emit k.c --schedule b.sched -o out 2>/dev/null && cp out/.npugen-manifest ab && "
                  "$n emit k.c --schedule a.sched -o out --check && "
                  "$n emit k.c -o out --check && echo fresh && $n emit k.c --schedule a.sched -o out 2>/dev/null && "
                  "cmp ab out/.npugen-manifest && grep -v '^#' ab | cut -f1,4 | tr '\\t\\n' ': '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "fresh\nk.c: k.h: k_a.c:../a.sched k_a.h:../a.sched k_b.c:../b.sched k_b.h:../b.sched ");
}
