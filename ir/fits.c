/* The verifier of what npugen writes (docs/limits.md): every integer
 * expression made of loop counters, sizes and constants in a loop bound, a
 * condition, an index or a lowered node's operands (a tile count, a tail
 * guard, a DMA wait's guard, an index a step built) takes
 * only values its type holds, at every iteration and every size the
 * assumptions allow, and every loop counter's update after its last
 * iteration fits the counter. The IR's folding and the affine model read
 * such arithmetic as exact, and C wraps or overflows where it is not: a
 * guard `2147483000 + io * 100 + ii < 2147483647` passes INT_MAX in the last
 * tile, a fused `uint8_t ij < 256` never ends.
 *
 * Ranges come from the affine model over the exact domain (ir/affine.c:
 * isl for affine forms, intervals for the rest); a form with no known
 * bound fails too. A statement's value (outside its indices) is the
 * kernel's own arithmetic, and so are C's implicit conversions: the check's
 * instrumented reference watches those at run time. */
#include <isl/ctx.h>
#include <isl/options.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/fits.h"
#include "ir/ranges.h"

enum { FITS_MAX_ISL_OPS = 5000000 };

typedef struct {
  AffCtx aff;
  const char *known; /* failures of the kernel as written, "\ntext\n" each */
  StrBuf *collect;   /* ir_fits_failures: every failure, instead of the first */
  const char *where; /* what the expression is, for the message */
  IrRange *counter;  /* by Var.id: each enclosing loop counter's interval (quick) */
  bool *has_counter;
  int nvars;
  char *why;
  size_t n;
  bool ok;
} Fits;

/* Counters, sizes and constants, and integer operations on them: e is
 * pure when every node under it is one of them. */
static bool pure_node(const Expr *e, void *ctx) {
  (void)ctx;
  if (!type_is_integer(e->type)) return false;
  switch (e->kind) {
  case EX_INT:
  case EX_CAST:
  case EX_UNARY:
  case EX_BINARY:
  case EX_COND: return true;
  case EX_VAR: return e->var->kind == VAR_LOOP || e->var->is_size;
  default: return false;
  }
}

static bool pure(const Expr *e) { return e && ir_walk_expr(e, pure_node, NULL); }

/* The operations whose value can leave their type: the ones checked. */
static bool may_leave_type(const Expr *e) {
  if (e->kind == EX_CAST) return !e->implicit && type_is_integer(e->a->type); /* C's own conversions are the kernel's */
  if (e->kind == EX_UNARY) return e->op == OP_NEG;
  return e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL || e->op == OP_DIV ||
                                  e->op == OP_MOD || e->op == OP_SHL);
}

/* A failure: skipped when the kernel as written has it, collected, or the
 * first one, in f->why. */
static void fail(Fits *f, const char *text, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(Fits *f, const char *text, const char *fmt, ...) {
  size_t len = strlen(text);
  for (const char *p = f->known ? strstr(f->known, text) : NULL; p; p = strstr(p + 1, text))
    if (p > f->known && p[-1] == '\n' && p[len] == '\n') return;
  if (f->collect) {
    sb_printf(f->collect, "%s\n", text);
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->why, f->n, fmt, ap);
  va_end(ap);
  f->ok = false;
}

/* Interval of pure e from its counters' intervals, before C fits it to
 * its type: enough for most of what a schedule writes (io * 32 + ii), and
 * far cheaper than isl, which decides the rest. */
static IrRange quick(const Fits *f, const Expr *e) {
  IrRange a, b;
  int64_t c;
  switch (e->kind) {
  case EX_INT: return ir_range_const(e->ival);
  case EX_VAR:
    return e->var->id < f->nvars && f->has_counter[e->var->id] ? f->counter[e->var->id] : ir_range_type(e->type);
  case EX_CAST:
    a = quick(f, e->a);
    return ir_range_within(a, e->type) ? a : ir_range_type(e->type);
  case EX_COND: return ir_range_union(quick(f, e->b), quick(f, e->c));
  case EX_UNARY:
    a = quick(f, e->a);
    if (e->op == OP_NEG) return (IrRange){-a.hi, -a.lo};
    if (e->op == OP_PLUS) return a;
    return e->op == OP_LNOT ? (IrRange){0, 1} : ir_range_type(e->type);
  case EX_BINARY: break;
  default: return ir_range_type(e->type);
  }
  if (e->op >= OP_LT && e->op <= OP_LOR) return (IrRange){0, 1};
  a = quick(f, e->a);
  b = quick(f, e->b);
  switch (e->op) {
  case OP_ADD: return (IrRange){a.lo + b.lo, a.hi + b.hi};
  case OP_SUB: return (IrRange){a.lo - b.hi, a.hi - b.lo};
  case OP_MUL: {
    IrWide p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}, lo = p[0], hi = p[0];
    for (int i = 1; i < 4; i++) lo = p[i] < lo ? p[i] : lo, hi = p[i] > hi ? p[i] : hi;
    return (IrRange){lo, hi};
  }
  case OP_DIV: /* C truncates, monotonically in the dividend */
    return ir_const_int(e->b, &c) && c > 0 ? (IrRange){a.lo / c, a.hi / c} : ir_range_type(e->type);
  case OP_MOD:
    if (!ir_const_int(e->b, &c) || c <= 0) return ir_range_type(e->type);
    return a.lo >= 0 ? (IrRange){0, a.hi < c - 1 ? a.hi : c - 1} : (IrRange){-(c - 1), c - 1};
  default: return ir_range_type(e->type);
  }
}

