/* The pragmas of a kernel with symbolic sizes (docs/kernel-language.md):
 *
 *   #pragma npu assume(KERNEL, COND, ...)      facts true at every call
 *   #pragma npu sizes(KERNEL, n = 64, m = 7)   one size set for the check
 *
 * A condition is C over the kernel's sizes (its integer parameters that
 * size an array or bound a loop) and constants, affine with `%` and `/` by
 * constants, `&&`, `||`, `!` and comparisons: `n >= 1`, `n <= 4096`,
 * `n % 32 == 0`. The bounds check and the legality proofs hold for every
 * size that satisfies all of them (ir/bounds.c); the emitted code tests
 * them at entry (NPUGEN_ASSUME). */
#include <string.h>

#include "frontend/fe.h"
#include "frontend/inputs.h"
#include "frontend/sizes.h"

static int size_index(const Kernel *k, const Var *v) {
  for (int i = 0; i < k->nsizes; i++)
    if (k->sizes[i] == v) return i;
  return -1;
}

static void sizes_list(const Kernel *k, char *out, size_t n) {
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < k->nsizes && at < n; i++)
    at += (size_t)snprintf(out + at, n - at, "%s%s", i ? ", " : "", k->sizes[i]->name);
}

static Kernel *sized_kernel(Fe *fe, TSNode n, const char *pragma) {
  Kernel *k = fe_pragma_kernel(fe, n);
  if (!k->nsizes)
    fe_error(fe, n,
             "kernel '%s' has no symbolic sizes, so %s does not apply: no integer parameter sizes an array or "
             "bounds a loop",
             k->name, pragma);
  return k;
}

/* Only sizes and constants in a condition (and in what it divides by). */
static void only_sizes(Fe *fe, TSNode at, const Kernel *k, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR && size_index(k, e->var) < 0)
    fe_error(fe, at, "'%s' is not one of kernel %s's sizes; an assumption may name only them", e->var->name, k->name);
  if (e->kind == EX_LOAD || e->kind == EX_CALL || e->kind == EX_FLOAT || (e->type && type_is_float(e->type)))
    fe_error(fe, at, "an assumption is integer arithmetic on the sizes and constants");
  only_sizes(fe, at, k, e->a);
  only_sizes(fe, at, k, e->b);
  only_sizes(fe, at, k, e->c);
}

/* Declares k's parameters, so an expression may name them. */
static void params_scope(Fe *fe, TSNode at, Kernel *k) {
  fe->scope = ARENA_NEW(fe->arena, Scope);
  fe->k = k;
  for (const Param *p = k->params; p; p = p->next) {
    Sym *y = fe_declare(fe, at, p->buf ? p->buf->name : p->var->name, p->buf ? SYM_BUF : SYM_VAR);
    y->buf = p->buf;
    y->var = p->var;
  }
}

static void assume(Fe *fe, TSNode call, TSNode *a, uint32_t n) {
  if (n < 2) fe_error(fe, call, "assume takes (KERNEL, CONDITION, ...), e.g. 'assume(gemm, n >= 1, n %% 32 == 0)'");
  Kernel *k = sized_kernel(fe, a[0], "assume");
  params_scope(fe, call, k);
  for (uint32_t i = 1; i < n; i++) {
    Expr *e = fe_expr(fe, a[i]);
    only_sizes(fe, a[i], k, e);
    if (!type_is_integer(e->type)) fe_error(fe, a[i], "an assumption is a condition on the sizes");
    if (k->nassume == IR_MAX_ASSUME) fe_error(fe, a[i], "too many assumptions (at most %d)", IR_MAX_ASSUME);
    k->assume_loc[k->nassume] = fe_loc(fe, a[i]);
    k->assume[k->nassume++] = e;
  }
  fe->scope = NULL;
  fe->k = NULL;
}

static void sizes(Fe *fe, TSNode call, TSNode *a, uint32_t n) {
  if (n < 2) fe_error(fe, call, "sizes takes (KERNEL, SIZE = VALUE, ...), e.g. 'sizes(gemm, n = 64, m = 7)'");
  Kernel *k = sized_kernel(fe, a[0], "sizes");
  if (k->nsize_sets == IR_MAX_SIZE_SETS) fe_error(fe, call, "too many size sets (at most %d)", IR_MAX_SIZE_SETS);
  SizeSet *set = &k->size_sets[k->nsize_sets];
  memset(set, 0, sizeof *set);
  set->loc = fe_loc(fe, call);
  bool given[IR_MAX_SIZES] = {false};
  char all[256];
  sizes_list(k, all, sizeof all);
  for (uint32_t i = 1; i < n; i++) {
    TSNode lhs = fe_field(a[i], "left");
    if (!fe_is(a[i], "assignment_expression") || strcmp(fe_text(fe, fe_field(a[i], "operator")), "=") ||
        !fe_is(lhs, "identifier"))
      fe_error(fe, a[i], "expected SIZE = VALUE, e.g. 'n = 64'");
    const char *name = fe_text(fe, lhs);
    int at = -1;
    for (int s = 0; s < k->nsizes; s++)
      if (!strcmp(k->sizes[s]->name, name)) at = s;
    if (at < 0) fe_error(fe, lhs, "'%s' is not one of kernel %s's sizes (%s)", name, k->name, all);
    if (given[at]) fe_error(fe, lhs, "'%s' is given twice", name);
    given[at] = true;
    Expr *e = fe_expr(fe, fe_field(a[i], "right"));
    int64_t v, lo;
    uint64_t hi;
    type_int_range(k->sizes[at]->type, &lo, &hi);
    if (!type_is_integer(e->type) || !fe_eval_int(e, &v))
      fe_error(fe, fe_field(a[i], "right"), "the value of '%s' must be an integer constant", name);
    if (v < lo || (v > 0 && (uint64_t)v > hi))
      fe_error(fe, fe_field(a[i], "right"), "%lld does not fit in '%s' (%s)", (long long)v, name,
               k->sizes[at]->type->name);
    set->val[at] = v;
  }
  for (int s = 0; s < k->nsizes; s++)
    if (!given[s]) fe_error(fe, call, "sizes(%s, ...) gives no value for '%s'; a size set gives every size (%s)", k->name,
                            k->sizes[s]->name, all);
  k->nsize_sets++;
}

void fe_sizes_pragma(Fe *fe, TSNode call, const char *name, TSNode *a, uint32_t n) {
  if (!strcmp(name, "assume")) assume(fe, call, a, n);
  else sizes(fe, call, a, n);
}
