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

typedef struct {
  const Expr *bound, *by;
} BoundBy;

/* ir_map_expr's step: a subexpression that is the same as the bound
 * becomes by. */
static Expr *replace_bound(Arena *a, Expr *e, void *ctx) {
  (void)a;
  const BoundBy *r = ctx;
  return ir_expr_same(e, r->bound) ? (Expr *)r->by : e;
}

/* e with every subexpression that is the same as bound replaced by by. */
static const Expr *replaced(Arena *a, const Expr *e, const Expr *bound, const Expr *by) {
  BoundBy r = {bound, by};
  return ir_map_expr(a, (Expr *)e, replace_bound, &r);
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

/* A bound loop's tail count held per core (lower/bound.c's phases). A
 * core whose rows run past the array's end copies and computes fewer:
 * its count, `npu_clamp(1000 - (io * 256 + core * 64), 64)`, is printed
 * by its load, its call and its copy out, each in another loop over the
 * cores. The loop that runs first computes it once per core into
 * `<core>_count[core]`, which the three then name. Only the text the DMA
 * was given and the call's own npu_clamp are compared, whole, so a count
 * is renamed only where it is exactly that count. The local spells the
 * end as the computing nest's guard does (`LEN`), where vectorize gave
 * only its value. */
enum { MAX_PHASES = 3 };

typedef struct {
  Stmt *loops[MAX_PHASES]; /* the phase loops over the cores, in order */
  int n;
} Phases;

/* The phase loops directly in block (lower/bound.c: a loop over the cores
 * marked LOOP_VU, with the phase's name in its note). */
static bool phase_block(Stmt *block, Phases *p) {
  p->n = 0;
  for (Stmt *s = block->body; s; s = s->next)
    if (s->kind == ST_FOR && s->loop_kind == LOOP_VU && s->note) {
      if (p->n == MAX_PHASES || (p->n && p->loops[0]->var != s->var)) return false;
      p->loops[p->n++] = s;
    }
  return p->n >= 2;
}

static bool count_in(const DmaShape *d, const char *text) {
  if (strstr(d->row, text)) return true;
  for (int i = 0; i < d->ndims; i++)
    if (strstr(d->count[i], text)) return true;
  return false;
}

/* text with every occurrence of what replaced by by (what is a whole
 * npu_clamp(...) call: it starts and ends the match) */
static const char *renamed(Arena *a, const char *text, const char *what, const char *by) {
  StrBuf sb;
  sb_init(&sb);
  size_t n = strlen(what);
  for (const char *at; (at = strstr(text, what)); text = at + n) {
    sb_printf(&sb, "%.*s%s", (int)(at - text), text, by);
  }
  sb_puts(&sb, text);
  const char *out = arena_strdup(a, sb.data);
  sb_free(&sb);
  return out;
}

/* The DMA starts in a loop's body, at any depth, with the count named. */
typedef struct {
  Arena *a;
  const char *text, *by;
  int n;
} Rename;

static bool rename_dma(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Rename *r = ctx;
  if (!s->low || s->low->kind != LOW_DMA_START || !s->low->shape || !count_in(s->low->shape, r->text)) return true;
  DmaShape *d = ARENA_NEW(r->a, DmaShape);
  *d = *s->low->shape; /* shared with the other starts of the same nest */
  d->row = renamed(r->a, d->row, r->text, r->by);
  for (int i = 0; i < d->ndims; i++) d->count[i] = renamed(r->a, d->count[i], r->text, r->by);
  Lowered *low = ARENA_NEW(r->a, Lowered);
  *low = *s->low;
  low->shape = d;
  s->low = low;
  r->n++;
  return true;
}

static int rename_in_dmas(Arena *a, Stmt *loop, const char *text, const char *by) {
  Rename r = {a, text, by, 0};
  ir_walk_stmts(loop->body->body, rename_dma, &r); /* the statements themselves: rename_dma sets their low */
  return r.n;
}

/* The #define the nest's guards name a constant by (`< LEN`), where its
 * value is value; NULL where none does. */
typedef struct {
  int64_t value;
  const Expr *named;
} Named;

static bool named_const(const Expr *e, void *ctx) {
  Named *n = ctx;
  if (e->kind == EX_INT && e->macro && e->ival == n->value && !n->named) n->named = e;
  return !n->named;
}

static bool named_in_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Expr *es[] = {s->lo, s->hi, s->cond, s->lhs, s->rhs, s->init};
  for (int i = 0; i < 6; i++) ir_walk_expr(es[i], named_const, ctx);
  return !((Named *)ctx)->named;
}

