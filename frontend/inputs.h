/* `#pragma npu inputs(...)` and `#pragma npu allow_nonfinite(...)`
 * (frontend/inputs.c, ir/check_spec.h). */
#ifndef NPG_FE_INPUTS_H
#define NPG_FE_INPUTS_H

#include "frontend/fe.h"

/* text is the pragma's argument, "npu ...". True when it is one of the
 * check's pragmas: then it is recorded in fe->m->check_specs, or an error
 * unwinds through fe->fail. False for any other pragma (a schedule step). */
bool fe_check_pragma(Fe *fe, const char *text, SrcLoc loc);

/* The kernel a pragma's argument n names, defined above it; an error
 * (with a suggestion) otherwise. */
Kernel *fe_pragma_kernel(Fe *fe, TSNode n);

#endif
