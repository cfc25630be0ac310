/* The check's reference's body printed (docs/check.md): the kernel as
 * written, lowered (ir/checked_ref.h, lower/ref_lower.c) with every
 * decision about its checks made (which operations are checked, their
 * sites, temporaries, "set" flags, hoisted and stepped addresses,
 * unrolled loops); emit_c_function prints the function around it, as it
 * prints a variant's. A failed check stores its site number and longjmps
 * out of the kernel. Its own spelling, not the variant's: operands are
 * parenthesized and every conversion written out, so the text depends
 * neither on C's precedence nor on the compiler re-inserting the implicit
 * conversions, and the oracle does not share the printer's expression
 * spelling with what it checks. */
#include "emit/emit.h"

#include <stdlib.h>


/* ---------------- expressions ---------------- */

static void expr(StrBuf *sb, const CkExpr *x);

static char *text_of(const CkExpr *x) {
  StrBuf sb;
  sb_init(&sb);
  expr(&sb, x);
  return sb_take(&sb);
}

/* "(npg_tN = (A), " */
static void bind(StrBuf *sb, int t, const CkExpr *a) {
  sb_printf(sb, "npg_t%d = (", t);
  expr(sb, a);
  sb_puts(sb, "), ");
}

/* "COND ? npg_ub(npg_ck, SITE) : (void)0, " for each check x makes */
static void fail_ifs(StrBuf *sb, const CkExpr *x) {
  for (int i = 0; i < x->ntests; i++) sb_printf(sb, "%s ? npg_ub(npg_ck, %d) : (void)0, ", x->tests[i].cond, x->tests[i].site);
}

/* + - * that may overflow: int in long long, 64-bit types by a helper. */
static void overflowing(StrBuf *sb, const CkExpr *x) {
  const Expr *e = x->e;
  char *a = text_of(x->a), *b = text_of(x->b);
  int t = x->temp[0];
  if (x->helper) {
    sb_printf(sb, "((%s)%s(npg_ck, %d, %s, %s))", e->type->name, x->helper, x->site[CK_OVERFLOW], a, b);
  } else {
    sb_printf(sb, "(npg_t%d = (long long)(%s) %s (long long)(%s), ", t, a, op_spelling(e->op), b);
    fail_ifs(sb, x);
    sb_printf(sb, "(%s)npg_t%d)", e->type->name, t);
  }
  free(a);
  free(b);
}

/* / % << >>: both operands in temporaries, then their checks. */
static void bound_operands(StrBuf *sb, const CkExpr *x) {
  int ta = x->temp[0], tb = x->temp[1];
  sb_putc(sb, '(');
  bind(sb, ta, x->a);
  bind(sb, tb, x->b);
  fail_ifs(sb, x);
  sb_printf(sb, "npg_t%d %s npg_t%d)", ta, op_spelling(x->e->op), tb);
}

static void binary(StrBuf *sb, const CkExpr *x) {
  Op op = x->e->op;
  if (!x->checked) {
    sb_puts(sb, "((");
    expr(sb, x->a);
    sb_printf(sb, ") %s (", op_spelling(op));
    expr(sb, x->b);
    sb_puts(sb, "))");
  } else if (x->temp[1]) { /* / % << >> (lower/ref_lower.c binds both operands) */
    bound_operands(sb, x);
  } else {
    overflowing(sb, x);
  }
}

/* -x and abs(x): "(npg_tN = (A), npg_tN == MIN ? fail : 0, -npg_tN)" where
 * checked. */
static void negating(StrBuf *sb, const CkExpr *x, const char *op) {
  if (!x->checked) {
    sb_printf(sb, x->e->kind == EX_CALL ? "%s(" : "(%s(", op);
    expr(sb, x->a);
    sb_puts(sb, x->e->kind == EX_CALL ? ")" : "))");
    return;
  }
  sb_putc(sb, '(');
  bind(sb, x->temp[0], x->a);
  fail_ifs(sb, x);
  sb_printf(sb, x->e->kind == EX_CALL ? "%s(npg_t%d))" : "%snpg_t%d)", op, x->temp[0]);
}

