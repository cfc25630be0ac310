/* Expressions: tree-sitter nodes -> typed IR with C's conversions explicit. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

/* ---------------- <math.h> (and abs) ---------------- */
typedef struct {
  const char *name;
  const Type *ret;
  int nargs;
  const Type *arg;
  const Type *last_arg; /* when the last argument differs (ldexp's int) */
} MathFn;

#define F1(n) {#n "f", &ty_float, 1, &ty_float, NULL}, {#n, &ty_double, 1, &ty_double, NULL}
#define F2(n) {#n "f", &ty_float, 2, &ty_float, NULL}, {#n, &ty_double, 2, &ty_double, NULL}
static const MathFn math_fns[] = {
    F1(sqrt), F1(exp), F1(log), F1(fabs), F1(tanh), F1(sin), F1(cos), F1(tan),
    F1(floor), F1(ceil), F1(round), F1(trunc), F1(exp2), F1(log2), F1(log10), F1(erf),
    F1(atan), F1(asin), F1(acos), F1(sinh), F1(cosh), F1(cbrt), F1(log1p), F1(expm1),
    F2(pow), F2(fmin), F2(fmax), F2(fmod), F2(atan2), F2(copysign), F2(hypot),
    {"fmaf", &ty_float, 3, &ty_float, NULL}, {"fma", &ty_double, 3, &ty_double, NULL},
    {"abs", &ty_int, 1, &ty_int, NULL},
    {"ldexpf", &ty_float, 2, &ty_float, &ty_int}, {"ldexp", &ty_double, 2, &ty_double, &ty_int},
};

static const MathFn *math_fn(const char *name) {
  for (size_t i = 0; i < sizeof math_fns / sizeof math_fns[0]; i++)
    if (strcmp(math_fns[i].name, name) == 0) return &math_fns[i];
  return NULL;
}

/* ---------------- constant evaluation (consteval.c) ---------------- */

int64_t fe_const_int(Fe *fe, TSNode n, const char *what) {
  Expr *e = fe_expr(fe, n);
  int64_t v;
  if (!type_is_integer(e->type) || !fe_eval_int(e, &v))
    fe_error(fe, n, "%s must be an integer constant expression", what);
  return v;
}

/* ---------------- literals ---------------- */

static Expr *int_literal(Fe *fe, TSNode n, const char *text) {
  size_t len = strlen(text);
  bool has_u = false;
  int nl = 0;
  while (len > 0) {
    char c = text[len - 1];
    if (c == 'u' || c == 'U') has_u = true;
    else if (c == 'l' || c == 'L') nl++;
    else break;
    len--;
  }
  char *digits = arena_strndup(fe->arena, text, len);
  bool decimal = !(digits[0] == '0' && len > 1);
  errno = 0;
  char *end;
  unsigned long long v = strtoull(digits, &end, 0);
  if (*end) fe_error(fe, n, "invalid integer constant '%s'", text);
  if (errno == ERANGE) fe_arith_error(fe, n, "integer constant '%s' is too large", text);
  /* C11 6.4.4.1: the first type of the list that can hold the value. */
  const Type *cands[6];
  int nc = 0;
  if (nl == 0) {
    if (!has_u) cands[nc++] = &ty_int;
    if (has_u || !decimal) cands[nc++] = &ty_uint;
  }
  if (nl <= 1) {
    if (!has_u) cands[nc++] = &ty_long;
    if (has_u || !decimal) cands[nc++] = &ty_ulong;
  }
  if (!has_u) cands[nc++] = &ty_llong;
  if (has_u || !decimal) cands[nc++] = &ty_ullong;
  for (int i = 0; i < nc; i++) {
    int64_t lo;
    uint64_t hi;
    type_int_range(cands[i], &lo, &hi);
    if (v <= hi) {
      Expr *e = ir_int(fe->arena, (int64_t)v, cands[i], fe_loc(fe, n));
      e->text = text;
      return e;
    }
  }
  fe_arith_error(fe, n, "integer constant '%s' is too large", text);
}

static Expr *new_unary(Fe *fe, Op op, Expr *a, const Type *t, SrcLoc loc);

static Expr *number_text(Fe *fe, TSNode n, const char *text);

/* tree-sitter-c folds a leading sign into the literal ("-128"): C reads it
 * as unary minus applied to 128. */
