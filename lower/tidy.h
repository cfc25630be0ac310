/* The tidying pass of the lowering (lower/tidy.c): emitted code a
 * reviewer would commit, decided in the IR, never in the printer. */
#ifndef NPG_LOWER_TIDY_H
#define NPG_LOWER_TIDY_H

#include "lower/lower.h"

/* Before the other passes: k with each loop of one pass replaced by its
 * body, its counter replaced by its one value and the indices under it
 * folded (in a; the statements around copied, the rest shared). The DMA
 * shapes and intrinsic calls the passes work out then see folded indices.
 * A tensorized nest under a window guard gets `const int ii_start = ...;`
 * before it, in a block. k itself when it has neither. */
const Kernel *lower_tidy_loops(Arena *a, const Kernel *k);

/* After the other passes, over `out`'s lowered body (its new variables
 * numbered in out): the waits for every slot of a per-core token array
 * become one loop over the cores (and copies), and a subexpression a
 * statement prints more than once (more than a few tokens) is held by a
 * const local declared just before it. Returns the new body. */
Stmt *lower_tidy_code(Lower *lw, Kernel *out, const Stmt *body);

#endif
