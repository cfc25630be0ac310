/* Pass (first and last): emitted code a reviewer would commit.
 *
 * First, on the scheduled kernel: a loop of one pass (a split whose
 * factor is the extent leaves `for (ho = 0; ho < 1; ho++)`) is its body,
 * its counter replaced by its one value and the indices under it folded
 * (ir/arith.c), inside a block when the body declares names; and a
 * tensorized nest under a window guard gets its window's start held by a
 * local (the call prints it in every operand). It runs before the DMA
 * pass so the copies' shapes and the intrinsics' calls, worked out from
 * the indices as C text, see them folded.
 *
 * Last, on the lowered body:
 *   - the waits for every slot of a bound loop's per-core token array,
 *     one line per core (and copy), become one loop over the cores;
 *   - a subexpression of more than a few tokens that one statement prints
 *     twice (the requantisation's `floor(ldexp(...)) + zp` in its three
 *     arms) is held by a const local declared just before the statement.
 *     Only one evaluated wherever the statement runs (not only under a
 *     `?:` arm or the right of && or ||) is held: the local computes it
 *     once, where the statement computed it anyway. Expressions have no
 *     side effects (calls are <math.h>'s), so the value is the same. */
#include <stdio.h>
#include <string.h>

#include "ir/arith.h"
#include "lower/tidy.h"
#include "schedule/tensorize.h" /* sched_window_guard */

/* ---------------- loops of one pass ---------------- */

/* Loop s runs once, with its counter at *at: a plain loop (no mark, no
 * intrinsic, no annotation) that is not a copy nest (the DMA pass makes
 * it one call) and whose body declares no double-buffered buffer (its
 * copies alternate over the loop). */
static bool one_pass(const Stmt *s, int64_t *at) {
  int64_t n;
  if (s->kind != ST_FOR || (s->loop_kind != LOOP_SERIAL && s->loop_kind != LOOP_UNROLL)) return false;
  if (s->intrin || s->annots || s->mark_step || s->vec_note || s->order_note || lower_is_copy_nest(s)) return false;
  if (!ir_trip_count(s, &n) || n != 1 || !ir_const_int(s->lo, at)) return false;
  for (const Stmt *c = s->body->body; c; c = c->next)
    if (c->kind == ST_DECL && c->buf && c->buf->copies > 1) return false;
  return true;
}

/* A counter replaced by its value, and what that folds. */
typedef struct {
  Arena *a;
  const Var *v;
  const Expr *value;
} Subst;

static bool fold_indices(const Expr *e, void *ctx) {
  Arena *a = ctx;
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) e->idx[i] = arith_simplify_index(a, e->idx[i], NULL, 0);
  return true;
}

/* e with the counter replaced and the indices folded (a new tree; e is
 * shared with the scheduled IR); folded whole too when `whole` (a bound
 * or a condition: a value's expression keeps its form, casts and all). */
static Expr *subst_expr_as(const Subst *s, const Expr *e, bool whole) {
  if (!e || !ir_expr_uses(e, s->v, NULL)) return (Expr *)e;
  Expr *r = ir_subst_expr(s->a, ir_expr_copy(s->a, e), s->v, s->value);
  ir_walk_expr(r, fold_indices, s->a);
  return whole ? arith_simplify(s->a, r, NULL, 0) : r;
}

static Expr *subst_expr(const Subst *s, const Expr *e) { return subst_expr_as(s, e, false); }

/* What the first part keeps: its arena, the kernel it makes (a new
 * variable is numbered in it) and the names taken there. */
typedef struct {
  Arena *a;
  Kernel *k;
  const char **names;
  int nnames, cap;
  const Stmt *top; /* the kernel's statements: a loop there stays a nest, its note names its statements */
} Loops;

static Stmt *unwrap_list(Loops *L, const Stmt *list, const Subst *s);

static Stmt *shallow(Arena *a, const Stmt *s) {
  Stmt *c = ARENA_NEW(a, Stmt);
  *c = *s;
  c->next = NULL;
  return c;
}

