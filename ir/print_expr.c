/* C text of an IR expression with the fewest parentheses that keep it exact
 * and keep gcc's -Wparentheses quiet. Implicit conversions are not printed:
 * the C compiler re-inserts exactly the ones the IR records. A node that
 * asks for parentheses (Expr.parens: the check's reference) gets them,
 * implicit conversion or not. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

enum { PREC_COMMA = 1, PREC_ASSIGN = 2, PREC_COND = 3, PREC_LOR = 4, PREC_LAND = 5, PREC_BOR = 6, PREC_BXOR = 7,
       PREC_BAND = 8, PREC_EQ = 9, PREC_REL = 10, PREC_SHIFT = 11, PREC_ADD = 12,
       PREC_MUL = 13, PREC_UNARY = 15, PREC_PRIMARY = 16 };

static const Expr *skip_implicit(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit && !e->parens) e = e->a;
  return e;
}

static int binary_prec(Op op) {
  switch (op) {
  case OP_MUL: case OP_DIV: case OP_MOD: return PREC_MUL;
  case OP_ADD: case OP_SUB: return PREC_ADD;
  case OP_SHL: case OP_SHR: return PREC_SHIFT;
  case OP_LT: case OP_LE: case OP_GT: case OP_GE: return PREC_REL;
  case OP_EQ: case OP_NE: return PREC_EQ;
  case OP_BAND: return PREC_BAND;
  case OP_BXOR: return PREC_BXOR;
  case OP_BOR: return PREC_BOR;
  case OP_LAND: return PREC_LAND;
  case OP_LOR: return PREC_LOR;
  case OP_ASSIGN: return PREC_ASSIGN;
  case OP_COMMA: return PREC_COMMA;
  default: return PREC_PRIMARY;
  }
}

static int prec(const Expr *e) {
  e = skip_implicit(e);
  if (e->macro || e->parens) return PREC_PRIMARY;
  switch (e->kind) {
  case EX_INT: return e->ival < 0 && !e->text ? PREC_UNARY : PREC_PRIMARY;
  case EX_FLOAT: return e->fval < 0 && !e->text ? PREC_UNARY : PREC_PRIMARY;
  case EX_VAR: case EX_LOAD: case EX_CALL: return PREC_PRIMARY;
  case EX_UNARY: case EX_CAST: return PREC_UNARY;
  case EX_BINARY: return binary_prec(e->op);
  case EX_COND: return PREC_COND;
  }
  return PREC_PRIMARY;
}

static bool is_arith(Op op) { return op >= OP_ADD && op <= OP_MOD; }
static bool is_compare(Op op) { return op >= OP_LT && op <= OP_NE; }

/* Does `child`, an operand of binary `parent`, need parentheses? */
static bool needs_parens(Op parent, const Expr *child, bool is_right) {
  child = skip_implicit(child);
  int pp = binary_prec(parent), cp = prec(child);
  if (cp < pp || (is_right && cp == pp && child->kind == EX_BINARY)) return true;
  if (child->kind != EX_BINARY || child->parens || pp <= PREC_ASSIGN) return false;
  Op c = child->op;
  if (is_arith(parent)) return false;
  if (is_compare(parent)) return !is_arith(c);
  if (parent == OP_SHL || parent == OP_SHR) return true;
  if (parent == OP_LAND || parent == OP_LOR)
    return !(is_arith(c) || is_compare(c) || c == parent);
  return c != parent; /* &, |, ^ */
}

static void print_int(StrBuf *sb, const Expr *e) {
  if (e->text) {
    sb_puts(sb, e->text);
    return;
  }
  const char *suffix = "";
  switch (e->type->kind) {
  case TY_UINT: suffix = "u"; break;
  case TY_LONG: suffix = "l"; break;
  case TY_ULONG: suffix = "ul"; break;
  case TY_LLONG: suffix = "ll"; break;
  case TY_ULLONG: suffix = "ull"; break;
  default: break;
  }
  if (e->type->is_signed && e->ival == INT64_MIN)
    sb_printf(sb, "(-%" PRId64 "%s - 1)", INT64_MAX, suffix);
  else if (e->type->kind == TY_INT && e->ival == INT32_MIN)
    sb_puts(sb, "(-2147483647 - 1)");
  else if (e->type->is_signed)
    sb_printf(sb, "%" PRId64 "%s", e->ival, suffix);
  else
    sb_printf(sb, "%" PRIu64 "%s", (uint64_t)e->ival, suffix);
}

