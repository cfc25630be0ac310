/* A tensorized call's repeated bound held by a local (lower/intrinsic.c).
 * A window's first iteration is clamped to the loop (npu_clamp), and the
 * call prints it in every operand it offsets and again in its length:
 * `f(&y_vm[npu_clamp(7 - ii_start, 8192)], &x_vm[npu_clamp(7 - ii_start,
 * 8192)], 8192 - npu_clamp(7 - ii_start, 8192))`. The call then names a
 * const local declared just before it, `ii_bound`. The call's arguments
 * are expressions (schedule/tensorize.c); a bound is an `npu_clamp(...)`
 * call (EX_CALL), which has no side effects, so evaluating it once before
 * the call changes nothing. */
#include <string.h>

#include "lower/lower.h"

enum { MAX_BOUNDS = 32 };

typedef struct {
  const Expr *at[MAX_BOUNDS]; /* the npu_clamp calls, outer before inner, in the order printed */
  int n;
} Bounds;

static bool find_bound(const Expr *e, void *ctx) {
  Bounds *b = ctx;
  if (e->kind == EX_CALL && !strcmp(e->text, "npu_clamp") && b->n < MAX_BOUNDS) b->at[b->n++] = e;
  return true;
}

/* e with every subexpression that is the same as bound replaced by by. */
static const Expr *replaced(Arena *a, const Expr *e, const Expr *bound, const Expr *by) {
  if (!e) return NULL;
  if (ir_expr_same(e, bound)) return by;
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->a = (Expr *)replaced(a, e->a, bound, by);
  c->b = (Expr *)replaced(a, e->b, bound, by);
  c->c = (Expr *)replaced(a, e->c, bound, by);
  if (e->kind == EX_LOAD) {
    c->idx = ARENA_ARRAY(a, Expr *, e->buf->ndim);
    for (int i = 0; i < e->buf->ndim; i++) c->idx[i] = (Expr *)replaced(a, e->idx[i], bound, by);
  }
  if (e->kind == EX_CALL) {
    c->args = ARENA_ARRAY(a, Expr *, e->nargs);
    for (int i = 0; i < e->nargs; i++) c->args[i] = (Expr *)replaced(a, e->args[i], bound, by);
  }
  return c;
}

/* Whether the kernel, the call or an earlier local uses name. */
typedef struct {
  const char *name;
  bool found;
} Use;

static bool use_expr(const Expr *e, void *ctx) {
  Use *u = ctx;
  u->found |= (e->kind == EX_VAR && !strcmp(e->var->name, u->name)) || (e->macro && !strcmp(e->macro, u->name)) ||
              (e->kind == EX_LOAD && !strcmp(e->buf->name, u->name));
  return !u->found;
}

static bool use_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Use *u = ctx;
  u->found |= (s->var && !strcmp(s->var->name, u->name)) || (s->buf && !strcmp(s->buf->name, u->name));
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6 && !u->found; i++) ir_walk_expr(es[i], use_expr, u);
  return !u->found;
}

/* A name the call prints: a variable, an array, a macro or a function. */
static bool use_in_call(const Expr *e, void *ctx) {
  Use *u = ctx;
  use_expr(e, u);
  u->found |= e->kind == EX_CALL && !strcmp(e->text, u->name);
  return !u->found;
}

/* name used by the kernel, the call (its intrinsic, an argument's name or
 * cast) or an earlier local. */
static bool taken(Lower *lw, const IntrinCall *call, const char *name) {
  Use u = {name, false};
  for (const Param *p = lw->k->params; p; p = p->next) u.found |= !strcmp(p->buf ? p->buf->name : p->var->name, name);
  if (!u.found) ir_walk_stmts(lw->k->body, use_stmt, &u);
  for (int i = 0; i < lw->once->nheld && !u.found; i++) u.found = !strcmp(lw->once->held[i], name);
  u.found |= !strcmp(call->fn, name);
  for (int i = 0; i < call->nargs && !u.found; i++) {
    const char *cast = call->args[i].cast;
    u.found = cast && strstr(cast, name); /* a type's name, as in `const uint8_t *` */
    if (!u.found) ir_walk_expr(call->args[i].value, use_in_call, &u);
  }
  return u.found;
}

/* "<counter>_bound", or with a number after it: a name nothing uses. */
static const char *fresh(Lower *lw, const Stmt *loop, const IntrinCall *call) {
  const char *base = arena_printf(lw->arena, "%s_bound", loop->var->name), *name = base;
  for (int n = 2; taken(lw, call, name); n++) name = arena_printf(lw->arena, "%s%d", base, n);
  Decided *d = lw->once;
  d->held = lower_room(lw->arena, d->held, d->nheld, &d->held_cap, sizeof *d->held);
  d->held[d->nheld++] = name;
  return name;
}

void lower_hold_repeat(Lower *lw, const Stmt *loop, IntrinCall *call) {
  Bounds b = {.n = 0};
  for (int i = 0; i < call->nargs; i++) ir_walk_expr(call->args[i].value, find_bound, &b);
  const Expr *pick = NULL;
  for (int i = 0; i < b.n && !pick; i++)
    for (int j = i + 1; j < b.n && !pick; j++)
      if (ir_expr_same(b.at[i], b.at[j])) pick = b.at[i];
  if (!pick) return;
  Var *v = ARENA_NEW(lw->arena, Var);
  *v = (Var){.name = fresh(lw, loop, call), .type = &ty_int, .kind = VAR_LOCAL, .loc = pick->loc};
  Expr *use = ARENA_NEW(lw->arena, Expr);
  *use = (Expr){.kind = EX_VAR, .type = &ty_int, .loc = pick->loc, .var = v};
  IntrinArg *args = (IntrinArg *)call->args; /* lower/intrinsic.c's, being decided */
  for (int i = 0; i < call->nargs; i++) args[i].value = replaced(lw->arena, args[i].value, pick, use);
  call->hold = v;
  call->hold_value = pick;
}
