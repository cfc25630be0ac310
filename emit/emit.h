/* LoweredModule -> C99 text: one .c and one .h per variant. emit/ prints
 * what lower/ decided (ir/lowered_module.h) and asks lower/ nothing. */
#ifndef NPG_EMIT_H
#define NPG_EMIT_H

#include "ir/ir.h"
#include "ir/lowered_module.h"

/* malloc'ed C source / header text. Deterministic: same module, same bytes. */
char *emit_c_source(const LoweredModule *m);
char *emit_c_header(const LoweredModule *m);
/* Function f's definition: prototype and body. */
void emit_c_function(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f);
/* The prototype line "void f(const int8_t A[4][4], int n)" (no ';'). */
void emit_prototype(StrBuf *sb, const LoweredFunction *f);
/* In the check's C (hooks on), after the declaration of local array b at
 * the top of a function: b declared to the simulator as a host array, as
 * the check declares the parameters, since a DMA may reach it (a callee's,
 * or an inlined one's). jit/tcc_unit.c binds npg_check_ddr. */
void emit_check_ddr(StrBuf *sb, const Buffer *b, int ind);
/* Text as a C comment: on one line, or (text of lines each ended by
 * '\n') a block whose lines after the first start with " * ". */
void emit_block_comment(StrBuf *sb, const char *text);
/* "const T NAME[4][4]": array b declared with its shape. */
void emit_array_decl(StrBuf *sb, const Buffer *b, const char *const *extents);
/* emit/emit_dma.c: an on-chip buffer's declaration, a pointer into its
 * scope at `at` bytes past its base (NULL: at the base), then its
 * comment `note` (Stmt.scope_note, Lowered.scope_note). */
void emit_onchip_decl(StrBuf *sb, const Buffer *b, const Expr *at, const char *note);
/* "(char *)npu_scope_base(NPU_NU_IB, core) + at" */
void emit_scope_address(StrBuf *sb, const Buffer *b, const char *core, const Expr *at);
/* "int8_t (*NAME)[32]" or "int8_t *NAME": a pointer to b's elements from
 * dimension from + 1 on (from = -1: to the whole array); NPU_DM, ... */
void emit_pointer_decl(StrBuf *sb, const Buffer *b, const char *name, int from);
/* Copy nest d as one DMA call (host loops around it when it has them):
 * issued on token (C text) and channel, not waited for; or, with token
 * NULL, on channel 0 and waited for at once, after a comment naming it. */
void emit_dma_call(StrBuf *sb, const DmaShape *d, int ind, const char *token, const char *channel);

/* emit/emit_cu_hooks.c: host expression e of function f of module m,
 * spelled as f.spelling says (an access of a hooked buffer through
 * npu_cu_access, tcc's masks, flat rows); the left side of an assignment
 * with operator op (OP_NONE: `=`) likewise. */
void emit_host_expr(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f, const Expr *e);
void emit_host_store(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f, const Expr *lhs, Op op);

#endif
