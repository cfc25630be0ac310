/* jit/kernel_bound.c: the kernel's own lower bound on a target, the
 * roofline every figure of npugen measures a variant against (the check's
 * line, tune's table, a program's sum). */
#ifndef NPUGEN_JIT_KERNEL_BOUND_H
#define NPUGEN_JIT_KERNEL_BOUND_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "sim/npusim.h"

/* k's bound on t, in cycles: its arithmetic at the fastest unit's peak, or
 * its least DDR traffic, whichever is larger; for a program, the sum of
 * its calls' own bounds. unit (n bytes, may be NULL) says which: "nu",
 * "vu", "ddr", or "sum" for a program. Loops without a constant trip count
 * count one pass, so a kernel with sizes is bounded at its instantiation
 * (ir_instantiate), and a call of a callee with sizes adds nothing. */
uint64_t kernel_bound(const Kernel *k, const NpuTarget *t, char *unit, size_t n);

#endif
