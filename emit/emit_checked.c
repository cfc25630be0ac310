/* The instrumented reference (docs/check.md): a kernel as written (its IR,
 * every loop in source order, marks ignored) printed as C in which each
 * operation that C leaves undefined is checked before it is done:
 *
 *   signed + - * and unary -   int in long long, 64-bit types by helpers
 *   / and %                    a zero divisor; MIN / -1, MIN % -1
 *   << and >>                  the count against the width; << of a
 *                              negative value or past the type
 *   float to integer           the value's range (NaN never fits)
 *   abs                        abs(INT_MIN)
 *   a local declared without an initializer: a flag per scalar and per
 *   array element ("npg_set_NAME") is set by each write and tested by each
 *   read. The flags are declared beside the local, so a local declared in
 *   a loop gets fresh ones each time, as it is a fresh object in C.
 *
 * A failed check stores its site number and longjmps out of the kernel;
 * the site says where in the kernel source and what (CheckedSite). A check
 * that the operands' ranges rule out (ir/ranges.c) is left out: it cannot
 * fail, and the inner loops stay as fast as tcc makes them (an int8 product
 * or a counter's arithmetic is never checked). Operands are parenthesized
 * and every conversion written out, so the text depends neither on C's
 * precedence nor on the compiler re-inserting the implicit conversions.
 *
 * tcc computes every address in full at every access. So the reference
 * hoists, out of the innermost loop, the part of a parameter array's
 * address that does not change in it: the row `A[i]` of `A[i][k]`, the
 * element `&C[i][j]` of `C[i][j] += ...` in a loop over k, declared at the
 * top of the body of the loop whose counter it last depends on. Only
 * indices of loop counters and constants that need no check are hoisted:
 * computed early, they are the same values and cannot fail (under an if
 * the row may be one the access never reaches: a pointer tcc computes and
 * never dereferences). */
#include "emit/emit_checked.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "ir/ranges.h"
#include "lower/check_plan.h"

typedef struct {
  Arena scratch;  /* the operations of compound assignments */
  StrBuf temps;   /* the temporaries' declarations, at the function's top */
  int ntemps;
  CheckedSite *sites;
  int nsites, cap;
  IrRange *counter;              /* by Var.id: a loop counter's range in its loop */
  bool *shadow_var, *shadow_buf; /* by id: a local declared without an initializer */
  /* the function and the loops around the statement printed, outermost
   * first: where hoisted addresses are declared */
  struct Level {
    const Var *counter; /* NULL: the function */
    int ind;
    StrBuf decls;
    struct Hoist {
      char *key, name[24];
    } *hoists;
    int nhoists;
  } *levels;
  int nlevels, nhoisted;
  CheckPlan plan; /* the loops unrolled (lower/check_plan.c) */
  /* in an unrolled copy of a body: its loop's counter, printed as
   * (counter + by) */
  const Var *shifted;
  int64_t by;
  /* in an unrolled accumulation: the running value, read as `sum`'s text
   * with its range */
  Var sum;
  const char *sum_text;
  IrRange sum_range;
} Ck;

