/* Layouts across calls (docs/programs.md). A program's array passed to a
 * marked call is in one layout for the caller and for the function the
 * call runs: the call passes it as it is, so the function must take it in
 * the array's layout (same physical shape, the same index map, the same
 * pad_value; schedule/layout.c compares them with isl).
 *  - use(call, variant) checks that for every array the call passes;
 *  - a layout step on an array a marked call takes runs that call's
 *    function again over the new layout where the function takes it so;
 *    where it does not, a later use() or inline() of the schedule must
 *    name the call (the step rewrote the call's statements, which the
 *    emitted call of a function over the logical layout would not run),
 *    else refused;
 *  - a function that reads a parameter in a padded layout assumes the
 *    padding holds pad_value (pad_compute drops guards on it): before the
 *    call, a nest writes pad_value into the padding of the caller's array
 *    (an output's padding may receive anything, docs/layouts.md).
 * Legal by construction: the calls compute what they did, and the fill
 * writes only padding, which no logical element maps to. */
#include "schedule/call_layouts.h"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/val.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "schedule/layout.h"

static const Param *param_at(const Kernel *fn, int i) {
  const Param *p = fn->params;
  for (int j = 0; j < i && p; j++) p = p->next;
  return p;
}

/* "k2 (the kernel as written)" or "variant k2_pad". */
static const char *runs(Sched *s, const CallSite *c) {
  return c->fn_schedule ? arena_printf(s->a, "variant %s", c->fn_ir->name)
                        : arena_printf(s->a, "%s (the kernel as written)", c->callee->name);
}

typedef struct {
  const Buffer *b;
  const Stmt *except;
  const Stmt *found;
} Writer;

static bool writer_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Writer *w = ctx;
  if (st->kind != ST_BLOCK || !st->call || st == w->except) return true;
  for (int i = 0; i < st->call->nparams && !w->found; i++)
    if (st->call->arg_buf[i] == w->b && param_at(st->call->fn_ir, i)->buf->role != ROLE_INPUT) w->found = st;
  return !w->found;
}

/* " (T is written by call s1, which runs variant k1_pad)" for an array a
 * marked call other than `except` writes, else "". */
static const char *written_by(Sched *s, const Buffer *b, const Stmt *except) {
  Writer w = {b, except, NULL};
  ir_walk_outside_calls(s->k->body, writer_visit, &w);
  if (!w.found) return "";
  return arena_printf(s->a, " (%s is written by call %s, line %d, which runs %s)", b->name, w.found->call->name,
                      w.found->loc.line, runs(s, w.found->call));
}

/* The layout steps of b, "; "-separated. */
static const char *steps_of(Sched *s, const Buffer *b) {
  char *t = arena_strdup(s->a, b->layout ? b->layout->steps : "");
  size_t n = strlen(t);
  while (n && t[n - 1] == '\n') t[--n] = 0;
  StrBuf sb;
  sb_init(&sb);
  for (const char *p = t; *p; p++)
    if (*p == '\n') sb_puts(&sb, "; ");
    else sb_putc(&sb, *p);
  const char *r = arena_strdup(s->a, sb.data ? sb.data : "");
  sb_free(&sb);
  return r;
}

/* ---- use(call, variant) ---- */

bool sched_use_layouts(Sched *s, const SchedArg *at, const Stmt *call, const SchedVariantRef *v) {
  const CallSite *c = call->call;
  const Kernel *fn = v->ir;
  const char *variant = v->schedule ? v->name : arena_printf(s->a, "%s (the kernel as written)", v->name);
  for (int i = 0; i < c->nparams; i++) {
    const Buffer *arg = c->arg_buf[i], *p = arg ? param_at(fn, i)->buf : NULL;
    if (!arg) continue;
    char why[160];
    int agree = layout_agree(s, arg, p, why, sizeof why);
    if (agree == 1) continue;
    if (agree < 0)
      return sched_error(s, at, "cannot compare the layouts of %s and %s's %s: %s", arg->name, variant, p->name, why);
    if (!arg->layout)
      return sched_error(s, at, "%s takes %s in %s, but %s passes %s to call %s (line %d) in the logical layout at "
                         "this step; a call passes its arrays as they are: give %s that layout first (%s's layout "
                         "steps: %s), then use(%s, %s)", variant, p->name, layout_text(s, p), s->variant, arg->name,
                         c->name, call->loc.line, arg->name, variant, steps_of(s, p), c->name, variant);
    if (!p->layout)
      return sched_error(s, at, "%s takes %s in the logical layout, but %s passes %s to call %s (line %d) in %s%s; "
                         "a call passes its arrays as they are: use a variant of %s that takes %s in that layout",
                         variant, p->name, s->variant, arg->name, c->name, call->loc.line, layout_text(s, arg),
                         written_by(s, arg, call), c->callee->name, p->name);
    return sched_error(s, at, "the layouts do not match: %s takes %s in %s, but %s passes %s to call %s (line %d) in "
                       "%s%s: %s; a call passes its arrays as they are: give both the same layout", variant, p->name,
                       layout_text(s, p), s->variant, arg->name, c->name, call->loc.line, layout_text(s, arg),
                       written_by(s, arg, call), why);
  }
  return true;
}

