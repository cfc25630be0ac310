/* Calls of kernels in the IR (CallSite, ir/ir.h): a marked ST_BLOCK that
 * holds the function the call runs, inlined. The helpers every layer
 * shares: the scalar arguments, walks that leave the calls' insides alone,
 * and the fingerprint by which a schedule notices a step that changed
 * what a call holds. */
#include <string.h>

#include "ir/ir.h"

static const Stmt *binding(const Stmt *s, int i) {
  const Var *v = s->call->arg_var[i];
  if (!v) return NULL;
  for (const Stmt *c = s->body; c; c = c->next)
    if (c->kind == ST_DECL && c->var == v) return c;
  return NULL;
}

const Expr *ir_call_scalar_arg(const Stmt *s, int i) {
  const Stmt *d = binding(s, i);
  return d ? d->init : NULL;
}

/* Reads of a size's local (a callee's parameter that sizes an array or
 * bounds a loop) become its argument, a constant or an expression of the
 * caller's sizes: the call's extents and bounds are then constants or
 * sizes to every analysis, as they are in the callee. */
/* e with its constant arithmetic and comparisons folded (a split's trip
 * count `n / 16 + (n % 16 > 0)` at n = 64 is 4), where C gives the
 * value in e's type; a #define's spelling is kept. */
static Expr *fold_constant(Arena *a, Expr *e) {
  if (!e || e->macro) return e;
  e->a = fold_constant(a, e->a);
  e->b = fold_constant(a, e->b);
  e->c = fold_constant(a, e->c);
  int64_t v, x, y;
  if (e->kind != EX_BINARY || !type_is_integer(e->type)) return e;
  if (ir_const_int(e, &v)) return ir_int(a, v, e->type, e->loc);
  if (!ir_const_int(e->a, &x) || !ir_const_int(e->b, &y)) return e;
  if ((x < 0 || y < 0) && (!e->a->type->is_signed || !e->b->type->is_signed)) return e; /* C compares unsigned */
  switch (e->op) {
  case OP_LT: return ir_int(a, x < y, e->type, e->loc);
  case OP_LE: return ir_int(a, x <= y, e->type, e->loc);
  case OP_GT: return ir_int(a, x > y, e->type, e->loc);
  case OP_GE: return ir_int(a, x >= y, e->type, e->loc);
  case OP_EQ: return ir_int(a, x == y, e->type, e->loc);
  case OP_NE: return ir_int(a, x != y, e->type, e->loc);
  default: return e;
  }
}

static bool fold_bounds(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Arena *a = ctx;
  if (st->kind == ST_FOR) {
    st->lo = fold_constant(a, st->lo);
    st->hi = fold_constant(a, st->hi);
  }
  if (st->kind == ST_IF) st->cond = fold_constant(a, st->cond);
  return true;
}

void ir_call_pass_sizes(Arena *a, Stmt *call) {
  const CallSite *c = call->call;
  int i = 0;
  for (const Param *p = c->callee->params; p; p = p->next, i++) {
    if (!p->var || !p->var->is_size) continue;
    const Expr *arg = ir_call_scalar_arg(call, i);
    for (Stmt *st = call->body; arg && st; st = st->next)
      if (!ir_call_binds(call, st)) ir_subst_stmt(a, st, c->arg_var[i], arg);
  }
  if (c->callee->nsizes) ir_walk_stmts(call->body, fold_bounds, a);
}

bool ir_call_binds(const Stmt *s, const Stmt *st) {
  if (!s->call || st->kind != ST_DECL || !st->var) return false;
  for (int i = 0; i < s->call->nparams; i++)
    if (s->call->arg_var[i] == st->var) return true;
  return false;
}

static bool walk_outside(Stmt *s, StmtVisitor fn, void *ctx, int depth) {
  for (; s; s = s->next) {
    if (!fn(s, depth, ctx)) return false;
    if (s->kind == ST_BLOCK && s->call) continue;
    bool go = true;
    if (s->kind == ST_BLOCK || s->kind == ST_FOR) go = walk_outside(s->body, fn, ctx, depth + 1);
    else if (s->kind == ST_IF)
      go = walk_outside(s->then_s, fn, ctx, depth + 1) && walk_outside(s->else_s, fn, ctx, depth + 1);
    if (!go) return false;
  }
  return true;
}

