/* Names a user cannot choose (see reserved.c). */
#ifndef NPG_RESERVED_H
#define NPG_RESERVED_H

/* Why `name` cannot name a kernel, variant, parameter, local, loop, label,
 * buffer or macro, completing "the NAME name 'x' is reserved: ..."; NULL
 * when it can. */
const char *ir_reserved_why(const char *name);

#endif