/* count, `npu_clamp(1000 - start, extent)`, with the end spelt by the
 * #define the computing nest's guard wrote (`LEN - start`): vectorize
 * gave the value. */
static const Expr *spelt(Lower *lw, const Expr *count, Stmt *nest) {
  const Expr *left = count->nargs == 2 ? count->args[0] : NULL;
  if (!left || left->kind != EX_BINARY || left->op != OP_SUB || left->a->kind != EX_INT || left->a->macro)
    return count;
  Named n = {left->a->ival, NULL};
  ir_walk_one(nest, named_in_stmt, &n);
  if (!n.named) return count;
  Expr *l = ARENA_NEW(lw->arena, Expr), *end = ARENA_NEW(lw->arena, Expr), *c = ARENA_NEW(lw->arena, Expr);
  *end = *left->a;
  end->macro = n.named->macro;
  *l = *left;
  l->a = end;
  *c = *count;
  c->args = ARENA_ARRAY(lw->arena, Expr *, 2);
  c->args[0] = l;
  c->args[1] = count->args[1];
  return c;
}

/* The first npu_clamp of a call in loop's body, with that call. */
static const Expr *call_count(Stmt *loop, IntrinCall **call, Stmt **nest) {
  for (Stmt *s = loop->body->body; s; s = s->next) {
    if (!s->intrin_call || !s->intrin_call->fn) continue;
    Bounds b = {.n = 0};
    IntrinCall *c = (IntrinCall *)s->intrin_call; /* lower/intrinsic.c's, made for this lowering */
    if (c->hold_value) ir_walk_expr(c->hold_value, find_bound, &b);
    for (int i = 0; i < c->nargs; i++) ir_walk_expr(c->args[i].value, find_bound, &b);
    if (b.n) return *call = c, *nest = s, b.at[0];
  }
  return NULL;
}

static void hold_in(Lower *lw, Stmt *block) {
  Phases p;
  if (!phase_block(block, &p)) return;
  for (int k = 0; k < p.n; k++) {
    IntrinCall *call = NULL;
    Stmt *nest = NULL;
    const Expr *count = call_count(p.loops[k], &call, &nest);
    if (!count) continue;
    StrBuf sb;
    sb_init(&sb);
    ir_print_expr(&sb, count);
    const char *text = arena_strdup(lw->arena, sb.data);
    sb_free(&sb);
    const Var *core = p.loops[0]->var;
    const char *base = arena_printf(lw->arena, "%s_count", core->name), *name = base;
    for (int n = 2; taken(lw, call, name); n++) name = arena_printf(lw->arena, "%s%d", base, n);
    const char *use_text = arena_printf(lw->arena, "%s[%s]", name, core->name);
    int renamed_dmas = 0;
    for (int j = 0; j < p.n; j++) renamed_dmas += j != k ? rename_in_dmas(lw->arena, p.loops[j], text, use_text) : 0;
    if (!renamed_dmas) continue;
    Decided *d = lw->once;
    d->held = lower_room(lw->arena, d->held, d->nheld, &d->held_cap, sizeof *d->held);
    d->held[d->nheld++] = name;
    int64_t cores = 0;
    ir_const_int(p.loops[0]->hi, &cores);
    Buffer *held = ARENA_NEW(lw->arena, Buffer);
    *held = (Buffer){.name = name, .elem = &ty_int, .ndim = 1, .shape = {cores}, .scope = "global",
                     .role = ROLE_LOCAL, .loc = count->loc};
    Stmt *decl = ir_stmt(lw->arena, ST_DECL, count->loc);
    decl->buf = held;
    Expr **idx = ARENA_ARRAY(lw->arena, Expr *, 1);
    idx[0] = lower_var(lw, core);
    Expr *use = ir_load(lw->arena, held, idx);
    Stmt *set = ir_stmt(lw->arena, ST_ASSIGN, count->loc);
    set->lhs = use;
    set->rhs = (Expr *)spelt(lw, count, nest);
    set->op = OP_NONE;
    rename_in_dmas(lw->arena, p.loops[k], text, use_text);
    IntrinArg *args = (IntrinArg *)call->args;
    for (int i = 0; i < call->nargs; i++) args[i].value = replaced(lw->arena, args[i].value, count, use);
    if (call->hold_value) call->hold_value = replaced(lw->arena, call->hold_value, count, use);
    set->next = p.loops[0]->body->body;
    p.loops[0]->body->body = set;
    decl->next = block->body;
    block->body = decl;
    return;
  }
}

static bool hold_counts(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->kind == ST_BLOCK && s->body) hold_in(ctx, s);
  return true;
}

