/* Static bounds check: every array index, over the exact iteration domain of
 * its statement (loops, affine if-conditions, short-circuit and ?: guards),
 * must stay inside its dimension's extent. Affine indices are decided exactly
 * with isl; others need a provable interval (types, masks, modulo). Loop
 * counters must stay inside their type, the update after the last iteration
 * included: past it the loop would never end or overflow. */
#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/val.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/preconditions.h"

enum { BOUNDS_MAX_ISL_OPS = 5000000 };

typedef struct {
  AffCtx aff;
  DiagList *d;
  const char *file, *src;
  uint64_t local_bytes; /* local arrays declared so far */
  int nest;             /* loops and conditions around the statement */
  const char *what;     /* check_bound_range's: "loop bound" or "array extent" */
  bool ok;
  /* derive mode (ir_bounds_first_need): a failure at some sizes becomes
   * the condition on the sizes that avoids it, instead of an error */
  Arena *derive;
  struct isl_set *sizes; /* the sizes the assumptions allow */
  Expr *need;
  SrcLoc need_loc;
  char *why;
  size_t nwhy;
} Bounds;

/* Derive mode: bad, the points of the current domain where a check fails
 * (consumed), projected on the sizes and taken from the allowed ones,
 * is the condition the kernel needs. True (b->ok false, b->need set) when
 * some allowed size meets it and it can be said in C. */
static bool derive(Bounds *b, struct isl_set *bad, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool derive(Bounds *b, struct isl_set *bad, SrcLoc loc, const char *fmt, ...) {
  isl_size dims = bad ? isl_set_dim(bad, isl_dim_set) : -1;
  int ns = b->aff.nsize_dims;
  if (!b->derive || !b->sizes || dims < ns) {
    isl_set_free(bad);
    return false;
  }
  bad = isl_set_project_out(bad, isl_dim_set, (unsigned)ns, (unsigned)(dims - ns));
  isl_set *good = isl_set_subtract(isl_set_copy(b->sizes), bad);
  /* nothing left (the error stays), or nothing taken (an inexact range failed, not the sizes) */
  bool some = good && isl_set_is_empty(good) == isl_bool_false && isl_set_is_subset(b->sizes, good) == isl_bool_false;
  if (!some) {
    isl_set_free(good);
    return false;
  }
  Expr *need = ir_sizes_condition(b->derive, b->aff.k, isl_set_coalesce(isl_set_gist(good, isl_set_copy(b->sizes))));
  if (!need) return false;
  b->need = need;
  b->need_loc = loc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->why, b->nwhy, fmt, ap);
  va_end(ap);
  b->ok = false;
  return true;
}

/* A constant of e's domain space. */
static isl_aff *constant_like(isl_aff *e, isl_val *v) {
  return isl_aff_val_on_domain(isl_local_space_from_space(isl_aff_get_domain_space(e)), v);
}

/* Where affine e leaves type t over the current domain, or NULL. */
static struct isl_set *outside_type(Bounds *b, const Expr *e, const Type *t) {
  isl_aff *a = aff_build(&b->aff, e);
  isl_set *dom = a ? aff_domain(&b->aff) : NULL;
  if (!dom) {
    isl_aff_free(a);
    return NULL;
  }
  int64_t tmin;
  uint64_t tmax;
  type_int_range(t, &tmin, &tmax);
  isl_aff *lo = constant_like(a, isl_val_int_from_si(b->aff.ctx, tmin));
  isl_aff *hi = constant_like(a, isl_val_int_from_ui(b->aff.ctx, tmax));
  isl_set *below = isl_aff_lt_set(isl_aff_copy(a), lo); /* before a is consumed */
  isl_set *bad = isl_set_union(below, isl_aff_gt_set(a, hi));
  return isl_set_intersect(bad, dom);
}

