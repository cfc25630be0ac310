/* Preconditions npugen derives (docs/limits.md, "Preconditions"). A
 * kernel as written can be undefined only at some sizes: `t <= tsteps`
 * passes INT_MAX when tsteps is INT_MAX, an extent `h + 2` overflows, a
 * local z[122] indexed up to n overflows at n = 122. As Halide does,
 * npugen takes the condition under which it is defined (the sizes where
 * the bounds proof holds, from isl: ir/bounds.c in derive mode), adds it
 * to the kernel's assumptions, so every proof after it holds under it and
 * the emitted code tests it at entry (NPUGEN_ASSUME, lower/assumptions.c),
 * and says so in a note. One failure at a time: the next is looked for
 * under the conditions found so far. */
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/val.h>
#include <stdint.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/preconditions.h"

/* ---------------- a set of sizes as C ---------------- */

typedef struct {
  Arena *a;
  const Kernel *k;
  Expr *conj; /* the current basic set's constraints, joined by && */
  Expr *disj; /* the basic sets, joined by || */
  bool ok;
} Said;

/* v as an int64_t that can be negated (a long long size's bound is near its ends). */
static bool small_int(isl_val *v, int64_t *out) {
  bool ok = v && isl_val_is_int(v) == isl_bool_true && isl_val_cmp_si(v, INT64_MAX) <= 0 &&
            isl_val_cmp_si(v, -INT64_MAX) >= 0;
  if (ok) *out = isl_val_get_num_si(v);
  isl_val_free(v);
  return ok;
}

/* Size i times m (m > 0) in type t: one size compares in its own
 * (promoted) type, a sum of sizes in long long, so that the entry test's
 * own arithmetic cannot overflow. */
static Expr *term(Said *s, int i, int64_t m, const Type *t) {
  Expr *v = ir_var(s->a, (Var *)s->k->sizes[i], s->k->loc);
  return ir_mul_int(s->a, ir_cast(s->a, v, t, t != &ty_llong), m, t);
}

/* sum c[i] * size i + c0 >= 0 (== 0 for an equality), with the terms of
 * one sign on the left: `h <= 2147483645`, `n >= m + 1`. */
static Expr *constraint_expr(Said *s, const int64_t *c, int64_t c0, bool eq) {
  int pos = 0, neg = 0, one = -1;
  for (int i = 0; i < s->k->nsizes; i++) {
    if (c[i]) one = i;
    pos += c[i] > 0;
    neg += c[i] < 0;
  }
  if (!pos && !neg) return NULL;
  const Type *vt = s->k->sizes[one]->type;
  bool single = pos + neg == 1 && (c[one] == 1 || c[one] == -1);
  const Type *t = !single ? &ty_llong : vt->size < ty_int.size ? &ty_int : vt;
  int sign = pos ? 1 : -1; /* all negative: negated, `<=` */
  Expr *lhs = NULL;
  for (int pass = 0; pass < 2; pass++) /* the leading sign's terms first */
    for (int i = 0; i < s->k->nsizes; i++) {
      int64_t m = c[i] * sign;
      if (!m || (pass == 0) != (m > 0)) continue;
      Expr *x = term(s, i, m > 0 ? m : -m, t);
      lhs = !lhs ? x : m > 0 ? ir_binary(s->a, OP_ADD, lhs, x, t, s->k->loc) : ir_binary(s->a, OP_SUB, lhs, x, t, s->k->loc);
    }
  int64_t rhs = -c0 * sign, lo;
  uint64_t hi;
  type_int_range(t, &lo, &hi);
  if (rhs < lo || (rhs > 0 && (uint64_t)rhs > hi)) return NULL;
  Op op = eq ? OP_EQ : sign > 0 ? OP_GE : OP_LE;
  return ir_binary(s->a, op, lhs, ir_int(s->a, rhs, t, s->k->loc), &ty_int, s->k->loc);
}

static isl_stat said_constraint(isl_constraint *con, void *user) {
  Said *s = user;
  int64_t c[IR_MAX_SIZES] = {0}, c0 = 0;
  bool ok = small_int(isl_constraint_get_constant_val(con), &c0);
  for (int i = 0; ok && i < s->k->nsizes; i++)
    ok = small_int(isl_constraint_get_coefficient_val(con, isl_dim_set, i), &c[i]);
  Expr *e = ok ? constraint_expr(s, c, c0, isl_constraint_is_equality(con) == isl_bool_true) : NULL;
  isl_constraint_free(con);
  if (!e) {
    s->ok = false;
    return isl_stat_error;
  }
  s->conj = s->conj ? ir_binary(s->a, OP_LAND, s->conj, e, &ty_int, s->k->loc) : e;
  return isl_stat_ok;
}

static isl_stat said_basic_set(isl_basic_set *bset, void *user) {
  Said *s = user;
  s->conj = NULL;
  /* an existential (n % 2 == 0) has no plain C form here */
  if (isl_basic_set_dim(bset, isl_dim_div) != 0 || isl_basic_set_foreach_constraint(bset, said_constraint, s) < 0 ||
      !s->conj) {
    s->ok = false;
    isl_basic_set_free(bset);
    return isl_stat_error;
  }
  isl_basic_set_free(bset);
  s->disj = s->disj ? ir_binary(s->a, OP_LOR, s->disj, s->conj, &ty_int, s->k->loc) : s->conj;
  return isl_stat_ok;
}