static int site(Ck *c, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int site(Ck *c, SrcLoc loc, const char *fmt, ...) {
  if (c->nsites == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->sites = realloc(c->sites, sizeof *c->sites * (size_t)c->cap);
  }
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  c->sites[c->nsites] = (CheckedSite){loc, sb_take(&sb)};
  return ++c->nsites;
}

static const char *temp(Ck *c, const char *type, char *name, size_t n) {
  snprintf(name, n, "npg_t%d", ++c->ntemps);
  sb_printf(&c->temps, "  %s %s;\n", type, name);
  return name;
}

/* The operation as a message quotes it: its C text, or for the operation
 * of a compound assignment (made by compound()) its statement's text. */
static char *op_text(const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  if (e->kind == EX_BINARY && e->text) sb_puts(&sb, e->text);
  else ir_print_expr(&sb, e);
  return sb_take(&sb);
}

static int site_of(Ck *c, const Expr *e, const char *what) {
  char *t = op_text(e);
  int s = site(c, e->loc, "%s in '%s' (%s)", what, t, type_canonical(e->type)->name);
  free(t);
  return s;
}

static const char *min_text(const Type *t) {
  return t->size == 4 ? "(-2147483647 - 1)" : t->kind == TY_LONG ? "(-9223372036854775807L - 1)" : "(-9223372036854775807LL - 1)";
}

static const char *max_text(const Type *t) {
  return t->size == 4 ? "2147483647" : t->kind == TY_LONG ? "9223372036854775807L" : "9223372036854775807LL";
}

/* ---------------- expressions ---------------- */

/* expr prints e into sb and returns the range of its value. */
static IrRange expr(Ck *c, StrBuf *sb, const Expr *e);

typedef struct {
  StrBuf text;
  IrRange r;
} Operand;

static Operand operand(Ck *c, const Expr *e) {
  Operand o;
  sb_init(&o.text);
  o.r = expr(c, &o.text, e);
  return o;
}

/* "(T = (A), " ... : evaluates A once into a new temporary of type t. */
static const char *bind(Ck *c, StrBuf *sb, const Type *t, const Operand *a, char *name, size_t n) {
  temp(c, t->name, name, n);
  sb_printf(sb, "%s = (%s), ", name, a->text.data);
  return name;
}

static void fail_if(StrBuf *sb, const char *cond, int s) { sb_printf(sb, "%s ? npg_ub(npg_ck, %d) : (void)0, ", cond, s); }

/* + - * that may overflow: int in long long, 64-bit types by a helper. */
static void overflowing(Ck *c, StrBuf *sb, const Expr *e, const Operand *a, const Operand *b) {
  int s = site_of(c, e, "signed overflow");
  const char *tn = e->type->name;
  if (e->type->size == 4) {
    char t[32];
    temp(c, "long long", t, sizeof t);
    sb_printf(sb, "(%s = (long long)(%s) %s (long long)(%s), %s < %s || %s > %s ? npg_ub(npg_ck, %d) : (void)0, (%s)%s)",
              t, a->text.data, op_spelling(e->op), b->text.data, t, min_text(e->type), t, max_text(e->type), s, tn, t);
    return;
  }
  const char *fn = e->op == OP_ADD ? "add" : e->op == OP_SUB ? "sub" : "mul";
  sb_printf(sb, "((%s)npg_%s_ll(npg_ck, %d, %s, %s))", tn, fn, s, a->text.data, b->text.data);
}

static void dividing(Ck *c, StrBuf *sb, const Expr *e, const Operand *a, const Operand *b, unsigned ub) {
  char ta[32], tb[32];
  sb_putc(sb, '(');
  bind(c, sb, e->type, a, ta, sizeof ta);
  bind(c, sb, e->type, b, tb, sizeof tb);
  char cond[160];
  if (ub & IR_UB_DIV_ZERO) {
    snprintf(cond, sizeof cond, "%s == 0", tb);
    fail_if(sb, cond, site_of(c, e, "division by zero"));
  }
  if (ub & IR_UB_OVERFLOW) {
    snprintf(cond, sizeof cond, "%s == -1 && %s == %s", tb, ta, min_text(e->type));
    fail_if(sb, cond, site_of(c, e, "signed overflow"));
  }
  sb_printf(sb, "%s %s %s)", ta, op_spelling(e->op), tb);
}

static void shifting(Ck *c, StrBuf *sb, const Expr *e, const Operand *a, const Operand *b, unsigned ub) {
  char ta[32], tb[32], cond[160], what[64];
  int width = e->type->size * 8;
  sb_putc(sb, '(');
  bind(c, sb, e->a->type, a, ta, sizeof ta);
  bind(c, sb, e->b->type, b, tb, sizeof tb);
  if (ub & IR_UB_SHIFT_COUNT) {
    if (e->b->type->is_signed) snprintf(cond, sizeof cond, "(%s < 0 || %s >= %d)", tb, tb, width);
    else snprintf(cond, sizeof cond, "%s >= %d", tb, width);
    snprintf(what, sizeof what, "shift count outside [0, %d]", width - 1);
    fail_if(sb, cond, site_of(c, e, what));
  }
  if (ub & IR_UB_SHIFT_NEG) {
    snprintf(cond, sizeof cond, "%s < 0", ta);
    fail_if(sb, cond, site_of(c, e, "left shift of a negative value"));
  }
  if (ub & IR_UB_OVERFLOW) {
    snprintf(cond, sizeof cond, "%s > (%s >> %s)", ta, max_text(e->type), tb);
    fail_if(sb, cond, site_of(c, e, "signed overflow"));
  }
  sb_printf(sb, "%s %s %s)", ta, op_spelling(e->op), tb);
}

static IrRange binary(Ck *c, StrBuf *sb, const Expr *e) {
  Operand a = operand(c, e->a), b = operand(c, e->b);
  unsigned ub;
  IrRange r = ir_range_op(e, a.r, b.r, &ub);
  if (!ub) sb_printf(sb, "((%s) %s (%s))", a.text.data, op_spelling(e->op), b.text.data);
  else if (e->op == OP_DIV || e->op == OP_MOD) dividing(c, sb, e, &a, &b, ub);
  else if (e->op == OP_SHL || e->op == OP_SHR) shifting(c, sb, e, &a, &b, ub);
  else overflowing(c, sb, e, &a, &b);
  sb_free(&a.text);
  sb_free(&b.text);
  return r;
}

static IrRange unary(Ck *c, StrBuf *sb, const Expr *e) {
  Operand a = operand(c, e->a);
  unsigned ub;
  IrRange r = ir_range_op(e, a.r, a.r, &ub);
  if (ub & IR_UB_OVERFLOW) { /* -MIN */
    char t[32], cond[96];
    sb_putc(sb, '(');
    bind(c, sb, e->type, &a, t, sizeof t);
    snprintf(cond, sizeof cond, "%s == %s", t, min_text(e->type));
    fail_if(sb, cond, site_of(c, e, "signed overflow"));
    sb_printf(sb, "-%s)", t);
  } else {
    sb_printf(sb, "(%s(%s))", op_spelling(e->op), a.text.data);
  }
  sb_free(&a.text);
  return r;
}

/* "T > LO && T < HI": the floating value in T truncates to one of type t. */
static void fits_cond(char *out, size_t n, const char *t, const Type *to) {
  int bits = to->size * 8;
  if (!to->is_signed) snprintf(out, n, "%s > -1.0 && %s < %.1f", t, t, ldexp(1.0, bits));
  else if (bits == 64) snprintf(out, n, "%s >= %.1f && %s < %.1f", t, -ldexp(1.0, 63), t, ldexp(1.0, 63));
  else snprintf(out, n, "%s > %.1f && %s < %.1f", t, -ldexp(1.0, bits - 1) - 1, t, ldexp(1.0, bits - 1));
}

static IrRange cast(Ck *c, StrBuf *sb, const Expr *e) {
  Operand a = operand(c, e->a);
  unsigned ub;
  IrRange r = ir_range_op(e, a.r, a.r, &ub);
  if (ub & IR_UB_CONVERT) {
    char t[32], cond[160];
    temp(c, "double", t, sizeof t);
    char *text = op_text(e->a);
    int s = site(c, e->loc, "out-of-range conversion of '%s' (%s) to '%s'", text, e->a->type->name, e->type->name);
    free(text);
    fits_cond(cond, sizeof cond, t, e->type);
    sb_printf(sb, "(%s = (double)(%s), %s ? (void)0 : npg_ub(npg_ck, %d), (%s)%s)", t, a.text.data, cond, s,
              e->type->name, t);
  } else if (emit_tcc_mask(e)) {
    sb_printf(sb, "((%s)((%s) & %s))", e->type->name, a.text.data, emit_tcc_mask(e));
  } else {
    sb_printf(sb, "((%s)(%s))", e->type->name, a.text.data);
  }
  sb_free(&a.text);
  return r;
}

static IrRange call(Ck *c, StrBuf *sb, const Expr *e) {
  IrRange r = ir_range_type(e->type);
  if (!strcmp(e->text, "abs")) {
    Operand a = operand(c, e->args[0]);
    unsigned ub;
    r = ir_range_op(e, a.r, a.r, &ub);
    char t[32], cond[96];
    if (ub & IR_UB_OVERFLOW) {
      sb_putc(sb, '(');
      bind(c, sb, e->type, &a, t, sizeof t);
      snprintf(cond, sizeof cond, "%s == %s", t, min_text(e->type));
      fail_if(sb, cond, site_of(c, e, "signed overflow"));
      sb_printf(sb, "abs(%s))", t);
    } else {
      sb_printf(sb, "abs(%s)", a.text.data);
    }
    sb_free(&a.text);
    return r;
  }
  sb_printf(sb, "%s(", e->text);
  for (int i = 0; i < e->nargs; i++) {
    if (i) sb_puts(sb, ", ");
    expr(c, sb, e->args[i]);
  }
  sb_putc(sb, ')');
  return r;
}

static bool tracked(const Ck *c, const Expr *e) {
  return e->kind == EX_VAR ? e->var->kind == VAR_LOCAL && c->shadow_var[e->var->id]
                           : e->buf->role == ROLE_LOCAL && c->shadow_buf[e->buf->id];
}

/* ---------------- hoisted addresses ---------------- */

/* e needs no check and reads loop counters and constants only. */
static bool checkless(const Ck *c, const Expr *e, IrRange *r) {
  IrRange a = {0, 0}, b = {0, 0};
  unsigned ub = 0;
  switch (e->kind) {
  case EX_INT:
    *r = e->type->is_signed ? ir_range_const(e->ival) : ir_range_type(e->type);
    return true;
  case EX_VAR:
    *r = c->counter[e->var->id];
    return e->var->kind == VAR_LOOP;
  case EX_BINARY:
    if (!checkless(c, e->b, &b)) return false;
    /* fall through */
  case EX_CAST:
  case EX_UNARY:
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type) || !checkless(c, e->a, &a)) return false;
    *r = ir_range_op(e, a, e->kind == EX_BINARY ? b : a, &ub);
    return !ub;
  default:
    return false;
  }
}

