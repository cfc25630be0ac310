/* `npugen intrinsics`: the intrinsics described from the files npugen
 * already reads (jit/intrin_doc.c, jit/intrin_header.c). */
#ifndef NPG_INTRIN_DOC_H
#define NPG_INTRIN_DOC_H

#include <stdbool.h>

#include "ir/util.h"

/* name's declaration in npu_intrinsics.h's text hdr as the user calls it
 * ("void npu_nu_matmul_i8(int32_t *C, ...);"), appended to sig; false when
 * the header does not declare it. */
bool intrin_signature(const char *hdr, const char *name, StrBuf *sig);
/* The header's comment above name's declaration (or above the macro call
 * that declares it), appended to out; nothing when there is none. */
void intrin_header_comment(const char *hdr, const char *name, StrBuf *out);

#endif