static void print_float(StrBuf *sb, const Expr *e) {
  if (e->text) {
    sb_puts(sb, e->text);
    return;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", e->fval);
  if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
  sb_puts(sb, buf);
  if (e->type->kind == TY_FLOAT) sb_putc(sb, 'f');
}

static void print(StrBuf *sb, const Expr *e, const ExprHook *h);

static void print_paren(StrBuf *sb, const Expr *e, bool paren, const ExprHook *h) {
  paren = paren && !skip_implicit(e)->parens; /* it has its own */
  if (paren) sb_putc(sb, '(');
  print(sb, e, h);
  if (paren) sb_putc(sb, ')');
}

void ir_print_expr(StrBuf *sb, const Expr *e) { print(sb, e, NULL); }

void ir_print_expr_hooked(StrBuf *sb, const Expr *e, const ExprHook *h) { print(sb, e, h); }

static void print_bare(StrBuf *sb, const Expr *e, const ExprHook *h);

static void print(StrBuf *sb, const Expr *e, const ExprHook *h) {
  e = skip_implicit(e);
  for (int i = 0; i < e->parens; i++) sb_putc(sb, '(');
  print_bare(sb, e, h);
  for (int i = 0; i < e->parens; i++) sb_putc(sb, ')');
}

static void print_bare(StrBuf *sb, const Expr *e, const ExprHook *h) {
  if (e->macro) {
    sb_puts(sb, e->macro);
    return;
  }
  switch (e->kind) {
  case EX_INT:
    print_int(sb, e);
    break;
  case EX_FLOAT:
    print_float(sb, e);
    break;
  case EX_VAR:
    sb_puts(sb, e->var->name);
    break;
  case EX_LOAD:
    if (h && h->load && h->load(sb, e, h)) break;
    sb_puts(sb, e->buf->name);
    for (int i = 0; i < e->buf->ndim; i++) {
      sb_putc(sb, '[');
      print(sb, e->idx[i], h);
      sb_putc(sb, ']');
    }
    break;
  case EX_CALL:
    sb_printf(sb, "%s(", e->text);
    for (int i = 0; i < e->nargs; i++) {
      if (i) sb_puts(sb, ", ");
      print(sb, e->args[i], h);
    }
    sb_putc(sb, ')');
    break;
  case EX_UNARY: {
    sb_puts(sb, op_spelling(e->op));
    const Expr *a = skip_implicit(e->a);
    /* "- -x" must not become "--x"; a binary operand needs parentheses. */
    bool paren = prec(a) < PREC_UNARY ||
                 (a->kind == EX_UNARY && (a->op == OP_NEG || a->op == OP_PLUS)) ||
                 ((a->kind == EX_INT || a->kind == EX_FLOAT) && prec(a) == PREC_UNARY);
    print_paren(sb, e->a, paren, h);
    break;
  }
  case EX_CAST:
    if (h && h->cast && h->cast(sb, e, h)) break;
    sb_printf(sb, "(%s)", e->type->name);
    print_paren(sb, e->a, prec(e->a) < PREC_UNARY, h);
    break;
  case EX_BINARY:
    print_paren(sb, e->a, needs_parens(e->op, e->a, false), h);
    sb_printf(sb, e->op == OP_COMMA ? "%s " : " %s ", op_spelling(e->op));
    print_paren(sb, e->b, needs_parens(e->op, e->b, true), h);
    break;
  case EX_COND: {
    const Expr *a = skip_implicit(e->a), *b = skip_implicit(e->b), *c = skip_implicit(e->c);
    print_paren(sb, e->a, a->kind == EX_COND || prec(a) <= PREC_COND, h);
    sb_puts(sb, " ? ");
    print_paren(sb, e->b, b->kind == EX_COND, h);
    sb_puts(sb, " : ");
    (void)c;
    print_paren(sb, e->c, false, h);
    break;
  }
  }
}
