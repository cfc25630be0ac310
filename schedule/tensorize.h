/* tensorize's matcher, shared with the emitter (schedule/tensorize.c). */
#ifndef NPG_SCHED_TENSORIZE_H
#define NPG_SCHED_TENSORIZE_H

#include "ir/ir.h"

/* The intrinsic call ("npu_nu_matmul_i8(&C_ob[0][0], ...);") that stands
 * for loop, a loop tensorize marked (Stmt.intrin). False with why when the
 * nest no longer matches (a later step changed it). */
bool tensorize_call(Arena *a, const Stmt *loop, StrBuf *call, char *why, size_t n);

/* The first intrinsic, in name order, whose name starts with prefix and
 * whose semantics loop's nest matches (vectorize's lowering to the VU):
 * its name, in the arena. NULL when none does, with why saying how the
 * nearest one differs. */
const char *tensorize_find(Arena *a, const Stmt *loop, const char *prefix, char *why, size_t n);

#endif
