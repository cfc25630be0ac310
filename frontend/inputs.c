/* The check's pragmas (docs/check.md, ir/check_spec.h):
 *
 *   #pragma npu inputs(KERNEL, PARAM, LO, HI)   values uniform in [LO, HI]
 *   #pragma npu inputs(KERNEL, PARAM, spd)      symmetric positive definite
 *   #pragma npu allow_nonfinite(KERNEL[, PARAM...])
 *   #pragma npu assume(...), sizes(...)          frontend/sizes.c
 *
 * They describe the kernel's data, not a variant, so they are not schedule
 * steps: they may sit anywhere after the kernel they name. The call is
 * parsed by tree-sitter-c inside a snippet, as schedule pragmas are, and
 * errors point into the pragma line. */
#include "frontend/inputs.h"
#include "frontend/sizes.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ir/check_spec.h"
#include "ir/suggest.h"

/* ---------------- arguments ---------------- */

static const char *name_arg(Fe *fe, TSNode n, const char *what) {
  if (!fe_is(n, "identifier")) fe_error(fe, n, "expected %s, a name", what);
  return fe_text(fe, n);
}

Kernel *fe_pragma_kernel(Fe *fe, TSNode n) {
  const char *name = name_arg(fe, n, "the kernel");
  IrSuggest near = ir_suggest_start(name);
  for (Kernel *k = fe->m->kernels; k; k = k->next) {
    if (!strcmp(k->name, name)) return k;
    ir_suggest_add(&near, k->name);
  }
  char dym[160];
  fe_error(fe, n, "no kernel '%s' is defined above this pragma%s", name, ir_suggest_text(&near, dym, sizeof dym));
}

/* The parameter's element type (its own type for a scalar); its buffer in *b. */
static const Type *param_arg(Fe *fe, TSNode n, const Kernel *k, const Buffer **b) {
  const char *name = name_arg(fe, n, "a parameter");
  IrSuggest near = ir_suggest_start(name);
  for (const Param *p = k->params; p; p = p->next) {
    *b = p->buf;
    if (p->buf && !strcmp(p->buf->name, name)) return p->buf->elem;
    if (p->var && !strcmp(p->var->name, name)) return p->var->type;
    ir_suggest_add(&near, p->buf ? p->buf->name : p->var->name);
  }
  char dym[160];
  fe_error(fe, n, "kernel '%s' has no parameter '%s'%s", k->name, name, ir_suggest_text(&near, dym, sizeof dym));
}

/* A floating constant expression's value (integers, casts, + - * /). */
static bool const_double(const Expr *e, double *v) {
  int64_t i;
  double a, b;
  if (type_is_integer(e->type)) {
    if (!fe_eval_int(e, &i)) return false;
    *v = (double)i;
    return true;
  }
  switch (e->kind) {
  case EX_FLOAT: *v = e->fval; return true;
  case EX_CAST:
    if (!const_double(e->a, &a)) return false;
    *v = e->type->kind == TY_FLOAT ? (double)(float)a : a;
    return true;
  case EX_UNARY:
    if ((e->op != OP_NEG && e->op != OP_PLUS) || !const_double(e->a, &a)) return false;
    *v = e->op == OP_NEG ? -a : a;
    return true;
  case EX_BINARY:
    if (!const_double(e->a, &a) || !const_double(e->b, &b)) return false;
    switch (e->op) {
    case OP_ADD: *v = a + b; return true;
    case OP_SUB: *v = a - b; return true;
    case OP_MUL: *v = a * b; return true;
    case OP_DIV: *v = a / b; return true;
    default: return false;
    }
  default: return false;
  }
}

/* Whether the constant v of type et (C's value: a 64-bit unsigned one past
 * INT64_MAX wraps in v) fits in t. */
static bool int_fits(int64_t v, const Type *et, const Type *t) {
  int64_t tlo;
  uint64_t thi;
  type_int_range(t, &tlo, &thi);
  if (!et->is_signed && et->size == 8 && v < 0) return (uint64_t)v <= thi; /* 2^63 and up: unsigned t only */
  return v >= tlo && (v < 0 || (uint64_t)v <= thi) && (t->is_signed || v >= 0);
}

