/* What a kernel file tells `npugen check` about its data (docs/check.md):
 * `#pragma npu inputs(KERNEL, PARAM, ...)` and
 * `#pragma npu allow_nonfinite(KERNEL[, PARAM...])`, parsed by
 * frontend/inputs.c. Plain data. */
#ifndef NPG_CHECK_SPEC_H
#define NPG_CHECK_SPEC_H

#include "ir/ir.h"

typedef enum {
  SPEC_RANGE,           /* PARAM's values uniform in [lo, hi] (floats: [lo, hi)) */
  SPEC_SPD,             /* PARAM's trailing n x n matrices symmetric, diagonally dominant */
  SPEC_ALLOW_NONFINITE, /* PARAM (NULL: every output) may end NaN or infinite */
} CheckSpecKind;

struct CheckSpec {
  CheckSpec *next;
  CheckSpecKind kind;
  const char *kernel;
  const char *param; /* NULL only for allow_nonfinite(KERNEL) */
  int64_t ilo, ihi;  /* SPEC_RANGE of an integer parameter */
  double flo, fhi;   /* SPEC_RANGE of a floating one */
  SrcLoc loc;        /* the pragma's call */
};

/* The spec of kind `kind` for kernel k's parameter named `param`, or NULL.
 * For SPEC_ALLOW_NONFINITE a spec for the whole kernel also matches. */
const CheckSpec *ir_spec_find(const CheckSpec *list, const Kernel *k, CheckSpecKind kind, const char *param);

#endif