/* A block statement (a loop's body, an if's branch) with its list mapped. */
static Stmt *block_of(Loops *L, const Stmt *b, const Subst *s) {
  if (!b) return NULL;
  Stmt *c = shallow(L->a, b);
  c->body = unwrap_list(L, b->body, s);
  return c;
}

/* Statement st (alone) with the counter of s (when given) replaced. */
static Stmt *subst_stmt(Loops *L, const Stmt *st, const Subst *s) {
  Arena *a = L->a;
  Stmt *c = shallow(a, st);
  if (s) {
    c->lo = subst_expr_as(s, st->lo, true);
    c->hi = subst_expr_as(s, st->hi, true);
    c->cond = subst_expr_as(s, st->cond, true);
    c->lhs = subst_expr(s, st->lhs);
    c->rhs = subst_expr(s, st->rhs);
    c->init = subst_expr(s, st->init);
    if (st->ninit) {
      c->init_list = ARENA_ARRAY(a, Expr *, st->ninit);
      for (int i = 0; i < st->ninit; i++) c->init_list[i] = subst_expr(s, st->init_list[i]);
    }
    if (st->norig) {
      c->orig = ARENA_ARRAY(a, Expr *, st->norig);
      for (int i = 0; i < st->norig; i++) c->orig[i] = subst_expr(s, st->orig[i]);
    }
  }
  if (st->kind == ST_FOR) c->body = block_of(L, st->body, s);
  if (st->kind == ST_BLOCK) c->body = unwrap_list(L, st->body, s);
  if (st->kind == ST_IF) {
    c->then_s = block_of(L, st->then_s, s);
    c->else_s = block_of(L, st->else_s, s);
  }
  return c;
}

static bool declares(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next)
    if (c->kind == ST_DECL) return true;
  return false;
}

/* Loop L of one pass as its body: the statements themselves, or a block
 * that holds them when they declare names (a sibling may declare the
 * same) or L is a top-level nest, its first line saying which loop it was. */
static Stmt *unwrap(Loops *lp, const Stmt *L, int64_t at, const Subst *outer, bool top) {
  Arena *a = lp->a;
  Subst s = {a, L->var, ir_int(a, at, L->var->type, L->loc)};
  Stmt *body = unwrap_list(lp, L->body->body, &s);
  if (outer) body = unwrap_list(lp, body, outer);
  if (!declares(body) && !top) return body;
  Stmt *b = ir_stmt(a, ST_BLOCK, L->loc);
  b->body = body;
  b->name = L->name; /* a nest still: at the top, its note names its statements (lower/lower.c) */
  /* a loop npugen wrote (a layout helper's) has no line of the source to name */
  const char *line = L->loc.line > 0 ? arena_printf(a, " (line %d)", L->loc.line) : "";
  b->note = arena_printf(a, "loop %s%s runs once, %s = %lld", L->var->name, line, L->var->name, (long long)at);
  return b;
}

typedef struct {
  const Var *v;
  bool found;
} Uses;

static bool find_use(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Uses *u = ctx;
  u->found |= ir_stmt_uses(s, u->v, NULL);
  return !u->found;
}

/* st or a statement under it reads v. */
static bool uses_deep(const Stmt *st, const Var *v) {
  Uses u = {v, false};
  ir_walk_one(st, find_use, &u);
  return u.found;
}

/* A tensorized loop whose body is a window guard with a lower bound
 * (`if (io * 32768 + (core * 8192 + ii) >= 7)`: schedule/vectorize_window.c)
 * and a start of several terms. The call prints the start in each
 * operand and in the length; a local before the loop holds it
 * (hold_start). *w: the window. */