/* ---- a layout step on an array calls take ---- */

/* A later step of this schedule is use(name, ...) or inline(name): the
 * call then runs a function chosen over the array's layout, or its
 * statements, which index it through that layout, are the caller's. */
static bool used_later(const Sched *s, const char *name) {
  for (const SchedStep *st = s->step ? s->step->next : NULL; st; st = st->next)
    if ((!strcmp(st->prim, "use") || !strcmp(st->prim, "inline")) && st->nargs && st->args[0].kind == SA_NAME &&
        !strcmp(st->args[0].name, name))
      return true;
  return false;
}

typedef struct {
  Sched *s;
  Buffer *b;
  const SchedArg *at;
  bool ok;
} Follow;

/* The first array call st passes in another layout than its function
 * takes it in: its index, or -1 (all agree), or -2 (isl failed: why). */
static int first_disagreeing(Sched *s, const Stmt *st, char *why, size_t n) {
  const CallSite *c = st->call;
  for (int i = 0; i < c->nparams; i++) {
    if (!c->arg_buf[i]) continue;
    int agree = layout_agree(s, c->arg_buf[i], param_at(c->fn_ir, i)->buf, why, n);
    if (agree != 1) return agree < 0 ? -2 : i;
  }
  return -1;
}

static bool follow_call(Follow *f, Stmt *st) {
  Sched *s = f->s;
  CallSite *c = st->call;
  char why[160];
  int i = first_disagreeing(s, st, why, sizeof why);
  if (i == -1) { /* its function takes every array as it now is */
    ir_call_run(s->a, s->k, st, c->fn_ir->name, c->fn_ir, c->fn_schedule);
    return true;
  }
  if (i >= 0 && used_later(s, c->name)) {
    c->fingerprint = NULL; /* the step rewrote its statements over the new layout; use() replaces them */
    return true;
  }
  if (i == -2) return sched_error(s, f->at, "cannot compare the layouts of the arrays call %s takes: %s", c->name, why);
  const Buffer *p = param_at(c->fn_ir, i)->buf, *arg = c->arg_buf[i];
  if (!p->layout)
    return sched_error(s, f->at, "call %s (line %d) runs %s, which takes %s in the logical layout, but %s now gives "
                       "it %s in %s; a call passes its arrays as they are: use(%s, VARIANT) after this step, with a "
                       "variant of %s that takes %s in this layout, or inline(%s)", c->name, st->loc.line, runs(s, c),
                       p->name, s->variant, arg->name, layout_text(s, arg), c->name, c->callee->name, p->name,
                       c->name);
  return sched_error(s, f->at, "the layouts do not match: call %s (line %d) runs %s, which takes %s in %s, but %s now "
                     "gives it %s in %s: %s; use(%s, VARIANT) after this step, with a variant of %s that takes %s in "
                     "this layout, or inline(%s)", c->name, st->loc.line, runs(s, c), p->name, layout_text(s, p),
                     s->variant, arg->name, layout_text(s, arg), why, c->name, c->callee->name, p->name, c->name);
}

static bool follow_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Follow *f = ctx;
  if (st->kind != ST_BLOCK || !st->call) return true;
  bool takes = false;
  for (int i = 0; i < st->call->nparams; i++) takes |= st->call->arg_buf[i] == f->b;
  if (takes) f->ok = follow_call(f, st); /* the call runs again over all its arrays */
  return f->ok;
}

