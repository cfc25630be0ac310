/* One in-memory C translation unit compiled by libtcc, with libm and the
 * simulator's intrinsic symbols (sim/npusim.h's table) bound. This is the only
 * file that talks to libtcc. */
#ifndef NPG_TCC_UNIT_H
#define NPG_TCC_UNIT_H

#include <stddef.h>

typedef struct TccUnit TccUnit;

/* Compiles `source` (named `source_name` in tcc's messages). On failure
 * returns NULL and writes tcc's messages into err (NUL-terminated). */
TccUnit *tcc_unit_compile(const char *source, const char *source_name, char *err,
                          size_t err_size);
/* The address of a global symbol of the unit, or NULL. */
void *tcc_unit_symbol(TccUnit *u, const char *name);
void tcc_unit_free(TccUnit *u);

#endif