static bool window_start(Arena *a, const Stmt *s, SchedWindow *w) {
  if (s->kind != ST_FOR || !s->intrin || !s->body->body || s->body->body->next) return false;
  const Stmt *g = s->body->body;
  if (g->kind != ST_IF || g->else_s || !sched_window_guard(a, g, s->var, w)) return false;
  /* with a lower bound the operands start past it (each prints the start); a prefix prints it once */
  return w->has_lo && w->start->kind == EX_BINARY && type_same(w->start->type, s->var->type) &&
         ir_expr_counters_only(NULL, w->start);
}

static bool holds_one_pass(Stmt *s, int depth, void *ctx) {
  (void)depth;
  int64_t at;
  bool *found = ctx;
  Arena scratch;
  arena_init(&scratch, 0);
  SchedWindow w;
  *found |= one_pass(s, &at) || window_start(&scratch, s, &w);
  arena_free(&scratch);
  return !*found;
}

static bool holds(const Stmt *s) {
  bool found = false;
  ir_walk_one(s, holds_one_pass, &found);
  return found;
}

static void take(Loops *L, const char *name) {
  L->names = lower_room(L->a, L->names, L->nnames, &L->cap, sizeof *L->names);
  L->names[L->nnames++] = name;
}

static bool take_expr(const Expr *e, void *ctx) {
  if (e->kind == EX_VAR) take(ctx, e->var->name);
  if (e->macro) take(ctx, e->macro);
  return true;
}

static bool take_names(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->var) take(ctx, s->var->name);
  if (s->buf) take(ctx, s->buf->name);
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6; i++) ir_walk_expr(es[i], take_expr, ctx);
  return true;
}

/* "ii_start", or with a number after it: a name the kernel does not use. */
static const char *start_name(Loops *L, const Var *v) {
  const char *base = arena_printf(L->a, "%s_start", v->name), *name = base;
  for (int n = 2;; n++) {
    bool taken = false;
    for (int i = 0; i < L->nnames && !taken; i++) taken = !strcmp(L->names[i], name);
    if (!taken) break;
    name = arena_printf(L->a, "%s%d", base, n);
  }
  take(L, name);
  return name;
}

/* Loop s (window_start's) after `const int ii_start = START;`, its guard
 * then `ii_start + ii >= lo` (&& `< hi`): the same window, its start named. */
static Stmt *hold_start(Loops *L, Stmt *s) {
  Arena *a = L->a;
  SchedWindow w;
  if (!window_start(a, s, &w)) return s;
  const Type *t = s->var->type;
  int64_t tlo;
  uint64_t thi;
  type_int_range(t, &tlo, &thi);
  if ((w.has_lo && (w.lo < tlo || w.lo > (int64_t)thi)) || (w.has_hi && (w.hi < tlo || w.hi > (int64_t)thi))) return s;
  const Stmt *g = s->body->body;
  Var *v = ir_new_var(a, L->k, start_name(L, s->var), t, VAR_LOCAL, g->loc);
  v->is_const = true;
  Stmt *d = ir_stmt(a, ST_DECL, g->loc);
  d->var = v;
  d->init = ir_expr_copy(a, w.start);
  Expr *cond = NULL;
  for (int side = 0; side < 2; side++) {
    if (!(side ? w.has_hi : w.has_lo)) continue;
    Expr *at = ir_binary(a, OP_ADD, ir_var(a, v, g->loc), ir_var(a, s->var, g->loc), t, g->loc);
    Expr *c = ir_binary(a, side ? OP_LT : OP_GE, at, ir_int(a, side ? w.hi : w.lo, t, g->loc), &ty_int, g->loc);
    cond = cond ? ir_binary(a, OP_LAND, cond, c, &ty_int, g->loc) : c;
  }
  Stmt *guard = shallow(a, g);
  guard->cond = cond;
  Stmt *loop = shallow(a, s);
  loop->body = shallow(a, s->body);
  loop->body->body = guard;
  d->next = loop;
  Stmt *b = ir_stmt(a, ST_BLOCK, s->loc); /* one statement where the loop was: a bound loop's phases see a nest */
  b->body = d;
  return b;
}

/* list with its loops of one pass unwrapped and (s given) a counter
 * replaced; statements that need neither are shared. */