bool sched_call_layouts_follow(Sched *s, Buffer *b, const SchedArg *at) {
  Follow f = {s, b, at, true};
  ir_walk_outside_calls(s->k->body, follow_visit, &f);
  return f.ok;
}

/* ---- the padding a call assumes ---- */

enum { FILL_MAX_LOOPS = 64 };

/* A nest over the padding of b, from isl's AST of the padding set: its
 * loops, ifs and one statement, b[t...] = pad_value. */
typedef struct {
  Sched *s;
  Buffer *b;
  SrcLoc loc;
  const char *ids[FILL_MAX_LOOPS];
  Var *vars[FILL_MAX_LOOPS];
  int nvars, nloops, nstmts; /* names made: T_pad0, ... for loops; T_pad, T_pad_1, ... for statements */
} Fill;

static Expr *int_expr(Fill *f, Op op, Expr *x, Expr *y) {
  return x && y ? ir_binary(f->s->a, op, x, y, &ty_int, f->loc) : NULL;
}

static Expr *ast_expr(Fill *f, isl_ast_expr *e);

static Expr *ast_arg(Fill *f, isl_ast_expr *e, int i) {
  isl_ast_expr *x = isl_ast_expr_op_get_arg(e, i);
  Expr *r = ast_expr(f, x);
  isl_ast_expr_free(x);
  return r;
}

static Expr *select(Fill *f, Expr *c, Expr *x, Expr *y) {
  if (!c || !x || !y) return NULL;
  Expr *e = ARENA_NEW(f->s->a, Expr);
  e->kind = EX_COND;
  e->type = &ty_int;
  e->loc = f->loc;
  e->a = c;
  e->b = x;
  e->c = y;
  return e;
}

/* floor(x / y) for y > 0 and any x: C's / truncates. */
static Expr *floor_div(Fill *f, Expr *x, Expr *y) {
  Expr *zero = ir_int(f->s->a, 0, &ty_int, f->loc), *one = ir_int(f->s->a, 1, &ty_int, f->loc);
  Expr *neg = int_expr(f, OP_SUB, int_expr(f, OP_SUB, x, ir_expr_copy(f->s->a, y)), one);
  return select(f, int_expr(f, OP_GE, x, zero), int_expr(f, OP_DIV, ir_expr_copy(f->s->a, x), y),
                int_expr(f, OP_DIV, neg, ir_expr_copy(f->s->a, y)));
}

static Expr *ast_op(Fill *f, isl_ast_expr *e) {
  int n = isl_ast_expr_op_get_n_arg(e);
  Expr *x = n > 0 ? ast_arg(f, e, 0) : NULL, *y = n > 1 ? ast_arg(f, e, 1) : NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then: return int_expr(f, OP_LAND, x, y);
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else: return int_expr(f, OP_LOR, x, y);
  case isl_ast_expr_op_max:
  case isl_ast_expr_op_min: {
    Op cmp = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_max ? OP_GT : OP_LT;
    for (int i = 1; i < n && x; i++) {
      Expr *z = i == 1 ? y : ast_arg(f, e, i);
      x = select(f, int_expr(f, cmp, x, z), x ? ir_expr_copy(f->s->a, x) : NULL, z ? ir_expr_copy(f->s->a, z) : NULL);
    }
    return x;
  }
  case isl_ast_expr_op_minus: return int_expr(f, OP_SUB, ir_int(f->s->a, 0, &ty_int, f->loc), x);
  case isl_ast_expr_op_add: return int_expr(f, OP_ADD, x, y);
  case isl_ast_expr_op_sub: return int_expr(f, OP_SUB, x, y);
  case isl_ast_expr_op_mul: return int_expr(f, OP_MUL, x, y);
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q: return int_expr(f, OP_DIV, x, y);
  case isl_ast_expr_op_fdiv_q: return x && y ? floor_div(f, x, y) : NULL;
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r: return int_expr(f, OP_MOD, x, y);
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select: return select(f, x, y, n > 2 ? ast_arg(f, e, 2) : NULL);
  case isl_ast_expr_op_eq: return int_expr(f, OP_EQ, x, y);
  case isl_ast_expr_op_le: return int_expr(f, OP_LE, x, y);
  case isl_ast_expr_op_lt: return int_expr(f, OP_LT, x, y);
  case isl_ast_expr_op_ge: return int_expr(f, OP_GE, x, y);
  case isl_ast_expr_op_gt: return int_expr(f, OP_GT, x, y);
  default: return NULL;
  }
}

