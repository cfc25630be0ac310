/* The work a run of a kernel does, bounded before it runs: every loop
 * iteration and every statement instance is a step. `npugen check` refuses
 * to run past its step budget, so a kernel of 10^12 iterations is stopped
 * with a message instead of hanging the JIT (docs/limits.md). */
#include <isl/ctx.h>
#include <isl/options.h>

#include "ir/affine.h"

typedef struct {
  AffCtx aff;
  uint64_t steps;
  uint64_t per_access; /* more steps for each array access of an instance */
} Count;

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

/* Iterations of `loop` per run of it, at most: the exact range over the
 * domain (outer loops and conditions) of its counter, or of the counter
 * less its start when that is narrower (for j_2 in j .. j + 1 runs once
 * each time, though j_2 takes every value of j), divided by the step. */
static uint64_t trips(Count *c, const Stmt *loop) {
  Expr counter = {.kind = EX_VAR, .type = loop->var->type, .var = loop->var};
  Expr from_start = {.kind = EX_BINARY, .op = OP_SUB, .type = loop->var->type, .a = &counter, .b = loop->lo};
  int64_t lo, hi, lo2, hi2, start;
  bool exact, empty;
  aff_push_loop(&c->aff, loop);
  bool known = aff_range(&c->aff, &counter, &lo, &hi, &exact, &empty);
  if (known && !empty && !ir_const_int(loop->lo, &start) &&
      aff_range(&c->aff, &from_start, &lo2, &hi2, &exact, &empty) && !empty &&
      (uint64_t)hi2 - (uint64_t)lo2 < (uint64_t)hi - (uint64_t)lo)
    lo = lo2, hi = hi2;
  aff_pop_loop(&c->aff);
  if (!known) return UINT64_MAX;
  if (empty) return 0;
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  uint64_t step = loop->step > 0 ? (uint64_t)loop->step : 0 - (uint64_t)loop->step;
  return add_sat(span / step, 1);
}

static uint64_t array_accesses(const Expr *e) {
  if (!e) return 0;
  uint64_t n = e->kind == EX_LOAD && e->buf ? 1 : 0;
  if (e->kind == EX_LOAD && e->buf && e->idx) /* (a whole array as an intrinsic's operand has none) */
    for (int i = 0; i < e->buf->ndim; i++) n += array_accesses(e->idx[i]);
  n += array_accesses(e->a) + array_accesses(e->b) + array_accesses(e->c);
  for (int i = 0; i < e->nargs; i++) n += array_accesses(e->args[i]);
  return n;
}

/* One instance of s: itself, and per_access for each array element it reads or writes. */
static uint64_t instance_steps(const Count *c, const Stmt *s) {
  if (!c->per_access) return 1;
  uint64_t n = s->kind == ST_IF ? array_accesses(s->cond) : array_accesses(s->rhs) + array_accesses(s->init);
  if (s->kind == ST_ASSIGN) n += array_accesses(s->lhs);
  for (int i = 0; s->kind == ST_DECL && i < s->ninit; i++) n += array_accesses(s->init_list[i]);
  return add_sat(1, mul_sat(n, c->per_access));
}

static void count_stmts(Count *c, const Stmt *s, uint64_t runs) {
  for (; s && runs; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      count_stmts(c, s->body, runs);
      break;
    case ST_FOR: {
      if (c->per_access && (s->intrin || s->loop_kind == LOOP_DMA)) {
        c->steps = add_sat(c->steps, runs); /* one call (an intrinsic, a DMA) for the nest, on the NPU */
        break;
      }
      uint64_t inner = mul_sat(runs, trips(c, s));
      c->steps = add_sat(c->steps, inner);
      aff_push_loop(&c->aff, s);
      count_stmts(c, s->body, inner);
      aff_pop_loop(&c->aff);
      break;
    }
    case ST_IF:
      c->steps = add_sat(c->steps, mul_sat(runs, instance_steps(c, s)));
      count_stmts(c, s->then_s, runs);
      count_stmts(c, s->else_s, runs);
      break;
    case ST_ASSIGN:
    case ST_DECL:
      c->steps = add_sat(c->steps, mul_sat(runs, instance_steps(c, s)));
      break;
    }
  }
}

uint64_t ir_count_steps(const Kernel *k) { return ir_count_steps_weighted(k, 0); }

uint64_t ir_count_steps_weighted(const Kernel *k, uint64_t per_access) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  Count c = {.steps = 0, .per_access = per_access};
  aff_init(&c.aff, ctx, k);
  count_stmts(&c, k->body, 1);
  aff_free(&c.aff);
  isl_ctx_free(ctx);
  return c.steps;
}
