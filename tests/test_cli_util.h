/* Helpers shared by the tests that run the npugen command as a user does
 * (tests/test_cli.c, test_hostile.c, test_tune.c). */
#ifndef TEST_CLI_UTIL_H
#define TEST_CLI_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

/* The command under test: $NPUGEN, else build/npugen. */
static inline const char *npugen(void) {
  const char *p = getenv("NPUGEN");
  return p ? p : "build/npugen";
}

/* Runs a shell command (2>&1 inside when wanted): its exit status (128 +
 * the signal when one ended it), its output in out, and its wall time in
 * *secs when secs is not NULL. */
static inline int run_timed(const char *cmd, char *out, size_t n, double *secs) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  FILE *p = popen(cmd, "r");
  size_t got = p ? fread(out, 1, n - 1, p) : 0;
  out[got] = 0;
  int st = p ? pclose(p) : -1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (secs) *secs = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int run(const char *cmd, char *out, size_t n) { return run_timed(cmd, out, n, NULL); }

#endif
