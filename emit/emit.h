/* IR -> C99 text: one .c and one .h per variant. */
#ifndef NPG_EMIT_H
#define NPG_EMIT_H

#include "ir/ir.h"
#include "lower/lower.h"
#include "sim/npusim.h"

#define NPUGEN_VERSION "0.1.0"

/* What a variant is emitted from: the kernel IR, the schedule text that
 * produced it (NULL for the kernel as written) and the target it was
 * scheduled for (NULL: the default target). */
typedef struct {
  const Module *m;
  const Kernel *k;       /* the (scheduled) IR */
  const char *name;      /* emitted function name */
  const char *schedule;  /* "split(i, 64, io, ii)\n..." or NULL */
  const NpuTarget *target;
  EmitOrder order;       /* for the check only: the order `lowered` runs marked loops in, a program's functions too */
  bool cu_hooks;         /* for the check only: host code's accesses go through npu_cu_access */
  /* C for tcc (the check, npg_jit_variant): an array sized by the
   * kernel's sizes is a flat pointer (emit/emit_cu_hooks.c says why) */
  bool tcc;
  /* the check of a kernel with symbolic sizes: k at one size set
   * (ir_instantiate), whose arrays a run allocates and compares; the text
   * is still k's. NULL otherwise. */
  const Kernel *sized;
  /* what the unit prints: k lowered (lower/), in `order`
   * (lower_for_order); lower_error: its synchronisation check's failure
   * (NULL or "" when it held), printed as an #error */
  const Kernel *lowered;
  const char *lower_error;
  /* every array parameter `restrict` in the signature, as if the kernel
   * declared each `T A[restrict N]...` (npugen emit --assume-no-alias) */
  bool assume_no_alias;
  /* the .c includes "<name>.h" (the pair npugen emit writes, so the
   * prototype is checked against the definition); off for C compiled
   * alone, as the JIT does */
  bool own_header;
} EmitUnit;

/* malloc'ed C source / header text. Deterministic: same IR, same bytes. */
char *emit_c_source(const EmitUnit *u);
char *emit_c_header(const EmitUnit *u);
/* The function's definition: prototype and body (npu: the C the unit
 * belongs to uses the NPU, so the check's hooks apply when asked). */
void emit_c_function(StrBuf *sb, const EmitUnit *u, bool npu);
/* emit/emit_program.c: a program's functions (lower_program_functions),
 * one static function each; nothing for a kernel without calls. */
void emit_program_functions(StrBuf *sb, const EmitUnit *u, bool npu);
/* In the check's C (hooks on), after the declaration of local array b at
 * the top of a function: b declared to the simulator as a host array, as
 * the check declares the parameters, since a DMA may reach it (a callee's,
 * or an inlined one's). jit/tcc_unit.c binds npg_check_ddr. */
void emit_check_ddr(StrBuf *sb, const Buffer *b, int ind);
/* Text as a C comment: on one line, or (text of lines each ended by
 * '\n') a block whose lines after the first start with " * ". */
void emit_block_comment(StrBuf *sb, const char *text);
/* The prototype line "void f(const int8_t A[4][4], int n)" (no ';'). */
void emit_prototype(StrBuf *sb, const EmitUnit *u);
/* VARIANT_pack_BUF / VARIANT_unpack_BUF of each parameter with a new layout
 * (emit/emit_layout.c): their definitions, and their declarations. */
void emit_layout_helpers(StrBuf *sb, const EmitUnit *u);
void emit_layout_prototypes(StrBuf *sb, const EmitUnit *u);
/* "const T NAME[4][4]": array b declared with its shape. */
void emit_array_decl(StrBuf *sb, const Buffer *b);
/* emit/emit_dma.c: an on-chip buffer's declaration, a pointer into its
 * scope (no ';'), into copy number `copy` (C text) of a double-buffered
 * one when copy is not NULL. */
void emit_onchip_decl(StrBuf *sb, const Buffer *b, const char *copy);
/* "int8_t (*NAME)[32]" or "int8_t *NAME": a pointer to b's elements from
 * dimension from + 1 on (from = -1: to the whole array); NPU_DM, ... */
void emit_pointer_decl(StrBuf *sb, const Buffer *b, const char *name, int from);
const char *emit_scope_macro(const char *scope);
/* Copy nest d as one DMA call (host loops around it when it has them):
 * issued on token (C text) and channel, not waited for; or, with token
 * NULL, on channel 0 and waited for at once, after a comment naming it. */
void emit_dma_call(StrBuf *sb, const DmaShape *d, int ind, const char *token, const char *channel);

/* emit/emit_cu_hooks.c: an expression, and the left side of an assignment
 * with operator op (OP_NONE: `=`), with each access of an on-chip buffer or
 * a parameter through npu_cu_access (EmitUnit.cu_hooks). */
void emit_cu_expr(StrBuf *sb, const Expr *e);
/* The check's C without hooks (a variant without intrinsics): e as tcc
 * must see it (lower_tcc_mask: a tcc conversion bug). */
void emit_check_expr(StrBuf *sb, const Expr *e);
/* e as tcc must see it: arrays sized by the kernel's sizes flat. */
void emit_tcc_expr(StrBuf *sb, const Expr *e);
void emit_cu_store(StrBuf *sb, const Expr *lhs, Op op);

#endif
