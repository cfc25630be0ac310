/* jit/kernel_bound.c: the kernel's own lower bound on a target, the
 * roofline every figure of npugen measures a variant against (the check's
 * line, tune's table, a program's sum). */
#ifndef NPUGEN_JIT_KERNEL_BOUND_H
#define NPUGEN_JIT_KERNEL_BOUND_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "sim/npusim.h"

/* k's bound on t, in cycles: its MACs at the NU's peak (each as often as
 * it runs), or its least DDR traffic (the elements its accesses reach),
 * whichever is larger; a program as one kernel, its calls' statements
 * included. unit (n bytes, may be NULL) says which: "nu" or "ddr". A kernel
 * with sizes is bounded at its instantiation (ir_instantiate). */
uint64_t kernel_bound(const Kernel *k, const NpuTarget *t, char *unit, size_t n);

#endif