static bool uses_counter(const Expr *e, int n, const Var *v) {
  for (int d = 0; d < n; d++)
    if (ir_expr_uses(e->idx[d], v, NULL)) return true;
  return false;
}

/* How many leading indices of access e can be hoisted out of the
 * innermost loop: 0 when none, or e is not in a loop or not a parameter. */
static int hoistable(const Ck *c, const Expr *e) {
  if (c->nlevels < 2 || e->buf->role == ROLE_LOCAL) return 0;
  const Var *inner = c->levels[c->nlevels - 1].counter;
  int p = 0;
  IrRange r;
  while (p < e->buf->ndim && !ir_expr_uses(e->idx[p], inner, NULL) && checkless(c, e->idx[p], &r)) p++;
  return p;
}

/* The pointer to the first p indices of e ("A[i]", or "&C[i][j]" when p
 * is all of them), declared in the innermost loop whose counter they read. */
static const char *hoist(Ck *c, const Expr *e, int p) {
  const Buffer *b = e->buf;
  StrBuf key;
  sb_init(&key);
  sb_printf(&key, "%s%s", p == b->ndim ? "&" : "", b->name);
  for (int d = 0; d < p; d++) {
    sb_putc(&key, '[');
    expr(c, &key, e->idx[d]);
    sb_putc(&key, ']');
  }
  int l = c->nlevels - 1;
  while (l > 0 && !uses_counter(e, p, c->levels[l].counter)) l--;
  struct Level *lv = &c->levels[l];
  for (int i = 0; i < lv->nhoists; i++)
    if (!strcmp(lv->hoists[i].key, key.data)) {
      sb_free(&key);
      return lv->hoists[i].name;
    }
  lv->hoists = realloc(lv->hoists, sizeof *lv->hoists * (size_t)(lv->nhoists + 1));
  struct Hoist *h = &lv->hoists[lv->nhoists++];
  snprintf(h->name, sizeof h->name, "npg_p%d", ++c->nhoisted);
  sb_indent(&lv->decls, lv->ind);
  sb_printf(&lv->decls, "%s%s (*%s)", b->is_const ? "const " : "", b->elem->name, h->name);
  for (int d = p + 1; d < b->ndim; d++) sb_printf(&lv->decls, "[%lld]", (long long)b->shape[d]);
  sb_printf(&lv->decls, " = %s;\n", key.data);
  h->key = sb_take(&key);
  return h->name;
}

