/* A variant's C text, the way every caller makes it (docs/architecture.md):
 * lowered to one LoweredModule (lower/module.c), then printed (emit/).
 * jit/ -> lower/ -> emit/, and never back. */
#ifndef NPG_C_TEXT_H
#define NPG_C_TEXT_H

#include "emit/ref_print.h"
#include "lower/module.h"

/* u's .c and .h text (malloc'ed). */
char *jit_c_source(const LowerUnit *u);
char *jit_c_header(const LowerUnit *u);
/* Both from one lowering (npugen emit writes the pair). */
void jit_c_files(const LowerUnit *u, char **source, char **header);
/* Kernel k of module m as written, with checked arithmetic: lowered
 * (lower_check_ref), then printed (emit_checked). */
void jit_reference_text(const Module *m, const Kernel *k, CheckedUnit *out);

#endif
