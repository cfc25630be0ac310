#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
/* Trials in forked processes: each child has a copy of the session (the
 * kernel parsed once, in the parent) and runs every jobs-th trial of the
 * batch, leaving each result in memory shared with the parent. A trial
 * that crashes or runs past the timeout ends its child, not the search:
 * it counts as failed and a new child takes the rest. Results land in the
 * batch's order whatever the timing, so a search is the same for any
 * number of jobs. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tune/tune.h"

enum { TODO, RUNNING, DONE };

typedef struct {
  TrialResult r;
  int state;
} Slot;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void child(NpgSession *s, const char *const *steps, int n, const char *variant, uint64_t seed, int first,
                  int stride, int timeout, Slot *slots) {
  for (int i = first; i < n; i += stride) {
    if (slots[i].state != TODO) continue;
    slots[i].state = RUNNING;
    alarm((unsigned)timeout); /* the default action ends the child */
    double t0 = now();
    TrialResult r;
    tune_trial_run(s, steps[i], variant, seed, &r);
    r.seconds = now() - t0;
    slots[i].r = r;
    __atomic_store_n(&slots[i].state, DONE, __ATOMIC_RELEASE);
  }
  _exit(0);
}

void tune_pool_run(NpgSession *s, const char *const *steps, int n, const char *variant, uint64_t seed, int jobs,
                   int timeout, TrialResult *out) {
  if (n <= 0) return;
  if (jobs < 1) jobs = 1;
  if (jobs > n) jobs = n;
  Slot *slots = mmap(NULL, (size_t)n * sizeof *slots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED) {
    for (int i = 0; i < n; i++) {
      memset(&out[i], 0, sizeof out[i]);
      out[i].status = TRIAL_FAILED;
      snprintf(out[i].message, sizeof out[i].message, "no shared memory for the trials");
    }
    return;
  }
  memset(slots, 0, (size_t)n * sizeof *slots);
  fflush(NULL); /* a child's exit must not write the parent's buffers again */
  for (int round = 0;; round++) {
    int started = 0;
    for (int j = 0; j < jobs; j++) {
      pid_t pid = fork();
      if (pid == 0) child(s, steps, n, variant, seed, j, jobs, timeout, slots);
      started += pid > 0;
    }
    if (!started || round > n) { /* no process to run them in */
      for (int i = 0; i < n; i++)
        if (slots[i].state == TODO) {
          slots[i].r.hash = tune_hash(steps[i]);
          slots[i].r.status = TRIAL_FAILED;
          snprintf(slots[i].r.message, sizeof slots[i].r.message, "no process could run the trial (fork failed)");
          slots[i].state = DONE;
        }
    }
    while (started && wait(NULL) > 0) started--;
    bool left = false;
    for (int i = 0; i < n; i++) {
      if (slots[i].state == RUNNING) { /* its child crashed or timed out */
        memset(&slots[i].r, 0, sizeof slots[i].r);
        slots[i].r.hash = tune_hash(steps[i]);
        slots[i].r.status = TRIAL_FAILED;
        snprintf(slots[i].r.message, sizeof slots[i].r.message,
                 "the trial crashed or ran past %d s (npugen tune --trial-timeout)", timeout);
        slots[i].state = DONE;
      }
      left |= slots[i].state == TODO;
    }
    if (!left) break;
  }
  for (int i = 0; i < n; i++) out[i] = slots[i].r;
  munmap(slots, (size_t)n * sizeof *slots);
}
