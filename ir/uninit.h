/* Reads of locals that certainly come before any write (ir/uninit.c). */
#ifndef NPG_UNINIT_H
#define NPG_UNINIT_H

#include "ir/ir.h"

/* Reports, into d, each local scalar or local array of k that is read
 * before anything is written to it, where the read is certain to run:
 * nothing is written to the local earlier in program order, and the read
 * runs the first time through every loop around it (their bounds are
 * constants there) with no if, ?:, && or || on the way. What this cannot
 * prove is left to the check's run-time test (lower/ref_body.c). False
 * when it reported one. */
bool ir_check_uninit(const Kernel *k, DiagList *d, const char *file, const char *src);

#endif