static Stmt *unwrap_list(Loops *L, const Stmt *list, const Subst *s) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *st = list; st; st = st->next) {
    int64_t at;
    SchedWindow w;
    if (!holds(st) && (!s || !uses_deep(st, s->v))) tail = lower_append(tail, shallow(L->a, st));
    else if (one_pass(st, &at)) tail = lower_append(tail, unwrap(L, st, at, s, list == L->top));
    else if (window_start(L->a, st, &w)) tail = lower_append(tail, hold_start(L, subst_stmt(L, st, s)));
    else tail = lower_append(tail, subst_stmt(L, st, s));
  }
  return out;
}

const Kernel *lower_tidy_loops(Arena *a, const Kernel *k) {
  if (!holds(k->body)) return k;
  Kernel *out = ARENA_NEW(a, Kernel);
  *out = *k;
  Loops L = {.a = a, .k = out, .top = k->body->body};
  for (const Param *p = k->params; p; p = p->next) take(&L, p->buf ? p->buf->name : p->var->name);
  ir_walk_stmts(k->body, take_names, &L);
  out->body = shallow(a, k->body);
  out->body->body = unwrap_list(&L, k->body->body, NULL);
  return out;
}

/* ---------------- the lowered code ---------------- */

/* What the last pass knows of the function: the names it uses (a new
 * local or counter takes another) and the per-core token arrays. */
typedef struct {
  Lower *lw;
  Kernel *out;
  const char **names;
  int nnames, cap;
  const Buffer *per_core[32]; /* buffers of a bound loop: their tokens are per core */
  int nper_core;
  /* the names a new loop counter may not take where the pass is: the
   * parameters, the macros and functions, and what the scopes around
   * declare (a stack) */
  const char **visible;
  int nvisible, visible_cap;
} Tidy;

static void add_name(Tidy *t, const char *name) {
  if (!name) return;
  for (int i = 0; i < t->nnames; i++)
    if (!strcmp(t->names[i], name)) return;
  t->names = lower_room(t->lw->arena, t->names, t->nnames, &t->cap, sizeof *t->names);
  t->names[t->nnames++] = name;
}

static bool name_expr(const Expr *e, void *ctx) {
  if (e->kind == EX_VAR) add_name(ctx, e->var->name);
  if (e->macro) add_name(ctx, e->macro);
  if (e->kind == EX_LOAD) add_name(ctx, e->buf->name);
  if (e->kind == EX_CALL) add_name(ctx, e->text);
  return true;
}

static void name_buffer(Tidy *t, const Buffer *b) {
  add_name(t, b->name);
  add_name(t, b->db_name);
  add_name(t, b->db_token);
  if (b->core && b->db_token && t->nper_core < 32) t->per_core[t->nper_core++] = b;
}

static bool name_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Tidy *t = ctx;
  if (s->var) add_name(t, s->var->name);
  if (s->buf) name_buffer(t, s->buf);
  if (s->low && s->low->view_buf) name_buffer(t, s->low->view_buf);
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6; i++) ir_walk_expr(es[i], name_expr, t);
  for (int i = 0; i < s->ninit; i++) ir_walk_expr(s->init_list[i], name_expr, t);
  if (s->intrin_call && s->intrin_call->fallback) ir_walk_stmts((Stmt *)s->intrin_call->fallback, name_stmt, t);
  return true;
}

static bool listed(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return true;
  return false;
}

/* base, or base2, base3, ...: a name nothing in the function uses
 * (scoped: none visible where the pass is, for a loop's counter, which
 * only its loop sees). */
static const char *fresh(Tidy *t, const char *base, bool scoped) {
  const char *name = base;
  for (int n = 2; scoped ? listed(t->visible, t->nvisible, name) : listed(t->names, t->nnames, name); n++)
    name = arena_printf(t->lw->arena, "%s%d", base, n);
  add_name(t, name);
  return name;
}

