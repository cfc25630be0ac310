/* The instrumented reference lowered (lower/ref_lower.c, docs/check.md):
 * the kernel as written with every decision about its checks made, then
 * written as lowered IR (lower/ref_body.c) that emit/ prints as it prints
 * a variant's. Which operations are checked (the ranges
 * that rule the others out, ir/ranges.c), the sites their failures
 * report, the temporaries they need, which locals carry "set" flags,
 * which addresses are hoisted or stepped (lower/ref_hoist.c) and which
 * loops run unrolled (lower/ref_plan.c) are all here. Sites, temporaries and pointers are numbered in the
 * order the printer meets them. */
#ifndef NPG_REF_LOWER_H
#define NPG_REF_LOWER_H

#include "ir/checked_ref.h"
#include "ir/lowered_module.h"
#include "ir/ranges.h"

void lower_check_ref(const Kernel *k, CheckRef *out);
/* lower/ref_body.c: ref's body as statements (in arena a): its
 * temporaries' declarations, then its hoisted pointers and statements,
 * every check spelled in C. */
Stmt *lower_ref_body(Arena *a, const CheckRef *ref);
/* Kernel k of module m as written, checked as lower_check_ref says, as a
 * module the printer prints like a variant's (lower_module_free frees
 * it): the includes, what a failed check calls, the helpers, every
 * define, and `static void npg_checked_K(NpgCk *npg_ck, ...)`. Its
 * CheckRef's sites are the caller's to take (jit/c_text.c). */
void lower_reference_module(const Module *m, const Kernel *k, LoweredModule *out);
/* The definitions of the helpers CkExpr.helper names (C text). */
extern const char lower_ck_helpers[];
/* Frees all but the sites (taken by the unit). */
void lower_check_ref_free(CheckRef *r);

/* tcc (0.9.27) converts a signed char to unsigned short as if to int: -6
 * becomes -6, not 65530. C that tcc compiles (the check's) masks such a
 * widening to an unsigned type narrower than int, as the conversion does:
 * the mask of cast ("0xff", "0xffff"), or NULL when it needs none. */
const char *lower_tcc_mask(const Expr *cast);

#endif