void ir_walk_outside_calls(Stmt *s, StmtVisitor fn, void *ctx) { walk_outside(s, fn, ctx, 0); }

static bool holds(const Stmt *list, const Stmt *st) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == st) return true;
    if ((c->kind == ST_BLOCK || c->kind == ST_FOR) && holds(c->body, st)) return true;
    if (c->kind == ST_IF && (holds(c->then_s, st) || holds(c->else_s, st))) return true;
  }
  return false;
}

typedef struct {
  const Stmt *target;
  Stmt *around;
} Around;

static bool around_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Around *a = ctx;
  if (s->kind == ST_BLOCK && s->call && holds(s->body, a->target)) a->around = s;
  return !a->around;
}

Stmt *ir_call_around(Stmt *body, const Stmt *st) {
  Around a = {st, NULL};
  ir_walk_outside_calls(body, around_visit, &a);
  return a.around;
}

/* ---- the fingerprint ---- */

static void print_array(StrBuf *sb, const Buffer *b) {
  sb_printf(sb, "%s %s %s%s", b->name, b->elem->name, b->scope ? b->scope : "", b->layout ? " layout" : "");
  for (int i = 0; i < b->ndim; i++) sb_printf(sb, "[%lld]", (long long)b->shape[i]);
  sb_putc(sb, ';');
}

static void print_list(StrBuf *sb, const Stmt *owner, const Stmt *s);

/* Loop names and labels are left out: a step may rename a copy's loops
 * (unroll of a loop around the call) without changing what it runs. */
static void print_one(StrBuf *sb, const Stmt *s) {
  switch (s->kind) {
  case ST_BLOCK:
    sb_puts(sb, "{");
    if (s->call) sb_printf(sb, "call %s ", s->call->fn);
    print_list(sb, s, s->body);
    sb_puts(sb, "}");
    break;
  case ST_FOR:
    sb_printf(sb, "for %s %s ", s->var->name, s->var->type->name);
    ir_print_expr(sb, s->lo);
    sb_printf(sb, " %s ", op_spelling(s->cmp));
    ir_print_expr(sb, s->hi);
    sb_printf(sb, " %lld %d %s{", (long long)s->step, (int)s->loop_kind, s->intrin ? s->intrin : "");
    print_list(sb, NULL, s->body->body);
    sb_puts(sb, "}");
    break;
  case ST_IF:
    sb_puts(sb, "if ");
    ir_print_expr(sb, s->cond);
    sb_puts(sb, "{");
    print_list(sb, NULL, s->then_s->body);
    sb_puts(sb, "}{");
    if (s->else_s) print_list(sb, NULL, s->else_s->body);
    sb_puts(sb, "}");
    break;
  case ST_ASSIGN:
    ir_print_expr(sb, s->lhs);
    sb_printf(sb, " %s= ", op_spelling(s->op));
    ir_print_expr(sb, s->rhs);
    break;
  case ST_DECL:
    if (s->buf) {
      print_array(sb, s->buf);
      for (int i = 0; i < s->ninit; i++) ir_print_expr(sb, s->init_list[i]), sb_putc(sb, ',');
    } else {
      sb_printf(sb, "%s %s = ", s->var->type->name, s->var->name);
      if (s->init) ir_print_expr(sb, s->init);
    }
    break;
  }
  sb_puts(sb, ";\n");
}

static void print_list(StrBuf *sb, const Stmt *owner, const Stmt *s) {
  for (; s; s = s->next)
    if (!(owner && ir_call_binds(owner, s))) print_one(sb, s);
}

const char *ir_call_fingerprint(Arena *a, const Stmt *s) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < s->call->nparams; i++)
    if (s->call->arg_buf[i]) print_array(&sb, s->call->arg_buf[i]);
  sb_putc(&sb, '\n');
  print_list(&sb, s, s->body);
  const char *f = arena_strdup(a, sb.data ? sb.data : "");
  sb_free(&sb);
  return f;
}

static bool call_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if (s->kind == ST_BLOCK && s->call) *found = true;
  return !*found;
}

