/* Value ranges of integer expressions, and the undefined cases of one
 * operation that its operands' ranges leave possible (ir/ranges.c). The
 * instrumented reference (lower/ref_body.c) checks at run time only
 * what this cannot rule out: int8 products, loop-counter arithmetic and
 * division by a constant need no check. */
#ifndef NPG_RANGES_H
#define NPG_RANGES_H

#include "ir/ir.h"

typedef __int128 IrWide;

/* Inclusive; exact for every 64-bit value. */
typedef struct {
  IrWide lo, hi;
} IrRange;

/* Undefined cases of one operation (bits). */
enum {
  IR_UB_OVERFLOW = 1,    /* signed overflow: + - * unary -, MIN / -1, MIN % -1, <<, abs(MIN) */
  IR_UB_DIV_ZERO = 2,    /* / or % by zero */
  IR_UB_SHIFT_COUNT = 4, /* shift count negative, or the width of the promoted left operand or more */
  IR_UB_SHIFT_NEG = 8,   /* left shift of a negative value */
  IR_UB_CONVERT = 16,    /* a floating value converted to an integer type that cannot hold it */
};

/* Every value of type t: an integer type's range; for a floating type a
 * range wider than any integer's. */
IrRange ir_range_type(const Type *t);
IrRange ir_range_const(int64_t v);
IrRange ir_range_union(IrRange a, IrRange b);
bool ir_range_within(IrRange r, const Type *t);

/* Operation e (EX_UNARY, EX_BINARY, EX_CAST, or a call of abs) on
 * operands of ranges a (e->a, or the call's argument) and b (e->b): the
 * range of its value, and in *ub the undefined cases it can hit. The
 * range assumes that none of them happened (the check stops the run when
 * one does). */
IrRange ir_range_op(const Expr *e, IrRange a, IrRange b, unsigned *ub);

#endif