static Expr *ast_expr(Fill *f, isl_ast_expr *e) {
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    isl_val *v = isl_ast_expr_get_val(e);
    long n = isl_val_get_num_si(v);
    isl_val_free(v);
    return ir_int(f->s->a, n, &ty_int, f->loc);
  }
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_get_id(e);
    Expr *r = NULL;
    for (int i = f->nvars - 1; i >= 0 && !r; i--) /* the innermost of that name (isl reuses them in siblings) */
      if (!strcmp(f->ids[i], isl_id_get_name(id))) r = ir_var(f->s->a, f->vars[i], f->loc);
    isl_id_free(id);
    return r;
  }
  case isl_ast_expr_op: return ast_op(f, e);
  default: return NULL;
  }
}

static Stmt *ast_node(Fill *f, isl_ast_node *n);

static Stmt *ast_child(Fill *f, isl_ast_node *n) {
  Stmt *r = ast_node(f, n);
  isl_ast_node_free(n);
  return r;
}

/* The statement b[args] = pad_value of a user node S(t0, t1, ...). */
static Stmt *fill_stmt(Fill *f, isl_ast_node *n) {
  isl_ast_expr *call = isl_ast_node_user_get_expr(n);
  Buffer *b = f->b;
  Expr **idx = ARENA_ARRAY(f->s->a, Expr *, b->ndim);
  bool ok = isl_ast_expr_op_get_n_arg(call) == b->ndim + 1;
  for (int d = 0; ok && d < b->ndim; d++) ok = (idx[d] = ast_arg(f, call, d + 1)) != NULL;
  isl_ast_expr_free(call);
  if (!ok) return NULL;
  const Layout *L = b->layout;
  Expr *v;
  if (L->pad_value == (double)(int32_t)L->pad_value && !signbit(L->pad_value)) { /* -0.0 stays a float */
    v = ir_int(f->s->a, (int32_t)L->pad_value, &ty_int, f->loc);
  } else {
    v = ir_int(f->s->a, 0, &ty_double, f->loc);
    v->kind = EX_FLOAT;
    v->fval = L->pad_value;
    v->text = L->pad_text;
  }
  Stmt *st = ir_stmt(f->s->a, ST_ASSIGN, f->loc);
  st->lhs = ir_load(f->s->a, b, idx);
  st->op = OP_NONE;
  st->rhs = v->type == b->elem ? v : ir_cast(f->s->a, v, b->elem, true);
  do st->name = f->nstmts ? arena_printf(f->s->a, "%s_pad_%d", b->name, f->nstmts) : arena_printf(f->s->a, "%s_pad", b->name);
  while (f->nstmts++ < 1000 && sched_name_taken(f->s, st->name));
  return st;
}

static Stmt *fill_loop(Fill *f, isl_ast_node *n) {
  isl_ast_expr *it = isl_ast_node_for_get_iterator(n), *init = isl_ast_node_for_get_init(n);
  isl_id *id = isl_ast_expr_get_id(it);
  isl_ast_expr_free(it);
  Expr *lo = ast_expr(f, init);
  isl_ast_expr_free(init);
  const char *name = NULL;
  do name = arena_printf(f->s->a, "%s_pad%d", f->b->name, f->nloops++);
  while (sched_name_taken(f->s, name));
  Var *v;
  Stmt *l = sched_make_loop(f->s, name, &ty_int, lo, NULL, f->loc, &v);
  if (f->nvars == FILL_MAX_LOOPS) {
    isl_id_free(id);
    return NULL;
  }
  f->ids[f->nvars] = arena_strdup(f->s->a, isl_id_get_name(id));
  f->vars[f->nvars++] = v;
  isl_id_free(id);
  if (isl_ast_node_for_is_degenerate(n) == isl_bool_true) {
    l->hi = lo ? ir_add(f->s->a, ir_expr_copy(f->s->a, lo), ir_int(f->s->a, 1, &ty_int, f->loc), &ty_int) : NULL;
  } else {
    isl_ast_expr *cond = isl_ast_node_for_get_cond(n), *inc = isl_ast_node_for_get_inc(n);
    enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(cond);
    Expr *step = ast_expr(f, inc);
    int64_t c;
    if ((t == isl_ast_expr_op_le || t == isl_ast_expr_op_lt) && step && ir_const_int(step, &c) && c == 1) {
      l->hi = ast_arg(f, cond, 1);
      int64_t h;
      if (t == isl_ast_expr_op_le && l->hi && ir_const_int(l->hi, &h) && h < INT32_MAX)
        l->hi = ir_int(f->s->a, h + 1, &ty_int, f->loc); /* i < 6, as the kernels write it */
      else if (t == isl_ast_expr_op_le)
        l->cmp = OP_LE;
    }
    isl_ast_expr_free(cond);
    isl_ast_expr_free(inc);
  }
  l->body->body = lo && l->hi ? ast_child(f, isl_ast_node_for_get_body(n)) : NULL;
  return l->body->body ? l : NULL;
}