/* LO or HI of a parameter of type t, into s->ilo/ihi or s->flo/fhi (an
 * unsigned 64-bit value as its bits: check_inputs reads them unsigned). */
static void bound_arg(Fe *fe, TSNode n, const Type *t, CheckSpec *s, bool hi) {
  Expr *e = fe_expr(fe, n);
  if (type_is_integer(t)) {
    int64_t v;
    if (!type_is_integer(e->type) || !fe_eval_int(e, &v))
      fe_error(fe, n, "the bounds of '%s' (%s) must be integer constants", s->param, t->name);
    if (!int_fits(v, e->type, t)) {
      if (!e->type->is_signed && e->type->size == 8 && v < 0)
        fe_error(fe, n, "%llu does not fit in '%s' (%s)", (unsigned long long)v, s->param, t->name);
      fe_error(fe, n, "%lld does not fit in '%s' (%s)", (long long)v, s->param, t->name);
    }
    *(hi ? &s->ihi : &s->ilo) = v;
    return;
  }
  double v;
  if (!const_double(e, &v) || !isfinite(v))
    fe_error(fe, n, "the bounds of '%s' (%s) must be finite constants", s->param, t->name);
  if (t->kind == TY_FLOAT && fabs(v) > FLT_MAX) fe_error(fe, n, "%g does not fit in '%s' (float)", v, s->param);
  *(hi ? &s->fhi : &s->flo) = v;
}

/* ---------------- the two pragmas ---------------- */

static void add_spec(Fe *fe, CheckSpec *s) {
  CheckSpec **tail = &fe->m->check_specs;
  while (*tail) tail = &(*tail)->next;
  *tail = s;
}

static const char inputs_usage[] = "inputs takes (KERNEL, PARAM, LO, HI) or (KERNEL, PARAM, spd)";

static void inputs(Fe *fe, TSNode call, TSNode *a, uint32_t n) {
  if (n != 3 && n != 4) fe_error(fe, call, "%s", inputs_usage);
  CheckSpec *s = ARENA_NEW(fe->arena, CheckSpec);
  const Kernel *k = fe_pragma_kernel(fe, a[0]);
  const Buffer *b;
  const Type *t = param_arg(fe, a[1], k, &b);
  s->kernel = k->name;
  s->param = fe_text(fe, a[1]);
  s->loc = fe_loc(fe, call);
  for (int i = 0; i < k->nsizes; i++)
    if (!strcmp(k->sizes[i]->name, s->param))
      fe_error(fe, a[1], "'%s' is one of kernel %s's sizes: the check takes its values from the size sets "
               "(#pragma npu sizes(%s, %s = ...))", s->param, k->name, k->name, s->param);
  for (const CheckSpec *o = fe->m->check_specs; o; o = o->next)
    if (o->kind != SPEC_ALLOW_NONFINITE && !strcmp(o->kernel, s->kernel) && !strcmp(o->param, s->param))
      fe_error(fe, a[1], "the inputs of '%s' are already given on line %d", s->param, o->loc.line);
  if (n == 3) {
    if (!fe_is(a[2], "identifier") || strcmp(fe_text(fe, a[2]), "spd")) fe_error(fe, a[2], "%s", inputs_usage);
    if (!b || !type_is_float(t) || b->ndim < 2 || b->shape[b->ndim - 1] != b->shape[b->ndim - 2] ||
        (buffer_symbolic(b) && !(b->extent[b->ndim - 1] && b->extent[b->ndim - 2] &&
                                 ir_expr_same(b->extent[b->ndim - 1], b->extent[b->ndim - 2]))))
      fe_error(fe, a[2], "spd needs an array of float or double whose last two extents are equal (square "
               "matrices); '%s' is not one", s->param);
    s->kind = SPEC_SPD;
  } else {
    s->kind = SPEC_RANGE;
    bound_arg(fe, a[2], t, s, false);
    bound_arg(fe, a[3], t, s, true);
    bool empty = !type_is_integer(t) ? s->flo > s->fhi
                 : t->is_signed      ? s->ilo > s->ihi
                                     : (uint64_t)s->ilo > (uint64_t)s->ihi;
    if (empty)
      fe_error(fe, a[2], "the range of '%s' is empty: LO is greater than HI", s->param);
  }
  add_spec(fe, s);
}

