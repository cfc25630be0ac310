/* What an emitted variant tells callers outside npugen about the padding
 * of its input parameters (lower/padding_assumed.c). */
#ifndef NPG_PADDING_ASSUMED_H
#define NPG_PADDING_ASSUMED_H

#include "ir/ir.h"

/* One line per parameter k reads in a padded layout: "assumes X's padding
 * holds 0: pack it with k_pack_X, or fill it", between `before` (after
 * "k " when named) and `after`. The number of lines. */
int lower_padding_assumed(StrBuf *sb, const Kernel *k, bool named, const char *before, const char *after);

#endif