bool ir_has_calls(const Kernel *k) {
  bool found = false;
  ir_walk_outside_calls(k->body, call_visit, &found);
  return found;
}

/* ---- arrays a caller passes on chip (docs/programs.md, "Scopes across calls") ---- */

bool ir_call_onchip(const CallSite *c) {
  for (int i = 0; i < c->nparams; i++)
    if (c->arg_buf[i] && buffer_onchip(c->arg_buf[i])) return true;
  return false;
}

static bool is_counter(const Expr *e, const Var *v) { return e->kind == EX_VAR && e->var == v; }

/* Is the loop nest at s a copy of the whole of `to` from the whole of
 * `from`, element by element (what cache_read and cache_write at the
 * root make)? */
static bool whole_copy(const Stmt *s, const Buffer *to, const Buffer *from) {
  const Var *v[IR_MAX_DIMS];
  const Stmt *at = s;
  for (int d = 0; d < to->ndim; d++) {
    int64_t lo, hi;
    if (at->kind != ST_FOR || at->step != 1 || at->cmp != OP_LT || !ir_const_int(at->lo, &lo) || lo != 0 ||
        !ir_const_int(at->hi, &hi) || hi != to->shape[d])
      return false;
    v[d] = at->var;
    at = at->body->body;
    if (!at || at->next) return false;
  }
  if (at->kind != ST_ASSIGN || at->op != OP_NONE || at->lhs->buf != to || at->rhs->kind != EX_LOAD ||
      at->rhs->buf != from)
    return false;
  for (int d = 0; d < to->ndim; d++)
    if (!is_counter(at->lhs->idx[d], v[d]) || !is_counter(at->rhs->idx[d], v[d])) return false;
  return true;
}

/* Could on-chip buffer b hold the whole of parameter p, element for element? */
static bool same_array(const Buffer *b, const Buffer *p) {
  if (!buffer_onchip(b) || b->elem != p->elem || b->ndim != p->ndim || b->layout || p->layout || b->copies > 1 ||
      b->core)
    return false;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d] != p->shape[d] || b->extent[d] || p->extent[d]) return false;
  return true;
}

typedef struct {
  const Buffer *p;
  bool writes; /* only a write of p counts (an assignment to it, or a call it is passed to) */
  bool used;
} Uses;

static bool uses_visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Uses *u = ctx;
  if (u->writes) u->used |= s->kind == ST_ASSIGN && s->lhs->buf == u->p;
  else u->used |= ir_stmt_uses(s, NULL, u->p);
  for (int i = 0; s->kind == ST_BLOCK && s->call && i < s->call->nparams; i++) u->used |= s->call->arg_buf[i] == u->p;
  return !u->used;
}

/* Does any top-level statement of fn but the stage's touch (or write) p? */
static bool used_elsewhere(const Kernel *fn, const Buffer *p, const IrStage *st, bool writes) {
  Uses u = {p, writes, false};
  for (Stmt *s = fn->body->body; s && !u.used; s = s->next) {
    if (s == st->decl || s == st->load || s == st->store) continue;
    ir_walk_one(s, uses_visit, &u);
  }
  return u.used;
}

bool ir_call_stage(const Kernel *fn, const Buffer *p, IrStage *out) {
  for (Stmt *d = fn->body->body; d; d = d->next) {
    if (d->kind != ST_DECL || !d->buf || !same_array(d->buf, p)) continue;
    IrStage st = {d, NULL, NULL};
    for (Stmt *s = d->next; s; s = s->next) {
      if (s->kind != ST_FOR || s->loop_kind != LOOP_DMA) continue;
      if (!st.load && !st.store && whole_copy(s, d->buf, p)) st.load = s;
      else if (!st.store && whole_copy(s, p, d->buf)) st.store = s;
    }
    /* a stage only loaded is a copy the function may not change: as the
     * caller's array itself, a write would change the caller's */
    if ((st.load || st.store) && !used_elsewhere(fn, p, &st, false) &&
        !(!st.store && used_elsewhere(fn, d->buf, &st, true))) {
      *out = st;
      return true;
    }
  }
  return false;
}

