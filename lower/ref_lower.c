/* The instrumented reference lowered (lower/ref_lower.h, docs/check.md):
 * the kernel as written (its IR, every loop in source order, marks
 * ignored), each operation that C leaves undefined given a check:
 *
 *   signed + - * and unary -   int in long long, 64-bit types by helpers
 *   / and %                    a zero divisor; MIN / -1, MIN % -1
 *   << and >>                  the count against the width; << of a
 *                              negative value or past the type
 *   float to integer           the value's range (NaN never fits)
 *   abs                        abs(INT_MIN)
 *   a local declared without an initializer: a flag per scalar and per
 *   array element is set by each write and tested by each read.
 *
 * A check that the operands' ranges rule out (ir/ranges.c) is left out:
 * it cannot fail, and the inner loops stay as fast as tcc makes them (an
 * int8 product or a counter's arithmetic is never checked). Each check
 * made gets a site: where in the kernel source, and what. The walk is in
 * the printer's order, so sites, temporaries and pointers are numbered as
 * the C text meets them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/ref_lower_state.h"
#include "lower/ref_lower.h"

static int site(CkLower *c, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int site(CkLower *c, SrcLoc loc, const char *fmt, ...) {
  CheckRef *o = c->out;
  if (o->nsites == o->sites_cap) {
    o->sites_cap = o->sites_cap ? 2 * o->sites_cap : 16;
    o->sites = realloc(o->sites, sizeof *o->sites * (size_t)o->sites_cap);
  }
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  o->sites[o->nsites] = (CheckedSite){loc, sb_take(&sb)};
  return ++o->nsites;
}

/* A new temporary npg_tN of type t: its number N. */
static int temp(CkLower *c, const Type *t) {
  CheckRef *o = c->out;
  if (o->ntemps == o->temps_cap) {
    o->temps_cap = o->temps_cap ? 2 * o->temps_cap : 16;
    o->temps = realloc(o->temps, sizeof *o->temps * (size_t)o->temps_cap);
  }
  Var *v = ARENA_NEW(&o->arena, Var);
  *v = (Var){.name = arena_printf(&o->arena, "npg_t%d", o->ntemps + 1), .type = t, .kind = VAR_LOCAL, .id = -1};
  o->temps[o->ntemps] = v;
  return ++o->ntemps;
}

/* The operation as a message quotes it: its C text, or for the operation
 * of a compound assignment (made by compound_on()) its statement's text. */
static char *op_text(const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  if (e->kind == EX_BINARY && e->text) sb_puts(&sb, e->text);
  else ir_print_expr(&sb, e);
  return sb_take(&sb);
}

static int site_of(CkLower *c, const Expr *e, const char *what) {
  char *t = op_text(e);
  int s = site(c, e->loc, "%s in '%s' (%s)", what, t, type_canonical(e->type)->name);
  free(t);
  return s;
}

CkExpr *lower_ck_new_expr(CkLower *c, const Expr *e) {
  CkExpr *x = ARENA_NEW(&c->out->arena, CkExpr);
  x->e = e;
  return x;
}

/* ---------------- expressions ---------------- */

/* The checks of binary operation x (its operands lowered) that ub leaves. */
static void binary_checks(CkLower *c, CkExpr *x, unsigned ub) {
  const Expr *e = x->e;
  x->checked = true;
  if (e->op == OP_DIV || e->op == OP_MOD) {
    x->temp[0] = temp(c, e->type);
    x->temp[1] = temp(c, e->type);
    if (ub & IR_UB_DIV_ZERO) x->site[CK_DIV_ZERO] = site_of(c, e, "division by zero");
    if (ub & IR_UB_OVERFLOW) x->site[CK_OVERFLOW] = site_of(c, e, "signed overflow");
  } else if (e->op == OP_SHL || e->op == OP_SHR) {
    x->temp[0] = temp(c, e->a->type);
    x->temp[1] = temp(c, e->b->type);
    char what[64];
    snprintf(what, sizeof what, "shift count outside [0, %d]", e->type->size * 8 - 1);
    if (ub & IR_UB_SHIFT_COUNT) x->site[CK_SHIFT_COUNT] = site_of(c, e, what);
    if (ub & IR_UB_SHIFT_NEG) x->site[CK_SHIFT_NEG] = site_of(c, e, "left shift of a negative value");
    if (ub & IR_UB_OVERFLOW) x->site[CK_OVERFLOW] = site_of(c, e, "signed overflow");
  } else { /* + - *: int in long long, 64-bit types by a helper */
    x->site[CK_OVERFLOW] = site_of(c, e, "signed overflow");
    if (e->type->size == 4) x->temp[0] = temp(c, &ty_llong);
  }
  lower_ck_tests(c, x);
}