/* Where affine idx leaves [0, ext) over the current domain, or NULL. */
static struct isl_set *outside_extent(Bounds *b, const Expr *idx, const Expr *ext) {
  isl_aff *a = aff_build(&b->aff, idx), *x = a ? aff_build(&b->aff, ext) : NULL;
  isl_set *dom = x ? aff_domain(&b->aff) : NULL;
  if (!dom) {
    isl_aff_free(a);
    isl_aff_free(x);
    return NULL;
  }
  isl_aff *zero = constant_like(a, isl_val_zero(b->aff.ctx));
  isl_set *below = isl_aff_lt_set(isl_aff_copy(a), zero); /* before a is consumed */
  isl_set *bad = isl_set_union(below, isl_aff_ge_set(a, x));
  return isl_set_intersect(bad, dom);
}

/* Where loop s runs and its counter's update after the last iteration
 * (at most the bound's end plus the step) leaves its type, or NULL. */
static struct isl_set *counter_past(Bounds *b, const Stmt *s) {
  isl_aff *lo = aff_build(&b->aff, s->lo), *end = lo ? aff_build(&b->aff, s->hi) : NULL;
  isl_set *dom = end ? aff_domain(&b->aff) : NULL;
  if (!dom) {
    isl_aff_free(lo);
    isl_aff_free(end);
    return NULL;
  }
  int64_t tmin;
  uint64_t tmax;
  type_int_range(s->var->type, &tmin, &tmax);
  isl_ctx *ctx = b->aff.ctx;
  bool up = s->step > 0;
  end = isl_aff_add_constant_si(end, up ? -(s->cmp == OP_LT) : (s->cmp == OP_GT));
  isl_aff *end_copy = isl_aff_copy(end);
  isl_set *runs = up ? isl_aff_le_set(lo, end_copy) : isl_aff_ge_set(lo, end_copy);
  isl_aff *next = isl_aff_add_constant_val(end, isl_val_int_from_si(ctx, s->step));
  isl_aff *limit = constant_like(next, up ? isl_val_int_from_ui(ctx, tmax) : isl_val_int_from_si(ctx, tmin));
  isl_set *past = up ? isl_aff_gt_set(next, limit) : isl_aff_lt_set(next, limit);
  return isl_set_intersect(isl_set_intersect(runs, past), dom);
}

static bool is_param(const Kernel *k, const Buffer *buf) {
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf == buf) return true;
  return false;
}

/* A literal index outside every loop and condition runs exactly once: its
 * range needs no isl (straight-line code of 100,000 such statements spent
 * most of its time there). */
static bool literal_range(const Bounds *b, const Expr *ix, int64_t *lo, int64_t *hi, bool *exact, bool *empty) {
  if (b->nest || ix->kind != EX_INT) return false;
  *lo = *hi = ix->ival;
  *exact = true;
  *empty = false;
  return true;
}

static void check_expr(Bounds *b, const Expr *e);

/* An index in a kernel with symbolic sizes: it must stay in its extent
 * for every size the assumptions allow; the error says which sizes it
 * needs. True when decided (b->ok says how). */