Expr *ir_sizes_condition(Arena *a, const Kernel *k, struct isl_set *good) {
  Said s = {.a = a, .k = k, .ok = true};
  isl_size dims = good ? isl_set_dim(good, isl_dim_set) : -1;
  if (dims != k->nsizes || isl_set_foreach_basic_set(good, said_basic_set, &s) < 0) s.ok = false;
  isl_set_free(good);
  return s.ok ? s.disj : NULL;
}

/* ---------------- the driver ---------------- */

/* Does k's assumption i follow from the others? (A later condition, found
 * under it, can make it redundant: n <= 121 after n <= 2147483646.) */
static bool implied(const Kernel *k, int i) {
  Kernel others = *k;
  others.nassume = 0;
  for (int j = 0; j < k->nassume; j++)
    if (j != i) others.assume[others.nassume++] = k->assume[j];
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, &others);
  char why[200];
  bool yes = aff_push_sizes(&c, why, sizeof why) && aff_cond_value(&c, k->assume[i]) == 1;
  aff_free(&c);
  isl_ctx_free(ctx);
  return yes;
}

static void drop(Kernel *k, int i) {
  for (int j = i; j + 1 < k->nassume; j++) {
    k->assume[j] = k->assume[j + 1];
    k->assume_loc[j] = k->assume_loc[j + 1];
    k->assume_why[j] = k->assume_why[j + 1];
  }
  k->nassume--;
}

static bool known(const Kernel *k, int first, const Expr *need) {
  for (int i = first; i < k->nassume; i++)
    if (ir_expr_same(k->assume[i], need)) return true;
  return false;
}

static void note(DiagList *d, const char *file, const char *src, const Expr *cond, SrcLoc loc, const char *why) {
  StrBuf t;
  sb_init(&t);
  ir_print_expr(&t, cond);
  diag_note(d, file, src, loc.line, loc.col,
            "npugen assumes %s (%s); the emitted function tests it at entry (NPUGEN_ASSUME)", t.data, why);
  sb_free(&t);
}

/* ---------------- a failure inside a call ---------------- */

/* The innermost call block (a kernel's call, inlined) holding a statement
 * on line `line`: a callee's statements keep the callee's lines. */
typedef struct {
  int line;
  const Stmt *call, *found;
} AtCall;

static bool holds_line(Stmt *st, int depth, void *ctx) {
  (void)depth;
  AtCall *c = ctx;
  if (st->loc.line == c->line && st->kind != ST_BLOCK) c->found = st;
  return !c->found;
}

static bool find_call(Stmt *st, int depth, void *ctx) {
  (void)depth;
  AtCall *c = ctx;
  if (st->kind != ST_BLOCK || !st->call) return true;
  AtCall inner = {.line = c->line};
  ir_walk_one(st, holds_line, &inner);
  if (inner.found) c->call = st; /* the walk goes on inside: a nested call is innermost */
  return true;
}

/* A condition found at a construct of a callee's body is the caller's at
 * the call: the note points there, and names the callee's own condition
 * at that construct (its precondition, derived at its line) when it has one. */
static void at_call(const Kernel *k, SrcLoc *loc, char *why, size_t n) {
  AtCall c = {.line = loc->line};
  ir_walk_stmts(k->body, find_call, &c);
  if (!c.call) return;
  const Kernel *callee = c.call->call->callee;
  int j = 0;
  while (j < callee->nassume && (callee->assume_loc[j].line != loc->line || callee->assume_loc[j].col != loc->col ||
                                 !callee->assume_why[j]))
    j++;
  StrBuf t;
  sb_init(&t);
  sb_printf(&t, "call %s of '%s' needs it: ", c.call->call->name, callee->name);
  if (j < callee->nassume) {
    sb_puts(&t, "its precondition '");
    ir_print_expr(&t, callee->assume[j]);
    sb_puts(&t, "' (");
  }
  sb_printf(&t, "line %d: %s%s", loc->line, why, j < callee->nassume ? ")" : "");
  snprintf(why, n, "%s", t.data);
  sb_free(&t);
  *loc = c.call->loc;
}

bool ir_derive_preconditions(Kernel *k, Arena *a, DiagList *d, const char *file, const char *src) {
  if (!k->nsizes) return false;
  int first = k->nassume;
  Expr *need;
  SrcLoc loc;
  char why[600];
  int found;
  /* a condition found twice did not remove its failure: the error stays */
  while ((found = ir_bounds_first_need(k, a, d, file, src, &need, &loc, why, sizeof why)) == 1 &&
         k->nassume < IR_MAX_ASSUME && !known(k, first, need)) {
    at_call(k, &loc, why, sizeof why);
    k->assume[k->nassume] = need;
    k->assume_loc[k->nassume] = loc;
    k->assume_why[k->nassume++] = arena_strdup(a, why);
  }
  /* stopped on a condition it could not add: the check says what fails */
  if (found == 1 && !ir_check_bounds(k, d, file, src)) return false;
  if (found == -1) return false; /* refused all the same (d says why): a note would only distract */
  for (int i = k->nassume - 1; i >= first; i--)
    if (k->nassume - first > 1 && implied(k, i)) drop(k, i);
  for (int i = first; i < k->nassume; i++) note(d, file, src, k->assume[i], k->assume_loc[i], k->assume_why[i]);
  ir_derive_count_needs(k, a);
  for (int i = 0; i < k->nentry_need; i++)
    note(d, file, src, k->entry_need[i].cond, k->entry_need[i].loc, k->entry_need[i].why);
  return true;
}