static CkExpr *binary(CkLower *c, const Expr *e, IrRange *r) {
  CkExpr *x = lower_ck_new_expr(c, e);
  IrRange a, b;
  x->a = lower_ck_expr(c, e->a, &a);
  x->b = lower_ck_expr(c, e->b, &b);
  unsigned ub;
  *r = ir_range_op(e, a, b, &ub);
  if (ub) binary_checks(c, x, ub);
  return x;
}

/* -x and abs(x) (a the operand lowered, of range ra): MIN's negation
 * checked when the range holds it. */
static CkExpr *negating(CkLower *c, const Expr *e, CkExpr *a, IrRange ra, IrRange *r) {
  CkExpr *x = lower_ck_new_expr(c, e);
  x->a = a;
  unsigned ub;
  *r = ir_range_op(e, ra, ra, &ub);
  if (ub & IR_UB_OVERFLOW) {
    x->checked = true;
    x->temp[0] = temp(c, e->type);
    x->site[CK_OVERFLOW] = site_of(c, e, "signed overflow");
    lower_ck_tests(c, x);
  }
  return x;
}

static CkExpr *cast(CkLower *c, const Expr *e, IrRange *r) {
  CkExpr *x = lower_ck_new_expr(c, e);
  IrRange a;
  x->a = lower_ck_expr(c, e->a, &a);
  unsigned ub;
  *r = ir_range_op(e, a, a, &ub);
  if (ub & IR_UB_CONVERT) {
    x->checked = true;
    x->temp[0] = temp(c, &ty_double);
    char *text = op_text(e->a);
    x->site[CK_CONVERT] = site(c, e->loc, "out-of-range conversion of '%s' (%s) to '%s'", text, e->a->type->name,
                               e->type->name);
    free(text);
    lower_ck_tests(c, x);
  } else {
    x->mask = lower_tcc_mask(e);
  }
  return x;
}

static CkExpr *call(CkLower *c, const Expr *e, IrRange *r) {
  IrRange a;
  if (!strcmp(e->text, "abs")) {
    CkExpr *arg = lower_ck_expr(c, e->args[0], &a);
    return negating(c, e, arg, a, r);
  }
  CkExpr *x = lower_ck_new_expr(c, e);
  x->args = arena_alloc(&c->out->arena, sizeof(CkExpr *) * (size_t)(e->nargs + 1));
  for (int i = 0; i < e->nargs; i++) x->args[i] = lower_ck_expr(c, e->args[i], &a);
  *r = ir_range_type(e->type);
  return x;
}

static bool unset(const CkLower *c, const Expr *e) {
  return e->kind == EX_VAR ? e->var->kind == VAR_LOCAL && c->unset_var[e->var->id]
                           : e->buf->role == ROLE_LOCAL && c->unset_buf[e->buf->id];
}

/* A read of a scalar or an element: tested against its flag when unset. */
static CkExpr *read(CkLower *c, const Expr *e, IrRange *r) {
  if (e->kind == EX_VAR && e->var == c->sum) {
    *r = c->sum_range;
    return c->sum_expr;
  }
  CkExpr *x = lower_ck_new_expr(c, e);
  x->place = lower_ck_place(c, e);
  if (unset(c, e)) {
    char *text = op_text(e);
    x->site[CK_UNSET] = site(c, e->loc, "read of uninitialized '%s'", text);
    free(text);
  }
  *r = e->kind == EX_VAR && e->var->kind == VAR_LOOP ? c->counter[e->var->id] : ir_range_type(e->type);
  return x;
}

