/* Integer constant expressions: their value as C computes it (fe_eval_int)
 * and the one check that this value is exact (fe_check_const).
 *
 * Every operation of a constant expression is checked once, when the
 * frontend builds its node, in the type C gives it (int for int operands,
 * the usual arithmetic conversions, promotions for shifts). A signed result
 * outside its type is undefined in C and refused with the operation, its
 * exact value and the type's range. Unsigned arithmetic wraps as C defines
 * it, and conversions keep C's meaning, in kernels and macros (a kernel is C,
 * and its reference build computes the same). A schedule argument is a count
 * or a size, not C code: there (fe->exact_consts) any value change is
 * refused, unsigned wrap-around and conversions included. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/fe.h"

typedef __int128 Wide;

/* Truncates v to integer type t, as a C conversion does (two's complement;
 * to _Bool, rank 0 among the integers: whether v is not 0). */
static int64_t wrap_to(int64_t v, const Type *t) {
  if (t->rank == 0) return v != 0;
  switch (t->size) {
  case 1: return t->is_signed ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
  case 2: return t->is_signed ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
  case 4: return t->is_signed ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
  default: return v;
  }
}

/* C11 6.3.1.4: a floating value converts to an integer type only when its
 * integral part fits; otherwise the behaviour is undefined (NaN never fits). */
bool fe_float_fits(double v, const Type *t) {
  double w = trunc(v), top = ldexp(1.0, t->size * 8 - (t->is_signed ? 1 : 0));
  return w >= (t->is_signed ? -top : 0) && w < top;
}

/* A floating constant, possibly signed (tree-sitter folds "-1e30"). */
bool fe_float_const(const Expr *e, double *v) {
  if (e->kind == EX_UNARY && (e->op == OP_NEG || e->op == OP_PLUS) && fe_float_const(e->a, v)) {
    if (e->op == OP_NEG) *v = -*v;
    return true;
  }
  *v = e->fval;
  return e->kind == EX_FLOAT;
}

bool fe_eval_int(const Expr *e, int64_t *out) {
  int64_t a, b, c;
  if (!type_is_integer(e->type)) return false;
  switch (e->kind) {
  case EX_INT:
    *out = e->ival;
    return true;
  case EX_CAST:
    if (type_is_float(e->a->type)) {
      double v;
      if (!fe_float_const(e->a, &v)) return false;
      if (e->type->rank == 0) return *out = v != 0, true; /* to _Bool: defined for every value */
      if (!fe_float_fits(v, e->type)) return false;
      *out = wrap_to((int64_t)v, e->type);
      return true;
    }
    if (!fe_eval_int(e->a, &a)) return false;
    *out = wrap_to(a, e->type);
    return true;
  case EX_UNARY:
    if (!fe_eval_int(e->a, &a)) return false;
    switch (e->op) {
    case OP_NEG: *out = wrap_to((int64_t)(0 - (uint64_t)a), e->type); return true;
    case OP_PLUS: *out = a; return true;
    case OP_LNOT: *out = !a; return true;
    case OP_BNOT: *out = wrap_to(~a, e->type); return true;
    default: return false;
    }
  case EX_BINARY: {
    if (!fe_eval_int(e->a, &a) || !fe_eval_int(e->b, &b)) return false;
    bool u = !e->a->type->is_signed && e->op != OP_SHL && e->op != OP_SHR;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (e->op) {
    case OP_ADD: c = (int64_t)(ua + ub); break;
    case OP_SUB: c = (int64_t)(ua - ub); break;
    case OP_MUL: c = (int64_t)(ua * ub); break;
    case OP_DIV:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      c = u ? (int64_t)(ua / ub) : a / b;
      break;
    case OP_MOD:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      c = u ? (int64_t)(ua % ub) : a % b;
      break;
    case OP_SHL:
      if (b < 0 || b >= 63) return false;
      c = (int64_t)(ua << b);
      break;
    case OP_SHR:
      if (b < 0 || b >= 63) return false;
      c = a >> b;
      break;
    case OP_BAND: c = a & b; break;
    case OP_BOR: c = a | b; break;
    case OP_BXOR: c = a ^ b; break;
    case OP_LT: c = u ? ua < ub : a < b; break;
    case OP_LE: c = u ? ua <= ub : a <= b; break;
    case OP_GT: c = u ? ua > ub : a > b; break;
    case OP_GE: c = u ? ua >= ub : a >= b; break;
    case OP_EQ: c = a == b; break;
    case OP_NE: c = a != b; break;
    case OP_LAND: c = a && b; break;
    case OP_LOR: c = a || b; break;
    default: return false;
    }
    *out = wrap_to(c, e->type);
    return true;
  }
  case EX_COND:
    if (!fe_eval_int(e->a, &a)) return false;
    return fe_eval_int(a ? e->b : e->c, out);
  default:
    return false;
  }
}

/* ---------------- the exactness check ---------------- */

/* The mathematical value of a constant held in C's representation of t. */
static Wide wide_of(int64_t v, const Type *t) { return !t->is_signed && t->size == 8 ? (Wide)(uint64_t)v : (Wide)v; }

