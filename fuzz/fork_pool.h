/* Running fuzz cases in forked processes, a few at a time (fuzz_kernels and
 * fuzz_schedules): a crash, a hang (past an alarm) or a sanitizer report
 * ends one child, not the run. Each job has a slot of memory shared with
 * its child, where the child leaves its result as it goes, and a stderr
 * file that the parent reads when the child ended abnormally. A child runs
 * in its own process group, so a timeout also kills the compilers it
 * started. In an ASan build a case that leaks exits with
 * FORK_POOL_LEAK_EXIT (_exit skips LeakSanitizer's exit check, so the child
 * asks for one). */
#ifndef FUZZ_FORK_POOL_H
#define FUZZ_FORK_POOL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { FORK_POOL_MAX_JOBS = 64, FORK_POOL_LEAK_EXIT = 70 };

typedef struct {
  int jobs;
  size_t slot_size;
  char *slots; /* jobs * slot_size bytes, shared with the children */
  pid_t pid[FORK_POOL_MAX_JOBS]; /* 0: the job is free */
  double start[FORK_POOL_MAX_JOBS]; /* when the job's last case started */
  char stderr_path[FORK_POOL_MAX_JOBS][256];
} ForkPool;

/* Set by SIGINT and SIGTERM once fork_pool_open installed the handler:
 * start no more cases. wait() then returns with EINTR (no SA_RESTART). */
extern volatile sig_atomic_t fork_pool_stop;

double fork_pool_now(void);
/* jobs (clamped to 1 .. FORK_POOL_MAX_JOBS) slots of slot_size bytes; the
 * children's stderr goes to "<stderr_prefix>.<job>". */
bool fork_pool_open(ForkPool *p, int jobs, size_t slot_size, const char *stderr_prefix);
void fork_pool_close(ForkPool *p); /* removes the stderr files */
void *fork_pool_slot(const ForkPool *p, int job);
/* Runs run(ctx, slot) in a child for the free job, with a CPU-time limit
 * of timeout seconds (RLIMIT_CPU: load cannot break it);
 * the child exits with what run returns. */
bool fork_pool_start(ForkPool *p, int job, int timeout, int (*run)(void *ctx, void *slot), void *ctx);
bool fork_pool_busy(const ForkPool *p);
/* Waits for a child: its job (now free) and wait status; -1 when a signal
 * interrupted the wait, -2 on an error. */
int fork_pool_reap(ForkPool *p, int *status);
/* Kills every running child and reaps it. */
void fork_pool_kill_all(ForkPool *p);
/* How a child that did not end cleanly ended: "timed out", the signal's
 * name, "memory leaked" or "exit status N". */
void fork_pool_how(int status, char *how, size_t n);
/* The job's stderr file, malloc'ed ("" when unreadable). */
char *fork_pool_stderr(const ForkPool *p, int job);

#endif