static Stmt *ast_node(Fill *f, isl_ast_node *n) {
  switch (isl_ast_node_get_type(n)) {
  case isl_ast_node_for: return fill_loop(f, n);
  case isl_ast_node_user: return fill_stmt(f, n);
  case isl_ast_node_mark: return ast_child(f, isl_ast_node_mark_get_node(n));
  case isl_ast_node_if: {
    isl_ast_expr *c = isl_ast_node_if_get_cond(n);
    Stmt *st = ir_stmt(f->s->a, ST_IF, f->loc);
    st->cond = ast_expr(f, c);
    isl_ast_expr_free(c);
    Stmt *then = st->cond ? ast_child(f, isl_ast_node_if_get_then_node(n)) : NULL;
    Stmt *els = then && isl_ast_node_if_has_else_node(n) == isl_bool_true
                    ? ast_child(f, isl_ast_node_if_get_else_node(n)) : NULL;
    if (!then || (isl_ast_node_if_has_else_node(n) == isl_bool_true && !els)) return NULL;
    st->then_s = sched_block(f->s, then, f->loc);
    st->else_s = els ? sched_block(f->s, els, f->loc) : NULL;
    return st;
  }
  case isl_ast_node_block: {
    isl_ast_node_list *l = isl_ast_node_block_get_children(n);
    Stmt *first = NULL, **tail = &first;
    int k = isl_ast_node_list_n_ast_node(l);
    for (int i = 0; i < k; i++) {
      Stmt *c = ast_child(f, isl_ast_node_list_get_at(l, i));
      if (!c) {
        first = NULL;
        break;
      }
      *tail = c;
      while (c->next) c = c->next; /* c may be a list (a block in the block) */
      tail = &c->next;
    }
    isl_ast_node_list_free(l);
    return first; /* a list of statements where one stands: no braces */
  }
  default: return NULL;
  }
}

/* The nest that writes b's padding (a list of statements), or NULL (isl's AST had something the
 * IR does not say). */
static Stmt *padding_nest(Sched *s, Buffer *b, SrcLoc loc) {
  isl_set *pad = isl_set_coalesce(layout_pad_set(s, b));
  if (!pad || isl_set_is_empty(pad) != isl_bool_false) {
    isl_set_free(pad);
    return NULL;
  }
  pad = isl_set_set_tuple_name(pad, "S");
  isl_map *sched = isl_map_intersect_domain(isl_map_identity(isl_space_map_from_set(isl_set_get_space(pad))), pad);
  sched = isl_map_reset_tuple_id(sched, isl_dim_out);
  isl_ast_build *build = isl_ast_build_alloc(s->ctx);
  isl_ast_node *root = isl_ast_build_node_from_schedule_map(build, isl_union_map_from_map(sched));
  isl_ast_build_free(build);
  Fill f = {.s = s, .b = b, .loc = loc};
  Stmt *nest = root ? ast_node(&f, root) : NULL;
  isl_ast_node_free(root);
  return nest;
}

/* Is st a fill of b's padding (a nest whose every statement writes a
 * constant into b)? */
typedef struct {
  const Buffer *b;
  bool fill;
} IsFill;

