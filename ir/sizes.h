/* A kernel with symbolic sizes at given sizes (ir/sizes.c). */
#ifndef NPG_IR_SIZES_H
#define NPG_IR_SIZES_H

#include "ir/ir.h"

/* The size sets the check runs k at: its `#pragma npu sizes` sets, or,
 * when it gives none, the smallest sizes its assumptions allow, those
 * nearest 0, 1, 7, 33, 64 and 257, and the largest when no size passes 256 (isl).
 * At most max; returns how many. */
int ir_size_sets(const Kernel *k, SizeSet *out, int max);
/* The check's sets for variant v of k: k's `#pragma npu sizes` sets, or by
 * default sets that scale with the work (docs/check.md): the smallest
 * sizes allowed, every size near 0, 1 and IR_SIZE_BASE, two sets of sizes
 * unlike each other; then for each size in turn, that size past v's tiles
 * (the least size past three of the widest tile that no tile divides, at
 * least 33; one tile and a tail when that runs over IR_SIZE_SET_STEPS) and
 * the others at the base; then every size at once near 33, 64, that size
 * and 257, and the largest allowed when no size passes 256, each only when
 * k runs it within IR_SIZE_SET_STEPS steps, or `budget` (the check's) when
 * lower. At most max; returns how many. */
enum { IR_SIZE_BASE = 7 };
#define IR_SIZE_SET_STEPS (1ull << 22)
int ir_check_size_sets(const Kernel *k, const Kernel *v, uint64_t budget, SizeSet *out, int max);
/* ir_size_sets, then the largest sizes k's assumptions allow (isl's
 * lexicographic maximum), unless already there: the static checks' sets. */
int ir_size_sets_and_largest(const Kernel *k, SizeSet *out, int max);
/* k with set's values for its sizes, in arena a: constant extents and
 * bounds, no sizes left. NULL (why says) when an extent is not 1 to
 * 2^31 - 1 elements there. */
Kernel *ir_instantiate(Arena *a, const Kernel *k, const SizeSet *set, char *why, size_t n);
/* -1 when set satisfies k's assumptions and gives every extent at least
 * 1; else the first assumption it breaks, or k->nassume for an extent. */
int ir_size_set_breaks(const Kernel *k, const SizeSet *set);
/* The largest value expression e of k's sizes takes at the sizes k's
 * assumptions allow (an upper bound where e is not affine); false when
 * none is known. */
bool ir_size_expr_max(const Kernel *k, const Expr *e, int64_t *max);
/* "n = 64, m = 7" */
void ir_size_set_text(const Kernel *k, const SizeSet *set, char *out, size_t n);

#endif
