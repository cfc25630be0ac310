/* Scalar expansion as tensorize and vectorize use it (schedule/expand.c). */
#ifndef NPG_SCHED_EXPAND_H
#define NPG_SCHED_EXPAND_H

#include "schedule/sched.h"

/* Does the nest under loop (maybe a copy, outside the kernel) match? */
typedef bool (*SchedNestMatch)(Sched *s, const Stmt *loop, void *ctx);
/* The nest under loop does not match as it is: its scalar locals are
 * expanded into their destinations, or replaced by their values, where
 * that is legal, on a copy first. When the copy matches, the nest is
 * rewritten so (the steps recorded as applied) and true; otherwise the IR
 * is unchanged and false. */
bool sched_expand_to_match(Sched *s, Stmt *loop, SchedNestMatch matches, void *ctx);

#endif