CkExpr *lower_ck_expr(CkLower *c, const Expr *e, IrRange *r) {
  switch (e->kind) {
  case EX_INT:
    *r = e->type->is_signed ? ir_range_const(e->ival) : (IrRange){(IrWide)(uint64_t)e->ival, (IrWide)(uint64_t)e->ival};
    return lower_ck_new_expr(c, e);
  case EX_FLOAT:
    *r = ir_range_type(e->type);
    return lower_ck_new_expr(c, e);
  case EX_VAR:
  case EX_LOAD:
    return read(c, e, r);
  case EX_COND: {
    CkExpr *x = lower_ck_new_expr(c, e);
    IrRange a, b, d;
    x->a = lower_ck_expr(c, e->a, &a);
    x->b = lower_ck_expr(c, e->b, &b);
    x->c = lower_ck_expr(c, e->c, &d);
    *r = ir_range_union(b, d);
    return x;
  }
  case EX_CALL: return call(c, e, r);
  case EX_CAST: return cast(c, e, r);
  case EX_UNARY: {
    IrRange a;
    CkExpr *operand = lower_ck_expr(c, e->a, &a);
    return negating(c, e, operand, a, r);
  }
  case EX_BINARY: return binary(c, e, r);
  }
  *r = ir_range_type(e->type);
  return lower_ck_new_expr(c, e);
}

/* ---------------- statements ---------------- */

/* `lhs op= rhs` as the value it stores: (T)(left op rhs), left the lhs or
 * the running value of an unrolled accumulation, computed in the type C
 * computes it in (shifts: the promoted left type). */
static Expr *compound_on(CkLower *c, const Stmt *s, Expr *left) {
  Arena *ar = &c->out->arena;
  Expr *l = left, *r = s->rhs;
  bool shift = s->op == OP_SHL || s->op == OP_SHR;
  const Type *t = shift ? type_promote(l->type) : type_common(l->type, r->type);
  Expr *a = ir_cast(ar, l, t, true), *b = ir_cast(ar, r, shift ? type_promote(r->type) : t, true);
  Expr *op = ir_binary(ar, s->op, a, b, t, s->loc);
  StrBuf text;
  sb_init(&text);
  ir_print_expr(&text, s->lhs);
  sb_printf(&text, " %s= ", op_spelling(s->op));
  ir_print_expr(&text, r);
  op->text = arena_strdup(ar, text.data);
  sb_free(&text);
  return ir_cast(ar, op, l->type, true);
}

static CkStmt *list(CkLower *c, const Stmt *s);

static CkStmt *new_stmt(CkLower *c, CkKind kind, const Stmt *s) {
  CkStmt *n = ARENA_NEW(&c->out->arena, CkStmt);
  n->kind = kind;
  n->s = s;
  return n;
}

static CkStmt *assign(CkLower *c, const Stmt *s) {
  const Expr *value = s->op == OP_NONE ? s->rhs : compound_on(c, s, s->lhs);
  CkStmt *n = new_stmt(c, CK_ASSIGN, s);
  n->lhs = lower_ck_place(c, s->lhs);
  IrRange r;
  n->value = lower_ck_expr(c, value, &r);
  n->unset = unset(c, s->lhs);
  return n;
}

