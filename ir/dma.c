/* Facts about DMA copy nests (loops marked LOOP_DMA by cache_read and
 * cache_write) shared by the schedule and the emitter: the leaf of a nest,
 * whether its boxes for consecutive iterations are apart, and the rules a
 * double-buffered buffer must keep. double_buffer() refuses with the
 * reason; the emitter checks again after later steps and, when a rule no
 * longer holds, emits the loop with synchronous copies. */
#include <stdio.h>

#include "ir/arith.h"
#include "ir/ir.h"

/* Integer arithmetic that is signed all through (no wrap-around hides in an
 * unsigned step) and made of constants, variables, + - * and negation. */
bool ir_signed_affine(const Expr *e) {
  if (!e || !type_is_integer(e->type) || !e->type->is_signed) return false;
  switch (e->kind) {
  case EX_INT:
  case EX_VAR:
    return true;
  case EX_CAST:
    return e->implicit && ir_signed_affine(e->a);
  case EX_UNARY:
    return (e->op == OP_NEG || e->op == OP_PLUS) && ir_signed_affine(e->a);
  case EX_BINARY:
    return (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) && ir_signed_affine(e->a) && ir_signed_affine(e->b);
  default:
    return false;
  }
}

static bool size_or_constant(const Expr *e, void *ctx) {
  (void)ctx;
  return e->kind != EX_LOAD && e->kind != EX_CALL && (e->kind != EX_VAR || e->var->is_size);
}

bool ir_expr_sizes_only(const Expr *e) { return ir_walk_expr(e, size_or_constant, NULL); }

/* ir_signed_affine, where a counter or a size may also be cast to a signed
 * type (`(int)io * 64 + v < n` of a long counter, `... < (int)n` of an
 * unsigned size: cache.c's copies count in int): ir/fits.c proves such a
 * cast keeps its value after every step. */
static bool guard_affine(const Expr *e) {
  if (e && e->kind == EX_CAST && !e->implicit && e->a->kind == EX_VAR && type_is_integer(e->type) &&
      e->type->is_signed && type_is_integer(e->a->type))
    return true;
  if (!e || e->kind != EX_BINARY || (e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL))
    return e && e->kind == EX_CAST && e->implicit && e->type->is_signed ? guard_affine(e->a) : ir_signed_affine(e);
  return e->type->is_signed && guard_affine(e->a) && guard_affine(e->b);
}

bool ir_tail_guard(Arena *a, const Stmt *g, const Var *v, Expr **start, const Expr **end) {
  if (!g || g->next || g->kind != ST_IF || g->else_s || !g->then_s || !g->then_s->body) return false;
  const Expr *c = g->cond;
  while (c->kind == EX_CAST && c->implicit) c = c->a;
  int64_t k;
  if (c->kind != EX_BINARY || c->op != OP_LT || !guard_affine(c->a) || !guard_affine(c->b) ||
      !v->type->is_signed || !ir_linear_coef(c->a, v, &k) || k != 1)
    return false;
  /* split's form that cannot overflow, `v < end - start` (schedule/split.c),
   * is `start + v < end` */
  const Expr *b = c->b, *moved = NULL;
  while (b->kind == EX_CAST && b->implicit) b = b->a;
  if (!ir_expr_sizes_only(c->b)) {
    if (b->kind != EX_BINARY || b->op != OP_SUB || !ir_expr_sizes_only(b->a) || ir_expr_uses(b->b, v, NULL))
      return false;
    moved = b->b;
  }
  if (end) *end = moved ? b->a : c->b;
  if (!start) return true;
  *start = ir_subst_expr(a, ir_expr_copy(a, c->a), v, ir_int(a, 0, v->type, g->loc));
  if (moved) *start = ir_add(a, *start, ir_expr_copy(a, moved), (*start)->type);
  return true;
}

/* end - start, simplified, in the type C computes it in (a long size's
 * count in long: the count is then printed in that type, not clamped as
 * an int) */
static Expr *tail_left(Arena *a, const Expr *start, const Expr *end) {
  int64_t c; /* a constant end as its number, not its #define's name */
  Expr *e = ir_const_int(end, &c) ? ir_int(a, c, &ty_int, (SrcLoc){0, 0}) : ir_expr_copy(a, end);
  const Type *t = type_common(type_promote(e->type), type_promote(start->type));
  return arith_simplify(a, ir_sub(a, e, ir_expr_copy(a, start), t), NULL, 0);
}

