/* Range-aware simplification of integer index expressions.
 *
 * Layout transforms and loop splits leave index arithmetic such as
 * (io * 4 + ii) / 4 or (i / 4) * 4 + i % 4; given the ranges of the loop
 * counters these are io and i. The simplifier normalizes an expression to a
 * linear form sum(coeff * atom) + const (atoms: variables, div/mod nodes of
 * linear forms, and opaque subtrees), applies the division rules that the
 * ranges prove, and rebuilds the expression only when the result is smaller.
 * It keeps C semantics exactly (truncating / and %, each node's C type, the
 * implicit conversions the emitter leaves to the C compiler). */
#ifndef NPG_ARITH_H
#define NPG_ARITH_H

#include <stdint.h>

#include "ir/ir.h"

/* Value range of a variable where an expression is evaluated: typically an
 * enclosing loop counter. Inclusive; INT64_MIN / INT64_MAX leave that side
 * unbounded. Every variable is also bounded by its C type. */
typedef struct {
  const Var *var;
  int64_t lo, hi;
} VarRange;

/* Simplifies an integer expression given the ranges of its variables (those
 * not listed are unbounded). Returns e itself when nothing improves, or a new
 * expression in `a` (sharing unchanged subtrees with e) that has the same C
 * type, prints with the same C type, and has the same value for every
 * assignment of the variables within their ranges for which e is defined
 * (and is itself defined there). Non-integer expressions are returned as is;
 * loads and calls are opaque (see arith_simplify_kernel for their indices).
 * e is never modified. */
Expr *arith_simplify(Arena *a, Expr *e, const VarRange *ranges, int n);

/* The same for an array index, where only the value matters: the result
 * keeps e's IR type but may print with another type ((long)ii prints as ii). */
Expr *arith_simplify_index(Arena *a, Expr *e, const VarRange *ranges, int n);

/* Simplifies, in place, every load/store index (Expr.idx of every EX_LOAD in
 * every statement, statement lhs included) and every loop bound of k, each
 * with the ranges of its enclosing loops (computed from the loop bounds by
 * interval arithmetic; a side that cannot be bounded stays unbounded). */
void arith_simplify_kernel(Arena *a, Kernel *k);

#endif
