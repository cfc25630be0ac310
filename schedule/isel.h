/* Instruction sequences: an expression tree no single VU instruction
 * computes, covered by several (schedule/isel_cover.c). */
#ifndef NPG_SCHED_ISEL_H
#define NPG_SCHED_ISEL_H

#include "schedule/sched.h"

/* The nest under loop (loops down to one assignment) as a sequence of VU
 * instructions, each a nest of its own over the same loops, the
 * intermediate values in vu_vm arrays declared right before it: true
 * with the IR rewritten (each nest marked with its instruction and
 * Stmt.isel_note). False with the IR unchanged, and why (when the nest
 * has the shape but some sub-expression has no instruction) appended
 * to why. */
bool sched_isel_sequence(Sched *s, Stmt *loop, char *why, size_t n);

#endif