static void fit_node(Fits *f, const Expr *e) {
  if (ir_range_within(quick(f, e), e->type)) return;
  int64_t lo, hi, tmin;
  uint64_t tmax;
  bool exact, empty;
  StrBuf text;
  sb_init(&text);
  ir_print_expr(&text, e);
  type_int_range(e->type, &tmin, &tmax);
  if (!aff_range(&f->aff, e, &lo, &hi, &exact, &empty))
    fail(f, text.data, "no bound is known on '%s' (%s, %s): it may leave its type", text.data, e->type->name, f->where);
  else if (!empty && (lo < tmin || (hi >= 0 && (uint64_t)hi > tmax)))
    /* a bound that is not exact is what npugen could prove, not what runs */
    fail(f, text.data, "'%s' (%s, %s) %s [%lld, %lld], outside its type [%lld, %llu]", text.data, e->type->name,
         f->where, exact ? "ranges over" : "is known only to lie in", (long long)lo, (long long)hi, (long long)tmin,
         (unsigned long long)tmax);
  sb_free(&text);
}

/* Every operation of pure e, operands first, each over the domain where it
 * runs (the right operand of && and ||, and the arms of ?:, under their
 * conditions). */
static void fit_pure(Fits *f, const Expr *e) {
  if (!f->ok) return;
  if (e->kind == EX_BINARY && (e->op == OP_LAND || e->op == OP_LOR)) {
    fit_pure(f, e->a);
    bool pushed = aff_push_cond(&f->aff, e->a, e->op == OP_LOR);
    fit_pure(f, e->b);
    if (pushed) aff_pop_cond(&f->aff);
    return;
  }
  if (e->kind == EX_COND) {
    fit_pure(f, e->a);
    for (int arm = 0; arm < 2; arm++) {
      bool pushed = aff_push_cond(&f->aff, e->a, arm == 1);
      fit_pure(f, arm ? e->c : e->b);
      if (pushed) aff_pop_cond(&f->aff);
    }
    return;
  }
  if (e->a) fit_pure(f, e->a);
  if (e->b) fit_pure(f, e->b);
  if (f->ok && may_leave_type(e)) fit_node(f, e);
}

/* Each pure subtree of e (the largest ones), checked by fit_pure. */
static IrVisit pure_fits(const Expr *e, int depth, void *ctx) {
  (void)depth;
  Fits *f = ctx;
  if (!f->ok) return IR_VISIT_STOP;
  if (!pure(e)) return IR_VISIT_ON;
  fit_pure(f, e);
  return IR_VISIT_SKIP;
}

static void fit_expr(Fits *f, const Expr *e) { ir_visit_expr(e, pure_fits, f); }

/* The indices in a statement's value: the value itself is the kernel's
 * arithmetic (the check's instrumented reference watches it at run time),
 * with counters replaced by expressions of the same values. */
static IrVisit load_fits(const Expr *e, int depth, void *ctx) {
  (void)depth;
  Fits *f = ctx;
  if (!f->ok) return IR_VISIT_STOP;
  if (e->kind != EX_LOAD) return IR_VISIT_ON;
  fit_expr(f, e);
  return IR_VISIT_SKIP;
}

static void fit_indices(Fits *f, const Expr *e) { ir_visit_expr(e, load_fits, f); }

/* The counter after the loop's last iteration (the update the test then
 * stops) must fit the counter's type, or the loop never ends. With a
 * constant start the last value is the last one the step reaches (an
 * unroll by 5 of `int8_t i < 125` ends at 125, not 124 + 5); otherwise
 * the bound itself. */
static bool counter_ends(const Stmt *s, IrWide lo_min, IrWide lo_max, IrWide hi_min, IrWide hi_max, IrWide *next) {
  IrRange t = ir_range_type(s->var->type);
  IrWide last, step = s->step; /* wide: -step of INT64_MIN is no int64_t */
  if (step > 0) {
    last = hi_max - (s->cmp == OP_LT);
    if (last < lo_min) return true; /* never runs */
    if (lo_min == lo_max) last = lo_min + (last - lo_min) / step * step;
  } else {
    last = hi_min + (s->cmp == OP_GT);
    if (last > lo_max) return true;
    if (lo_min == lo_max) last = lo_max - (lo_max - last) / -step * -step;
  }
  *next = last + step;
  return *next >= t.lo && *next <= t.hi;
}

