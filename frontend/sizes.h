/* `#pragma npu assume(...)` and `#pragma npu sizes(...)` of a kernel with
 * symbolic sizes (frontend/sizes.c). */
#ifndef NPG_FE_SIZES_H
#define NPG_FE_SIZES_H

#include "frontend/fe.h"

/* name is "assume" or "sizes"; a[0..n) the call's arguments. Records them
 * on the kernel, or an error unwinds through fe->fail. */
void fe_sizes_pragma(Fe *fe, TSNode call, const char *name, TSNode *a, uint32_t n);

#endif