static bool check_sized(Bounds *b, const Expr *e, int i, const char *text) {
  const Expr *ix = e->idx[i];
  Expr ext_const = {.kind = EX_INT, .type = &ty_llong, .ival = e->buf->shape[i]};
  const Expr *ext = e->buf->extent[i] ? e->buf->extent[i] : &ext_const;
  char needs[300], sample[200];
  int out = aff_outside(&b->aff, ix, ext, needs, sizeof needs, sample, sizeof sample);
  if (out < 0 && isl_ctx_last_error(b->aff.ctx) == isl_error_quota) {
    diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
               "the assumptions of %s are too many pieces for the bounds proof (isl's budget of %d operations ran "
               "out here); state them with fewer disjunctions (a range, `n %% 2 == 1`, instead of a list of values)",
               b->aff.k->name, BOUNDS_MAX_ISL_OPS);
    b->ok = false;
    return true;
  }
  if (out < 0) {
    if (!e->buf->extent[i]) return false; /* the interval check below */
    diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
               "cannot prove that index '%s' stays within dimension %d of '%s' at every size: the index or the "
               "extent is not affine in the loop counters and sizes",
               text, i + 1, e->buf->name);
    b->ok = false;
    return true;
  }
  if (out == 0) return true;
  StrBuf et;
  sb_init(&et);
  if (e->buf->extent[i]) ir_print_expr(&et, ext);
  else sb_printf(&et, "%lld", (long long)e->buf->shape[i]);
  if (out == 1 && b->derive && !is_param(b->aff.k, e->buf) &&
      derive(b, outside_extent(b, ix, ext), ix->loc, "index '%s' must stay within dimension %d of local array '%s' (extent %s)",
             text, i + 1, e->buf->name, et.data)) {
    sb_free(&et);
    return true;
  }
  if (needs[0])
    diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
               "index '%s' can leave dimension %d of '%s' (extent %s): it needs %s (it fails at %s); state "
               "that with #pragma npu assume(%s, ...) or change the bound",
               text, i + 1, e->buf->name, et.data, needs, sample, b->aff.k->name);
  else if (out == 1)
    diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
               "index '%s' can leave dimension %d of '%s' (extent %s) at some sizes (it fails at %s); state the "
               "sizes it needs with #pragma npu assume(%s, ...) or change the bound",
               text, i + 1, e->buf->name, et.data, sample, b->aff.k->name);
  else
    diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
               "index '%s' leaves dimension %d of '%s' (extent %s) at every size the assumptions allow (e.g. %s)",
               text, i + 1, e->buf->name, et.data, sample[0] ? sample : "any");
  sb_free(&et);
  b->ok = false;
  return true;
}

static void check_access(Bounds *b, const Expr *e) {
  for (int i = 0; i < e->buf->ndim; i++) {
    const Expr *ix = e->idx[i];
    check_expr(b, ix);
    if (!b->ok) return;
    if (b->aff.k->nsizes) {
      StrBuf t;
      sb_init(&t);
      ir_print_expr(&t, ix);
      bool decided = check_sized(b, e, i, t.data);
      sb_free(&t);
      if (!b->ok) return;
      if (decided) continue;
    }
    int64_t lo, hi, ext = e->buf->shape[i];
    bool exact, empty;
    StrBuf text;
    sb_init(&text);
    ir_print_expr(&text, ix);
    if (!literal_range(b, ix, &lo, &hi, &exact, &empty) && !aff_range(&b->aff, ix, &lo, &hi, &exact, &empty)) {
      diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                 "cannot prove that index '%s' stays within dimension %d of '%s' (extent %lld); "
                 "clamp it, e.g. with '%% %lld' or a mask",
                 text.data, i + 1, e->buf->name, (long long)ext, (long long)ext);
      b->ok = false;
    } else if (!empty && (lo < 0 || hi >= ext)) {
      if (exact)
        diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                   "index '%s' is out of bounds: it ranges over [%lld, %lld] but dimension %d of '%s' has extent %lld",
                   text.data, (long long)lo, (long long)hi, i + 1, e->buf->name, (long long)ext);
      else
        diag_error(b->d, b->file, b->src, ix->loc.line, ix->loc.col,
                   "cannot prove that index '%s' stays within dimension %d of '%s' (extent %lld): "
                   "its value can range over [%lld, %lld]; clamp it, e.g. with '%% %lld' or a mask",
                   text.data, i + 1, e->buf->name, (long long)ext, (long long)lo, (long long)hi,
                   (long long)ext);
      b->ok = false;
    }
    sb_free(&text);
    if (!b->ok) return;
  }
}