/* The stage of fn's parameter that call site c passes an array in the
 * stage's own scope for: it is the caller's array, no copy. */
static const IrStage *agreeing_stage(const Kernel *fn, const CallSite *c, int i, IrStage *st) {
  const Param *p = fn->params;
  for (int j = 0; j < i; j++) p = p->next;
  const Buffer *arg = c->arg_buf[i];
  if (!arg || !buffer_onchip(arg) || !ir_call_stage(fn, p->buf, st) || strcmp(st->decl->buf->scope, arg->scope))
    return NULL;
  return st;
}

static bool elided(const Kernel *fn, const CallSite *c, const Stmt *s) {
  IrStage st;
  for (int i = 0; i < c->nparams; i++)
    if (agreeing_stage(fn, c, i, &st) && (s == st.decl || s == st.load || s == st.store)) return true;
  return false;
}

typedef struct {
  Arena *a;
  const char *prefix;
} Prefix;

static bool prefix_names(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Prefix *p = ctx;
  if (st->name) st->name = arena_printf(p->a, "%s_%s", p->prefix, st->name);
  if (st->kind == ST_BLOCK && st->call) st->call->name = arena_printf(p->a, "%s_%s", p->prefix, st->call->name);
  return true;
}

/* A call inside the function's IR was fingerprinted over the function's
 * own arrays: taken anew over these (sched_check_calls), not compared. */
static bool forget_fingerprint(Stmt *st, int depth, void *ctx) {
  (void)depth;
  (void)ctx;
  if (st->kind == ST_BLOCK && st->call) st->call->fingerprint = NULL;
  return true;
}

typedef struct {
  Arena *a;
  Kernel *k;
} Inner;

static bool inner_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Inner *in = ctx;
  if (st->kind == ST_BLOCK && st->call && ir_call_onchip(st->call))
    ir_call_run(in->a, in->k, st, st->call->fn_ir->name, st->call->fn_ir, st->call->fn_schedule);
  return true;
}

/* ---- an array in a layout the function does not take ---- */

typedef struct {
  Arena *a;
  const Buffer **b; /* their accesses have the logical indices: each goes through its array's layout */
  int n;
} ToLayout;

static bool rewritten(const ToLayout *t, const Buffer *b) {
  for (int i = 0; i < t->n; i++)
    if (t->b[i] == b) return true;
  return false;
}

static void to_layout_expr(ToLayout *t, Expr *e) {
  if (!e) return;
  if (e->kind == EX_LOAD) {
    const Buffer *b = e->buf;
    const Layout *L = rewritten(t, b) ? b->layout : NULL;
    int n = L ? L->ndim : b->ndim; /* the indices the access has now */
    for (int d = 0; d < n; d++) to_layout_expr(t, e->idx[d]);
    if (L) {
      Expr **idx = ARENA_ARRAY(t->a, Expr *, b->ndim);
      for (int g = 0; g < b->ndim; g++) {
        idx[g] = ir_expr_copy(t->a, L->index[g]);
        for (int d = 0; d < L->ndim; d++) idx[g] = ir_subst_expr(t->a, idx[g], L->var[d], e->idx[d]);
      }
      e->idx = idx;
    }
  }
  to_layout_expr(t, e->a);
  to_layout_expr(t, e->b);
  to_layout_expr(t, e->c);
  for (int i = 0; i < e->nargs; i++) to_layout_expr(t, e->args[i]);
}

static bool to_layout_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  ToLayout *t = ctx;
  Expr *es[] = {st->lo, st->hi, st->cond, st->lhs, st->rhs, st->init};
  for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) to_layout_expr(t, es[i]);
  for (int i = 0; i < st->ninit; i++) to_layout_expr(t, st->init_list[i]);
  return true;
}

/* Where a function takes parameter p logical and the call passes an array
 * in another layout (schedule/call_layouts.c: until a later use() gives
 * the call a variant that takes it so), the statements index the array
 * through its layout, as the layout step rewrote them. All such arrays in
 * one walk: an access of one not yet rewritten still has its logical
 * indices, fewer than its buffer's physical rank. */