static void cast(StrBuf *sb, const CkExpr *x) {
  const char *to = x->e->type->name;
  char *a = text_of(x->a);
  int t = x->temp[0];
  if (x->checked)
    sb_printf(sb, "(npg_t%d = (double)(%s), %s ? (void)0 : npg_ub(npg_ck, %d), (%s)npg_t%d)", t, a, x->tests[0].cond,
              x->tests[0].site, to, t);
  else if (x->mask)
    sb_printf(sb, "((%s)((%s) & %s))", to, a, x->mask);
  else
    sb_printf(sb, "((%s)(%s))", to, a);
  free(a);
}

static void call(StrBuf *sb, const CkExpr *x) {
  const Expr *e = x->e;
  if (!x->args) {
    negating(sb, x, "abs");
    return;
  }
  sb_printf(sb, "%s(", e->text);
  for (int i = 0; i < e->nargs; i++) {
    if (i) sb_puts(sb, ", ");
    expr(sb, x->args[i]);
  }
  sb_putc(sb, ')');
}

/* "A[i][j]", "npg_p1[k]", "(*npg_p2)", "npg_p3[128]", "(k + 1)"; a
 * local's flag is the same text after "npg_set_". */
static void place(StrBuf *sb, const CkPlace *p) {
  const Expr *e = p->e;
  if (e->kind == EX_VAR) {
    if (p->by) sb_printf(sb, "(%s + %lld)", e->var->name, (long long)p->by);
    else sb_puts(sb, e->var->name);
  } else if (p->stepped) {
    sb_printf(sb, "npg_p%d[%lld]", p->ptr->id, (long long)p->offset);
  } else if (p->ptr && p->from == e->buf->ndim) {
    sb_printf(sb, "(*npg_p%d)", p->ptr->id);
  } else {
    if (p->ptr) sb_printf(sb, "npg_p%d", p->ptr->id);
    else sb_puts(sb, e->buf->name);
    for (int d = p->from; d < e->buf->ndim; d++) {
      sb_putc(sb, '[');
      expr(sb, p->idx[d]);
      sb_putc(sb, ']');
    }
  }
}

/* A read of a scalar or an element: tested against its flag where made. */
static void read(StrBuf *sb, const CkExpr *x) {
  StrBuf p;
  sb_init(&p);
  place(&p, x->place);
  int s = x->site[CK_UNSET];
  if (s) sb_printf(sb, "(npg_set_%s ? (void)0 : npg_ub(npg_ck, %d), %s)", p.data, s, p.data);
  else sb_puts(sb, p.data);
  sb_free(&p);
}

static void expr(StrBuf *sb, const CkExpr *x) {
  switch (x->e->kind) {
  case EX_INT:
  case EX_FLOAT: ir_print_expr(sb, x->e); return;
  case EX_VAR:
  case EX_LOAD: read(sb, x); return;
  case EX_COND:
    sb_puts(sb, "((");
    expr(sb, x->a);
    sb_puts(sb, ") ? (");
    expr(sb, x->b);
    sb_puts(sb, ") : (");
    expr(sb, x->c);
    sb_puts(sb, "))");
    return;
  case EX_CALL: call(sb, x); return;
  case EX_CAST: cast(sb, x); return;
  case EX_UNARY: negating(sb, x, op_spelling(x->e->op)); return;
  case EX_BINARY: binary(sb, x); return;
  }
}

/* ---------------- statements ---------------- */

static void list(StrBuf *sb, const CkStmt *n, int ind);