static void push_level(Ck *c, const Var *counter, int ind) {
  c->levels = realloc(c->levels, sizeof *c->levels * (size_t)(c->nlevels + 1));
  c->levels[c->nlevels++] = (struct Level){counter, ind, {0}, NULL, 0};
}

/* Pops the innermost level; its declarations are the caller's. */
static char *pop_level(Ck *c) {
  struct Level *lv = &c->levels[--c->nlevels];
  for (int i = 0; i < lv->nhoists; i++) free(lv->hoists[i].key);
  free(lv->hoists);
  return sb_take(&lv->decls);
}

/* In an unrolled body (c->shifted): the dimension of access e whose index
 * is the loop's counter itself when every other index needs no check and
 * does not read it; -1 otherwise. */
static int stepped_dim(const Ck *c, const Expr *e) {
  if (!c->shifted || e->buf->role == ROLE_LOCAL) return -1;
  int d = -1;
  IrRange r;
  for (int i = 0; i < e->buf->ndim; i++) {
    if (e->idx[i]->kind == EX_VAR && e->idx[i]->var == c->shifted && d < 0) d = i;
    else if (ir_expr_uses(e->idx[i], c->shifted, NULL) || !checkless(c, e->idx[i], &r)) return -1;
  }
  return d;
}

/* The pointer to e's element at the unrolled loop's counter ("&B[k][j]"),
 * declared at the top of each round: copy u reads it at u strides of
 * dimension d. The element at copy u is one the access as written reads,
 * so in bounds. */
