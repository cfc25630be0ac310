/* sigaltstack and SA_ONSTACK are XSI; a timer that signals one thread
 * (SIGEV_THREAD_ID) and gettid are Linux's */
#define _GNU_SOURCE
#include "jit/guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Where to return to when the code under test raises a signal.
 * Thread-local, set only during a call. */
static _Thread_local sigjmp_buf *active_jmp;
static _Thread_local char failed_assumption[200]; /* guard_assumption_failed's */

enum { SIG_ASSUMPTION = -1 }; /* not a signal: an assumption failed */

void guard_assumption_failed(const char *cond) {
  snprintf(failed_assumption, sizeof failed_assumption, "%s", cond);
  if (active_jmp) siglongjmp(*active_jmp, SIG_ASSUMPTION);
  abort(); /* outside a guarded call, as the emitted C itself does */
}

static void on_signal(int sig) {
  if (active_jmp) siglongjmp(*active_jmp, sig);
  if (sig == SIGXCPU) return; /* a timer's tick after its call returned */
  signal(sig, SIG_DFL);
  raise(sig);
}

/* SIGXCPU: the call's CPU-time timer (cpu_timer_create) */
static const int guarded_signals[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGXCPU};
enum { NSIG_GUARDED = sizeof guarded_signals / sizeof guarded_signals[0] };

/* The handler runs on its own stack, so a stack overflow in the JIT code
 * (SIGSEGV with no stack left) is caught like any other fault. */
enum { ALT_STACK_BYTES = 64 << 10 };

/* The handlers are the process's, but calls may run in several threads at
 * once (the check's reference beside a variant): the first call in
 * installs them, the last out puts back what was there. */
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;
static int handlers_users;
static struct sigaction handlers_old[NSIG_GUARDED];

static void handlers_enter(void) {
  pthread_mutex_lock(&handlers_lock);
  if (handlers_users++ == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* every thread's call has its own alternate stack, or runs without
     * one when sigaltstack failed: SA_ONSTACK falls back to the thread's
     * stack then */
    sa.sa_flags = SA_NODEFER | SA_ONSTACK;
    for (int i = 0; i < NSIG_GUARDED; i++) sigaction(guarded_signals[i], &sa, &handlers_old[i]);
  }
  pthread_mutex_unlock(&handlers_lock);
}

static void handlers_leave(void) {
  pthread_mutex_lock(&handlers_lock);
  if (--handlers_users == 0)
    for (int i = 0; i < NSIG_GUARDED; i++) sigaction(guarded_signals[i], &handlers_old[i], NULL);
  pthread_mutex_unlock(&handlers_lock);
}

/* A timer on the calling thread's CPU clock that will send it SIGXCPU:
 * time the thread waits for a core does not count, so a loaded machine
 * stops no run that an idle one finishes. False when there is no limit or
 * no such timer. */
static bool cpu_timer_create(double seconds, timer_t *t) {
#ifdef SIGEV_THREAD_ID
  if (!(seconds > 0)) return false;
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGXCPU;
  ev._sigev_un._tid = gettid();
  return timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, t) == 0;
#else
  (void)seconds, (void)t;
  return false;
#endif
}

/* Sends the tick after seconds more of the thread's CPU time. */
static void cpu_timer_arm(timer_t t, double seconds) {
  struct itimerspec at = {.it_value = {.tv_sec = (time_t)seconds,
                                       .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)}};
  if (at.it_value.tv_sec == 0 && at.it_value.tv_nsec == 0) at.it_value.tv_nsec = 1;
  timer_settime(t, 0, &at, NULL);
}

/* Deletes the timer and drops a tick it sent that is still pending, so
 * none arrives after the handlers are put back. */
static void cpu_timer_stop(timer_t t) {
  sigset_t xcpu, old;
  sigemptyset(&xcpu);
  sigaddset(&xcpu, SIGXCPU);
  pthread_sigmask(SIG_BLOCK, &xcpu, &old);
  timer_delete(t);
  struct timespec now = {0, 0};
  while (sigtimedwait(&xcpu, NULL, &now) == SIGXCPU) continue;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool guarded_call(ThunkFn fn, void **args, char *err, size_t err_size) {
  return guarded_call_limited(fn, args, 0, err, err_size);
}

bool guarded_call_limited(ThunkFn fn, void **args, double cpu_seconds, char *err, size_t err_size) {
  stack_t alt = {.ss_sp = malloc(ALT_STACK_BYTES), .ss_size = ALT_STACK_BYTES}, old_alt;
  volatile bool on_alt = alt.ss_sp && sigaltstack(&alt, &old_alt) == 0;
  handlers_enter();
  sigjmp_buf jb;
  sigjmp_buf *saved = active_jmp;
  static const timer_t none;
  timer_t volatile timer = none; /* volatile: read after a siglongjmp */
  volatile bool timed = false;
  volatile int sig = sigsetjmp(jb, 1);
  if (sig == 0) {
    active_jmp = &jb;
    timer_t t;
    if (cpu_timer_create(cpu_seconds, &t)) {
      timer = t;
      timed = true;
      cpu_timer_arm(t, cpu_seconds);
    }
    fn(args);
  }
  if (timed) cpu_timer_stop(timer);
  active_jmp = saved;
  handlers_leave();
  if (on_alt) sigaltstack(&old_alt, NULL);
  free(alt.ss_sp);
  if (sig == SIG_ASSUMPTION) {
    snprintf(err, err_size, "an assumption of the kernel does not hold at these sizes: NPUGEN_ASSUME(%s)",
             failed_assumption);
    return false;
  }
  if (sig == SIGXCPU) {
    snprintf(err, err_size,
             "stopped after %.3g s of CPU time, its limit: a loop that never ends, or a run past the step "
             "budget's estimate (raise the limit with npugen check --max-cpu SECONDS)",
             cpu_seconds);
    return false;
  }
  if (sig) {
    const char *what = sig == SIGFPE   ? "SIGFPE (an integer division by zero or overflow)"
                       : sig == SIGSEGV ? "SIGSEGV (an out-of-bounds memory access)"
                       : sig == SIGBUS  ? "SIGBUS"
                                        : "SIGILL";
    snprintf(err, err_size, "the code raised %s", what);
    return false;
  }
  return true;
}
