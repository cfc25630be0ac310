/* Runs JIT-compiled code so that a crash in it (SIGSEGV, SIGFPE, ...) comes
 * back as an error instead of killing the process. */
#ifndef NPG_GUARD_H
#define NPG_GUARD_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*ThunkFn)(void **args);

/* Calls fn(args). False with a message in err when a signal stopped it. */
bool guarded_call(ThunkFn fn, void **args, char *err, size_t err_size);
/* The same, stopped with a message when the call has used cpu_seconds of
 * its thread's CPU time (0: no limit): no run hangs the check. */
bool guarded_call_limited(ThunkFn fn, void **args, double cpu_seconds, char *err, size_t err_size);

/* The tcc C's NPUGEN_ASSUME when cond fails (bound as npg_assume_failed):
 * the guarded call returns false, saying which assumption; outside one,
 * abort() as the emitted C does. */
void guard_assumption_failed(const char *cond);

#endif