static void fit_counter(Fits *f, const Stmt *s) {
  int64_t lo_min, lo_max, hi_min, hi_max, tmin;
  uint64_t tmax;
  bool exact, empty;
  IrRange ql = quick(f, s->lo), qh = quick(f, s->hi);
  IrWide next;
  if (counter_ends(s, ql.lo, ql.hi, qh.lo, qh.hi, &next)) return;
  if (!aff_range(&f->aff, s->lo, &lo_min, &lo_max, &exact, &empty) || empty ||
      !aff_range(&f->aff, s->hi, &hi_min, &hi_max, &exact, &empty) || empty)
    return; /* a bound with no known range fails as an expression, where it has arithmetic */
  if (counter_ends(s, lo_min, lo_max, hi_min, hi_max, &next)) return;
  type_int_range(s->var->type, &tmin, &tmax);
  char key[200];
  snprintf(key, sizeof key, "counter %s", s->var->name);
  fail(f, key, "loop %s's counter (%s) would reach %s%llu after its last iteration, outside its type [%lld, %llu]: "
       "the loop would overflow or never end", s->name, s->var->type->name, next < 0 ? "-" : "",
       (unsigned long long)(next < 0 ? -next : next), (long long)tmin, (unsigned long long)tmax);
}

static void fit_stmts(Fits *f, const Stmt *s);

static void fit_lowered(Fits *f, const Lowered *low) {
  f->where = "in a DMA's operands";
  fit_expr(f, low->guard);
  fit_expr(f, low->at_value);
  fit_expr(f, low->view_copy);
  fit_expr(f, low->channel);
  for (int i = 0; i < low->token.nidx; i++) fit_expr(f, low->token.idx[i]);
}

static void fit_loop(Fits *f, const Stmt *s) {
  char where[160];
  snprintf(where, sizeof where, "in the bounds of loop %s", s->name);
  f->where = where;
  fit_expr(f, s->lo);
  fit_expr(f, s->hi);
  if (f->ok) fit_counter(f, s);
  int id = s->var->id;
  if (id >= f->nvars) { /* a counter made after the kernel's count (none today): no interval */
    aff_push_loop(&f->aff, s);
    fit_stmts(f, s->body);
    aff_pop_loop(&f->aff);
    return;
  }
  IrRange saved = f->counter[id], lo = quick(f, s->lo), hi = quick(f, s->hi);
  bool had = f->has_counter[id];
  f->counter[id] = s->step > 0 ? (IrRange){lo.lo, hi.hi - (s->cmp == OP_LT)} : (IrRange){hi.lo + (s->cmp == OP_GT), lo.hi};
  f->has_counter[id] = true;
  aff_push_loop(&f->aff, s);
  fit_stmts(f, s->body);
  aff_pop_loop(&f->aff);
  f->counter[id] = saved;
  f->has_counter[id] = had;
}

static void fit_stmts(Fits *f, const Stmt *s) {
  for (; s && f->ok; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      if (s->low) fit_lowered(f, s->low);
      fit_stmts(f, s->body);
      break;
    case ST_FOR:
      fit_loop(f, s);
      break;
    case ST_IF:
      f->where = "in a condition";
      fit_expr(f, s->cond);
      for (int arm = 0; arm < 2 && f->ok; arm++) {
        bool pushed = aff_push_cond(&f->aff, s->cond, arm == 1);
        fit_stmts(f, arm ? s->else_s : s->then_s);
        if (pushed) aff_pop_cond(&f->aff);
      }
      break;
    case ST_ASSIGN:
      f->where = "in an index";
      fit_indices(f, s->lhs);
      fit_indices(f, s->rhs);
      break;
    case ST_DECL:
      f->where = "in an index";
      fit_indices(f, s->init);
      break;
    }
  }
}

static bool run(Fits *f, const Kernel *k) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx, FITS_MAX_ISL_OPS);
  aff_init(&f->aff, ctx, k);
  f->nvars = k->nvars;
  f->counter = calloc((size_t)k->nvars + 1, sizeof *f->counter);
  f->has_counter = calloc((size_t)k->nvars + 1, sizeof *f->has_counter);
  char why[300];
  /* assumptions the model cannot read are the bounds check's message */
  if (aff_push_sizes(&f->aff, why, sizeof why)) fit_stmts(f, k->body);
  free(f->counter);
  free(f->has_counter);
  aff_free(&f->aff);
  isl_ctx_free(ctx);
  return f->ok;
}

char *ir_fits_failures(const Kernel *k) {
  StrBuf sb;
  sb_init(&sb);
  sb_putc(&sb, '\n');
  char why[8];
  Fits f = {.collect = &sb, .why = why, .n = sizeof why, .ok = true};
  run(&f, k);
  return sb_take(&sb);
}

bool ir_check_fits(const Kernel *k, const char *known, char *why, size_t n) {
  Fits f = {.known = known, .why = why, .n = n, .ok = true};
  why[0] = '\0';
  return run(&f, k);
}

bool ir_check_fits_lowered(const Kernel *scheduled, const Kernel *lowered, char *why, size_t n) {
  char *known = ir_fits_failures(scheduled);
  bool ok = ir_check_fits(lowered, known, why, n);
  free(known);
  return ok;
}
