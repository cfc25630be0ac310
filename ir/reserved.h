/* Names a user cannot choose (see reserved.c). */
#ifndef NPG_RESERVED_H
#define NPG_RESERVED_H

#include <stdbool.h>

/* Why `name` cannot name a kernel, variant, parameter, local, loop, label,
 * buffer or macro, completing "the NAME name 'x' is reserved: ..."; NULL
 * when it can. */
const char *ir_reserved_why(const char *name);

/* A <math.h> function (sqrt, sqrtf, sqrtl; not a macro): a local of a
 * block may have its name, which hides the function there (C 6.2.1). */
bool ir_is_math_function(const char *name);

#endif
