/* Helpers shared by the tests that run the npugen command as a user does
 * (tests/test_cli.c, test_hostile.c, test_tune.c). */
#ifndef TEST_CLI_UTIL_H
#define TEST_CLI_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* The command under test: $NPUGEN, else build/npugen. */
static inline const char *npugen(void) {
  const char *p = getenv("NPUGEN");
  return p ? p : "build/npugen";
}

/* Runs a shell command (2>&1 inside when wanted): its exit status (128 +
 * the signal when one ended it), its output in out, and the CPU time it
 * took (user + system, the shell's and its children's) in *cpu when cpu is
 * not NULL: load stretches wall time, never CPU time. */
static inline double children_cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static inline int run_timed(const char *cmd, char *out, size_t n, double *cpu) {
  double before = children_cpu();
  FILE *p = popen(cmd, "r");
  size_t got = p ? fread(out, 1, n - 1, p) : 0;
  out[got] = 0;
  int st = p ? pclose(p) : -1;
  if (cpu) *cpu = children_cpu() - before;
  return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int run(const char *cmd, char *out, size_t n) { return run_timed(cmd, out, n, NULL); }

#endif