static void push_visible(Tidy *t, const char *name) {
  if (!name) return;
  t->visible = lower_room(t->lw->arena, t->visible, t->nvisible, &t->visible_cap, sizeof *t->visible);
  t->visible[t->nvisible++] = name;
}

static bool visible_global(const Expr *e, void *ctx) {
  if (e->macro) push_visible(ctx, e->macro);
  if (e->kind == EX_CALL) push_visible(ctx, e->text);
  return true;
}

static bool globals_of(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6; i++) ir_walk_expr(es[i], visible_global, ctx);
  return true;
}

/* The names statement s declares in its list's scope. */
static void declare(Tidy *t, const Stmt *s) {
  if (s->kind == ST_DECL) push_visible(t, s->var ? s->var->name : s->buf->name);
  if (s->low && s->low->kind == LOW_TOKENS) push_visible(t, s->low->token.base);
  if (s->low && s->low->kind == LOW_VIEW && s->low->decl) push_visible(t, s->low->view_buf->name);
  if (s->low && s->low->kind == LOW_VIEW && !s->low->decl)
    push_visible(t, s->low->view_copy ? s->low->view_buf->name : s->low->view_buf->db_name);
}

/* ---- per-core waits ---- */

/* A wait for one slot of a per-core token array: its buffer, and the
 * slot's indices (constants). */
static const Buffer *core_wait(const Tidy *t, const Stmt *s, int64_t idx[2]) {
  if (!s->low || s->low->kind != LOW_DMA_WAIT || s->low->guard || s->note || !s->low->token.base) return NULL;
  const DmaToken *k = &s->low->token;
  for (int i = 0; i < k->nidx; i++)
    if (!ir_const_int(k->idx[i], &idx[i])) return NULL;
  for (int i = 0; i < t->nper_core; i++) {
    const Buffer *b = t->per_core[i];
    if (!strcmp(b->db_token, k->base) && k->nidx == (b->copies == 2 ? 2 : 1)) return b;
  }
  return NULL;
}

/* How many waits from s on wait for every slot of b's tokens in order
 * (copy by copy, core by core), each alike (if issued or not); 0 when
 * they do not. cores: the slots per copy. */
static int grid_run(const Tidy *t, const Stmt *s, const Buffer *b, int64_t *cores) {
  int n = 0;
  int64_t idx[2], copies = b->copies == 2 ? 2 : 1;
  for (const Stmt *c = s; c && core_wait(t, c, idx) == b && c->low->if_issued == s->low->if_issued; c = c->next) n++;
  if (n % copies) return 0;
  *cores = n / copies;
  const Stmt *c = s;
  for (int64_t k = 0; k < copies; k++)
    for (int64_t i = 0; i < *cores; i++, c = c->next) {
      core_wait(t, c, idx);
      if ((copies == 2 && idx[0] != k) || idx[copies == 2 ? 1 : 0] != i) return 0;
    }
  return *cores > 1 ? n : 0;
}

/* for (int v = 0; v < n; v++) body */
static Stmt *count_loop(Tidy *t, const char *name, int64_t n, Stmt *body, SrcLoc loc) {
  Arena *a = t->lw->arena;
  Stmt *L = ir_stmt(a, ST_FOR, loc);
  L->var = ir_new_var(a, t->out, fresh(t, name, true), &ty_int, VAR_LOOP, loc);
  L->name = L->var->name;
  L->lo = ir_int(a, 0, &ty_int, loc);
  L->hi = ir_int(a, n, &ty_int, loc);
  L->cmp = OP_LT;
  L->step = 1;
  L->loop_kind = LOOP_SERIAL;
  L->body = ir_stmt(a, ST_BLOCK, loc);
  L->body->body = body;
  return L;
}

/* The waits of run from s (n of them, per buffer b) as one loop over the
 * cores, inside one over the copies for a double-buffered b. */
