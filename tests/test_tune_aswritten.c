/* The kernel as written is a candidate of an NPU tune (issue 41): it calls
 * no intrinsic, so the check has no cycle figure for it, but npg_simulate
 * runs it with every array access through the CU's hook and gives it the
 * CU's cycles. tune's table shows it (`as-written`, bound by cu), the last
 * line says how much faster the winner is, and where no NPU candidate
 * beats the CU it is written: the empty schedule. Before, an NPU round
 * never ran it, and the VU's 810 cycles were written for a kernel the CU
 * runs in 128. Kernels: tests/kernels/tune_reach/as_written.c; budgets in
 * trials. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

static const char *file = "tests/kernels/tune_reach/as_written.c";

/* tune's output for kernel k with 2 trials (its check of the winner
 * included), then the schedule file, into out; the exit status. */
static int tune_and_check(const char *k, char *out, size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "d=$(mktemp -d) && %s tune %s --kernel %s --seed 1 --trials 2 -o $d/t.sched 2>&1 && cat $d/t.sched; "
           "rc=$?; rm -rf $d; exit $rc",
           npugen(), file, k);
  return run(cmd, out, n);
}

/* A row of tune's table: its rank ("-": not among the best five),
 * cycles, roofline and bounding unit, and the candidate. */
typedef struct {
  char rank[8], bound[8], candidate[200];
  unsigned long long cycles;
  double roofline;
} Row;

/* The table's row of candidate `what` (the first that starts so). */
static bool row_of(const char *out, const char *what, Row *r) {
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    memset(r, 0, sizeof *r);
    if (sscanf(l, "%7s %llu %lf%% %7s %*d%% %*f %199[^\n]", r->rank, &r->cycles, &r->roofline, r->bound,
               r->candidate) == 5 &&
        !strncmp(r->candidate, what, strlen(what)))
      return true;
  }
  return false;
}

Test(tune_aswritten, npg_simulate_times_a_variant_without_an_intrinsic_on_the_cu) {
  NpgSession *s = npg_open_file(file);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  NpgSimResult r;
  NpgCheckResult c;
  int small = npg_variant_index(s, "small"), big = npg_variant_index(s, "big");
  /* 64 reads and 64 writes at one cycle each, all of it the CU's */
  cr_expect(npg_simulate(s, small, 1, &r), "%s", r.message);
  cr_expect_eq(r.sim_cycles, 128, "%llu", (unsigned long long)r.sim_cycles);
  cr_expect(!strcmp(r.bound, "cu") && r.bound_utilization == 1.0, "%s %f", r.bound, r.bound_utilization);
  /* the check's figure is unchanged: it has none for such a variant */
  cr_expect(npg_check(s, small, 1, &c) && c.sim_cycles == 0 && strstr(c.summary, "no cycle figure"), "%s", c.summary);
  /* 8.4 million accesses: not run, at no cost, saying why */
  cr_expect(!npg_simulate(s, big, 1, &r) && !strncmp(r.message, "not simulated: no intrinsic, so the CU runs it all", 50),
            "%s", r.message);
  npg_close(s);
}

Test(tune_aswritten, the_kernel_as_written_wins_where_no_npu_candidate_beats_the_cu) {
  char out[32768];
  cr_assert_eq(tune_and_check("small", out, sizeof out), 0, "%s", out);
  Row aw, vu;
  cr_assert(row_of(out, "as-written", &aw) && row_of(out, "vu:rows", &vu), "%s", out);
  cr_expect(!strcmp(aw.rank, "1") && aw.cycles == 128 && !strcmp(aw.bound, "cu"), "%s", out);
  cr_expect(!strcmp(vu.rank, "2") && vu.cycles > 128, "the VU's candidate ranks second: %s", out);
  cr_expect(strstr(out, " * the kernel as written: no candidate beat it, so the schedule has no step\n"
                        " * 128 cycles, roofline 6.2%; passes npugen check (seed 1) */\n"
                        "#pragma npu schedule(small, as_written_small_tuned)\n"),
            "the empty schedule: %s", out);
  cr_expect(strstr(out, "small as written: 128 cycles (bound by cu, roofline 6.2%); no candidate beat it, so "
                        "as_written_small_tuned is the kernel as written (no step); the best candidate, vu:rows"),
            "%s", out);
  cr_expect(strstr(out, "as_written_small_tuned: PASS npugen check"), "%s", out);
}
