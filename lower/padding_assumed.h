/* What an emitted variant tells callers outside npugen about the padding
 * of its input parameters (lower/padding_assumed.c). */
#ifndef NPG_PADDING_ASSUMED_H
#define NPG_PADDING_ASSUMED_H

#include "ir/ir.h"

/* One line per parameter k reads in a padded layout, each ended by '\n':
 * "assumes X's padding holds 0: pack it with k_pack_X, or fill it" (after
 * "k " when named). malloc'ed; "" when there is none. */
char *lower_padding_assumed(const Kernel *k, bool named);

#endif