static const char *step_pointer(Ck *c, const Expr *e) {
  int64_t by = c->by;
  c->by = 0;
  StrBuf key;
  sb_init(&key);
  sb_printf(&key, "&%s", e->buf->name);
  for (int d = 0; d < e->buf->ndim; d++) {
    sb_putc(&key, '[');
    expr(c, &key, e->idx[d]);
    sb_putc(&key, ']');
  }
  c->by = by;
  struct Level *lv = &c->levels[c->nlevels - 1];
  for (int i = 0; i < lv->nhoists; i++)
    if (!strcmp(lv->hoists[i].key, key.data)) {
      sb_free(&key);
      return lv->hoists[i].name;
    }
  lv->hoists = realloc(lv->hoists, sizeof *lv->hoists * (size_t)(lv->nhoists + 1));
  struct Hoist *h = &lv->hoists[lv->nhoists++];
  snprintf(h->name, sizeof h->name, "npg_p%d", ++c->nhoisted);
  sb_indent(&lv->decls, lv->ind);
  sb_printf(&lv->decls, "%s%s *%s = %s;\n", e->buf->is_const ? "const " : "", e->buf->elem->name, h->name, key.data);
  h->key = sb_take(&key);
  return h->name;
}

/* "A[i][j]" with its indices checked, into sb; the element's shadow flag
 * is the same text after "npg_set_". */
static void place(Ck *c, StrBuf *sb, const Expr *e) {
  if (e->kind == EX_VAR) {
    if (e->var == &c->sum) sb_puts(sb, c->sum_text);
    else if (e->var == c->shifted && c->by) sb_printf(sb, "(%s + %lld)", e->var->name, (long long)c->by);
    else sb_puts(sb, e->var->name);
    return;
  }
  int step = stepped_dim(c, e);
  if (step >= 0) {
    int64_t stride = 1;
    for (int d = step + 1; d < e->buf->ndim; d++) stride *= e->buf->shape[d];
    const char *name = step_pointer(c, e);
    sb_printf(sb, "%s[%lld]", name, (long long)(c->by * stride));
    return;
  }
  int p = hoistable(c, e);
  const char *name = p ? hoist(c, e, p) : NULL;
  if (p == e->buf->ndim) {
    sb_printf(sb, "(*%s)", name);
    return;
  }
  sb_puts(sb, p ? name : e->buf->name);
  for (int d = p; d < e->buf->ndim; d++) {
    sb_putc(sb, '[');
    expr(c, sb, e->idx[d]);
    sb_putc(sb, ']');
  }
}

/* A read of a scalar or an element: tested against its flag when tracked. */
static IrRange read(Ck *c, StrBuf *sb, const Expr *e) {
  if (e->kind == EX_VAR && e->var == &c->sum) {
    sb_puts(sb, c->sum_text);
    return c->sum_range;
  }
  StrBuf p;
  sb_init(&p);
  place(c, &p, e);
  if (tracked(c, e)) {
    char *text = op_text(e);
    int s = site(c, e->loc, "read of uninitialized '%s'", text);
    free(text);
    sb_printf(sb, "(npg_set_%s ? (void)0 : npg_ub(npg_ck, %d), %s)", p.data, s, p.data);
  } else {
    sb_puts(sb, p.data);
  }
  sb_free(&p);
  if (e->kind == EX_VAR && e->var->kind == VAR_LOOP) return c->counter[e->var->id];
  return ir_range_type(e->type);
}

static IrRange expr(Ck *c, StrBuf *sb, const Expr *e) {
  switch (e->kind) {
  case EX_INT:
    ir_print_expr(sb, e);
    return e->type->is_signed ? ir_range_const(e->ival) : (IrRange){(IrWide)(uint64_t)e->ival, (IrWide)(uint64_t)e->ival};
  case EX_FLOAT:
    ir_print_expr(sb, e);
    return ir_range_type(e->type);
  case EX_VAR:
  case EX_LOAD:
    return read(c, sb, e);
  case EX_COND: {
    sb_puts(sb, "((");
    expr(c, sb, e->a);
    sb_puts(sb, ") ? (");
    IrRange b = expr(c, sb, e->b);
    sb_puts(sb, ") : (");
    IrRange r = expr(c, sb, e->c);
    sb_puts(sb, "))");
    return ir_range_union(b, r);
  }
  case EX_CALL: return call(c, sb, e);
  case EX_CAST: return cast(c, sb, e);
  case EX_UNARY: return unary(c, sb, e);
  case EX_BINARY: return binary(c, sb, e);
  }
  return ir_range_type(e->type);
}