static bool wide_fits(Wide v, const Type *t) {
  int64_t lo;
  uint64_t hi;
  type_int_range(t, &lo, &hi);
  return v >= lo && v <= (Wide)hi;
}

static void wide_text(Wide v, char *buf, size_t n) {
  char digits[48];
  int k = 0;
  unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
  do digits[k++] = (char)('0' + (int)(m % 10));
  while ((m /= 10) && k < 47);
  size_t o = 0;
  if (v < 0 && o + 1 < n) buf[o++] = '-';
  while (k && o + 1 < n) buf[o++] = digits[--k];
  buf[o] = 0;
}

/* The exact result of e's operation on a, b; false when C has none at all
 * (the shift cases C leaves undefined whatever the type's width). */
static bool exact_op(const Expr *e, Wide a, Wide b, Wide *r) {
  switch (e->op) {
  case OP_ADD: *r = a + b; return true;
  case OP_SUB: *r = a - b; return true;
  case OP_MUL: *r = a * b; return true; /* |a|, |b| < 2^64 */
  case OP_DIV: *r = a / b; return true; /* b != 0: the frontend refused it */
  case OP_MOD: *r = a / b; return true; /* C: a % b is undefined when a / b is */
  case OP_SHL: *r = a * ((Wide)1 << (int)b); return true; /* 0 <= b < width: checked before */
  case OP_NEG: *r = -a; return true;
  default: return false;
  }
}

static const char *op_name(Op op) {
  switch (op) {
  case OP_ADD: return "sum";
  case OP_SUB: return "difference";
  case OP_MUL: return "product";
  case OP_DIV: return "quotient";
  case OP_SHL: return "left shift";
  case OP_NEG: return "negation";
  default: return "operation";
  }
}

/* The source text of n for a message, shortened past 60 bytes. */
static const char *short_text(Fe *fe, TSNode n) {
  const char *t = fe_text(fe, n);
  if (strlen(t) <= 60) return t;
  return arena_printf(fe->arena, "%.28s ... %s", t, t + strlen(t) - 28);
}

_Noreturn void fe_arith_error(Fe *fe, TSNode at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  SrcLoc loc = fe_loc(fe, at);
  diag_verror(fe->diags, false, fe->file, fe->src, loc.line, loc.col, fmt, ap);
  va_end(ap);
  fe->arith_error = true;
  longjmp(fe->fail, 1);
}

static _Noreturn void out_of_type(Fe *fe, TSNode at, TSNode whole, const char *what, Wide v, const Type *t) {
  char val[48], lo_s[48], hi_s[48];
  int64_t lo;
  uint64_t hi;
  type_int_range(t, &lo, &hi);
  wide_text(v, val, sizeof val);
  wide_text(lo, lo_s, sizeof lo_s);
  wide_text((Wide)hi, hi_s, sizeof hi_s);
  const char *how = t->is_signed ? "overflows" : "wraps around in";
  fe_arith_error(fe, at, "the %s '%s' %s its type %s: its value %s is outside [%s, %s]%s", what, short_text(fe, whole), how,
                 t->name, val, lo_s, hi_s, t->is_signed ? "" : "; a schedule argument must be exact");
}

void fe_check_const(Fe *fe, TSNode at, TSNode whole, const Expr *e) {
  int64_t a, b = 0;
  if (!type_is_integer(e->type)) return;
  bool binary = e->kind == EX_BINARY;
  if (!binary && !(e->kind == EX_UNARY && e->op == OP_NEG)) return;
  if (!fe_eval_int(e->a, &a) || (binary && !fe_eval_int(e->b, &b))) return;
  const Type *t = e->type;
  Wide x = wide_of(a, e->a->type), y = binary ? wide_of(b, e->b->type) : 0, r;
  if (e->op == OP_SHL && t->is_signed && x < 0)
    fe_arith_error(fe, at, "the left shift '%s' shifts a negative value, which is undefined in C", short_text(fe, whole));
  if ((e->op == OP_DIV || e->op == OP_MOD) && y == 0) return; /* refused as a division by zero */
  if (!exact_op(e, x, y, &r) || wide_fits(r, t)) return;
  if (!t->is_signed && !fe->exact_consts) return; /* C defines unsigned wrap-around */
  if (e->op == OP_MOD) {
    char q[48];
    wide_text(r, q, sizeof q);
    fe_arith_error(fe, at, "the remainder '%s' is undefined in C: its quotient %s overflows its type %s",
                   short_text(fe, whole), q, t->name);
  }
  out_of_type(fe, at, whole, op_name(e->op), r, t);
}

void fe_check_conversion(Fe *fe, SrcLoc at, const Expr *e, const Type *to) {
  int64_t v;
  if (!fe->exact_consts || !type_is_integer(to) || !type_is_integer(e->type) || !fe_eval_int(e, &v)) return;
  Wide w = wide_of(v, e->type);
  if (wide_fits(w, to)) return;
  char val[48];
  wide_text(w, val, sizeof val);
  diag_error(fe->diags, fe->file, fe->src, at.line, at.col,
             "converting %s to %s changes its value; a schedule argument must be exact", val, to->name);
  fe->arith_error = true;
  longjmp(fe->fail, 1);
}
