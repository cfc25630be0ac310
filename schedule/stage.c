/* stage(statement, expression, new_buffer): the inverse of compute_inline.
 * Every occurrence of `expression` (C, in the statement's scope, as the
 * kernel or --dump-ir spells it) in the statement's right-hand side is
 * computed first, in the same iteration, by a new statement named
 * new_buffer that writes a new local array of that name, and the statement
 * reads it there:
 *
 *     y[i][j] = exp(x[i][j] - m[i]) / s[i];
 *   stage(y_def, "exp(x[i][j] - m[i])", e)
 *     e[i][j] = exp(x[i][j] - m[i]);
 *     y[i][j] = e[i][j] / s[i];
 *
 * The array has one dimension per loop around the statement whose counter
 * the expression uses (outermost first), over the values that counter
 * takes there (isl bounds a triangular loop's), declared at the top of the
 * kernel, of the expression's type:
 * each value is computed and read exactly as before, so the variant is the
 * kernel's bit for bit. Then fission, set_scope and vectorize can treat the
 * stage as a step of its own (a softmax or a pool written as one statement
 * becomes VU-shaped without rewriting the kernel). */
#include <stdint.h>

#include "frontend/frontend.h"
#include "ir/affine.h"
#include "schedule/primitives.h"

typedef struct {
  const Expr *pattern;
  Buffer *b;
  Expr **idx; /* b's indices: each load gets its own copies */
  int replaced;
  Arena *a;
} Replace;

static Expr *load(Arena *a, Buffer *b, Expr *const *idx) {
  Expr **ix = ARENA_ARRAY(a, Expr *, b->ndim);
  for (int i = 0; i < b->ndim; i++) ix[i] = ir_expr_copy(a, idx[i]);
  return ir_load(a, b, ix);
}

/* ir_visit_expr's step over the statement's copy (which the stage owns
 * and rewrites in place): each operand that is the pattern becomes a
 * load of the stage, not inside an index (occurs). */
static IrVisit replace_operands(const Expr *e, int depth, void *ctx) {
  (void)depth;
  Replace *r = ctx;
  if (e->kind == EX_LOAD) return IR_VISIT_SKIP;
  Expr *own = (Expr *)e;
  Expr **ops[] = {&own->a, &own->b, &own->c};
  for (int i = 0; i < 3; i++)
    if (*ops[i] && ir_expr_same(*ops[i], r->pattern)) {
      r->replaced++;
      *ops[i] = load(r->a, r->b, r->idx);
    }
  for (int i = 0; i < own->nargs; i++)
    if (ir_expr_same(own->args[i], r->pattern)) {
      r->replaced++;
      own->args[i] = load(r->a, r->b, r->idx);
    }
  return IR_VISIT_ON;
}

static Expr *replace(Replace *r, Expr *e) {
  if (e && ir_expr_same(e, r->pattern)) {
    r->replaced++;
    return load(r->a, r->b, r->idx);
  }
  ir_visit_expr(e, replace_operands, r);
  return e;
}

/* Where pattern occurs in e: as a value the statement always computes,
 * only where a condition guards it (a branch of ?:, the right of && or
 * ||: computed first, it would run where the kernel does not, e.g. a
 * read past an array's end or a division by zero), or only inside an
 * index (which stays an expression of the counters, as the bounds check
 * and the dependence model read it). */
enum { OCC_VALUE = 1, OCC_GUARDED = 2, OCC_INDEX = 4 };

typedef struct {
  const Expr *pattern;
  bool guarded, in_index;
  int where;
} Occurs;

static int occurs(const Expr *pattern, const Expr *e, bool guarded, bool in_index);

/* ir_visit_expr's step: where the walk meets the pattern; a load's
 * indices and a lazy operator's guarded operands are walked on their own,
 * in their context. */
static IrVisit occurs_at(const Expr *e, int depth, void *ctx) {
  (void)depth;
  Occurs *o = ctx;
  if (ir_expr_same(e, o->pattern)) {
    o->where |= o->in_index ? OCC_INDEX : o->guarded ? OCC_GUARDED : OCC_VALUE;
    return IR_VISIT_SKIP;
  }
  if (e->kind == EX_LOAD) {
    for (int i = 0; i < e->buf->ndim; i++) o->where |= occurs(o->pattern, e->idx[i], o->guarded, true);
    return IR_VISIT_SKIP;
  }
  if (e->kind == EX_COND || (e->kind == EX_BINARY && (e->op == OP_LAND || e->op == OP_LOR))) {
    o->where |= occurs(o->pattern, e->a, o->guarded, o->in_index) | occurs(o->pattern, e->b, true, o->in_index) |
                occurs(o->pattern, e->c, true, o->in_index);
    return IR_VISIT_SKIP;
  }
  return IR_VISIT_ON;
}

static int occurs(const Expr *pattern, const Expr *e, bool guarded, bool in_index) {
  Occurs o = {pattern, guarded, in_index, 0};
  ir_visit_expr(e, occurs_at, &o);
  return o.where;
}