const char *ir_tail_runs(Arena *a, const Expr *start, const Expr *end) {
  Expr *left = tail_left(a, start, end);
  int64_t c;
  if (ir_const_int(left, &c) && c > 0) return NULL;
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, left);
  const char *text = arena_printf(a, "%s > 0", sb.data);
  sb_free(&sb);
  return text;
}

const char *ir_tail_count(Arena *a, const Expr *start, const Expr *end, int64_t extent, bool at_least_one,
                          int64_t *known) {
  Expr *left = tail_left(a, start, end);
  int64_t c;
  *known = ir_const_int(left, &c) ? (c <= 0 ? 0 : c < extent ? c : extent) : -1;
  if (*known < 0 && at_least_one && extent == 1) *known = 1; /* min(1, at least 1) */
  if (*known >= 0) return arena_printf(a, "%lld", (long long)*known);
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, left);
  /* npu_clamp (npu_intrinsics.h, int) prints the count once; a wider one
   * keeps its type, the count repeated */
  const char *text = left->type->kind == TY_INT && extent <= INT32_MAX
                         ? arena_printf(a, "npu_clamp(%s, %lld)", sb.data, (long long)extent)
                     : at_least_one
                         ? arena_printf(a, "(%s < %lld ? %s : %lld)", sb.data, (long long)extent, sb.data,
                                        (long long)extent)
                         : arena_printf(a, "(%s >= %lld ? %lld : %s > 0 ? %s : 0)", sb.data, (long long)extent,
                                        (long long)extent, sb.data, sb.data);
  sb_free(&sb);
  return text;
}

const Stmt *ir_nest_inner(const Stmt *loop) {
  const Stmt *s = loop->body->body;
  return ir_tail_guard(NULL, s, loop->var, NULL, NULL) ? s->then_s->body : s;
}

const Stmt *ir_nest_leaf(const Stmt *loop) {
  while (loop && loop->kind == ST_FOR) loop = ir_nest_inner(loop);
  return loop && loop->kind == ST_ASSIGN && loop->lhs->kind == EX_LOAD && loop->rhs->kind == EX_LOAD ? loop : NULL;
}

bool ir_copy_steps_apart(const Stmt *copy, const Var *v, const Stmt *also) {
  const Stmt *leaf = copy;
  int64_t ext[IR_MAX_DIMS + 1];
  const Var *cv[IR_MAX_DIMS + 1];
  int n = 0;
  if (also) { /* its iterations' boxes are one box */
    int64_t lo, hi;
    if (!ir_const_int(also->lo, &lo) || !ir_const_int(also->hi, &hi) || also->step != 1) return false;
    cv[n] = also->var;
    ext[n++] = hi - lo;
  }
  for (; leaf && leaf->kind == ST_FOR; leaf = ir_nest_inner(leaf)) { /* a tail's guard only shrinks the box */
    int64_t lo, hi;
    if (n == IR_MAX_DIMS + 1 || !ir_const_int(leaf->lo, &lo) || !ir_const_int(leaf->hi, &hi) || leaf->step != 1) return false;
    cv[n] = leaf->var;
    ext[n++] = hi - lo;
  }
  if (!leaf || leaf->kind != ST_ASSIGN || leaf->lhs->kind != EX_LOAD) return false;
  const Expr *dst = leaf->lhs;
  for (int d = 0; d < dst->buf->ndim; d++) {
    int64_t step, reach = 0, c;
    if (!ir_linear_coef(dst->idx[d], v, &step)) return false;
    for (int i = 0; i < n; i++) {
      if (!ir_linear_coef(dst->idx[d], cv[i], &c)) return false;
      reach += (c < 0 ? -c : c) * (ext[i] - 1);
    }
    if ((step < 0 ? -step : step) > reach) return true;
  }
  return false;
}

static bool is_copy(const Stmt *loop) { return loop->kind == ST_FOR && loop->loop_kind == LOOP_DMA; }

typedef struct {
  const Stmt *found;
} OnchipUse;

static bool find_onchip_use(Stmt *st, int depth, void *ctx) {
  (void)depth;
  OnchipUse *u = ctx;
  if ((st->kind == ST_DECL && st->buf && buffer_onchip(st->buf)) || (st->kind == ST_FOR && st->loop_kind == LOOP_VU) ||
      ir_stmt_in_scope(st, NULL))
    u->found = st;
  return !u->found;
}

