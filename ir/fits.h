/* Every integer expression of counters, sizes and constants in a
 * (scheduled or lowered) kernel holds each value it takes in its type, for
 * every iteration and every size the assumptions allow (ir/fits.c). The
 * schedule runs it after every step (schedule/sched.c), so a failure names
 * the step that wrote the expression. */
#ifndef NPG_IR_FITS_H
#define NPG_IR_FITS_H

#include "ir/ir.h"

/* The texts of the expressions that fail in k, one a line ("\n" before
 * and after each), malloc'ed: the kernel as written may hold forms the
 * proof cannot bound (a user's `i * n + j`), which no step wrote. */
char *ir_fits_failures(const Kernel *k);
/* True when every such expression of k fits, those whose text is in
 * known (ir_fits_failures of the kernel as written, or NULL) aside; false
 * with the first one that does not, and why, in why. */
bool ir_check_fits(const Kernel *k, const char *known, char *why, size_t n);
/* The same for lowered, the lowering of scheduled: what the lowering
 * wrote (a DMA wait's guard, a token's index, a loop of its own). */
bool ir_check_fits_lowered(const Kernel *scheduled, const Kernel *lowered, char *why, size_t n);

#endif