static Expr *number_literal(Fe *fe, TSNode n) {
  const char *text = fe_text(fe, n);
  if (text[0] == '-' || text[0] == '+') {
    const char *rest = text + 1;
    while (*rest == ' ' || *rest == '\t') rest++;
    Expr *a = number_text(fe, n, rest);
    const Type *t = type_promote(a->type);
    return new_unary(fe, text[0] == '-' ? OP_NEG : OP_PLUS, a, t, fe_loc(fe, n));
  }
  return number_text(fe, n, text);
}

static Expr *number_text(Fe *fe, TSNode n, const char *text) {
  bool is_hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  bool is_float = is_hex ? strpbrk(text, "pP") != NULL : strpbrk(text, ".eE") != NULL;
  if (!is_float) return int_literal(fe, n, text);
  size_t len = strlen(text);
  const Type *t = &ty_double;
  char last = text[len - 1];
  if (last == 'f' || last == 'F') {
    t = &ty_float;
    len--;
  } else if (last == 'l' || last == 'L') {
    fe_error(fe, n, "type 'long double' is not supported in kernels");
  }
  char *body = arena_strndup(fe->arena, text, len);
  char *end;
  double v = strtod(body, &end);
  if (*end) fe_error(fe, n, "invalid floating constant '%s'", text);
  Expr *e = ARENA_NEW(fe->arena, Expr);
  e->kind = EX_FLOAT;
  e->fval = t == &ty_float ? (double)(float)v : v;
  e->type = t;
  e->text = text;
  e->loc = fe_loc(fe, n);
  return e;
}

/* ---------------- helpers ---------------- */

/* A floating constant converted to an integer type must fit (fe_float_fits):
 * refused like a constant division by zero, as the kernel is undefined. */
static Expr *cast(Fe *fe, Expr *e, const Type *to, bool implicit, SrcLoc loc) {
  double v;
  if (type_is_integer(to) && fe_float_const(e, &v) && !fe_float_fits(v, to))
    fe_error_at(fe, loc, "the constant %g does not fit in '%s': converting it is undefined", v, to->name);
  fe_check_conversion(fe, loc, e, to);
  return ir_cast(fe->arena, e, to, implicit);
}

Expr *fe_convert(Fe *fe, Expr *e, const Type *to) { return cast(fe, e, to, true, e->loc); }

static void need_integer(Fe *fe, TSNode n, Expr *e, const char *op) {
  if (!type_is_integer(e->type))
    fe_error(fe, n, "operand of '%s' must be an integer, not '%s'", op, e->type->name);
}

static Expr *new_unary(Fe *fe, Op op, Expr *a, const Type *t, SrcLoc loc) {
  Expr *e = ARENA_NEW(fe->arena, Expr);
  e->kind = EX_UNARY;
  e->op = op;
  e->a = a;
  e->type = t;
  e->loc = loc;
  return e;
}

