/* How the .c's definition spells an array parameter's extent in the
 * sizes (docs/kernel-language.md, "Symbolic sizes"). C99 evaluates a
 * variably modified parameter's size expressions when the function is
 * entered, before its first statement: `in[h + 2]` overflows at h =
 * INT_MAX before NPUGEN_ASSUME(h <= 2147483645) can test it. So an extent
 * with signed arithmetic is spelt in a wider type, `in[(long long)h + 2]`,
 * exact for every int size; where long long could overflow (64-bit sizes,
 * a product of sizes) in unsigned long long, which wraps instead and is
 * exact wherever the entry tests pass. Both have the extent's value
 * wherever the function runs, so the type stays compatible with the
 * header's prototype, which keeps the extent as written. */
#include <stdint.h>

#include "lower/lower.h"

#define WIDE_LIMIT ((uint64_t)1 << 62)

/* An upper bound on |e| for every value of its sizes, saturating at
 * WIDE_LIMIT; WIDE_LIMIT for what the bound does not cover. */
static uint64_t magnitude(const Expr *e) {
  switch (e->kind) {
  case EX_INT:
    return e->ival < 0 ? (uint64_t)-(e->ival + 1) + 1 : (uint64_t)e->ival;
  case EX_VAR:
    return e->var->type->size <= 4 ? (uint64_t)1 << 32 : WIDE_LIMIT;
  case EX_CAST:
    return type_is_integer(e->type) ? magnitude(e->a) : WIDE_LIMIT;
  case EX_UNARY:
    return e->op == OP_NEG || e->op == OP_PLUS ? magnitude(e->a) : WIDE_LIMIT;
  case EX_BINARY: {
    uint64_t l = magnitude(e->a), r = magnitude(e->b);
    if (l >= WIDE_LIMIT || r >= WIDE_LIMIT) return WIDE_LIMIT;
    if (e->op == OP_ADD || e->op == OP_SUB) return l + r < WIDE_LIMIT ? l + r : WIDE_LIMIT;
    if (e->op == OP_MUL) return !l || !r ? 0 : l <= WIDE_LIMIT / r ? l * r : WIDE_LIMIT;
    return WIDE_LIMIT;
  }
  default:
    return WIDE_LIMIT;
  }
}

/* Signed arithmetic on sizes somewhere in e: what can overflow. */
static bool signed_arithmetic(const Expr *e) {
  if (e->kind == EX_CAST) return signed_arithmetic(e->a);
  if (e->kind == EX_UNARY) return (e->op == OP_NEG && e->type->is_signed) || signed_arithmetic(e->a);
  if (e->kind != EX_BINARY) return false;
  return (type_is_integer(e->type) && e->type->is_signed) || signed_arithmetic(e->a) || signed_arithmetic(e->b);
}

/* e with each size read in t and each operation done in t. */
static Expr *widen(Arena *a, const Expr *e, const Type *t) {
  switch (e->kind) {
  case EX_VAR:
    return ir_cast(a, ir_var(a, e->var, e->loc), t, false);
  case EX_CAST:
    return widen(a, e->a, t);
  case EX_UNARY: {
    Expr *u = ir_expr_copy(a, e);
    u->a = widen(a, e->a, t);
    u->type = t;
    return u;
  }
  case EX_BINARY:
    return ir_binary(a, e->op, widen(a, e->a, t), widen(a, e->b, t), t, e->loc);
  default: /* a constant: C converts it */
    return ir_expr_copy(a, e);
  }
}

const Expr *lower_entry_extent(Arena *a, const Expr *extent) {
  if (!extent || !signed_arithmetic(extent)) return NULL;
  return widen(a, extent, magnitude(extent) < WIDE_LIMIT ? &ty_llong : &ty_ullong);
}