static Stmt *wait_loop(Tidy *t, const Stmt *s, const Buffer *b, int64_t cores) {
  Stmt *w = lower_shallow(t->lw, s);
  w->low = ARENA_NEW(t->lw->arena, Lowered);
  *w->low = *s->low;
  Stmt *inner = count_loop(t, "core", cores, w, s->loc);
  Expr *core = lower_var(t->lw, inner->var);
  if (b->copies != 2) {
    w->low->token = lower_token(s->low->token.base, core, NULL);
    w->low->token.id = s->low->token.id;
    return inner;
  }
  Stmt *outer = count_loop(t, "copy", 2, inner, s->loc);
  w->low->token = lower_token(s->low->token.base, lower_var(t->lw, outer->var), core);
  w->low->token.id = s->low->token.id;
  return outer;
}

/* ---- repeated subexpressions ---- */

/* More tokens than a statement may print twice (the lint's bound). */
enum { TIDY_MAX_REPEAT_TOKENS = 8 };

static int tokens(const Expr *e);

/* C's binding strength of a node (ir/print_expr.c prints by it). */
static int strength(const Expr *e) {
  if (e->macro) return 15;
  if (e->kind == EX_COND) return 3;
  if (e->kind != EX_BINARY) return e->kind == EX_UNARY || (e->kind == EX_CAST && !e->implicit) ? 14 : 15;
  switch (e->op) {
  case OP_MUL: case OP_DIV: case OP_MOD: return 13;
  case OP_ADD: case OP_SUB: return 12;
  case OP_SHL: case OP_SHR: return 11;
  case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 10;
  case OP_EQ: case OP_NE: return 9;
  case OP_BAND: return 8;
  case OP_BXOR: return 7;
  case OP_BOR: return 6;
  case OP_LAND: return 5;
  default: return 4;
  }
}

/* Operand e's tokens with the parentheses the printer puts around it
 * under a parent of strength `parent` (right: its right operand). Past
 * arithmetic, a binary operand is counted in parentheses (the printer's
 * -Wparentheses rules add some): a local for a token more does no harm,
 * a repeat missed does. */
static int operand(const Expr *e, int parent, bool right) {
  const Expr *x = e;
  while (x->kind == EX_CAST && x->implicit && !x->macro) x = x->a;
  int c = strength(x);
  bool paren = c < parent || (c == parent && right) || (parent <= 11 && c <= 11 && c != parent);
  return tokens(e) + (paren ? 2 : 0);
}

/* The tokens e prints as (or a few more). */
static int tokens(const Expr *e) {
  if (e->macro) return 1;
  int n = 0, k = strength(e);
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_VAR: return 1;
  case EX_LOAD:
    n = 1;
    for (int i = 0; i < e->buf->ndim; i++) n += 2 + tokens(e->idx[i]);
    return n;
  case EX_UNARY: return 1 + operand(e->a, 14, false);
  case EX_BINARY: return operand(e->a, k, false) + 1 + operand(e->b, k, true);
  case EX_COND: return operand(e->a, 4, false) + operand(e->b, 4, false) + operand(e->c, 3, false) + 2;
  case EX_CAST: return e->implicit ? tokens(e->a) : 3 + (strchr(e->type->name, ' ') ? 1 : 0) + operand(e->a, 14, false);
  case EX_CALL:
    n = 3 + (e->nargs ? e->nargs - 1 : 0);
    for (int i = 0; i < e->nargs; i++) n += tokens(e->args[i]);
    return n;
  }
  return n;
}

/* The subexpressions of one statement, each with whether it is
 * evaluated wherever the statement runs. */
typedef struct {
  const Expr *e[256];
  bool always[256];
  int n;
} Subs;

static void subs_of(Subs *s, const Expr *e, bool always) {
  if (!e || s->n == 256) return;
  s->e[s->n] = e;
  s->always[s->n++] = always;
  if (e->macro) return;
  if (e->kind == EX_LOAD)
    for (int i = 0; i < e->buf->ndim; i++) subs_of(s, e->idx[i], always);
  if (e->kind == EX_CALL)
    for (int i = 0; i < e->nargs; i++) subs_of(s, e->args[i], always);
  bool lazy = e->kind == EX_COND || (e->kind == EX_BINARY && (e->op == OP_LAND || e->op == OP_LOR));
  subs_of(s, e->a, always);
  subs_of(s, e->b, always && !lazy);
  subs_of(s, e->c, always && !lazy);
}