static void check_expr(Bounds *b, const Expr *e) {
  if (!e || !b->ok) return;
  switch (e->kind) {
  case EX_LOAD:
    check_access(b, e);
    return;
  case EX_BINARY:
    if (e->op == OP_LAND || e->op == OP_LOR) {
      /* The right operand runs only when the left one allows it. */
      check_expr(b, e->a);
      bool pushed = aff_push_cond(&b->aff, e->a, e->op == OP_LOR);
      b->nest++;
      check_expr(b, e->b);
      b->nest--;
      if (pushed) aff_pop_cond(&b->aff);
      return;
    }
    break;
  case EX_COND: {
    check_expr(b, e->a);
    b->nest++;
    bool pushed = aff_push_cond(&b->aff, e->a, false);
    check_expr(b, e->b);
    if (pushed) aff_pop_cond(&b->aff);
    pushed = aff_push_cond(&b->aff, e->a, true);
    check_expr(b, e->c);
    if (pushed) aff_pop_cond(&b->aff);
    b->nest--;
    return;
  }
  default:
    break;
  }
  check_expr(b, e->a);
  check_expr(b, e->b);
  check_expr(b, e->c);
  for (int i = 0; i < e->nargs; i++) check_expr(b, e->args[i]);
}

/* The counter's last value and the one the update makes of it, over the
 * outer domain: both must fit the counter's type. Exact when the start is
 * one value; otherwise the widest bound. */
static void check_counter(Bounds *b, const Stmt *s) {
  int64_t lo_min, lo_max, hi_min, hi_max, tmin;
  uint64_t tmax;
  bool exact, empty;
  if (!aff_range(&b->aff, s->lo, &lo_min, &lo_max, &exact, &empty) || empty) return;
  if (!aff_range(&b->aff, s->hi, &hi_min, &hi_max, &exact, &empty) || empty) return;
  type_int_range(s->var->type, &tmin, &tmax);
  __int128 step = s->step, last, next;
  if (step > 0) {
    __int128 end = (__int128)hi_max - (s->cmp == OP_LT); /* the largest value the test lets through */
    if (end < lo_min) return;                            /* never runs */
    last = lo_min == lo_max ? lo_min + (end - lo_min) / step * step : end;
    next = last + step;
  } else {
    __int128 end = (__int128)hi_min + (s->cmp == OP_GT);
    if (end > lo_max) return;
    last = lo_min == lo_max ? lo_max - (lo_max - end) / -step * -step : end;
    next = last + step;
  }
  __int128 start = step > 0 ? lo_min : lo_max;
  const char *what = NULL;
  __int128 bad = 0;
  if (start < tmin || start > (__int128)tmax) what = "starts at", bad = start;
  else if (next < tmin || next > (__int128)tmax) what = "would reach, after its last iteration,", bad = next;
  if (!what) return;
  bool past_end = bad == next && start >= tmin && start <= (__int128)tmax;
  if (past_end && b->derive &&
      derive(b, counter_past(b, s), s->loc, "loop counter '%s' must stay within %s after the last iteration",
             s->var->name, s->var->type->name))
    return;
  diag_error(b->d, b->file, b->src, s->loc.line, s->loc.col,
             "loop counter '%s' (%s) %s %s%llu, outside its type's range [%lld, %llu]: the loop would "
             "overflow or never end; use a wider counter or a smaller bound%s",
             s->var->name, s->var->type->name, what, bad < 0 ? "-" : "",
             (unsigned long long)(bad < 0 ? -bad : bad), (long long)tmin, (unsigned long long)tmax,
             b->aff.k->nsizes ? ", or assume smaller sizes" : "");
  b->ok = false;
}

/* The IR's bound arithmetic is exact where C's wraps around (unsigned) or
 * overflows (signed), so every sum, difference, product, negation and
 * conversion in a loop bound must stay inside its type over the outer
 * domain: `j - 1u` at j = 0 would run the loop four billion times. */
