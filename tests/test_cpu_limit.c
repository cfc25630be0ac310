/* The check never hangs (issue 39): each run (the reference's, a
 * variant's) is stopped after a limit of its own thread's CPU time, with a
 * message that says so; the step budget is counted before the run, and a
 * counter that wraps passes it. CPU time, not wall time: a run that waits
 * for a core (a loaded machine) is not stopped. Limits here are a few
 * tenths of a second, so each test costs at most about that much CPU. */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "jit/guard.h"
#include "jit/tcc_unit.h"
#include "npugen.h"

/* JIT code that never returns: what a variant whose counter wraps runs. */
static const char endless[] = "void npg_spin(void **args) {\n"
                              "  volatile unsigned char i;\n"
                              "  for (i = 0; i < 256; i++) args[0] = (void *)0;\n"
                              "}\n"
                              "void npg_quick(void **args) { *(int *)args[0] = 42; }\n";

Test(cpu_limit, a_jit_loop_that_never_ends_is_stopped_and_says_why) {
  char err[1024];
  TccUnit *u = tcc_unit_compile(endless, "endless.c", err, sizeof err);
  cr_assert_not_null(u, "%s", err);
  ThunkFn spin = (ThunkFn)tcc_unit_symbol(u, "npg_spin"), quick = (ThunkFn)tcc_unit_symbol(u, "npg_quick");
  cr_assert(spin && quick);
  void *args[1] = {NULL};
  cr_expect_not(guarded_call_limited(spin, args, 0.2, err, sizeof err));
  cr_expect_str_eq(err, "stopped after 0.2 s of CPU time, its limit: a loop that never ends, or a run past the step "
                        "budget's estimate (raise the limit with npugen check --max-cpu SECONDS)");
  /* the timer is gone with its call: a later call, limited or not, runs to its end */
  int out = 0;
  args[0] = &out;
  cr_expect(guarded_call_limited(quick, args, 0.2, err, sizeof err), "%s", err);
  cr_expect(guarded_call(quick, args, err, sizeof err), "%s", err);
  cr_expect_eq(out, 42);
  tcc_unit_free(u);
}

/* Sleeps half a second: wall time, next to no CPU time. */
static void sleeper(void **args) {
  (void)args;
  struct timespec half = {0, 500000000};
  while (nanosleep(&half, &half)) continue;
}

Test(cpu_limit, time_spent_waiting_is_not_cpu_time) {
  char err[1024];
  cr_expect(guarded_call_limited(sleeper, NULL, 0.1, err, sizeof err), "%s", err);
}

/* 2 * 10^9 iterations: within the step budget (2^32), so the count
 * before the run lets it start; the CPU limit stops it. */
Test(cpu_limit, the_check_stops_a_run_past_its_cpu_time) {
  const char *src = "void k(const int A[4], int B[4]) {\n"
                    "  for (int i = 0; i < 2000000000; i++)\n"
                    "    B[i % 4] ^= A[(i + 1) % 4];\n"
                    "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s && npg_error_count(s) == 0, "%s", npg_errors(s));
  npg_set_check_cpu_limit(s, 0.25);
  NpgCheckResult r;
  cr_expect_not(npg_check(s, 0, 1, &r));
  cr_expect(strstr(r.message, "stopped after 0.25 s of CPU time, its limit: a loop that never ends"), "%s", r.message);
  npg_close(s);
}