static bool same(const Expr *x, const Expr *y) { return x->type == y->type && ir_expr_same(x, y); }

/* The largest subexpression of more than TIDY_MAX_REPEAT_TOKENS tokens
 * printed twice or more, one of them evaluated always; NULL when none. */
static const Expr *repeated(const Subs *s) {
  const Expr *best = NULL;
  int best_tokens = TIDY_MAX_REPEAT_TOKENS;
  for (int i = 0; i < s->n; i++) {
    const Expr *e = s->e[i];
    int n = tokens(e);
    if (n <= best_tokens || e->type->kind == TY_VOID || (e->kind == EX_CAST && e->implicit)) continue;
    int times = 0;
    bool always = false;
    for (int j = 0; j < s->n; j++)
      if (same(e, s->e[j])) {
        times++;
        always |= s->always[j];
      }
    if (times > 1 && always) {
      best = e;
      best_tokens = n;
    }
  }
  return best;
}

/* Loads of one array whose rows are the same: b[i0 + 1][j] and b[i0 + 1][j + 1]
 * print `b[i0 + 1]` twice. When such a row prints in more than
 * TIDY_MAX_REPEAT_TOKENS tokens, its largest index, which a local then
 * holds; NULL when there is none. */
static const Expr *repeated_row(const Subs *s) {
  for (int i = 0; i < s->n; i++) {
    const Expr *x = s->e[i];
    if (x->kind != EX_LOAD || x->buf->ndim < 2 || !s->always[i]) continue;
    for (int j = 0; j < s->n; j++) {
      const Expr *y = s->e[j];
      if (j == i || y->kind != EX_LOAD || y->buf != x->buf) continue;
      int same = 0, row = 1;
      const Expr *largest = NULL;
      while (same < x->buf->ndim - 1 && ir_expr_same(x->idx[same], y->idx[same])) {
        row += 2 + tokens(x->idx[same]);
        if (x->idx[same]->kind != EX_VAR && x->idx[same]->kind != EX_INT && !x->idx[same]->macro &&
            (!largest || tokens(x->idx[same]) > tokens(largest)))
          largest = x->idx[same];
        same++;
      }
      if (row > TIDY_MAX_REPEAT_TOKENS && largest) return largest;
    }
  }
  return NULL;
}

/* e with each copy of x replaced by v (new nodes on the way down only). */
static Expr *replace(Arena *a, Expr *e, const Expr *x, Expr *v) {
  if (!e) return NULL;
  if (same(e, x)) return v;
  if (e->macro) return e;
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->a = replace(a, e->a, x, v);
  c->b = replace(a, e->b, x, v);
  c->c = replace(a, e->c, x, v);
  if (e->kind == EX_LOAD) {
    c->idx = ARENA_ARRAY(a, Expr *, e->buf->ndim);
    for (int i = 0; i < e->buf->ndim; i++) c->idx[i] = replace(a, e->idx[i], x, v);
  }
  if (e->kind == EX_CALL) {
    c->args = ARENA_ARRAY(a, Expr *, e->nargs ? e->nargs : 1);
    for (int i = 0; i < e->nargs; i++) c->args[i] = replace(a, e->args[i], x, v);
  }
  return c;
}

/* Statement s (an assignment or a scalar's declaration), after the
 * declarations of the locals that hold what it would print twice. */
