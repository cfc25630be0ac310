/* Rewrites tensorize and vectorize try on a nest that does not match:
 * scalar expansion (schedule/expand.c) and loops to a size run to their
 * largest value (schedule/tensorize_sized.c). */
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
/* A SchedNestMatch for the VU: ctx is a `const char **`, set to the VU
 * instruction that computes the nest (schedule/vectorize.c). */
bool sched_vu_matches(Sched *s, const Stmt *loop, void *ctx);
/* The nest under loop, of a kernel with sizes, does not match as it is:
 * each loop to a size runs to the size's largest value, its body guarded
 * (schedule/tensorize_sized.c), on a copy first. When the copy matches,
 * the nest is rewritten so and true; otherwise the IR is unchanged and
 * false. */
bool sched_bound_to_match(Sched *s, Stmt *loop, SchedNestMatch matches, void *ctx);

#endif