static void follow_layouts(Arena *a, const Kernel *fn_ir, const CallSite *c, Stmt *body) {
  ToLayout t = {a, ARENA_ARRAY(a, const Buffer *, c->nparams ? c->nparams : 1), 0};
  int i = 0;
  for (const Param *p = fn_ir->params; p; p = p->next, i++) {
    const Buffer *arg = c->arg_buf[i];
    if (arg && arg->layout && !p->buf->layout && !rewritten(&t, arg)) t.b[t.n++] = arg; /* one array for two parameters: once */
  }
  if (t.n) ir_walk_stmts(body, to_layout_visit, &t);
}

/* A call inside the new statements that now gets an on-chip array of
 * the caller's runs its function planned for it, too (inner_visit). */
void ir_call_run(Arena *a, Kernel *k, Stmt *call, const char *fn, const Kernel *fn_ir, const char *schedule) {
  CallSite *c = call->call;
  Stmt *keep = NULL, **tail = &keep;
  for (Stmt *st = call->body; st; st = st->next)
    if (ir_call_binds(call, st)) {
      *tail = st;
      tail = &st->next;
    }
  *tail = NULL;
  CloneMap cm = {.k = k};
  int i = 0;
  IrStage st;
  for (const Param *p = fn_ir->params; p; p = p->next, i++) {
    ir_clone_map_put(&cm, p->buf ? (const void *)p->buf : p->var, p->buf ? (void *)c->arg_buf[i] : c->arg_var[i]);
    if (agreeing_stage(fn_ir, c, i, &st)) ir_clone_map_put(&cm, st.decl->buf, c->arg_buf[i]);
  }
  Stmt *body = NULL, **bt = &body;
  for (const Stmt *s = fn_ir->body->body; s; s = s->next) {
    if (elided(fn_ir, c, s)) continue;
    *bt = ir_clone_stmt(a, s, &cm);
    bt = &(*bt)->next;
  }
  clone_map_free(&cm);
  *tail = body;
  call->body = keep;
  ir_call_pass_sizes(a, call);
  body = *tail;
  follow_layouts(a, fn_ir, c, body);
  Prefix px = {a, c->name};
  ir_walk_stmts(body, prefix_names, &px);
  ir_walk_stmts(body, forget_fingerprint, NULL);
  c->fn = ir_call_onchip(c) ? arena_printf(a, "%s_%s", fn, c->name) : fn;
  c->fn_ir = fn_ir;
  c->fn_schedule = schedule;
  c->fingerprint = NULL; /* taken anew after the step (sched_check_calls) */
  Inner in = {a, k};
  ir_walk_outside_calls(body, inner_visit, &in);
}

typedef struct {
  size_t len;
  const char *prefix;
} Unprefix;

static bool unprefix_names(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Unprefix *u = ctx;
  if (st->name && !strncmp(st->name, u->prefix, u->len) && st->name[u->len] == '_') st->name += u->len + 1;
  return true;
}

Kernel *ir_call_function(Arena *a, const Stmt *call) {
  const CallSite *c = call->call;
  Kernel *f = ir_clone_kernel(a, c->fn_ir);
  f->name = c->fn;
  CloneMap cm = {.k = f};
  int i = 0;
  for (Param *p = f->params; p; p = p->next, i++) {
    const Buffer *arg = c->arg_buf[i];
    if (arg && buffer_onchip(arg)) {
      p->buf->scope = arg->scope;
      p->buf->offset = arg->offset;
    }
    bool seen = false; /* one array passed for two read parameters: the first names it */
    for (int j = 0; j < i; j++) seen |= c->arg_buf[j] == arg;
    if (arg && !seen) ir_clone_map_put(&cm, arg, p->buf);
    if (c->arg_var[i]) ir_clone_map_put(&cm, c->arg_var[i], p->var);
  }
  Stmt *body = NULL, **bt = &body;
  for (const Stmt *s = call->body; s; s = s->next) {
    if (ir_call_binds(call, s)) continue;
    *bt = ir_clone_stmt(a, s, &cm);
    bt = &(*bt)->next;
  }
  clone_map_free(&cm);
  Unprefix u = {strlen(c->name), c->name};
  ir_walk_stmts(body, unprefix_names, &u);
  f->body->body = body;
  return f;
}
