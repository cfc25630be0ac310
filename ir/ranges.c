/* Interval arithmetic over the mathematical integers (__int128: exact for
 * one operation on 64-bit values, saturated past 2^100), as C computes each
 * operation in its promoted type: a signed result outside its type is an
 * overflow, an unsigned one wraps (then only the type's range is known). */
#include "ir/ranges.h"

#define BIG ((IrWide)1 << 100)

static IrWide sat(IrWide v) { return v > BIG ? BIG : v < -BIG ? -BIG : v; }

static IrWide smul(IrWide a, IrWide b) {
  IrWide r;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? -BIG : BIG;
  return sat(r);
}

static IrWide wmin(IrWide a, IrWide b) { return a < b ? a : b; }
static IrWide wmax(IrWide a, IrWide b) { return a > b ? a : b; }
static IrWide wabs(IrWide a) { return a < 0 ? -a : a; }

IrRange ir_range_type(const Type *t) {
  if (!type_is_integer(t)) return (IrRange){-BIG, BIG};
  int64_t lo;
  uint64_t hi;
  type_int_range(t, &lo, &hi);
  return (IrRange){lo, (IrWide)hi};
}

IrRange ir_range_const(int64_t v) { return (IrRange){v, v}; }

IrRange ir_range_union(IrRange a, IrRange b) { return (IrRange){wmin(a.lo, b.lo), wmax(a.hi, b.hi)}; }

bool ir_range_within(IrRange r, const Type *t) {
  IrRange ty = ir_range_type(t);
  return type_is_integer(t) && r.lo >= ty.lo && r.hi <= ty.hi;
}

static bool holds(IrRange r, IrWide v) { return r.lo <= v && v <= r.hi; }

/* r where it fits t: a signed result past t overflowed (*ub), an
 * unsigned one wrapped to anything of t. */
static IrRange fit(IrRange r, const Type *t, unsigned *ub) {
  if (ir_range_within(r, t)) return r;
  IrRange ty = ir_range_type(t);
  if (!t->is_signed) return ty;
  *ub |= IR_UB_OVERFLOW;
  r = (IrRange){wmax(r.lo, ty.lo), wmin(r.hi, ty.hi)};
  return r.lo <= r.hi ? r : ty;
}

static IrRange arith(Op op, IrRange a, IrRange b) {
  switch (op) {
  case OP_ADD: return (IrRange){sat(a.lo + b.lo), sat(a.hi + b.hi)};
  case OP_SUB: return (IrRange){sat(a.lo - b.hi), sat(a.hi - b.lo)};
  default: {
    IrWide p[4] = {smul(a.lo, b.lo), smul(a.lo, b.hi), smul(a.hi, b.lo), smul(a.hi, b.hi)};
    return (IrRange){wmin(wmin(p[0], p[1]), wmin(p[2], p[3])), wmax(wmax(p[0], p[1]), wmax(p[2], p[3]))};
  }
  }
}