static Op binary_op(const char *s) {
  static const struct {
    const char *s;
    Op op;
  } ops[] = {{"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD},
             {"<<", OP_SHL}, {">>", OP_SHR}, {"&", OP_BAND}, {"|", OP_BOR}, {"^", OP_BXOR},
             {"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE}, {"==", OP_EQ},
             {"!=", OP_NE}, {"&&", OP_LAND}, {"||", OP_LOR}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(ops[i].s, s) == 0) return ops[i].op;
  return OP_NONE;
}

/* Builds `a op b` with C's typing rules; n is used for error positions. */
static Expr *make_binary(Fe *fe, TSNode n, Op op, Expr *a, Expr *b) {
  SrcLoc loc = fe_loc(fe, n);
  const char *ops = op_spelling(op);
  switch (op) {
  case OP_LAND:
  case OP_LOR:
    return ir_binary(fe->arena, op, a, b, &ty_int, loc);
  case OP_SHL:
  case OP_SHR: {
    need_integer(fe, n, a, ops);
    need_integer(fe, n, b, ops);
    const Type *t = type_promote(a->type);
    int64_t sh;
    if (fe_eval_int(b, &sh) && (sh < 0 || sh >= t->size * 8))
      fe_arith_error(fe, n, "shift by %lld is undefined for type '%s'", (long long)sh, t->name);
    return ir_binary(fe->arena, op, fe_convert(fe, a, t),
                     fe_convert(fe, b, type_promote(b->type)), t, loc);
  }
  case OP_MOD:
  case OP_BAND:
  case OP_BOR:
  case OP_BXOR:
    need_integer(fe, n, a, ops);
    need_integer(fe, n, b, ops);
    /* fall through */
  default: {
    const Type *t = type_common(a->type, b->type);
    if ((op == OP_DIV || op == OP_MOD) && type_is_integer(t)) {
      int64_t d;
      if (fe_eval_int(b, &d) && d == 0) fe_arith_error(fe, n, "division by zero");
    }
    Expr *e = ir_binary(fe->arena, op, fe_convert(fe, a, t), fe_convert(fe, b, t), t, loc);
    if (op >= OP_LT && op <= OP_NE) e->type = &ty_int;
    return e;
  }
  }
}

/* Resolves `A[i][j]...` to the buffer and its index expressions. */
static Expr *subscript(Fe *fe, TSNode n) {
  TSNode chain[IR_MAX_DIMS + 1];
  int depth = 0;
  TSNode base = n;
  while (fe_is(base, "subscript_expression")) {
    if (depth == IR_MAX_DIMS) fe_error(fe, n, "too many indices (at most %d)", IR_MAX_DIMS);
    chain[depth++] = base;
    base = fe_field(base, "argument");
    while (fe_is(base, "parenthesized_expression")) base = fe_child(base, 0);
  }
  if (!fe_is(base, "identifier")) fe_error(fe, base, "only named arrays can be indexed");
  const char *name = fe_text(fe, base);
  Sym *y = fe_lookup(fe, name);
  if (!y) fe_error(fe, base, "'%s' is not declared", name);
  if (y->kind != SYM_BUF) fe_error(fe, base, "'%s' is not an array", name);
  Buffer *b = y->buf;
  if (depth != b->ndim)
    fe_error(fe, n, "wrong number of indices for '%s': it has %d dimension%s, %d given", name,
             b->ndim, b->ndim == 1 ? "" : "s", depth);
  Expr *e = ARENA_NEW(fe->arena, Expr);
  e->kind = EX_LOAD;
  e->buf = b;
  e->type = b->elem;
  e->loc = fe_loc(fe, n);
  e->idx = ARENA_ARRAY(fe->arena, Expr *, b->ndim);
  for (int d = 0; d < depth; d++) {
    TSNode in = fe_field(chain[depth - 1 - d], "index");
    Expr *ix = fe_expr(fe, in);
    if (!type_is_integer(ix->type))
      fe_error(fe, in, "array index must be an integer, not '%s'", ix->type->name);
    e->idx[d] = ix;
  }
  return e;
}

static Expr *identifier(Fe *fe, TSNode n) {
  const char *name = fe_text(fe, n);
  Sym *y = fe_lookup(fe, name);
  Expr *std = y ? NULL : fe_std_constant(fe, n, name);
  if (std) return std;
  if (!y) fe_error(fe, n, "'%s' is not declared", name);
  if (y->kind == SYM_DEFINE) {
    if (!y->value) longjmp(fe->fail, 1); /* its #define was refused */
    Expr *e = ir_expr_copy(fe->arena, y->value);
    e->loc = fe_loc(fe, n);
    return e;
  }
  if (y->kind == SYM_BUF) fe_error(fe, n, "array '%s' used without an index", name);
  if (y->is_counter)
    fe_error(fe, n, "loop counter '%s' is used after its loop (line %d); its final value is not kept",
             name, y->after_loop);
  if (fe->k && y->var->kind != VAR_LOOP) fe_vinfo(fe, y->var)->reads++;
  return ir_var(fe->arena, y->var, fe_loc(fe, n));
}

/* `(real)(x + 1)` with `real` a typedef or a type macro: tree-sitter,
 * which does not know the name is a type, reads a call of a parenthesized
 * name. It is a cast of the one argument; the type named, or NULL. */
static const Type *paren_type_name(Fe *fe, TSNode fn) {
  if (!fe_is(fn, "parenthesized_expression") || ts_node_named_child_count(fn) != 1) return NULL;
  TSNode id = ts_node_named_child(fn, 0);
  if (!fe_is(id, "identifier")) return NULL;
  /* as fe_type_of resolves a type: a type C names (`_Bool`, which the
   * grammar reads as a name here), then a typedef or macro */
  const Type *t = type_by_name(fe_text(fe, id));
  if (t) return t;
  const Sym *y = fe_lookup(fe, fe_text(fe, id));
  return y && y->kind == SYM_TYPE ? y->type : NULL;
}

static Expr *call(Fe *fe, TSNode n) {
  TSNode fn = fe_field(n, "function");
  const Type *cast_to = paren_type_name(fe, fn);
  if (cast_to) {
    TSNode args = fe_field(n, "arguments");
    if (ts_node_named_child_count(args) != 1) fe_error(fe, args, "a cast to '%s' takes one operand", cast_to->name);
    Expr *a = fe_expr(fe, ts_node_named_child(args, 0));
    Expr *e = cast(fe, a, cast_to, false, fe_loc(fe, n));
    e->loc = fe_loc(fe, n);
    return e;
  }
  if (!fe_is(fn, "identifier")) fe_error(fe, fn, "only calls to <math.h> functions are supported");
  const char *name = fe_text(fe, fn);
  const Sym *hides = fe_lookup(fe, name); /* a local may have a <math.h> function's name (frontend/scope.c) */
  if (hides && (hides->kind == SYM_VAR || hides->kind == SYM_BUF))
    fe_error(fe, fn, "'%s' is %s here (declared at line %d), which hides the <math.h> function; rename the local",
             name, hides->kind == SYM_BUF ? "a local array" : "a local variable",
             hides->kind == SYM_BUF ? hides->buf->loc.line : hides->var->loc.line);
  const MathFn *m = math_fn(name); /* a kernel cannot have a <math.h> name (ir/reserved.c) */
  if (!m && fe_names_kernel(fe, n))
    fe_error(fe, fn, "'%s' is a kernel: it returns nothing; call it as a statement, '%s(...);'", name, name);
  if (!m)
    fe_error(fe, fn, "call to '%s' is not supported: kernels may call <math.h> functions, abs, and kernels defined "
             "earlier in the file", name);
  TSNode args = fe_field(n, "arguments");
  uint32_t na = ts_node_named_child_count(args);
  Expr *e = ARENA_NEW(fe->arena, Expr);
  e->kind = EX_CALL;
  e->text = m->name;
  e->type = m->ret;
  e->loc = fe_loc(fe, n);
  e->args = ARENA_ARRAY(fe->arena, Expr *, m->nargs);
  int got = 0;
  for (uint32_t i = 0; i < na; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (fe_is(a, "comment")) continue;
    if (got == m->nargs) {
      got++;
      break;
    }
    Expr *x = fe_expr(fe, a);
    if (m->arg == &ty_int && !type_is_integer(x->type))
      fe_error(fe, a, "argument of 'abs' must be an integer");
    const Type *at = m->last_arg && got == m->nargs - 1 ? m->last_arg : m->arg;
    if (at == &ty_int && !type_is_integer(x->type))
      fe_error(fe, a, "argument %d of '%s' must be an integer", got + 1, name);
    e->args[got++] = fe_convert(fe, x, at);
  }
  if (got != m->nargs)
    fe_error(fe, n, "'%s' takes %d argument%s", name, m->nargs, m->nargs == 1 ? "" : "s");
  e->nargs = m->nargs;
  return e;
}

Expr *fe_expr(Fe *fe, TSNode n) {
  /* fe_arith_error's: reported where an expression is only tried (a
   * schedule argument), not taken for "not a constant" */
  if (++fe->depth > FE_MAX_NESTING)
    fe_arith_error(fe, n, "expression nested too deeply (the limit is %d levels)", FE_MAX_NESTING);
  Expr *e = NULL;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "number_literal")) {
    e = number_literal(fe, n);
  } else if (!strcmp(t, "identifier")) {
    e = identifier(fe, n);
  } else if (!strcmp(t, "true") || !strcmp(t, "false")) {
    /* <stdbool.h>'s int constants, printed as 1 and 0: the emitted C and
     * the check's references include no <stdbool.h> */
    e = ir_int(fe->arena, t[0] == 't', &ty_int, fe_loc(fe, n));
  } else if (!strcmp(t, "parenthesized_expression")) {
    TSNode in = fe_child(n, 0);
    if (fe_is(in, "comma_expression")) fe_error(fe, in, "the comma operator is not supported in kernels");
    e = fe_expr(fe, in);
  } else if (!strcmp(t, "subscript_expression")) {
    e = subscript(fe, n);
  } else if (!strcmp(t, "call_expression")) {
    e = call(fe, n);
  } else if (!strcmp(t, "unary_expression")) {
    const char *op = fe_text(fe, fe_field(n, "operator"));
    TSNode an = fe_field(n, "argument");
    Expr *a = fe_expr(fe, an);
    SrcLoc loc = fe_loc(fe, n);
    if (!strcmp(op, "!")) {
      e = new_unary(fe, OP_LNOT, a, &ty_int, loc);
    } else {
      Op o = !strcmp(op, "-") ? OP_NEG : !strcmp(op, "+") ? OP_PLUS : OP_BNOT;
      if (o == OP_BNOT) need_integer(fe, n, a, "~");
      const Type *pt = type_promote(a->type);
      e = new_unary(fe, o, fe_convert(fe, a, pt), pt, loc);
      fe_check_const(fe, n, n, e);
    }
  } else if (!strcmp(t, "binary_expression")) {
    Op op = binary_op(fe_text(fe, fe_field(n, "operator")));
    Expr *a = fe_expr(fe, fe_field(n, "left"));
    Expr *b = fe_expr(fe, fe_field(n, "right"));
    e = make_binary(fe, fe_field(n, "operator"), op, a, b);
    e->loc = fe_loc(fe, n);
    fe_check_const(fe, fe_field(n, "operator"), n, e);
  } else if (!strcmp(t, "conditional_expression")) {
    Expr *c = fe_expr(fe, fe_field(n, "condition"));
    TSNode bn = fe_field(n, "consequence");
    if (ts_node_is_null(bn)) fe_error(fe, n, "the '?:' shorthand without a middle operand is not supported");
    Expr *a = fe_expr(fe, bn);
    Expr *b = fe_expr(fe, fe_field(n, "alternative"));
    const Type *ct = type_common(a->type, b->type);
    e = ARENA_NEW(fe->arena, Expr);
    e->kind = EX_COND;
    e->a = c;
    e->b = fe_convert(fe, a, ct);
    e->c = fe_convert(fe, b, ct);
    e->type = ct;
    e->loc = fe_loc(fe, n);
  } else if (!strcmp(t, "cast_expression")) {
    const Type *ty = fe_type_descriptor(fe, fe_field(n, "type"));
    Expr *a = fe_expr(fe, fe_field(n, "value"));
    e = cast(fe, a, ty, false, fe_loc(fe, n));
    e->loc = fe_loc(fe, n);
  } else if (!strcmp(t, "assignment_expression")) {
    fe_error(fe, n, "assignment inside an expression is not supported; write it as its own statement");
  } else if (!strcmp(t, "update_expression")) {
    fe_error(fe, n, "'++' and '--' inside an expression are not supported; write them as their own statement");
  } else if (!strcmp(t, "pointer_expression")) {
    fe_error(fe, n, "pointers are not supported in kernels");
  } else if (!strcmp(t, "field_expression")) {
    fe_error(fe, n, "structs are not supported in kernels");
  } else if (!strcmp(t, "comma_expression")) {
    fe_error(fe, n, "the comma operator is not supported in kernels");
  } else if (!strcmp(t, "sizeof_expression")) {
    fe_error(fe, n, "'sizeof' is not supported in kernels");
  } else if (!strcmp(t, "string_literal") || !strcmp(t, "concatenated_string")) {
    fe_error(fe, n, "strings are not supported in kernels");
  } else if (!strcmp(t, "char_literal")) {
    fe_error(fe, n, "character constants are not supported in kernels");
  } else {
    fe_error(fe, n, "unsupported expression (%s)", t);
  }
  fe->depth--;
  return e;
}

