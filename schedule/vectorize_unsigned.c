/* vectorize of a nest counted in unsigned (`for (unsigned i = 0; i < n;
 * i++)` over `unsigned n`, split): a VU instruction counts in int, and its
 * tail is a signed guard (ir_tail_guard). Where every value the nest's
 * unsigned arithmetic takes fits int, the same nest counted in int
 * computes the same: the counters of constant bounds become int, each
 * expression of counters, sizes and constants in unsigned int becomes one
 * in int with its other operands cast, `ii < (int)n - (int)io * 256`, as
 * cache.c's copies count (docs/kernel-language.md, "Symbolic sizes").
 *
 * Why the values are the same: the unsigned forms were proven not to wrap
 * (ir/fits.c, after every step; a form the kernel as written has, which
 * may wrap on purpose, is not rewritten), so each is its mathematical
 * value; the int forms are proven to fit int and each cast to keep its
 * value (ir_check_fits, before the nest is taken), so each is that value
 * too. The rewrite is tried on a copy; the nest changes only when an
 * instruction computes the copy and the proof holds. */
#include <string.h>

#include "ir/fits.h"
#include "schedule/expand.h"
#include "schedule/primitives.h"
#include "schedule/tensorize.h"
#include "schedule/vectorize_unsigned.h"

enum { MAX_RETYPED = 32 };

typedef struct {
  Arena *a;
  const char *known; /* ir_fits_failures of the kernel as written: may wrap */
  const Var *retyped[MAX_RETYPED];
  int nretyped;
  bool ok;
  char *why;
  size_t n;
} View;

static bool is_uint(const Type *t) { return type_is_integer(t) && !t->is_signed && t->size == ty_int.size; }

static bool retyped(const View *w, const Var *v) {
  for (int i = 0; i < w->nretyped; i++)
    if (w->retyped[i] == v) return true;
  return false;
}

static bool retype(View *w, Var *v) {
  if (w->nretyped == MAX_RETYPED) return false;
  w->retyped[w->nretyped++] = v;
  v->type = &ty_int;
  return true;
}

/* Counters, sizes, retyped locals and constants under + - * and C's own
 * conversions: what the int view computes. */
static bool pure(const View *w, const Expr *e) {
  switch (e->kind) {
  case EX_INT: return e->ival >= 0 && e->ival <= INT32_MAX;
  case EX_VAR: return type_is_integer(e->var->type) && (e->var->kind == VAR_LOOP || e->var->is_size || retyped(w, e->var));
  case EX_CAST: return e->implicit && type_is_integer(e->type) && pure(w, e->a);
  case EX_BINARY:
    return type_is_integer(e->type) && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) && pure(w, e->a) &&
           pure(w, e->b);
  default: return false;
  }
}

/* A form the kernel as written has, which ir/fits.c excuses: it may wrap. */
static bool excused(const View *w, const Expr *e) {
  if (!w->known) return false;
  StrBuf t;
  sb_init(&t);
  sb_putc(&t, '\n');
  ir_print_expr(&t, e);
  sb_putc(&t, '\n');
  bool yes = strstr(w->known, t.data) != NULL;
  sb_free(&t);
  return yes || (e->kind == EX_BINARY && (excused(w, e->a) || excused(w, e->b))) ||
         (e->kind == EX_CAST && excused(w, e->a));
}

/* Pure e computed in int: other operands cast, `(int)n`. */
static Expr *to_int(View *w, const Expr *e) {
  switch (e->kind) {
  case EX_INT: return ir_int(w->a, e->ival, &ty_int, e->loc);
  case EX_VAR: {
    Expr *v = ir_var(w->a, e->var, e->loc);
    return e->var->type == &ty_int ? v : ir_cast(w->a, v, &ty_int, false);
  }
  case EX_CAST: return to_int(w, e->a);
  default: return ir_binary(w->a, e->op, to_int(w, e->a), to_int(w, e->b), &ty_int, e->loc);
  }
}

static bool fail(View *w, const char *what) {
  if (w->ok) snprintf(w->why, w->n, "%s", what);
  w->ok = false;
  return false;
}

static bool is_compare(const Expr *e) { return e->kind == EX_BINARY && e->op >= OP_LT && e->op <= OP_NE; }