/* ---------------- statements ---------------- */

/* `lhs op= rhs` as the value it stores: (T)(left op rhs), left the lhs or
 * the running value of an unrolled accumulation, computed in the type C
 * computes it in (shifts: the promoted left type). */
static const Expr *compound_on(Ck *c, const Stmt *s, Expr *left) {
  Expr *l = left, *r = s->rhs;
  bool shift = s->op == OP_SHL || s->op == OP_SHR;
  const Type *t = shift ? type_promote(l->type) : type_common(l->type, r->type);
  Expr *a = ir_cast(&c->scratch, l, t, true), *b = ir_cast(&c->scratch, r, shift ? type_promote(r->type) : t, true);
  Expr *op = ir_binary(&c->scratch, s->op, a, b, t, s->loc);
  StrBuf text;
  sb_init(&text);
  ir_print_expr(&text, s->lhs);
  sb_printf(&text, " %s= ", op_spelling(s->op));
  ir_print_expr(&text, r);
  op->text = arena_strdup(&c->scratch, text.data);
  sb_free(&text);
  return ir_cast(&c->scratch, op, l->type, true);
}

static const Expr *compound(Ck *c, const Stmt *s) { return compound_on(c, s, s->lhs); }

static void stmts(Ck *c, StrBuf *sb, const Stmt *s, int ind);

static void assign(Ck *c, StrBuf *sb, const Stmt *s, int ind) {
  const Expr *value = s->op == OP_NONE ? s->rhs : compound(c, s);
  StrBuf p;
  sb_init(&p);
  place(c, &p, s->lhs);
  sb_indent(sb, ind);
  sb_printf(sb, "%s = ", p.data);
  expr(c, sb, value);
  sb_puts(sb, ";\n");
  if (tracked(c, s->lhs)) {
    sb_indent(sb, ind);
    sb_printf(sb, "npg_set_%s = 1;\n", p.data);
  }
  sb_free(&p);
}