static CkStmt *decl(CkLower *c, const Stmt *s) {
  CkStmt *n = new_stmt(c, CK_DECL, s);
  IrRange r;
  if (s->var) {
    if (s->init) n->value = lower_ck_expr(c, s->init, &r);
    n->unset = !s->init;
    c->unset_var[s->var->id] |= n->unset;
    return n;
  }
  n->init_list = arena_alloc(&c->out->arena, sizeof(CkExpr *) * (size_t)(s->ninit + 1));
  for (int i = 0; i < s->ninit; i++) n->init_list[i] = lower_ck_expr(c, s->init_list[i], &r);
  n->unset = !s->ninit;
  c->unset_buf[s->buf->id] |= n->unset;
  return n;
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

static const Stmt *only_stmt(const Stmt *body) { return body && body->kind == ST_BLOCK ? body->body : body; }

/* The body of loop s, planned unrolled (p): `P = ...((P + e(k)) + e(k + 1))
 * ... + e(k + n - 1);`, each add as `P += e` converts it, P's reads in the
 * range the plan proves (or its type's). */
static CkStmt *unrolled_body(CkLower *c, const Stmt *s, const CheckPlanLoop *p) {
  const Stmt *a = only_stmt(s->body);
  CkStmt *n = new_stmt(c, CK_ASSIGN, a);
  n->lhs = lower_ck_place(c, a->lhs);
  Var *v = ARENA_NEW(&c->out->arena, Var); /* the running value, in the nodes' arena as they point at it */
  *v = (Var){.name = "npg_sum", .type = a->lhs->type, .kind = VAR_LOCAL, .loc = a->lhs->loc, .id = -1};
  Expr *running = ARENA_NEW(&c->out->arena, Expr);
  *running = (Expr){.kind = EX_VAR, .type = a->lhs->type, .loc = a->lhs->loc, .var = v};
  c->sum = v;
  CkExpr *sum = lower_ck_new_expr(c, a->lhs);
  sum->place = n->lhs;
  IrRange r = p->acc_proven ? p->acc : ir_range_type(a->lhs->type);
  c->shifted = s->var;
  for (int u = 0; u < p->unroll; u++) {
    c->by = u;
    c->sum_expr = sum;
    c->sum_range = r;
    sum = lower_ck_expr(c, compound_on(c, a, running), &r);
  }
  c->shifted = NULL;
  c->by = 0;
  c->sum = NULL;
  n->value = sum;
  return n;
}

/* Loop s's body: its hoisted pointers, then its statements. */
static CkBody loop_body(CkLower *c, const Stmt *s, const CheckPlanLoop *p) {
  lower_ck_push_level(c, s->var);
  CkStmt *l = p ? unrolled_body(c, s, p) : list(c, only_stmt(s->body));
  return (CkBody){lower_ck_pop_level(c), l};
}

static CkStmt *loop(CkLower *c, const Stmt *s) {
  CkStmt *n = new_stmt(c, CK_FOR, s);
  IrRange rl, rh;
  n->lo = lower_ck_expr(c, s->lo, &rl);
  n->hi = lower_ck_expr(c, s->hi, &rh);
  n->cmp = s->cmp;
  n->step = s->step;
  c->counter[s->var->id] = counter_range(s, rl, rh);
  const CheckPlanLoop *p = check_plan_find(&c->plan, s);
  if (!p || unset(c, only_stmt(s->body)->lhs)) {
    n->body = loop_body(c, s, NULL);
    return n;
  }
  /* lo and hi fold to constants (the plan's, read as C computes them, never
   * a literal's field): n / unroll rounds, then the rest */
  int64_t first, trips;
  if (!ir_const_int(s->lo, &first) || !ir_trip_count(s, &trips)) {
    n->body = loop_body(c, s, NULL);
    return n;
  }
  CkExpr *hi = n->hi;
  n->mid = first + trips / p->unroll * p->unroll;
  n->hi = NULL;
  n->cmp = OP_LT;
  n->step = p->unroll;
  n->body = loop_body(c, s, p);
  if (n->mid < first + trips) {
    CkStmt *rest = new_stmt(c, CK_FOR, s);
    *rest = (CkStmt){.kind = CK_FOR, .s = s, .hi = hi, .mid = n->mid, .cmp = s->cmp, .step = 1};
    rest->body = loop_body(c, s, NULL);
    n->next = rest;
  }
  return n;
}

static CkStmt *stmt(CkLower *c, const Stmt *s) {
  CkStmt *n;
  switch (s->kind) {
  case ST_BLOCK:
    n = new_stmt(c, CK_BLOCK, s);
    n->body.list = list(c, s->body);
    return n;
  case ST_FOR: return loop(c, s);
  case ST_IF: {
    n = new_stmt(c, CK_IF, s);
    IrRange r;
    n->value = lower_ck_expr(c, s->cond, &r);
    n->body.list = list(c, only_stmt(s->then_s));
    n->has_else = s->else_s != NULL;
    if (s->else_s) n->else_list = list(c, only_stmt(s->else_s));
    return n;
  }
  case ST_ASSIGN: return assign(c, s);
  case ST_DECL: return decl(c, s);
  }
  return NULL;
}

static CkStmt *list(CkLower *c, const Stmt *s) {
  CkStmt *out = NULL, **tail = &out;
  for (; s; s = s->next) {
    *tail = stmt(c, s);
    while (*tail) tail = &(*tail)->next;
  }
  return out;
}

void lower_check_ref(const Kernel *k, CheckRef *out) {
  *out = (CheckRef){.helpers = lower_ck_helpers};
  arena_init(&out->arena, 0);
  CkLower c = {.out = out,
               .counter = calloc((size_t)k->nvars + 1, sizeof(IrRange)),
               .unset_var = calloc((size_t)k->nvars + 1, sizeof(bool)),
               .unset_buf = calloc((size_t)k->nbufs + 1, sizeof(bool))};
  check_plan(k, &c.plan);
  lower_ck_push_level(&c, NULL);
  out->body.list = list(&c, k->body->body);
  out->body.ptrs = lower_ck_pop_level(&c);
  free(c.counter);
  free(c.unset_var);
  free(c.unset_buf);
  free(c.levels);
  check_plan_free(&c.plan);
}

void lower_check_ref_free(CheckRef *r) {
  arena_free(&r->arena);
  free(r->temps);
  r->temps = NULL;
  r->ntemps = 0;
}

/* What a failed check calls (the support before the helpers): it stores
 * the site's number and longjmps out of the kernel. */
static const char check_state[] =
    "typedef struct {\n"
    "  jmp_buf npg_jb;\n"
    "  int *npg_site;\n"
    "} NpgCk;\n"
    "\n"
    "static void npg_ub(NpgCk *c, int site) {\n"
    "  *c->npg_site = site;\n"
    "  longjmp(c->npg_jb, 1);\n"
    "}\n"
    "\n";

/* Every define of m as written (the kernel may use any). */
static LoweredDefines all_defines(Arena *a, const Module *m) {
  int n = 0;
  for (const Define *d = m->defines; d; d = d->next) n++;
  LoweredDefines out = {ARENA_ARRAY(a, LoweredDefine, n ? n : 1), 0};
  for (const Define *d = m->defines; d; d = d->next) {
    StrBuf sb;
    sb_init(&sb);
    ir_define_text(&sb, d);
    out.items[out.n++] = (LoweredDefine){arena_strdup(a, sb.data ? sb.data : "")};
    sb_free(&sb);
  }
  return out;
}

void lower_reference_module(const Module *m, const Kernel *k, LoweredModule *out) {
  memset(out, 0, sizeof *out);
  arena_init(&out->arena, 0);
  arena_init(&out->callees, 0);
  Arena *a = &out->arena;
  out->reference = calloc(1, sizeof *out->reference);
  lower_check_ref(k, out->reference);
  out->comment = ARENA_ARRAY(a, const char *, 1);
  out->comment[out->ncomment++] =
      arena_printf(a, "Kernel %s of %s as written, with checked arithmetic: npugen check's reference.", k->name, m->file);
  out->includes = (Includes){.math = true, .setjmp = true, .stdint = true, .stdlib = true};
  out->support = arena_printf(a, "%s%s", check_state, out->reference->helpers);
  out->defines = all_defines(a, m);
  /* the arrays at the size set run (k is instantiated): their shapes */
  LoweredFunction f = {.name = arena_printf(a, "npg_checked_%s", k->name), .k = k, .is_static = true,
                       .no_restrict = true, .context = "NpgCk *npg_ck", .body = lower_ref_body(a, out->reference)};
  f.extent_macro = ARENA_ARRAY(a, const char *, (k->nparams ? k->nparams : 1) * IR_MAX_DIMS);
  /* (zeroed: no extent macro, no restrict, nothing flat) */
  f.param_restrict = ARENA_ARRAY(a, bool, k->nparams ? k->nparams : 1);
  f.param_flat = ARENA_ARRAY(a, bool, k->nparams ? k->nparams : 1);
  out->main = f;
}