const Stmt *ir_other_onchip_user(const Stmt *loop, const Stmt *inner) {
  for (const Stmt *c = loop->body->body; c; c = c->next) {
    if (c == inner) continue;
    OnchipUse u = {NULL};
    Stmt one = *c;
    one.next = NULL;
    ir_walk_stmts(&one, find_onchip_use, &u);
    if (u.found) return u.found == &one ? c : u.found;
  }
  return NULL;
}

/* Statements that are all copy nests of buffers other than b. */
static bool only_other_copies(const Stmt *x, const Buffer *b) {
  for (; x; x = x->next) {
    const Stmt *leaf = is_copy(x) ? ir_nest_leaf(x) : NULL;
    if (!leaf || leaf->lhs->buf == b || leaf->rhs->buf == b) return false;
  }
  return true;
}

/* Are x and y the same affine index, with x's counters xv[i] standing for
 * y's yv[i]? Anything but constants, variables, + - * and casts: no. */
static bool same_index(const Expr *x, const Expr *y, const Var **xv, const Var **yv, int n) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind || !type_same(x->type, y->type)) return false;
  switch (x->kind) {
  case EX_INT:
    return x->ival == y->ival;
  case EX_VAR:
    for (int i = 0; i < n; i++)
      if (x->var == xv[i]) return y->var == yv[i];
    return x->var == y->var;
  case EX_CAST:
  case EX_UNARY:
  case EX_BINARY:
    return x->op == y->op && same_index(x->a, y->a, xv, yv, n) && same_index(x->b, y->b, xv, yv, n);
  default:
    return false;
  }
}

/* Do copy nests x and y copy the same box of the array, loop for loop,
 * the other way (x_in: x fills its buffer from the array), between it and
 * two different buffers? */
static bool same_box(const Stmt *x, bool x_in, const Stmt *y) {
  const Var *xv[IR_MAX_DIMS], *yv[IR_MAX_DIMS];
  int n = 0;
  for (; x && y && x->kind == ST_FOR && y->kind == ST_FOR; x = ir_nest_inner(x), y = ir_nest_inner(y)) {
    int64_t xl, xh, yl, yh;
    if (n == IR_MAX_DIMS || !ir_const_int(x->lo, &xl) || !ir_const_int(x->hi, &xh) || !ir_const_int(y->lo, &yl) ||
        !ir_const_int(y->hi, &yh) || xl != yl || xh != yh || x->step != y->step)
      return false;
    xv[n] = x->var;
    yv[n++] = y->var;
  }
  if (!x || !y || x->kind != ST_ASSIGN || y->kind != ST_ASSIGN) return false;
  const Expr *xa = x_in ? x->rhs : x->lhs, *ya = x_in ? y->lhs : y->rhs;
  const Expr *xc = x_in ? x->lhs : x->rhs, *yc = x_in ? y->rhs : y->lhs;
  if (xa->kind != EX_LOAD || ya->kind != EX_LOAD || xa->buf != ya->buf || xc->buf == yc->buf) return false;
  for (int d = 0; d < xa->buf->ndim; d++)
    if (!same_index(xa->idx[d], ya->idx[d], xv, yv, n)) return false;
  return true;
}

const Stmt *ir_partner_copy(const Stmt *list, const Stmt *copy, bool copy_in) {
  for (const Stmt *x = list; x; x = x->next)
    if (x != copy && is_copy(x) && ir_nest_leaf(x) && same_box(copy, copy_in, x)) return x;
  return NULL;
}

const Stmt *ir_store_partner_apart(const Stmt *home, const Stmt *L, const Stmt *store) {
  const Stmt *fill = ir_partner_copy(L->body->body, store, false);
  if (!fill || !ir_copy_steps_apart(store, L->var, NULL)) return NULL;
  if (home == L) return fill;
  for (const Stmt *x = home->kind == ST_FOR ? home->body->body : NULL; x; x = x->next)
    if (x == L) return ir_copy_steps_apart(store, home->var, L) ? fill : NULL;
  return NULL;
}

typedef struct {
  const DbCopies *c;
  const Stmt *partner; /* its leaf touches the array too: partner_copy */
  const Stmt *other;
} Touch;

/* a statement that writes the array (any access, for a copy out), other
 * than the copies themselves */
static bool touch_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Touch *t = ctx;
  const Stmt *copy = t->c->load ? ir_nest_leaf(t->c->load) : ir_nest_leaf(t->c->store);
  if (st == copy || (st->kind != ST_ASSIGN && st->kind != ST_DECL)) return true;
  if (t->partner && st == ir_nest_leaf(t->partner)) return true;
  bool writes = st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == t->c->array;
  if (writes || (t->c->store && ir_stmt_uses(st, NULL, t->c->array))) t->other = st;
  return !t->other;
}

