/* npugen tune's files: a planned trial is read by its record (typed
 * fields), --merge does not trust a result's cycles, and -o is checked
 * before the search. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_cli_util.h"

/* An element-wise kernel: every process of a planned run builds its
 * space again, a matmul's in 3 s of CPU under ASan, this one's in 0.7 s. */
static const char *kernel = "tests/kernels/tune_vadd_small.c";

/* A trial whose steps were taken out of its file still runs: the record
 * decides (before, the file had to hold the rendered steps). A trial
 * planned with --host, given to a space without it, is refused naming
 * the field (before: "not a trial of this space" without a reason). */
Test(tune_plan, a_trial_is_read_by_its_record_not_its_text) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --plan $d/p --trials 1 >/dev/null 2>&1 && f=$(ls $d/p/trials/*.sched) && "
           "head -1 $f > $d/bare.sched && cat $d/bare.sched && %s tune %s --trial $d/bare.sched 2>&1; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "/* tune-trial: kernel=vadd space=npu sketch=vu:rows q=") &&
                strstr(out, "\tsimulated\t"),
            "%s", out);
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --host --plan $d/p --trials 1 >/dev/null 2>&1 && f=$(ls $d/p/trials/*.sched) && "
           "%s tune %s --trial $f 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, ":1:1: error: not a trial of this space (its space is host, this one's npu)"), "%s", out);
}

/* A result file edited to claim 1 cycle: merge simulates the best
 * candidates again, names the difference, leaves that one out of the
 * table and writes the next best with its own figure (before: the forged
 * candidate won, "1 cycles" in the file). */
Test(tune_plan, merge_leaves_out_a_forged_cycle_count) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --plan $d/p --trials 2 >/dev/null 2>&1 && sh $d/p/trials.txt && "
           "f=$(ls $d/p/results/*.tsv | head -1) && awk -F'\\t' 'BEGIN{OFS=\"\\t\"} {$3 = 1; print}' $f > $d/x && "
           "mv $d/x $f && %s tune %s --merge $d/p -o $d/m.sched 2>&1 && cat $d/m.sched; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, " says 1 cycles, the simulator gives ") && strstr(out, " here: left out"), "%s", out);
  /* neither the table nor the schedule's comment shows the forged figure */
  cr_expect(!strstr(out, "\n1               1 ") && !strstr(out, " 1 cycles, roofline") &&
                strstr(out, "vadd_tuned: PASS npugen check"),
            "%s", out);
}

/* -o is checked before the search: a missing directory or a directory
 * given as the file stops tune at once, naming it (before: the whole
 * search ran, then "cannot write"). */
Test(tune_plan, the_output_is_checked_before_the_search) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd, "%s tune %s --trials 2 -o /nonexistent-npugen/t.sched 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "cannot write /nonexistent-npugen/t.sched: no directory /nonexistent-npugen (checked before "
                        "the search)") && !strstr(out, "generated"),
            "%s", out);
  snprintf(cmd, sizeof cmd, "%s tune %s --trials 2 -o /tmp 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "cannot write /tmp: it is a directory") && !strstr(out, "generated"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s tune %s --trials 2 -o '' 2>&1", npugen(), kernel);
  cr_expect_eq(run(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "cannot write '': no file name") && !strstr(out, "generated"), "%s", out);
}

/* A host trial's result line keeps its time in fields of its own (the
 * median and fastest call in ns, whether it was compiled with -fopenmp),
 * never in the cycles field (before: the median went into `cycles`, and
 * only the space said how to read it). */
Test(tune_plan, a_host_trial_records_its_time_apart_from_cycles) {
  char cmd[2048], out[16384];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --host --plan $d/p --trials 1 >/dev/null 2>&1 && f=$(ls $d/p/trials/*.sched) && "
           "%s tune %s --host --trial $f 2>&1; rc=$?; rm -rf $d; exit $rc",
           npugen(), kernel, npugen(), kernel);
  cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
  char hash[32], status[16], cost[16];
  unsigned long long cycles = 1, median = 0, fastest = 0;
  int openmp = -1;
  int n = sscanf(out, "%31s %15s %llu %*s %*s %*s %*s %*s %*s %*s %15s %llu %llu %d", hash, status, &cycles, cost,
                 &median, &fastest, &openmp);
  cr_assert_eq(n, 7, "%s", out);
  cr_expect_str_eq(status, "simulated", "%s", out);
  cr_expect_str_eq(cost, "timed", "%s", out);
  cr_expect(cycles == 0 && median > 0 && fastest > 0 && fastest <= median && (openmp == 0 || openmp == 1), "%s", out);
}
