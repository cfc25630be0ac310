/* Preconditions npugen derives (ir/preconditions.c, docs/limits.md): where
 * the kernel as written is undefined only at some sizes (a counter past
 * its type, an extent or a loop bound that overflows, an index past a
 * local array), the condition on the sizes under which it is defined
 * joins the kernel's assumptions, and the emitted code tests it at entry. */
#ifndef NPG_IR_PRECONDITIONS_H
#define NPG_IR_PRECONDITIONS_H

#include "ir/ir.h"

struct isl_set;

/* Appends to k's assumptions each condition the kernel as written needs
 * (Kernel.assume_why says why), with a note at the construct that needs
 * it. What no size satisfies, or npugen cannot state, is left for
 * ir_check_bounds to report. */
void ir_derive_preconditions(Kernel *k, Arena *a, DiagList *d, const char *file, const char *src);

/* ir/bounds.c's walk in derive mode: 1 with the first failure of k that
 * holds only at some sizes, as the condition on the sizes that avoids it
 * (*need), where (*loc) and why; 0 when k passes; -1 when its first
 * failure cannot be turned into a condition. */
int ir_bounds_first_need(const Kernel *k, Arena *a, Expr **need, SrcLoc *loc, char *why, size_t n);

/* good, a set over k's sizes in order (consumed), as a C condition in
 * them; NULL when it has existential variables or huge coefficients. */
Expr *ir_sizes_condition(Arena *a, const Kernel *k, struct isl_set *good);

#endif
