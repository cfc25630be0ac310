/* Preconditions npugen derives (ir/preconditions.c, docs/limits.md): where
 * the kernel as written is undefined only at some sizes (a counter past
 * its type, an extent or a loop bound that overflows, an index past a
 * local array), the condition on the sizes under which it is defined
 * joins the kernel's assumptions, and the emitted code tests it at entry. */
#ifndef NPG_IR_PRECONDITIONS_H
#define NPG_IR_PRECONDITIONS_H

#include "ir/ir.h"

struct isl_set;

/* The bounds check of a kernel with sizes (ir_check_bounds), with the
 * conditions it needs derived first: each joins k's assumptions
 * (Kernel.assume_why says why), with a note at the construct that needs
 * it. True when k has sizes and passes; otherwise the errors are in d
 * (what no size satisfies, or npugen cannot state, stays an error). */
bool ir_derive_preconditions(Kernel *k, Arena *a, DiagList *d, const char *file, const char *src);

/* ir/count_preconditions.c: each local counter of k that an increment in
 * a nest of loops over the sizes takes past its type at some sizes
 * (`c++` under i < n, j < m), its condition added to k->entry_need. */
void ir_derive_count_needs(Kernel *k, Arena *a);

/* ir/bounds.c's walk in derive mode: 1 with the first failure of k that
 * holds only at some sizes, as the condition on the sizes that avoids it
 * (*need), where (*loc) and why; 0 when k passes; -1 when it fails
 * otherwise, with ir_check_bounds' errors added to d. */
int ir_bounds_first_need(const Kernel *k, Arena *a, DiagList *d, const char *file, const char *src, Expr **need,
                         SrcLoc *loc, char *why, size_t n);

/* good, a set over k's sizes in order (consumed), as a C condition in
 * them; NULL when it has existential variables or huge coefficients. */
Expr *ir_sizes_condition(Arena *a, const Kernel *k, struct isl_set *good);

#endif