static void dims(StrBuf *sb, const Buffer *b) {
  for (int i = 0; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
}

static void decl(Ck *c, StrBuf *sb, const Stmt *s, int ind) {
  sb_indent(sb, ind);
  if (s->var) {
    sb_printf(sb, "%s%s %s", s->var->is_const ? "const " : "", s->var->type->name, s->var->name);
    if (s->init) {
      sb_puts(sb, " = ");
      expr(c, sb, s->init);
    }
    sb_puts(sb, ";\n");
    if (!s->init) {
      c->shadow_var[s->var->id] = true;
      sb_indent(sb, ind);
      sb_printf(sb, "unsigned char npg_set_%s = 0;\n", s->var->name);
    }
    return;
  }
  sb_printf(sb, "%s%s %s", s->buf->is_const ? "const " : "", s->buf->elem->name, s->buf->name);
  dims(sb, s->buf);
  if (s->ninit) {
    sb_puts(sb, " = {");
    for (int i = 0; i < s->ninit; i++) {
      if (i) sb_puts(sb, ", ");
      expr(c, sb, s->init_list[i]);
    }
    sb_putc(sb, '}');
  }
  sb_puts(sb, ";\n");
  if (!s->ninit) {
    c->shadow_buf[s->buf->id] = true;
    sb_indent(sb, ind);
    sb_printf(sb, "unsigned char npg_set_%s", s->buf->name);
    dims(sb, s->buf);
    sb_puts(sb, " = {0};\n");
  }
}

/* The counter's range over the loop: from its start to its bound. */
static IrRange counter_range(const Stmt *s, IrRange lo, IrRange hi) {
  IrRange r;
  if (s->step > 0) r = (IrRange){lo.lo, s->cmp == OP_LT ? hi.hi - 1 : hi.hi};
  else r = (IrRange){s->cmp == OP_GT ? hi.lo + 1 : hi.lo, lo.hi};
  IrRange t = ir_range_type(s->var->type);
  if (r.lo < t.lo) r.lo = t.lo;
  if (r.hi > t.hi) r.hi = t.hi;
  return r.lo <= r.hi ? r : t;
}

/* "{ ... }" of a loop's or branch's body (a block), no newline after. */
static void block(Ck *c, StrBuf *sb, const Stmt *body, int ind) {
  sb_puts(sb, "{\n");
  stmts(c, sb, body && body->kind == ST_BLOCK ? body->body : body, ind + 1);
  sb_indent(sb, ind);
  sb_putc(sb, '}');
}

/* The body of loop s, planned unrolled (p): `P = ...((P + e(k)) + e(k + 1))
 * ... + e(k + n - 1);`, each add as `P += e` converts it, P's reads in the
 * range the plan proves (or its type's). */
static void unrolled_body(Ck *c, StrBuf *sb, const Stmt *s, const CheckPlanLoop *p, int ind) {
  const Stmt *a = s->body->kind == ST_BLOCK ? s->body->body : s->body;
  StrBuf acc, sum;
  sb_init(&acc);
  place(c, &acc, a->lhs);
  sb_init(&sum);
  sb_puts(&sum, acc.data);
  c->sum = (Var){.name = "npg_sum", .type = a->lhs->type, .kind = VAR_LOCAL, .loc = a->lhs->loc, .id = -1};
  Expr running = {.kind = EX_VAR, .type = a->lhs->type, .loc = a->lhs->loc, .var = &c->sum};
  IrRange r = p->acc_proven ? p->acc : ir_range_type(a->lhs->type);
  c->shifted = s->var;
  for (int u = 0; u < p->unroll; u++) {
    c->by = u;
    c->sum_text = sum.data;
    c->sum_range = r;
    StrBuf next;
    sb_init(&next);
    r = expr(c, &next, compound_on(c, a, &running));
    sb_free(&sum);
    sum = next;
  }
  c->shifted = NULL;
  c->by = 0;
  sb_indent(sb, ind);
  sb_printf(sb, "%s = %s;\n", acc.data, sum.data);
  sb_free(&acc);
  sb_free(&sum);
}

/* A loop's body, its hoisted addresses declared first; then the closing
 * brace. */
static void loop_body(Ck *c, StrBuf *sb, const Stmt *s, const CheckPlanLoop *p, int ind) {
  push_level(c, s->var, ind + 1);
  StrBuf body;
  sb_init(&body);
  if (p) unrolled_body(c, &body, s, p, ind + 1);
  else stmts(c, &body, s->body && s->body->kind == ST_BLOCK ? s->body->body : s->body, ind + 1);
  char *decls = pop_level(c);
  sb_printf(sb, "{\n%s%s", decls, body.data ? body.data : "");
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
  free(decls);
  sb_free(&body);
}

static void loop(Ck *c, StrBuf *sb, const Stmt *s, int ind) {
  StrBuf lo, hi;
  sb_init(&lo);
  sb_init(&hi);
  IrRange rl = expr(c, &lo, s->lo), rh = expr(c, &hi, s->hi);
  c->counter[s->var->id] = counter_range(s, rl, rh);
  const char *v = s->var->name, *tn = s->var->type->name;
  const CheckPlanLoop *p = check_plan_find(&c->plan, s);
  const Stmt *a = p ? (s->body->kind == ST_BLOCK ? s->body->body : s->body) : NULL;
  if (p && !tracked(c, a->lhs)) {
    /* lo < hi are constants (the plan's): n / unroll rounds, then the rest */
    int64_t first = s->lo->ival, n = s->hi->ival + (s->cmp == OP_LE) - first, mid = first + n / p->unroll * p->unroll;
    sb_indent(sb, ind);
    sb_printf(sb, "for (%s %s = %s; %s < %lld; %s += %d) ", tn, v, lo.data, v, (long long)mid, v, p->unroll);
    loop_body(c, sb, s, p, ind);
    if (mid < first + n) {
      sb_indent(sb, ind);
      sb_printf(sb, "for (%s %s = %lld; %s %s %s; %s += 1) ", tn, v, (long long)mid, v, op_spelling(s->cmp), hi.data, v);
      loop_body(c, sb, s, NULL, ind);
    }
    sb_free(&lo);
    sb_free(&hi);
    return;
  }
  sb_indent(sb, ind);
  sb_printf(sb, "for (%s %s = %s; %s %s %s; %s %s= %lld) ", tn, v, lo.data, v, op_spelling(s->cmp), hi.data,
            v, s->step > 0 ? "+" : "-", (long long)(s->step > 0 ? s->step : -s->step));
  sb_free(&lo);
  sb_free(&hi);
  loop_body(c, sb, s, NULL, ind);
}

static void stmts(Ck *c, StrBuf *sb, const Stmt *s, int ind) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      sb_indent(sb, ind);
      sb_puts(sb, "{\n");
      stmts(c, sb, s->body, ind + 1);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR:
      loop(c, sb, s, ind);
      break;
    case ST_IF:
      sb_indent(sb, ind);
      sb_puts(sb, "if (");
      expr(c, sb, s->cond);
      sb_puts(sb, ") ");
      block(c, sb, s->then_s, ind);
      if (s->else_s) {
        sb_puts(sb, " else ");
        block(c, sb, s->else_s, ind);
      }
      sb_putc(sb, '\n');
      break;
    case ST_ASSIGN:
      assign(c, sb, s, ind);
      break;
    case ST_DECL:
      decl(c, sb, s, ind);
      break;
    }
  }
}

