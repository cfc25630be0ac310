/* The host timer (tune/host_timer.c) times a serial variant by its
 * thread's CPU time. A trial runs under RLIMIT_CPU (tune/trial_pool.c),
 * and under that limit Linux reads the process's CPU clock from a sample
 * taken at each tick: a call shorter than a tick timed 0, and the timed
 * run failed ("0 0 0 0 101"). The thread's clock reads the thread's own
 * time. No figure is asserted, only that one is measured. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/resource.h>

#include "jit/session_ir.h"
#include "npugen.h"
#include "tune/tune.h"

/* a call of a few microseconds: far below a tick */
static const char *scale =
    "void scale(const float a[64][64], float b[64][64]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++)\n"
    "      b[i][j] = 2.0f * a[i][j];\n"
    "}\n";

Test(tune_host_timer, a_call_shorter_than_a_tick_is_timed_under_the_trials_cpu_limit) {
  struct rlimit cpu;
  cr_assert_eq(getrlimit(RLIMIT_CPU, &cpu), 0);
  cpu.rlim_cur = cpu.rlim_max == RLIM_INFINITY || cpu.rlim_max > 600 ? 600 : cpu.rlim_max;
  cr_assert_eq(setrlimit(RLIMIT_CPU, &cpu), 0); /* as a trial's process has (inherited by the timed program) */
  NpgSession *s = npg_open_string("scale.c", scale, strlen(scale));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  TuneHostTime t;
  char msg[240] = "";
  cr_expect(tune_host_time(s, npg_variant_index(s, "scale"), &t, msg, sizeof msg), "%s", msg);
  cr_expect(t.median_ns > 0 && t.min_ns > 0 && t.runs >= 7, "median %llu ns, fastest %llu ns, %d runs",
            (unsigned long long)t.median_ns, (unsigned long long)t.min_ns, t.runs);
  cr_expect(!t.openmp);
  npg_close(s);
}