/* A split tail's count without cores, held once per pass of its loop. A
 * split whose factor divides no extent leaves `npu_clamp(1000 - io * 128,
 * 128)` in the loop's load, its call and its copy out; the loop's body
 * computes it first, `const int io_count = npu_clamp(M - io * 128, 128);`,
 * and they name it, renamed as the cores' count is (rename_in_dmas,
 * replaced). The count is held in the innermost loop whose counter it
 * uses, and only where nothing it names is declared inside that loop. */
typedef struct {
  const Var *v;
  bool inside;
} Declared;

static bool declares_var(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Declared *d = ctx;
  d->inside |= s->var == d->v && (s->kind == ST_FOR || s->kind == ST_DECL);
  return !d->inside;
}

typedef struct {
  const Stmt *loop;
  bool ok;
} Live;

/* Each variable e names has its value where loop's body starts. */
static bool live_var(const Expr *e, void *ctx) {
  Live *l = ctx;
  if (e->kind != EX_VAR || e->var == l->loop->var) return l->ok;
  Declared d = {e->var, false};
  ir_walk_stmts(l->loop->body->body, declares_var, &d);
  l->ok = !d.inside;
  return l->ok;
}

typedef struct {
  const Stmt *loop;
  const Expr *count;
  IntrinCall *call;
  Stmt *nest;
} Tail;

/* The first call in the loop with a count that the loop can hold. */
static bool find_tail(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Tail *t = ctx;
  if (!s->intrin_call || !s->intrin_call->fn) return !t->count;
  IntrinCall *c = (IntrinCall *)s->intrin_call; /* lower/intrinsic.c's, made for this lowering */
  Bounds b = {.n = 0};
  if (c->hold_value) ir_walk_expr(c->hold_value, find_bound, &b);
  for (int i = 0; i < c->nargs; i++) ir_walk_expr(c->args[i].value, find_bound, &b);
  for (int i = 0; i < b.n && !t->count; i++) {
    Live l = {t->loop, true};
    ir_walk_expr(b.at[i], live_var, &l);
    if (l.ok && ir_expr_uses(b.at[i], t->loop->var, NULL)) *t = (Tail){t->loop, b.at[i], c, s};
  }
  return !t->count;
}

typedef struct {
  Arena *a;
  const Expr *count, *use;
} Replace;

static bool replace_in_call(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Replace *r = ctx;
  if (!s->intrin_call || !s->intrin_call->fn) return true;
  IntrinCall *call = (IntrinCall *)s->intrin_call;
  IntrinArg *args = (IntrinArg *)call->args;
  for (int i = 0; i < call->nargs; i++) args[i].value = replaced(r->a, args[i].value, r->count, r->use);
  if (call->hold_value) call->hold_value = replaced(r->a, call->hold_value, r->count, r->use);
  return true;
}

static void hold_tail(Lower *lw, Stmt *loop) {
  Tail t = {loop, NULL, NULL, NULL};
  ir_walk_stmts(loop->body->body, find_tail, &t);
  if (!t.count) return;
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, t.count);
  const char *text = arena_strdup(lw->arena, sb.data);
  sb_free(&sb);
  const char *base = arena_printf(lw->arena, "%s_count", loop->var->name), *name = base;
  for (int n = 2; taken(lw, t.call, name); n++) name = arena_printf(lw->arena, "%s%d", base, n);
  if (!rename_in_dmas(lw->arena, loop, text, name)) return; /* the call alone prints it */
  Decided *d = lw->once;
  d->held = lower_room(lw->arena, d->held, d->nheld, &d->held_cap, sizeof *d->held);
  d->held[d->nheld++] = name;
  Var *v = ARENA_NEW(lw->arena, Var);
  *v = (Var){.name = name, .type = &ty_int, .kind = VAR_LOCAL, .is_const = true, .loc = t.nest->loc};
  Stmt *decl = ir_stmt(lw->arena, ST_DECL, t.nest->loc);
  decl->var = v;
  decl->init = (Expr *)spelt(lw, t.count, t.nest);
  Expr *use = ARENA_NEW(lw->arena, Expr);
  *use = (Expr){.kind = EX_VAR, .type = &ty_int, .loc = t.count->loc, .var = v};
  Replace r = {lw->arena, t.count, use};
  ir_walk_stmts(loop->body->body, replace_in_call, &r);
  decl->next = loop->body->body;
  loop->body->body = decl;
}

static bool hold_tails(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->kind == ST_FOR && s->body) hold_tail(ctx, s);
  return true;
}

void lower_hold_core_counts(Lower *lw, Stmt *body) {
  for (Stmt *s = body; s; s = s->next) ir_walk_stmts(s, hold_counts, lw);
  ir_walk_stmts(body, hold_tails, lw); /* what the cores left */
}
