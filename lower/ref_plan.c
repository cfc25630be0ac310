/* The plan of the instrumented reference (lower/ref_plan.h, docs/check.md
 * "Speed"). tcc does not optimize: each iteration of a loop costs its
 * counter's load, add and store and a compare, and each statement stores
 * its value before the next loads it. An innermost accumulation unrolled
 * into one expression keeps the running value in a register for 8 adds.
 *
 * Its adds keep the source's order (left to right, as tcc evaluates), each
 * converted as the compound assignment converts it, so the values are the
 * ones the loop computes, floats included, and every check stays: an add
 * the ranges cannot clear is still checked, in the printed expression.
 *
 * The accumulator's range: with `P = INIT;` right before the loop, P holds
 * INIT plus at most T terms of e, T the trip count, so every value it takes
 * is in INIT + [min(0, T * e.lo), max(0, T * e.hi)]. The ranges of INIT and
 * e come from the declared types of what they read (any value a user's
 * array may hold, not the check's drawn inputs) and from the loops'
 * constant bounds; P's indices read loop counters and constants only, so
 * they name the same element at INIT and in the loop. */
#include "lower/ref_plan.h"

#include <stdlib.h>

enum { UNROLL = 8 };

typedef struct {
  CheckPlan *out;
  IrRange *counter; /* by Var.id: a counter's range, constant bounds only */
  bool *known;
} Planner;

/* The value range of e, sound for any value its arrays and scalars hold. */
static IrRange range_of(const Planner *p, const Expr *e) {
  IrRange a, b;
  unsigned ub;
  switch (e->kind) {
  case EX_INT: return e->type->is_signed ? ir_range_const(e->ival) : ir_range_type(e->type);
  case EX_VAR:
    if (e->var->kind == VAR_LOOP && p->known[e->var->id]) return p->counter[e->var->id];
    return ir_range_type(e->type);
  case EX_CAST:
  case EX_UNARY:
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type)) return ir_range_type(e->type);
    a = range_of(p, e->a);
    return ir_range_op(e, a, a, &ub);
  case EX_BINARY:
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type) || !type_is_integer(e->b->type))
      return ir_range_type(e->type);
    a = range_of(p, e->a);
    b = range_of(p, e->b);
    return ir_range_op(e, a, b, &ub);
  case EX_COND:
    if (!type_is_integer(e->type)) return ir_range_type(e->type);
    return ir_range_union(range_of(p, e->b), range_of(p, e->c));
  default:
    return ir_range_type(e->type);
  }
}

/* The trip count of `for (k = LO; k < HI or <= HI; k++)` with constant
 * bounds, -1 when the loop is not of that form. */
static int64_t trips(const Stmt *s) {
  int64_t n;
  return s->step == 1 && ir_trip_count(s, &n) ? n : -1;
}

/* The loop's one statement when it is `P += e` with P the same element
 * (or scalar) at every iteration and e not reading P's array or scalar. */
static const Stmt *accumulation(const Stmt *loop) {
  const Stmt *s = loop->body && loop->body->kind == ST_BLOCK ? loop->body->body : loop->body;
  if (!s || s->next || s->kind != ST_ASSIGN || s->op != OP_ADD) return NULL;
  const Expr *l = s->lhs;
  if (l->kind == EX_LOAD) {
    for (int d = 0; d < l->buf->ndim; d++)
      if (!ir_expr_counters_only(NULL, l->idx[d]) || ir_expr_uses(l->idx[d], loop->var, NULL)) return NULL;
    if (ir_expr_uses(s->rhs, NULL, l->buf)) return NULL;
  } else if (l->kind == EX_VAR && l->var->kind == VAR_LOCAL) {
    if (ir_expr_uses(s->rhs, l->var, NULL)) return NULL;
  } else {
    return NULL;
  }
  return s;
}

/* P's range over the loop, from `P = INIT;` (prev, the statement before the
 * loop in its block): false when there is none or it does not fit P's type. */
static bool accumulator(const Planner *p, const Stmt *prev, const Stmt *acc, int64_t n, IrRange *out) {
  const Type *t = acc->lhs->type;
  if (!prev || prev->kind != ST_ASSIGN || prev->op != OP_NONE || !ir_expr_same(prev->lhs, acc->lhs) ||
      !type_is_integer(t) || !t->is_signed || !type_same(type_common(t, acc->rhs->type), t) ||
      !type_same(prev->rhs->type, t))
    return false;
  IrRange init = range_of(p, prev->rhs), e = range_of(p, acc->rhs);
  IrWide N = n; /* at most 2^63 terms of 64-bit values: within 128 bits */
  IrRange r = {init.lo + (e.lo < 0 ? N * e.lo : 0), init.hi + (e.hi > 0 ? N * e.hi : 0)};
  if (!ir_range_within(r, t)) return false;
  *out = r;
  return true;
}

static void plan_loop(Planner *p, const Stmt *loop, const Stmt *prev) {
  int64_t n = trips(loop);
  const Stmt *acc = n >= UNROLL ? accumulation(loop) : NULL;
  if (!acc) return;
  CheckPlan *out = p->out;
  out->loops = realloc(out->loops, sizeof *out->loops * (size_t)(out->n + 1));
  CheckPlanLoop *l = &out->loops[out->n++];
  *l = (CheckPlanLoop){.loop = loop, .unroll = UNROLL};
  l->acc_proven = accumulator(p, prev, acc, n, &l->acc);
}

static void walk(Planner *p, const Stmt *s) {
  for (const Stmt *prev = NULL; s; prev = s, s = s->next) {
    switch (s->kind) {
    case ST_BLOCK: walk(p, s->body); break;
    case ST_IF:
      walk(p, s->then_s);
      walk(p, s->else_s);
      break;
    case ST_FOR: {
      int64_t n = trips(s), lo;
      if (n > 0 && ir_const_int(s->lo, &lo)) { /* the counter's range: [lo, lo + n - 1] */
        p->counter[s->var->id] = (IrRange){lo, (IrWide)lo + n - 1};
        p->known[s->var->id] = true;
      }
      plan_loop(p, s, prev);
      walk(p, s->body);
      p->known[s->var->id] = false;
      break;
    }
    default: break;
    }
  }
}

void check_plan(const Kernel *k, CheckPlan *out) {
  *out = (CheckPlan){NULL, 0};
  Planner p = {out, calloc((size_t)k->nvars + 1, sizeof(IrRange)), calloc((size_t)k->nvars + 1, sizeof(bool))};
  if (p.counter && p.known) walk(&p, k->body->body);
  free(p.counter);
  free(p.known);
}

const CheckPlanLoop *check_plan_find(const CheckPlan *p, const Stmt *loop) {
  for (int i = 0; i < p->n; i++)
    if (p->loops[i].loop == loop) return &p->loops[i];
  return NULL;
}

void check_plan_free(CheckPlan *p) {
  free(p->loops);
  *p = (CheckPlan){NULL, 0};
}