bool prim_stage(Sched *s, const SchedStep *st) {
  Stmt *stmt = sched_leaf(s, &st->args[0]);
  if (!stmt) return false;
  if (stmt->kind != ST_ASSIGN)
    return sched_error(s, &st->args[0], "%s is a declaration; stage takes an assignment", st->args[0].text);
  const SchedArg *ea = &st->args[1];
  const char *text = ea->kind == SA_STR ? ea->name : ea->text;
  SrcLoc at = ea->loc;
  if (ea->kind == SA_STR && at.line) at.col++; /* inside the quotes */
  const char *name = sched_new_name(s, &st->args[2]);
  if (!name) return false;
  Expr *e = frontend_expr_at((Module *)s->m, s->k, stmt, text, s->file, s->src, at, s->d);
  if (!e) return false;
  if (e->kind == EX_VAR || ir_expr_constant(e))
    return sched_error(s, ea, "'%s' is a name or a constant: staging it computes nothing", text);

  int where = occurs(e, stmt->rhs, false, false);
  if (!(where & OCC_VALUE) && (where & OCC_GUARDED))
    return sched_error(s, ea, "'%s' occurs in %s (line %d) only where a condition guards it (a branch of ?:, the right "
                       "of && or ||): computed first, it would run where the kernel does not", text, stmt->name,
                       stmt->loc.line);
  if (!(where & OCC_VALUE) && (where & OCC_INDEX))
    return sched_error(s, ea, "'%s' occurs in %s (line %d) only inside an array index, which must stay an expression of "
                       "the loop counters", text, stmt->name, stmt->loc.line);
  if (!where) {
    StrBuf sb;
    sb_init(&sb);
    ir_print_expr(&sb, stmt->rhs);
    sched_error(s, ea, "'%s' does not occur in %s (line %d), whose right-hand side is %s", text, stmt->name,
                stmt->loc.line, sb.data);
    sb_free(&sb);
    return false;
  }

  /* the loops around the statement whose counters the expression uses:
   * one dimension each, over the values the counter takes there */
  Stmt *loops[256];
  int nloops = sched_loops_around(s, stmt, loops, 256);
  if (nloops < 0) return sched_error(s, &st->args[0], "%s sits under more than 256 loops", stmt->name);
  Buffer *b = ARENA_NEW(s->a, Buffer);
  Expr *idx[IR_MAX_DIMS];
  AffCtx ac;
  aff_init(&ac, s->ctx, s->k);
  /* sizes bound the counters as the assumptions allow (the array is as
   * large as the largest size needs); an assumption outside the model is
   * the bounds check's message */
  char why[300];
  bool ok = !s->k->nsizes || aff_push_sizes(&ac, why, sizeof why) || sched_error(s, ea, "%s", why);
  for (int i = 0; i < nloops && ok; i++) {
    const Stmt *l = loops[i];
    aff_push_loop(&ac, l);
    if (!ir_expr_uses(e, l->var, NULL)) continue;
    int64_t lo, hi;
    bool exact, empty;
    Expr v = {.kind = EX_VAR, .var = l->var, .type = l->var->type};
    if (!aff_range(&ac, &v, &lo, &hi, &exact, &empty) || empty || hi < lo || hi - lo >= INT32_MAX)
      ok = sched_error(s, ea, "'%s' uses the counter of loop %s, whose range npugen cannot bound", text, l->name);
    else if (b->ndim == IR_MAX_DIMS)
      ok = sched_error(s, ea, "'%s' uses the counters of more than %d loops", text, IR_MAX_DIMS);
    if (!ok) break;
    b->shape[b->ndim] = hi - lo + 1;
    idx[b->ndim++] = ir_sub(s->a, ir_var(s->a, l->var, stmt->loc), ir_int(s->a, lo, l->var->type, stmt->loc), l->var->type);
  }
  aff_free(&ac);
  if (!ok) return false;
  if (!b->ndim) { /* a value the same in every iteration: one element */
    b->shape[b->ndim] = 1;
    idx[b->ndim++] = ir_int(s->a, 0, &ty_int, stmt->loc);
  }

  b->name = name;
  b->elem = e->type;
  b->scope = "global";
  b->role = ROLE_LOCAL;
  b->loc = st->loc;
  int64_t bytes = e->type->size;
  for (int i = 0; i < b->ndim; i++)
    if (__builtin_mul_overflow(bytes, b->shape[i], &bytes) || bytes > IR_MAX_LOCAL_BYTES)
      return sched_error(s, ea, "the array for '%s' would take more than %d bytes (the limit of a kernel's local arrays)%s",
                         text, IR_MAX_LOCAL_BYTES,
                         s->k->nsizes ? " at the largest sizes allowed: assume an upper bound on the sizes (#pragma npu "
                                        "assume)" : "");
  Replace r = {e, b, idx, 0, s->a};
  Expr *rhs = replace(&r, ir_expr_copy(s->a, stmt->rhs));
  b->id = s->k->nbufs++;

  /* the stage, right before the statement: the same iteration, first */
  Stmt *def = ir_stmt(s->a, ST_ASSIGN, stmt->loc);
  def->name = name;
  def->lhs = load(s->a, b, idx);
  def->op = OP_NONE;
  def->rhs = e;
  Stmt **link = sched_link(s, stmt, NULL);
  def->next = stmt;
  *link = def;
  stmt->rhs = rhs;
  Stmt *decl = ir_stmt(s->a, ST_DECL, st->loc);
  decl->buf = b;
  decl->next = s->k->body->body;
  s->k->body->body = decl;
  return true;
}