static void check_bound_range(Bounds *b, const Expr *e) {
  if (!e || !b->ok || !type_is_integer(e->type)) return;
  check_bound_range(b, e->a);
  check_bound_range(b, e->b);
  check_bound_range(b, e->c);
  bool arith = (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL)) ||
               (e->kind == EX_UNARY && e->op == OP_NEG) || e->kind == EX_CAST;
  int64_t lo, hi, tmin;
  uint64_t tmax;
  bool exact, empty;
  if (!b->ok || !arith || !aff_range(&b->aff, e, &lo, &hi, &exact, &empty) || empty) return;
  type_int_range(e->type, &tmin, &tmax);
  if (lo >= tmin && (hi < 0 || (uint64_t)hi <= tmax)) return;
  StrBuf text;
  sb_init(&text);
  ir_print_expr(&text, e);
  /* an assumption's own arithmetic is the user's to mend */
  if (b->derive && strcmp(b->what, "assumption") &&
      derive(b, outside_type(b, e, e->type), e->loc, "%s '%s' must fit %s", b->what, text.data, e->type->name)) {
    sb_free(&text);
    return;
  }
  diag_error(b->d, b->file, b->src, e->loc.line, e->loc.col,
             "%s '%s' ranges over [%lld, %lld], outside its type %s [%lld, %llu]: C would wrap it "
             "around or overflow; compute it in a wider signed type%s",
             b->what, text.data, (long long)lo, (long long)hi, e->type->name, (long long)tmin, (unsigned long long)tmax,
             b->aff.k->nsizes ? ", or assume smaller sizes" : "");
  sb_free(&text);
  b->ok = false;
}

/* An array holds at most 2^31 - 1 elements along a dimension (its
 * indices are ints; ir_instantiate): an extent an unsigned or long size
 * gives may pass that with no arithmetic to overflow (`x[n]`, unsigned
 * n), and gets the condition the arithmetic would. */
static void check_extent_limit(Bounds *b, const Expr *e) {
  int64_t lo, hi;
  bool exact, empty;
  if (!e || !b->ok || !type_is_integer(e->type) || !aff_range(&b->aff, e, &lo, &hi, &exact, &empty) || empty ||
      hi <= INT32_MAX)
    return;
  StrBuf text;
  sb_init(&text);
  ir_print_expr(&text, e);
  if (b->derive && derive(b, outside_type(b, e, &ty_int), e->loc, "array extent '%s' must be at most 2147483647",
                          text.data)) {
    sb_free(&text);
    return;
  }
  diag_error(b->d, b->file, b->src, e->loc.line, e->loc.col,
             "array extent '%s' ranges up to %lld, past the 2147483647 elements an array may hold along a "
             "dimension; assume smaller sizes",
             text.data, (long long)hi);
  sb_free(&text);
  b->ok = false;
}

/* Local arrays live on the stack of whoever runs the kernel (the JIT's
 * thread, a small NPU control core): their sum is limited. */
static void check_local_array(Bounds *b, const Stmt *s) {
  b->local_bytes += (uint64_t)buffer_elems(s->buf) * (uint64_t)s->buf->elem->size;
  if (b->local_bytes <= IR_MAX_LOCAL_BYTES) return;
  diag_error(b->d, b->file, b->src, s->loc.line, s->loc.col,
             "local array '%s' brings the kernel's local arrays to %llu bytes; the limit is %d "
             "(they live on the stack); pass large arrays as parameters",
             s->buf->name, (unsigned long long)b->local_bytes, IR_MAX_LOCAL_BYTES);
  b->ok = false;
}

static void check_stmts(Bounds *b, const Stmt *s) {
  for (; s && b->ok; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      check_stmts(b, s->body);
      break;
    case ST_FOR:
      check_expr(b, s->lo);
      check_expr(b, s->hi);
      check_bound_range(b, s->lo);
      check_bound_range(b, s->hi);
      if (b->ok) check_counter(b, s);
      aff_push_loop(&b->aff, s);
      b->nest++;
      check_stmts(b, s->body);
      b->nest--;
      aff_pop_loop(&b->aff);
      break;
    case ST_IF: {
      check_expr(b, s->cond);
      b->nest++;
      bool pushed = aff_push_cond(&b->aff, s->cond, false);
      check_stmts(b, s->then_s);
      if (pushed) aff_pop_cond(&b->aff);
      pushed = aff_push_cond(&b->aff, s->cond, true);
      check_stmts(b, s->else_s);
      if (pushed) aff_pop_cond(&b->aff);
      b->nest--;
      break;
    }
    case ST_ASSIGN:
      check_expr(b, s->rhs);
      check_expr(b, s->lhs);
      break;
    case ST_DECL:
      if (s->buf && !buffer_onchip(s->buf)) check_local_array(b, s);
      check_expr(b, s->init);
      for (int i = 0; i < s->ninit; i++) check_expr(b, s->init_list[i]);
      break;
    }
  }
}

