/* The test of each check the reference makes (lower/ref_lower.c decides
 * which checks, their sites and temporaries): the C condition under which
 * the check fails, over the temporaries that hold the operands (npg_tN),
 * with the limits of the operation's type; for a conversion, the one
 * under which the value fits; for + - * of a 64-bit type, the helper
 * that checks it instead, whose C the reference's prelude holds
 * (lower_ck_helpers, below; emit/ref_print.c prints it). */
#include <math.h>
#include <stdarg.h>

#include "lower/check_lower.h"

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

static void test(CkLower *c, CkExpr *x, CkCheck k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void test(CkLower *c, CkExpr *x, CkCheck k, const char *fmt, ...) {
  if (!x->site[k]) return;
  va_list ap;
  va_start(ap, fmt);
  StrBuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  x->tests[x->ntests++] = (CkTest){x->site[k], arena_strdup(&c->out->arena, sb.data)};
  sb_free(&sb);
}

/* + - *: the long long result in range, or a helper; / % << >>: the
 * divisor, the count, the shifted value, the result. */
static void binary_tests(CkLower *c, CkExpr *x) {
  const Expr *e = x->e;
  const Type *t = e->type;
  int ta = x->temp[0], tb = x->temp[1], width = t->size * 8;
  if (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) {
    if (ta) test(c, x, CK_OVERFLOW, "npg_t%d < %s || npg_t%d > %s", ta, min_text(t), ta, max_text(t));
    else x->helper = e->op == OP_ADD ? "npg_add_ll" : e->op == OP_SUB ? "npg_sub_ll" : "npg_mul_ll";
    return;
  }
  test(c, x, CK_DIV_ZERO, "npg_t%d == 0", tb);
  if (e->b->type->is_signed) test(c, x, CK_SHIFT_COUNT, "(npg_t%d < 0 || npg_t%d >= %d)", tb, tb, width);
  else test(c, x, CK_SHIFT_COUNT, "npg_t%d >= %d", tb, width);
  test(c, x, CK_SHIFT_NEG, "npg_t%d < 0", ta);
  if (e->op == OP_SHL) test(c, x, CK_OVERFLOW, "npg_t%d > (%s >> npg_t%d)", ta, max_text(t), tb);
  else test(c, x, CK_OVERFLOW, "npg_t%d == -1 && npg_t%d == %s", tb, ta, min_text(t));
}

/* The floating value in npg_tN truncates to one of the cast's type. */
static void fits_test(CkLower *c, CkExpr *x) {
  int t = x->temp[0], bits = x->e->type->size * 8;
  if (!x->e->type->is_signed) test(c, x, CK_CONVERT, "npg_t%d > -1.0 && npg_t%d < %.1f", t, t, ldexp(1.0, bits));
  else if (bits == 64) test(c, x, CK_CONVERT, "npg_t%d >= %.1f && npg_t%d < %.1f", t, -ldexp(1.0, 63), t, ldexp(1.0, 63));
  else test(c, x, CK_CONVERT, "npg_t%d > %.1f && npg_t%d < %.1f", t, -ldexp(1.0, bits - 1) - 1, t, ldexp(1.0, bits - 1));
}

void lower_ck_tests(CkLower *c, CkExpr *x) {
  if (x->e->kind == EX_BINARY) binary_tests(c, x);
  else if (x->e->kind == EX_CAST) fits_test(c, x);
  else test(c, x, CK_OVERFLOW, "npg_t%d == %s", x->temp[0], min_text(x->e->type)); /* - and abs */
}