/* ---------------- the unit ---------------- */

static const char prelude[] =
    "#include <math.h>\n"
    "#include <setjmp.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "typedef struct {\n"
    "  jmp_buf npg_jb;\n"
    "  int *npg_site;\n"
    "} NpgCk;\n"
    "\n"
    "static void npg_ub(NpgCk *c, int site) {\n"
    "  *c->npg_site = site;\n"
    "  longjmp(c->npg_jb, 1);\n"
    "}\n"
    "\n"
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

static void params(StrBuf *sb, const Kernel *k) {
  for (const Param *p = k->params; p; p = p->next) {
    sb_puts(sb, ", ");
    if (p->buf) {
      sb_printf(sb, "%s%s %s", p->buf->is_const ? "const " : "", p->buf->elem->name, p->buf->name);
      dims(sb, p->buf);
    } else {
      sb_printf(sb, "%s %s", p->var->type->name, p->var->name);
    }
  }
}

static void thunk(StrBuf *sb, const Kernel *k) {
  /* after the kernel's #defines: only npg_ names */
  sb_printf(sb, "\nvoid npg_ref_%s(void **npg_args) {\n  NpgCk npg_ck;\n  npg_ck.npg_site = (int *)npg_args[%d];\n",
            k->name, k->nparams);
  sb_printf(sb, "  *npg_ck.npg_site = 0;\n  if (!setjmp(npg_ck.npg_jb)) npg_checked_%s(&npg_ck", k->name);
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++) {
    if (p->buf) sb_printf(sb, ", npg_args[%d]", i);
    else sb_printf(sb, ", *(%s *)npg_args[%d]", p->var->type->name, i);
  }
  sb_puts(sb, ");\n}\n");
}

void emit_checked(const Module *m, const Kernel *k, CheckedUnit *out) {
  Ck c = {.counter = calloc((size_t)k->nvars + 1, sizeof(IrRange)),
          .shadow_var = calloc((size_t)k->nvars + 1, sizeof(bool)),
          .shadow_buf = calloc((size_t)k->nbufs + 1, sizeof(bool))};
  arena_init(&c.scratch, 0);
  sb_init(&c.temps);
  check_plan(k, &c.plan);
  StrBuf body;
  sb_init(&body);
  push_level(&c, NULL, 1);
  stmts(&c, &body, k->body->body, 1);
  char *decls = pop_level(&c);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "/* Kernel %s of %s as written, with checked arithmetic: npugen check's reference. */\n", k->name,
            m->file);
  sb_puts(&sb, prelude);
  for (const Define *d = m->defines; d; d = d->next) sb_printf(&sb, "#define %s %s\n", d->name, d->body);
  sb_printf(&sb, "\nstatic void npg_checked_%s(NpgCk *npg_ck", k->name);
  params(&sb, k);
  sb_puts(&sb, ") {\n");
  if (c.temps.len) sb_puts(&sb, c.temps.data);
  sb_puts(&sb, decls);
  if (body.len) sb_puts(&sb, body.data);
  sb_puts(&sb, "}\n");
  thunk(&sb, k);
  out->source = sb_take(&sb);
  out->sites = c.sites;
  out->nsites = c.nsites;
  sb_free(&body);
  sb_free(&c.temps);
  arena_free(&c.scratch);
  free(c.counter);
  free(c.shadow_var);
  free(c.shadow_buf);
  free(c.levels);
  free(decls);
  check_plan_free(&c.plan);
}

void emit_checked_free(CheckedUnit *u) {
  for (int i = 0; i < u->nsites; i++) free(u->sites[i].what);
  free(u->sites);
  free(u->source);
  memset(u, 0, sizeof *u);
}
