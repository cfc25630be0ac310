#include "jit/guard.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* The one piece of process state the JIT needs: where to return to when the
 * code under test raises a signal. Thread-local, set only during a call. */
static _Thread_local sigjmp_buf *active_jmp;

static void on_signal(int sig) {
  if (active_jmp) siglongjmp(*active_jmp, sig);
  signal(sig, SIG_DFL);
  raise(sig);
}

static const int guarded_signals[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL};
enum { NSIG_GUARDED = sizeof guarded_signals / sizeof guarded_signals[0] };

bool guarded_call(ThunkFn fn, void **args, char *err, size_t err_size) {
  struct sigaction sa, old[NSIG_GUARDED];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  for (int i = 0; i < NSIG_GUARDED; i++) sigaction(guarded_signals[i], &sa, &old[i]);
  sigjmp_buf jb;
  sigjmp_buf *saved = active_jmp;
  volatile int sig = sigsetjmp(jb, 1);
  if (sig == 0) {
    active_jmp = &jb;
    fn(args);
  }
  active_jmp = saved;
  for (int i = 0; i < NSIG_GUARDED; i++) sigaction(guarded_signals[i], &old[i], NULL);
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