typedef struct {
  const Buffer *array;
  bool found;
} Declared;

static bool declared_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Declared *d = ctx;
  if (st->kind == ST_DECL && st->buf == d->array) d->found = true;
  return !d->found;
}

bool ir_double_buffer_rules(const Stmt *loop, const Stmt *decl, const Stmt *bound, DbCopies *c,
                            char *why, size_t n) {
  const Buffer *b = decl->buf;
  DbCopies mine;
  if (!c) c = &mine;
  *c = (DbCopies){NULL, NULL, NULL};
  int64_t lo, hi = 2; /* a bound in the sizes: taken to run twice or more (the copies out must be apart) */
  bool sized = !ir_const_int(loop->hi, &hi) && ir_expr_sizes_only(loop->hi);
  if (!ir_const_int(loop->lo, &lo) || lo != 0 || loop->step != 1 || loop->cmp != OP_LT || (!sized && !ir_const_int(loop->hi, &hi)) ||
      hi < 1)
    return snprintf(why, n, "loop %s must run from 0 by 1 to a constant or an expression of the kernel's sizes for %s "
                    "to be double-buffered", loop->name, b->name) < 0;
  /* the copy in right after the declaration, the copy out last (or
   * followed only by other buffers' copies out) */
  for (const Stmt *x = decl->next; x; x = x->next) {
    const Stmt *leaf = is_copy(x) ? ir_nest_leaf(x) : NULL;
    if (leaf && x == decl->next && leaf->lhs->buf == b) c->load = x;
    if (leaf && leaf->rhs->buf == b && only_other_copies(x->next, b)) c->store = x;
  }
  if (!c->load && !c->store)
    return snprintf(why, n, "%s has no DMA copy right after its declaration or at the end of the body that "
                    "declares it", b->name) < 0;
  if (c->load && c->store)
    return snprintf(why, n, "%s is both filled and drained by DMA (a cache_write that copies in); double-buffer a "
                    "read cache or a write-only one", b->name) < 0;
  const Stmt *leaf = ir_nest_leaf(c->load ? c->load : c->store);
  c->array = c->load ? leaf->rhs->buf : leaf->lhs->buf;
  /* any array that outlives the loop: a parameter, or a local declared
   * outside it (a caller's intermediate, in DDR or on chip; a stage on
   * chip that a cache of it copies from, cache_read(X_dm, vu_vm, core)).
   * A cache never copies a plain local of its own kernel (cache_write
   * replaces one), and a stage is declared above the loop it serves: the
   * test below guards the rule, no step reaches it today */
  Declared d = {c->array, false};
  ir_walk_stmts(loop->body, declared_visit, &d);
  if (d.found)
    return snprintf(why, n, "%s is copied %s %s, which is declared under loop %s: a copy cannot move into another "
                    "iteration of it", b->name, c->load ? "from" : "to", c->array->name, loop->name) < 0;
  /* the overlap moves a copy across the rest of an iteration: nothing else
   * under the loop may write the array (or touch it, for a copy out) */
  /* but for the other copy of the same box, when the boxes of consecutive
   * iterations are apart: a copy of one iteration and its partner's of
   * another never touch one element */
  const Stmt *own = c->load ? c->load : c->store, *partner = ir_partner_copy(decl->next, own, c->load != NULL);
  if (partner && !ir_copy_steps_apart(c->load ? partner : own, loop->var, bound)) partner = NULL; /* the copy out's */
  Touch t = {c, partner, NULL};
  ir_walk_stmts(loop->body, touch_visit, &t);
  if (t.other)
    return snprintf(why, n, "%s (line %d) %s %s under loop %s, so the copy of %s cannot move into another iteration",
                    t.other->name ? t.other->name : "a statement", t.other->loc.line, c->store ? "accesses" : "writes",
                    c->array->name, loop->name, b->name) < 0;
  /* a copy out stays in flight while the next iteration runs and issues its
   * own: their boxes in the array must not overlap */
  if (c->store && hi > 1 && !ir_copy_steps_apart(c->store, loop->var, bound))
    return snprintf(why, n, "the regions of %s that consecutive iterations of %s copy out may overlap, so the copies "
                    "could not run at once", c->array->name, loop->name) < 0;
  return true;
}