static void dims(StrBuf *sb, const Buffer *b, int from) {
  for (int i = from; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
}

/* A hoisted address: `T (*npg_p1)[64] = A[i];`, `T *npg_p2 = &B[k][j];` */
static void pointer(StrBuf *sb, const CkPointer *p, int ind) {
  const Buffer *b = p->buf;
  sb_indent(sb, ind);
  sb_printf(sb, p->stepped ? "%s%s *npg_p%d" : "%s%s (*npg_p%d)", b->is_const ? "const " : "", b->elem->name, p->id);
  if (!p->stepped) dims(sb, b, p->n + 1);
  sb_printf(sb, " = %s%s", p->n == b->ndim ? "&" : "", b->name);
  for (int d = 0; d < p->n; d++) {
    sb_putc(sb, '[');
    expr(sb, p->idx[d]);
    sb_putc(sb, ']');
  }
  sb_puts(sb, ";\n");
}

static void body(StrBuf *sb, const CkBody *b, int ind) {
  for (const CkPointer *p = b->ptrs; p; p = p->next) pointer(sb, p, ind);
  list(sb, b->list, ind);
}

static void assign(StrBuf *sb, const CkStmt *n, int ind) {
  StrBuf p;
  sb_init(&p);
  place(&p, n->lhs);
  sb_indent(sb, ind);
  sb_printf(sb, "%s = ", p.data);
  expr(sb, n->value);
  sb_puts(sb, ";\n");
  if (n->unset) {
    sb_indent(sb, ind);
    sb_printf(sb, "npg_set_%s = 1;\n", p.data);
  }
  sb_free(&p);
}

static void decl(StrBuf *sb, const CkStmt *n, int ind) {
  const Stmt *s = n->s;
  sb_indent(sb, ind);
  if (s->var) {
    sb_printf(sb, "%s%s %s", s->var->is_const ? "const " : "", s->var->type->name, s->var->name);
    if (n->value) {
      sb_puts(sb, " = ");
      expr(sb, n->value);
    }
    sb_puts(sb, ";\n");
    if (n->unset) {
      sb_indent(sb, ind);
      sb_printf(sb, "unsigned char npg_set_%s = 0;\n", s->var->name);
    }
    return;
  }
  emit_array_decl(sb, s->buf);
  if (s->ninit) {
    sb_puts(sb, " = {");
    for (int i = 0; i < s->ninit; i++) {
      if (i) sb_puts(sb, ", ");
      expr(sb, n->init_list[i]);
    }
    sb_putc(sb, '}');
  }
  sb_puts(sb, ";\n");
  if (n->unset) {
    sb_indent(sb, ind);
    sb_printf(sb, "unsigned char npg_set_%s", s->buf->name);
    dims(sb, s->buf, 0);
    sb_puts(sb, " = {0};\n");
  }
}

/* A bound: its expression, or the unrolled loop's `mid`. */
static void bound(StrBuf *sb, const CkExpr *x, int64_t mid) {
  if (x) expr(sb, x);
  else sb_printf(sb, "%lld", (long long)mid);
}

static void loop(StrBuf *sb, const CkStmt *n, int ind) {
  const Var *v = n->s->var;
  sb_indent(sb, ind);
  sb_printf(sb, "for (%s %s = ", v->type->name, v->name);
  bound(sb, n->lo, n->mid);
  sb_printf(sb, "; %s %s ", v->name, op_spelling(n->cmp));
  bound(sb, n->hi, n->mid);
  if (n->step == 1 || n->step == -1)
    sb_printf(sb, "; %s%s) {\n", v->name, n->step > 0 ? "++" : "--");
  else
    sb_printf(sb, "; %s %s= %lld) {\n", v->name, n->step > 0 ? "+" : "-", (long long)(n->step > 0 ? n->step : -n->step));
  body(sb, &n->body, ind + 1);
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
}

/* "{ ... }" of a branch, no newline after. */
static void branch(StrBuf *sb, const CkStmt *l, int ind) {
  sb_puts(sb, "{\n");
  list(sb, l, ind + 1);
  sb_indent(sb, ind);
  sb_putc(sb, '}');
}

/* "if (C) { ... }", its else branch after; an else that holds one if
 * alone is "else if", as a variant's is. */
static void if_else(StrBuf *sb, const CkStmt *n, int ind) {
  sb_puts(sb, "if (");
  expr(sb, n->value);
  sb_puts(sb, ") ");
  branch(sb, n->body.list, ind);
  if (!n->has_else) return;
  sb_puts(sb, " else ");
  const CkStmt *e = n->else_list;
  if (e && !e->next && e->kind == CK_IF) if_else(sb, e, ind);
  else branch(sb, e, ind);
}

static void list(StrBuf *sb, const CkStmt *n, int ind) {
  for (; n; n = n->next) {
    switch (n->kind) {
    case CK_BLOCK:
      sb_indent(sb, ind);
      sb_puts(sb, "{\n");
      list(sb, n->body.list, ind + 1);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case CK_FOR: loop(sb, n, ind); break;
    case CK_IF:
      sb_indent(sb, ind);
      if_else(sb, n, ind);
      sb_putc(sb, '\n');
      break;
    case CK_ASSIGN: assign(sb, n, ind); break;
    case CK_DECL: decl(sb, n, ind); break;
    }
  }
}

void emit_ref_body(StrBuf *sb, const CheckRef *ref) {
  for (int i = 0; i < ref->ntemps; i++) sb_printf(sb, "  %s npg_t%d;\n", ref->temps[i], i + 1);
  body(sb, &ref->body, 1);
}
