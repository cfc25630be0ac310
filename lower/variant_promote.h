/* The check's C of a variant: an element a serial innermost loop only
 * accumulates into is kept in a local (lower/variant_promote.c). */
#ifndef NPG_VARIANT_PROMOTE_H
#define NPG_VARIANT_PROMOTE_H

#include "ir/ir.h"

/* low (variant ir lowered) with each such loop promoted, in arena a; low
 * itself when there is none. Only for the check's text: the emitted file
 * prints low. */
const Kernel *lower_check_promote(Arena *a, const Kernel *ir, const Kernel *low);

#endif
