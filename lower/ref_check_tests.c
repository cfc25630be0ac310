/* The test of each check the reference makes (lower/ref_lower.c decides
 * which checks, their sites and temporaries): the C condition under which
 * the check fails, over the temporaries that hold the operands (npg_tN),
 * with the limits of the operation's type; for a conversion, the one
 * under which the value fits; for + - * of a 64-bit type, the helper
 * that checks it instead, whose C the reference's prelude holds
 * (lower_ck_helpers, below). */
#include <math.h>
#include <stdarg.h>

#include "lower/ref_lower_state.h"

static const char *min_text(const Type *t) {
  return t->size == 4 ? "(-2147483647 - 1)" : t->kind == TY_LONG ? "(-9223372036854775807L - 1)" : "(-9223372036854775807LL - 1)";
}

static const char *max_text(const Type *t) {
  return t->size == 4 ? "2147483647" : t->kind == TY_LONG ? "9223372036854775807L" : "9223372036854775807LL";
}

/* The helpers named by CkExpr.helper, each failing at site s when the
 * operation on long long would overflow. */
const char lower_ck_helpers[] =
    "#define NPG_LL_MAX 9223372036854775807LL\n"
    "#define NPG_LL_MIN (-NPG_LL_MAX - 1)\n"
    "static long long npg_add_ll(NpgCk *c, int s, long long a, long long b) {\n"
    "  if (b > 0 ? a > NPG_LL_MAX - b : a < NPG_LL_MIN - b) npg_ub(c, s);\n"
    "  return a + b;\n"
    "}\n"
    "static long long npg_sub_ll(NpgCk *c, int s, long long a, long long b) {\n"
    "  if (b < 0 ? a > NPG_LL_MAX + b : a < NPG_LL_MIN + b) npg_ub(c, s);\n"
    "  return a - b;\n"
    "}\n"
    "static long long npg_mul_ll(NpgCk *c, int s, long long a, long long b) {\n"
    "  if (a > 0 ? (b > 0 ? a > NPG_LL_MAX / b : b < NPG_LL_MIN / a)\n"
    "            : (b > 0 ? a < NPG_LL_MIN / b : a != 0 && b < NPG_LL_MAX / a))\n"
    "    npg_ub(c, s);\n"
    "  return a * b;\n"
    "}\n";

/* Pieces of a test: temporary t, a constant as spelled, an operation. */
static Expr *tmp(CkLower *c, int t) { return ir_var(&c->out->arena, c->out->temps[t - 1], (SrcLoc){0}); }

static Expr *lit(CkLower *c, ExprKind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Expr *lit(CkLower *c, ExprKind kind, const char *fmt, ...) {
  Expr *e = ARENA_NEW(&c->out->arena, Expr);
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  *e = (Expr){.kind = kind, .type = kind == EX_INT ? &ty_int : &ty_double};
  e->text = arena_strdup(&c->out->arena, sb.data);
  sb_free(&sb);
  return e;
}

static Expr *op(CkLower *c, Op o, Expr *a, Expr *b) {
  return ir_binary(&c->out->arena, o, a, b, &ty_int, (SrcLoc){0});
}

/* npg_tN outside the range of type t (an int), or with a signed count
 * outside [0, width): `(npg_tN < 0 || npg_tN >= 32)` */
static Expr *outside(CkLower *c, int n, const Type *t) {
  Expr *lo = lit(c, EX_INT, "%s", min_text(t)), *hi = lit(c, EX_INT, "%s", max_text(t));
  return op(c, OP_LOR, op(c, OP_LT, tmp(c, n), lo), op(c, OP_GT, tmp(c, n), hi));
}

static Expr *bad_count(CkLower *c, int n, int width, bool is_signed) {
  Expr *high = op(c, OP_GE, tmp(c, n), lit(c, EX_INT, "%d", width));
  if (!is_signed) return high;
  Expr *either = op(c, OP_LOR, op(c, OP_LT, tmp(c, n), lit(c, EX_INT, "0")), high);
  either->parens = 1;
  return either;
}

static void test(CkExpr *x, CkCheck k, Expr *cond) {
  if (x->site[k]) x->tests[x->ntests++] = (CkTest){x->site[k], cond};
}

/* + - *: the long long result in range, or a helper; / % << >>: the
 * divisor, the count, the shifted value, the result. */
static void binary_tests(CkLower *c, CkExpr *x) {
  const Expr *e = x->e;
  const Type *t = e->type;
  int ta = x->temp[0], tb = x->temp[1], width = t->size * 8;
  if (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) {
    if (ta) test(x, CK_OVERFLOW, outside(c, ta, t));
    else x->helper = e->op == OP_ADD ? "npg_add_ll" : e->op == OP_SUB ? "npg_sub_ll" : "npg_mul_ll";
    return;
  }
  if (x->site[CK_DIV_ZERO]) test(x, CK_DIV_ZERO, op(c, OP_EQ, tmp(c, tb), lit(c, EX_INT, "0")));
  if (x->site[CK_SHIFT_COUNT]) test(x, CK_SHIFT_COUNT, bad_count(c, tb, width, e->b->type->is_signed));
  if (x->site[CK_SHIFT_NEG]) test(x, CK_SHIFT_NEG, op(c, OP_LT, tmp(c, ta), lit(c, EX_INT, "0")));
  if (!x->site[CK_OVERFLOW]) return;
  if (e->op == OP_SHL) {
    Expr *room = op(c, OP_SHR, lit(c, EX_INT, "%s", max_text(t)), tmp(c, tb));
    room->parens = 1;
    test(x, CK_OVERFLOW, op(c, OP_GT, tmp(c, ta), room));
  } else {
    test(x, CK_OVERFLOW, op(c, OP_LAND, op(c, OP_EQ, tmp(c, tb), lit(c, EX_INT, "-1")),
                                 op(c, OP_EQ, tmp(c, ta), lit(c, EX_INT, "%s", min_text(t)))));
  }
}

/* The floating value in npg_tN truncates to one of the cast's type. */
static void fits_test(CkLower *c, CkExpr *x) {
  int t = x->temp[0], bits = x->e->type->size * 8;
  Expr *lo, *hi;
  Op above = OP_GT;
  if (!x->e->type->is_signed) {
    lo = lit(c, EX_FLOAT, "-1.0");
    hi = lit(c, EX_FLOAT, "%.1f", ldexp(1.0, bits));
  } else if (bits == 64) {
    above = OP_GE;
    lo = lit(c, EX_FLOAT, "%.1f", -ldexp(1.0, 63));
    hi = lit(c, EX_FLOAT, "%.1f", ldexp(1.0, 63));
  } else {
    lo = lit(c, EX_FLOAT, "%.1f", -ldexp(1.0, bits - 1) - 1);
    hi = lit(c, EX_FLOAT, "%.1f", ldexp(1.0, bits - 1));
  }
  test(x, CK_CONVERT, op(c, OP_LAND, op(c, above, tmp(c, t), lo), op(c, OP_LT, tmp(c, t), hi)));
}

void lower_ck_tests(CkLower *c, CkExpr *x) {
  if (x->e->kind == EX_BINARY) binary_tests(c, x);
  else if (x->e->kind == EX_CAST) fits_test(c, x);
  else /* - and abs */
    test(x, CK_OVERFLOW, op(c, OP_EQ, tmp(c, x->temp[0]), lit(c, EX_INT, "%s", min_text(x->e->type))));
}