static Stmt *hoist(Tidy *t, const Stmt *s) {
  Arena *a = t->lw->arena;
  Stmt *c = lower_shallow(t->lw, s), *decls = NULL, **tail = &decls;
  for (int round = 0; round < 8; round++) {
    Subs subs = {.n = 0};
    subs_of(&subs, c->kind == ST_ASSIGN ? c->rhs : c->init, true);
    if (c->kind == ST_ASSIGN && c->lhs->kind == EX_LOAD)
      for (int i = 0; i < c->lhs->buf->ndim; i++) subs_of(&subs, c->lhs->idx[i], true);
    const Expr *x = repeated(&subs);
    if (!x) x = repeated_row(&subs);
    if (!x) break;
    const char *base = s->name ? arena_printf(a, "%s_val", s->name) : "val";
    Var *v = ir_new_var(a, t->out, fresh(t, base, false), x->type, VAR_LOCAL, s->loc);
    v->is_const = true;
    Stmt *d = ir_stmt(a, ST_DECL, s->loc);
    d->var = v;
    d->init = ir_expr_copy(a, x);
    tail = lower_append(tail, d);
    Expr *ref = ir_var(a, v, x->loc);
    if (c->kind == ST_ASSIGN) {
      c->rhs = replace(a, c->rhs, x, ref);
      if (c->lhs->kind == EX_LOAD) { /* its indices: the element written stays */
        Expr *lhs = ARENA_NEW(a, Expr);
        *lhs = *c->lhs;
        lhs->idx = ARENA_ARRAY(a, Expr *, lhs->buf->ndim);
        for (int i = 0; i < lhs->buf->ndim; i++) lhs->idx[i] = replace(a, c->lhs->idx[i], x, ref);
        c->lhs = lhs;
      }
    } else {
      c->init = replace(a, c->init, x, ref);
    }
  }
  lower_append(tail, c);
  return decls;
}

/* ---- the walk ---- */

static Stmt *tidy_list(Lower *lw, const Stmt *list, const void *ctx);

static Stmt *tidy_stmt(Tidy *t, const Stmt *s) {
  if (s->low) return lower_shallow(t->lw, s);
  if (s->kind == ST_ASSIGN || (s->kind == ST_DECL && s->var && s->init)) return hoist(t, s);
  if (s->kind != ST_FOR) return lower_rebuild(t->lw, s, tidy_list, t);
  int mark = t->nvisible;
  push_visible(t, s->var->name);
  Stmt *c;
  if (s->intrin_call && s->intrin_call->fn) { /* printed as its call, and the nest as written where it falls back */
    c = lower_shallow(t->lw, s);
    if (s->intrin_call->fallback) {
      IntrinCall *ic = ARENA_NEW(t->lw->arena, IntrinCall);
      *ic = *s->intrin_call;
      ic->fallback = lower_rebuild(t->lw, s->intrin_call->fallback, tidy_list, t);
      c->intrin_call = ic;
    }
  } else {
    c = lower_rebuild(t->lw, s, tidy_list, t);
  }
  t->nvisible = mark;
  return c;
}

static Stmt *tidy_list(Lower *lw, const Stmt *list, const void *ctx) {
  (void)lw;
  Tidy *t = (Tidy *)ctx;
  int mark = t->nvisible;
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) {
    int64_t idx[2], cores;
    const Buffer *b = core_wait(t, s, idx);
    int n = b ? grid_run(t, s, b, &cores) : 0;
    if (n) {
      tail = lower_append(tail, wait_loop(t, s, b, cores));
      for (int i = 1; i < n; i++) s = s->next;
      continue;
    }
    tail = lower_append(tail, tidy_stmt(t, s));
    declare(t, s);
  }
  t->nvisible = mark;
  return out;
}

Stmt *lower_tidy_code(Lower *lw, Kernel *out, const Stmt *body) {
  Tidy t = {.lw = lw, .out = out};
  for (const Param *p = out->params; p; p = p->next) {
    const char *name = p->buf ? p->buf->name : p->var->name;
    add_name(&t, name);
    push_visible(&t, name);
  }
  for (const Stmt *s = body; s; s = s->next) {
    ir_walk_one(s, name_stmt, &t);
    ir_walk_one(s, globals_of, &t);
  }
  return tidy_list(lw, body, &t);
}
