/* A variant's C text, the way every caller makes it (docs/architecture.md):
 * lowered to one LoweredModule (lower/module.c), then printed (emit/).
 * jit/ -> lower/ -> emit/, and never back. */
#ifndef NPG_C_TEXT_H
#define NPG_C_TEXT_H

#include "lower/module.h"

/* The check's reference as compiled: its text and the checks' sites. */
typedef struct {
  char *source;       /* the C text */
  CheckedSite *sites; /* site number n (from 1) is sites[n - 1] */
  int nsites;
} CheckedUnit;

/* u's .c and .h text (malloc'ed). */
char *jit_c_source(const LowerUnit *u);
char *jit_c_header(const LowerUnit *u);
/* Both from one lowering (npugen emit writes the pair). */
void jit_c_files(const LowerUnit *u, char **source, char **header);
/* Kernel k of module m as written, with checked arithmetic: lowered
 * (lower_reference_module), printed (emit_c_source), then its thunk
 * `void npg_ref_K(void **args)`, which takes the parameters as
 * check_thunk_text's thunks do, and args[k->nparams], an int *, which
 * gets the number of the site that stopped the run, or 0 when none did. */
void jit_reference_text(const Module *m, const Kernel *k, CheckedUnit *out);
void jit_checked_unit_free(CheckedUnit *u);

#endif
