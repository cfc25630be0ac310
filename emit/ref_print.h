/* The instrumented reference (emit/ref_print.c): a kernel as written, in
 * C that tcc compiles, with every operation that can be undefined checked
 * at run time; lowered first (lower/ref_lower.c), then printed. */
#ifndef NPG_REF_PRINT_H
#define NPG_REF_PRINT_H

#include "ir/checked_ref.h"

typedef struct {
  char *source;       /* the C text */
  CheckedSite *sites; /* site number n (from 1) is sites[n - 1] */
  int nsites;
} CheckedUnit;

/* Kernel k of module m as written, checked as ref (lower_check_ref) says: its thunk
 * `void npg_ref_K(void **args)` takes the parameters as check_thunk_text's
 * thunks do, and args[k->nparams], an int *, which gets the number of the
 * site that stopped the run, or 0 when none did. */
void emit_checked(const Module *m, const Kernel *k, const CheckRef *ref, CheckedUnit *out);
void emit_checked_free(CheckedUnit *u);

#endif
