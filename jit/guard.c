/* sigaltstack and SA_ONSTACK are XSI */
#define _XOPEN_SOURCE 700
#include "jit/guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  signal(sig, SIG_DFL);
  raise(sig);
}

static const int guarded_signals[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL};
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

bool guarded_call(ThunkFn fn, void **args, char *err, size_t err_size) {
  stack_t alt = {.ss_sp = malloc(ALT_STACK_BYTES), .ss_size = ALT_STACK_BYTES}, old_alt;
  volatile bool on_alt = alt.ss_sp && sigaltstack(&alt, &old_alt) == 0;
  handlers_enter();
  sigjmp_buf jb;
  sigjmp_buf *saved = active_jmp;
  volatile int sig = sigsetjmp(jb, 1);
  if (sig == 0) {
    active_jmp = &jb;
    fn(args);
  }
  active_jmp = saved;
  handlers_leave();
  if (on_alt) sigaltstack(&old_alt, NULL);
  free(alt.ss_sp);
  if (sig == SIG_ASSUMPTION) {
    snprintf(err, err_size, "an assumption of the kernel does not hold at these sizes: NPUGEN_ASSUME(%s)",
             failed_assumption);
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