static void allow_nonfinite(Fe *fe, TSNode call, TSNode *a, uint32_t n) {
  if (n < 1) fe_error(fe, call, "allow_nonfinite takes (KERNEL) or (KERNEL, OUTPUT...)");
  const Kernel *k = fe_pragma_kernel(fe, a[0]);
  for (uint32_t i = n == 1 ? 0 : 1; i < n; i++) {
    CheckSpec *s = ARENA_NEW(fe->arena, CheckSpec);
    s->kind = SPEC_ALLOW_NONFINITE;
    s->kernel = k->name;
    s->loc = fe_loc(fe, call);
    if (n > 1) {
      const Buffer *b;
      const Type *t = param_arg(fe, a[i], k, &b);
      if (!b || b->is_const || !type_is_float(t))
        fe_error(fe, a[i], "'%s' is not an output array of float or double", fe_text(fe, a[i]));
      s->param = b->name;
    }
    add_spec(fe, s);
  }
}

/* ---------------- the pragma line ---------------- */

enum { MAX_ARGS = 64 };

/* Parses the call and hands its arguments to `inputs` or `allow_nonfinite`. */
static void parse_pragma(Fe *fe, TSNode root, SrcLoc at, void *ctx) {
  (void)ctx;
  TSNode body = fe_field(fe_child(root, 0), "body");
  TSNode es = fe_child(body, 0);
  TSNode call = ts_node_is_null(es) ? es : fe_child(es, 0);
  if (ts_node_named_child_count(root) != 1 || ts_node_named_child_count(body) != 1 || ts_node_is_null(call) ||
      !fe_is(call, "call_expression"))
    fe_error_at(fe, at, "expected one call, such as 'inputs(KERNEL, PARAM, -1, 1)'");
  TSNode args = fe_field(call, "arguments"), a[MAX_ARGS];
  uint32_t n = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode c = ts_node_named_child(args, i);
    if (fe_is(c, "comment")) continue;
    if (n == MAX_ARGS) fe_error(fe, c, "too many arguments");
    a[n++] = c;
  }
  if (fe->src != fe->m->src)
    fe_error(fe, call, "'%s' belongs in the kernel file, after the kernel", fe_text(fe, fe_field(call, "function")));
  const char *name = fe_text(fe, fe_field(call, "function"));
  if (!strcmp(name, "inputs")) inputs(fe, call, a, n);
  else if (!strcmp(name, "allow_nonfinite")) allow_nonfinite(fe, call, a, n);
  else fe_sizes_pragma(fe, call, name, a, n);
}

static bool is_ours(const char *call) {
  static const char *const names[] = {"inputs", "allow_nonfinite", "assume", "sizes"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t l = strlen(names[i]);
    if (!strncmp(call, names[i], l) && (call[l] == '(' || call[l] == ' ' || call[l] == '\t')) return true;
  }
  return false;
}

/* `#pragma npu strict`: every weakening of the verdict is an error, as
 * with --strict (jit/strict.c). */
static bool strict_pragma(const char *call) {
  if (strncmp(call, "strict", 6)) return false;
  for (const char *p = call + 6; *p; p++)
    if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') return false;
  return true;
}

bool fe_check_pragma(Fe *fe, const char *text, SrcLoc loc) {
  const char *call = text + 3; /* after "npu" */
  while (*call == ' ' || *call == '\t') call++;
  if (strict_pragma(call)) {
    fe->m->strict = true;
    return true;
  }
  if (!is_ours(call)) return false;
  SrcLoc at = {loc.line, loc.col + (int)(call - text)};
  fe_parse_pragma_call(fe, call, at, parse_pragma, NULL);
  return true;
}