/* e with its unsigned int arithmetic in int; w->ok false where a use of
 * a retyped counter or local stays in another form. */
static Expr *rewrite(View *w, Expr *e) {
  if (!e) return NULL;
  if (is_uint(e->type) && pure(w, e)) {
    if (excused(w, e)) return fail(w, "its unsigned arithmetic is the kernel's own, which may wrap"), e;
    return to_int(w, e);
  }
  if (is_compare(e) && (is_uint(e->a->type) || is_uint(e->b->type))) {
    if (!pure(w, e->a) || !pure(w, e->b) || excused(w, e->a) || excused(w, e->b))
      return fail(w, "a comparison in unsigned int is not of counters, sizes and constants"), e;
    e->a = to_int(w, e->a);
    e->b = to_int(w, e->b);
    return e;
  }
  if (e->kind == EX_VAR && retyped(w, e->var)) return fail(w, "an unsigned counter is used in another form"), e;
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) e->idx[i] = rewrite(w, e->idx[i]);
  for (int i = 0; i < e->nargs; i++) e->args[i] = rewrite(w, e->args[i]);
  e->a = rewrite(w, e->a);
  e->b = rewrite(w, e->b);
  e->c = rewrite(w, e->c);
  return e;
}

/* The loops of constant bounds in int's range counted in int. */
static bool retype_loop(Stmt *st, int depth, void *ctx) {
  (void)depth;
  View *w = ctx;
  int64_t lo, hi;
  if (st->kind != ST_FOR || !is_uint(st->var->type)) return true;
  if (!ir_const_int(st->lo, &lo) || !ir_const_int(st->hi, &hi) || hi > INT32_MAX || lo > INT32_MAX || st->step != 1 ||
      !retype(w, st->var))
    return fail(w, "an unsigned counter in the nest runs to a bound that is not a constant int holds");
  st->lo = ir_int(w->a, lo, &ty_int, st->lo->loc);
  st->hi = ir_int(w->a, hi, &ty_int, st->hi->loc);
  return true;
}

static bool rewrite_stmt(Stmt *st, int depth, void *ctx) {
  (void)depth;
  View *w = ctx;
  if (st->kind == ST_DECL && st->var && !st->buf && is_uint(st->var->type) && st->init && pure(w, st->init)) {
    if (excused(w, st->init) || !retype(w, st->var)) return fail(w, "a local's unsigned arithmetic may wrap");
    st->init = to_int(w, st->init);
  } else {
    st->init = rewrite(w, st->init);
  }
  if (st->kind == ST_FOR) {
    st->lo = rewrite(w, st->lo);
    st->hi = rewrite(w, st->hi);
  }
  st->cond = rewrite(w, st->cond);
  st->lhs = rewrite(w, st->lhs);
  st->rhs = rewrite(w, st->rhs);
  for (int i = 0; i < st->norig; i++) st->orig[i] = rewrite(w, st->orig[i]);
  return w->ok;
}

const char *sched_vectorize_unsigned(Sched *s, Stmt *loop, char *why, size_t n) {
  if (!is_uint(loop->var->type)) return NULL;
  if (!s->fits_known) s->fits_known = ir_fits_failures(s->written);
  View w = {.a = s->a, .known = s->fits_known, .ok = true, .why = why, .n = n};
  CloneMap cm = {0};
  Stmt *copy = ir_clone_stmt(s->a, loop, &cm);
  clone_map_free(&cm);
  ir_walk_one(copy, retype_loop, &w);
  if (w.ok) ir_walk_one(copy, rewrite_stmt, &w);
  const char *found = NULL;
  if (!w.ok) return NULL;
  if (!sched_vu_matches(s, copy, &found) && !sched_expand_to_match(s, copy, sched_vu_matches, &found)) return NULL;
  Stmt saved = *loop;
  *loop = *copy;
  loop->next = saved.next;
  char fits[600];
  if (!ir_check_fits(s->k, s->fits_known, fits, sizeof fits)) {
    *loop = saved;
    snprintf(why, n, "loop %s counts in unsigned, and counted in int it would not fit: %s", saved.name, fits);
    return NULL;
  }
  sched_model_drop(s); /* new counters: the next step's proof builds its model anew */
  return found;
}