static bool is_fill_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  IsFill *f = ctx;
  if (st->kind == ST_ASSIGN)
    f->fill &= st->lhs->buf == f->b && (st->rhs->kind == EX_INT || st->rhs->kind == EX_FLOAT ||
                                        (st->rhs->kind == EX_CAST && st->rhs->a->kind != EX_LOAD));
  f->fill &= st->kind != ST_DECL && !(st->kind == ST_BLOCK && st->call);
  return f->fill;
}

static bool is_fill(const Stmt *st, const Buffer *b) {
  IsFill f = {b, true};
  ir_walk_one(st, is_fill_visit, &f);
  return f.fill;
}

static bool first_write(Stmt *st, int depth, void *ctx) {
  (void)depth;
  const Buffer **b = ctx;
  if (st->kind == ST_ASSIGN) *b = st->lhs->buf;
  return !*b;
}

/* The array whose padding nest npugen put at st (its comment), or NULL. */
static const Buffer *fill_starts(const Stmt *st) {
  if (!st->annots || strcmp(st->annots->key, "padding")) return NULL;
  const Buffer *b = NULL;
  ir_walk_one(st, first_write, &b);
  return b && !strncmp(st->annots->value, b->name, strlen(b->name)) ? b : NULL;
}

/* The nest right before `call` in `list` that fills b's padding (another
 * call before this one assumes it too), among the fills of other arrays
 * there, or NULL. */
static Stmt *filled_before(Stmt *list, const Stmt *call, const Buffer *b) {
  Stmt *fill = NULL;
  const Buffer *in = NULL; /* the array whose nest the statements are in */
  for (Stmt *st = list; st && st != call; st = st->next) {
    const Buffer *starts = fill_starts(st);
    if (starts) {
      in = starts;
      if (starts == b) fill = st;
    } else if (!in || !is_fill(st, in)) {
      in = NULL;
      fill = NULL;
    }
  }
  return fill;
}

/* Unlinks b's fill nest that starts at fill from owner's list: fill and
 * the statements of the same nest after it. */
static void drop_fill(Stmt *owner, Stmt *fill, const Buffer *b) {
  Stmt **at = &owner->body;
  while (*at != fill) at = &(*at)->next;
  Stmt *after = fill->next;
  while (after && !fill_starts(after) && is_fill(after, b)) after = after->next;
  *at = after;
}

static Annot *fill_note(Sched *s, const Buffer *b, const CallSite *c) {
  Annot *a = ARENA_NEW(s->a, Annot);
  a->key = "padding";
  a->value = arena_printf(s->a, "%s's padding set to %s: %s (%s) assumes it", b->name, b->layout->pad_text, c->name,
                          c->fn_ir->name);
  return a;
}

bool sched_fill_padding(Sched *s, const SchedArg *at, Stmt *call) {
  const CallSite *c = call->call;
  for (int i = 0; i < c->nparams; i++) {
    Buffer *b = c->arg_buf[i];
    const Buffer *p = b ? param_at(c->fn_ir, i)->buf : NULL;
    if (!b || !p->layout || !p->layout->padded || !p->layout->pad_text || p->role != ROLE_INPUT) continue;
    if (b->role == ROLE_INPUT) continue; /* the program's caller packs it: the padding holds pad_value */
    Stmt *owner;
    Stmt **link = sched_link(s, call, &owner);
    if (!link) return sched_error(s, at, "internal error: call %s is not in %s", c->name, s->variant);
    Stmt *fill = filled_before(owner->body, call, b);
    if (fill) { /* made anew: a layout step since may have grown the padding, a later use() named another variant */
      drop_fill(owner, fill, b);
      link = sched_link(s, call, &owner);
    }
    Stmt *nest = padding_nest(s, b, call->loc);
    if (!nest)
      return sched_error(s, at, "%s assumes that %s's padding holds %s, but npugen cannot write a nest over that "
                         "padding (%s); keep %s unpadded, or use a variant of %s that does not read %s's padding",
                         c->fn_ir->name, b->name, b->layout->pad_text, layout_text(s, b), b->name, c->callee->name,
                         p->name);
    nest->annots = fill_note(s, b, c);
    Stmt *last = nest;
    while (last->next) last = last->next;
    last->next = call;
    *link = nest;
  }
  return true;
}
