/* tensorize's matcher, shared with the emitter (schedule/tensorize.c). */
#ifndef NPG_SCHED_TENSORIZE_H
#define NPG_SCHED_TENSORIZE_H

#include "ir/ir.h"

/* The intrinsic call ("npu_nu_matmul_i8(&C_ob[0][0], ...);") that stands
 * for loop, a loop tensorize marked (Stmt.intrin). False with why when the
 * nest no longer matches (a later step changed it). */
bool tensorize_call(Arena *a, const Stmt *loop, StrBuf *call, char *why, size_t n);

#endif
