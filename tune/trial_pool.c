/* Trials in forked processes, up to `jobs` at once: each child has a copy
 * of the session (the kernel parsed once, in the parent), runs one trial
 * and leaves its result in memory shared with the parent. A trial
 * that crashes or uses more CPU time than the timeout ends its child, not
 * the search: it counts as failed. The limit is CPU time (RLIMIT_CPU, which
 * the compilers and timed programs a host trial starts inherit), never wall
 * time: a loaded machine stretches a trial but cannot fail it. Results land in the
 * batch's order whatever the timing, so a search is the same for any
 * number of jobs. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tune/tune.h"

enum { TODO, DONE }; /* only the child writes DONE: the parent never writes a slot in flight */

typedef struct {
  TrialResult r;
  int state;
} Slot;

double tune_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The child of trial i: a copy of the session as the parent had it, so
 * every trial starts from the kernel as parsed. */
static void child(NpgSession *s, const char *steps, const char *variant, uint64_t seed, bool host, int timeout,
                  Slot *slot) {
  struct rlimit cpu = {(rlim_t)timeout, (rlim_t)timeout + 1}, core = {0, 0};
  setrlimit(RLIMIT_CORE, &core); /* SIGXCPU ends the child; no core file */
  setrlimit(RLIMIT_CPU, &cpu);
  double t0 = tune_now();
  TrialResult r;
  tune_trial_run(s, steps, variant, seed, host, &r);
  r.seconds = tune_now() - t0;
  slot->r = r;
  __atomic_store_n(&slot->state, DONE, __ATOMIC_RELEASE);
  _exit(0);
}

static void failed(Slot *slot, const char *steps, const char *why) {
  memset(&slot->r, 0, sizeof slot->r);
  slot->r.hash = tune_hash(steps);
  slot->r.status = TRIAL_FAILED;
  snprintf(slot->r.message, sizeof slot->r.message, "%s", why);
  slot->state = DONE;
}

/* May trial i start now? */
static bool may_start(const TunePoolStop *stop, int i) {
  return !stop || i < stop->at_least || tune_now() + stop->each <= stop->deadline;
}

int tune_pool_run(NpgSession *s, const char *const *steps, int n, const char *variant, uint64_t seed, bool host,
                  int jobs, int timeout, const TunePoolStop *stop, TrialResult *out) {
  if (n <= 0) return 0;
  if (jobs < 1) jobs = 1;
  Slot *slots = mmap(NULL, (size_t)n * sizeof *slots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED) {
    for (int i = 0; i < n; i++) {
      Slot one;
      failed(&one, steps[i], "no shared memory for the trials");
      out[i] = one.r;
    }
    return n;
  }
  memset(slots, 0, (size_t)n * sizeof *slots);
  fflush(NULL); /* a child's exit must not write the parent's buffers again */
  pid_t pid[64] = {0};
  int running = 0, next = 0, end = n;
  if (jobs > 64) jobs = 64;
  while (next < end || running) {
    while (running < jobs && next < end) {
      if (!may_start(stop, next)) { /* trials start in order: none after it either */
        end = next;
        break;
      }
      int j = 0;
      while (pid[j]) j++;
      pid_t p = fork();
      if (p < 0) {
        failed(&slots[next], steps[next], "no process could run the trial (fork failed)");
      } else if (p == 0) {
        child(s, steps[next], variant, seed, host, timeout, &slots[next]);
      } else {
        pid[j] = p;
        running++;
      }
      next++;
    }
    if (!running) continue;
    pid_t done = wait(NULL);
    if (done < 0) break;
    for (int j = 0; j < jobs; j++)
      if (pid[j] == done) {
        pid[j] = 0;
        running--;
      }
  }
  for (int i = end; i < n; i++)
    failed(&slots[i], steps[i], "not started: it would have ended past the time limit (npugen tune --time-limit)");
  for (int i = 0; i < n; i++) {
    if (slots[i].state != DONE) {
      char why[160];
      snprintf(why, sizeof why, "the trial crashed or used more than %d s of CPU time (npugen tune --trial-timeout)",
               timeout);
      failed(&slots[i], steps[i], why);
    }
    out[i] = slots[i].r;
  }
  munmap(slots, (size_t)n * sizeof *slots);
  return end;
}