/* The whole check of k into b (its d, file and src set): sizes and
 * assumptions, extents, then the body. */
static void walk(Bounds *b, const Kernel *k) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  /* disjunctive assumptions multiply the domains' pieces (9 values for
   * each of 5 sizes: 9^5): a budget turns that into a message, not minutes */
  if (k->nsizes) isl_ctx_set_max_operations(ctx, BOUNDS_MAX_ISL_OPS);
  DiagList *d = b->d;
  const char *file = b->file, *src = b->src;
  aff_init(&b->aff, ctx, k);
  char why[400];
  if (!aff_push_size_dims(&b->aff, why, sizeof why)) {
    diag_error(d, file, src, k->loc.line, k->loc.col, "kernel %s: %s", k->name, why);
    b->ok = false;
  }
  /* each assumption's arithmetic must fit its type where the ones before
   * it hold: NPUGEN_ASSUME computes it in C (`n * 4 <= 512` would wrap) */
  b->what = "assumption";
  for (int i = 0; b->ok && i < k->nassume; i++) {
    check_bound_range(b, k->assume[i]);
    if (b->ok && !aff_push_assumption(&b->aff, i, why, sizeof why)) {
      diag_error(d, file, src, k->assume_loc[i].line, k->assume_loc[i].col, "%s", why);
      b->ok = false;
    }
  }
  if (b->ok && k->nsizes) {
    struct isl_set *allowed = aff_domain(&b->aff);
    if (!allowed || isl_set_is_empty(allowed) != isl_bool_false) {
      diag_error(d, file, src, k->nassume ? k->assume_loc[0].line : k->loc.line,
                 k->nassume ? k->assume_loc[0].col : k->loc.col,
                 "no sizes satisfy the assumptions of kernel %s (and every extent at least 1)", k->name);
      b->ok = false;
    }
    if (b->derive) b->sizes = allowed;
    else isl_set_free(allowed);
  }
  /* extents are evaluated at every call: their arithmetic must not wrap */
  b->what = "array extent";
  for (const Param *p = k->params; p && b->ok; p = p->next)
    for (int i = 0; p->buf && i < p->buf->ndim; i++) {
      check_bound_range(b, p->buf->extent[i]);
      check_extent_limit(b, p->buf->extent[i]);
    }
  b->what = "loop bound";
  if (b->ok) check_stmts(b, k->body);
  isl_set_free(b->sizes);
  b->sizes = NULL;
  aff_free(&b->aff);
  isl_ctx_free(ctx);
}

bool ir_check_bounds(const Kernel *k, DiagList *d, const char *file, const char *src) {
  Bounds b = {.d = d, .file = file, .src = src, .ok = true};
  walk(&b, k);
  return b.ok;
}

int ir_bounds_first_need(const Kernel *k, Arena *a, DiagList *d, const char *file, const char *src, Expr **need,
                         SrcLoc *loc, char *why, size_t n) {
  DiagList scratch; /* a failure turned into a condition leaves errors after it unchecked */
  diag_init(&scratch);
  Bounds b = {.d = &scratch, .file = file, .src = src, .ok = true, .derive = a, .why = why, .nwhy = n};
  walk(&b, k);
  *need = b.need;
  *loc = b.need_loc;
  if (b.need || !scratch.first) {
    diag_free(&scratch);
    return b.need ? 1 : b.ok ? 0 : -1;
  }
  /* the walk was ir_check_bounds': its errors are the kernel's */
  if (d->last) d->last->next = scratch.first;
  else d->first = scratch.first;
  d->last = scratch.last;
  d->errors += scratch.errors;
  return -1;
}