/* / and %: the divisor may be 0, or -1 with the dividend the type's least. */
static IrRange divide(const Expr *e, IrRange a, IrRange b, unsigned *ub) {
  const Type *t = e->type;
  if (holds(b, 0)) *ub |= IR_UB_DIV_ZERO;
  if (t->is_signed && holds(b, -1) && holds(a, ir_range_type(t).lo)) *ub |= IR_UB_OVERFLOW;
  IrWide m = wmax(wabs(a.lo), wabs(a.hi));
  if (e->op == OP_DIV && !holds(b, 0)) { /* truncation is monotone in each operand: the corners bound it */
    IrWide q[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
    return (IrRange){wmin(wmin(q[0], q[1]), wmin(q[2], q[3])), wmax(wmax(q[0], q[1]), wmax(q[2], q[3]))};
  }
  if (e->op == OP_DIV) return a.lo >= 0 && b.lo >= 0 ? (IrRange){0, a.hi} : (IrRange){-m, m};
  IrWide r = wmax(wabs(b.lo), wabs(b.hi)) - 1; /* |a % b| < |b| and <= |a|, with a's sign */
  if (r < 0) r = 0;
  if (a.lo >= 0) return (IrRange){0, wmin(a.hi, r)};
  if (a.hi <= 0) return (IrRange){wmax(a.lo, -r), 0};
  return (IrRange){-wmin(m, r), wmin(m, r)};
}

static IrRange shift(const Expr *e, IrRange a, IrRange b, unsigned *ub) {
  const Type *t = e->type;
  int width = t->size * 8;
  if (b.lo < 0 || b.hi >= width) *ub |= IR_UB_SHIFT_COUNT;
  int lo = (int)wmax(b.lo, 0), hi = (int)wmin(b.hi, width - 1);
  if (lo > hi) return ir_range_type(t);
  if (e->op == OP_SHR) {
    IrWide top = a.hi >= 0 ? a.hi >> lo : a.hi >> hi, bottom = a.lo >= 0 ? a.lo >> hi : a.lo >> lo;
    return (IrRange){bottom, top};
  }
  if (t->is_signed && a.lo < 0) *ub |= IR_UB_SHIFT_NEG;
  IrRange r = {wmax(a.lo, 0), wmax(a.hi, 0)};
  if (r.hi > (BIG >> hi)) return fit((IrRange){0, BIG}, t, ub);
  return fit((IrRange){r.lo << lo, r.hi << hi}, t, ub);
}

static IrRange bits(const Expr *e, IrRange a, IrRange b) {
  if (e->op == OP_BAND && (a.lo >= 0 || b.lo >= 0))
    return (IrRange){0, a.lo >= 0 && b.lo >= 0 ? wmin(a.hi, b.hi) : a.lo >= 0 ? a.hi : b.hi};
  if (a.lo < 0 || b.lo < 0) return ir_range_type(e->type);
  IrWide m = 1;
  while (m <= wmax(a.hi, b.hi)) m <<= 1;
  return (IrRange){0, m - 1};
}

static IrRange unary(const Expr *e, IrRange a, unsigned *ub) {
  const Type *t = e->type;
  switch (e->op) {
  case OP_PLUS: return a;
  case OP_LNOT: return (IrRange){0, 1};
  case OP_NEG: return type_is_integer(t) ? fit((IrRange){-a.hi, -a.lo}, t, ub) : a;
  default: { /* ~ never overflows: an unsigned result wraps */
    IrRange r = {-a.hi - 1, -a.lo - 1};
    return ir_range_within(r, t) ? r : ir_range_type(t);
  }
  }
}

static IrRange binary(const Expr *e, IrRange a, IrRange b, unsigned *ub) {
  if (e->op >= OP_LT && e->op <= OP_LOR) return (IrRange){0, 1};
  if (!type_is_integer(e->type)) return ir_range_type(e->type);
  switch (e->op) {
  case OP_ADD: case OP_SUB: case OP_MUL: return fit(arith(e->op, a, b), e->type, ub);
  case OP_DIV: case OP_MOD: return divide(e, a, b, ub);
  case OP_SHL: case OP_SHR: return shift(e, a, b, ub);
  default: return bits(e, a, b);
  }
}

IrRange ir_range_op(const Expr *e, IrRange a, IrRange b, unsigned *ub) {
  *ub = 0;
  const Type *t = e->type;
  switch (e->kind) {
  case EX_CAST:
    if (!type_is_integer(t)) return ir_range_type(t);
    if (!type_is_integer(e->a->type)) {
      *ub |= IR_UB_CONVERT;
      return ir_range_type(t);
    }
    return ir_range_within(a, t) ? a : ir_range_type(t);
  case EX_UNARY:
    return unary(e, a, ub);
  case EX_BINARY:
    return binary(e, a, b, ub);
  case EX_CALL: /* abs */
    if (holds(a, ir_range_type(t).lo)) *ub |= IR_UB_OVERFLOW;
    return (IrRange){a.lo > 0 ? a.lo : a.hi < 0 ? -a.hi : 0, wmin(wmax(wabs(a.lo), wabs(a.hi)), ir_range_type(t).hi)};
  default:
    return ir_range_type(t);
  }
}