Expr *fe_lvalue(Fe *fe, TSNode n) {
  while (fe_is(n, "parenthesized_expression")) n = fe_child(n, 0);
  if (fe_is(n, "subscript_expression")) {
    Expr *e = subscript(fe, n);
    if (e->buf->is_const)
      fe_error(fe, n, "cannot write to '%s': it is declared const", e->buf->name);
    return e;
  }
  if (fe_is(n, "identifier")) {
    const char *name = fe_text(fe, n);
    Sym *y = fe_lookup(fe, name);
    if (!y) fe_error(fe, n, "'%s' is not declared", name);
    if (y->kind == SYM_BUF) fe_error(fe, n, "cannot assign to array '%s' as a whole", name);
    if (y->kind == SYM_DEFINE) fe_error(fe, n, "cannot assign to constant '%s'", name);
    if (y->var->kind == VAR_LOOP)
      fe_error(fe, n, "cannot write to loop counter '%s' inside its loop", name);
    if (y->is_counter)
      fe_error(fe, n, "loop counter '%s' is used after its loop (line %d); its final value is not kept",
               name, y->after_loop);
    VarInfo *vi = fe_vinfo(fe, y->var);
    if (vi->is_const) fe_error(fe, n, "cannot write to '%s': it is declared const", name);
    vi->assigns++;
    return ir_var(fe->arena, y->var, fe_loc(fe, n));
  }
  if (fe_is(n, "pointer_expression")) fe_error(fe, n, "pointers are not supported in kernels");
  fe_error(fe, n, "expression is not assignable");
}
