/* The kernel's own lower bound on the target: what the check's roofline
 * and tune's measure a variant against (docs/check.md, docs/tune.md).
 * The larger of
 *   - its arithmetic at the peak of the fastest unit that can do it: a
 *     multiply-accumulate of int8 or float operands on the NU (its MACs per
 *     cycle), every other operation on the VU cores (a vector's lanes of
 *     the statement's type on each core, one op per cycle), the NU's and
 *     the VU's shares counted apart (they run at once);
 *   - its least DDR traffic: each input array read once, each output
 *     written once (an output the kernel writes before it reads it, as a
 *     matmul's init, is not read), at the DDR's bandwidth.
 * It is not the variant's own DMA or unit time: a variant that leaves the
 * work on the CU, or moves data twice, is measured against what the kernel
 * needs, not against itself. Loops without a constant trip count count
 * one iteration, so the figure stays a bound; a statement under an `if`
 * counts at every iteration (the guards of padded windows hold almost
 * everywhere).
 * A program's bound is the sum of its calls' own bounds (each callee as
 * written, as often as the loops around the call run; issue 43 defines
 * it so), plus the arithmetic of its statements outside the calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/sizes.h"
#include "jit/kernel_bound.h"

enum { BOUND_MAX_ARRAYS = 64 };

typedef struct {
  double nu_cycles, vu_cycles;
  double calls;      /* the calls' own bounds, summed */
  bool in_program;   /* a call was met */
  const NpuTarget *t;
} Work;

/* The value the call block blk passes for callee parameter v, when it is
 * a constant (the argument's local, declared first in the block). */
static bool argument_value(const Stmt *blk, const Var *v, int64_t *val) {
  const CallSite *cs = blk->call;
  int i = 0;
  for (const Param *p = cs->callee->params; p; p = p->next, i++)
    if (p->var == v) break;
  if (i >= cs->nparams || !cs->arg_var[i]) return false;
  for (const Stmt *d = blk->body; d && d->kind == ST_DECL; d = d->next)
    if (d->var == cs->arg_var[i]) return d->init && ir_const_int(d->init, val);
  return false;
}

/* The callee's own bound at this call: a callee with sizes at the
 * constants the call passes (0 when it passes a value only known at run
 * time, which the figure then leaves out). */
static double call_bound(const Stmt *blk, const NpuTarget *t) {
  const Kernel *c = blk->call->callee;
  if (!c->nsizes) return (double)kernel_bound(c, t, NULL, 0);
  SizeSet set = {.val = {0}};
  for (int j = 0; j < c->nsizes; j++)
    if (!argument_value(blk, c->sizes[j], &set.val[j])) return 0;
  Arena a;
  arena_init(&a, 0);
  char why[200];
  const Kernel *at = ir_instantiate(&a, c, &set, why, sizeof why);
  double b = at ? (double)kernel_bound(at, t, NULL, 0) : 0;
  arena_free(&a);
  return b;
}

static bool arith_op(Op op) { return op >= OP_ADD && op <= OP_BXOR; }

/* Arithmetic operations of e outside array indices. */
static double ops_of(const Expr *e) {
  if (!e || e->kind == EX_LOAD) return 0;
  double n = (e->kind == EX_BINARY && arith_op(e->op)) || e->kind == EX_CALL || e->kind == EX_COND ? 1 : 0;
  n += ops_of(e->a) + ops_of(e->b) + ops_of(e->c);
  for (int i = 0; i < e->nargs; i++) n += ops_of(e->args[i]);
  return n;
}

static const Expr *uncast(const Expr *e) {
  while (e && e->kind == EX_CAST) e = e->a;
  return e;
}

/* The load of `x + offset` (an integer offset that reads no array, TFLite's
 * input offset: hoist_offset takes it out of the NU's product), else e. */
static const Expr *offset_load(const Expr *e) {
  if (!e || e->kind != EX_BINARY || e->op != OP_ADD || !type_is_integer(e->type)) return e;
  const Expr *a = uncast(e->a), *b = uncast(e->b);
  if (a && a->kind == EX_LOAD && !ir_expr_has_load(e->b)) return a;
  if (b && b->kind == EX_LOAD && !ir_expr_has_load(e->a)) return b;
  return e;
}

/* `c += a * b` with int8 or float loads a and b (b may carry an input
 * offset): a MAC the NU does. */
static bool nu_mac(const Stmt *s, bool *fp32) {
  const Expr *m = uncast(s->rhs);
  if (s->op != OP_ADD || !m || m->kind != EX_BINARY || m->op != OP_MUL) return false;
  const Expr *a = offset_load(uncast(m->a)), *b = offset_load(uncast(m->b));
  if (!a || !b || a->kind != EX_LOAD || b->kind != EX_LOAD) return false;
  const Type *ta = a->buf->elem, *tb = b->buf->elem;
  *fp32 = ta->kind == TY_FLOAT && tb->kind == TY_FLOAT;
  return *fp32 || (type_is_integer(ta) && type_is_integer(tb) && ta->size == 1 && tb->size == 1);
}

static void count_stmt(Work *w, const Stmt *s, double runs) {
  const NpuTarget *t = w->t;
  bool fp32;
  if (nu_mac(s, &fp32)) {
    int64_t rate = fp32 ? t->nu_macs_fp32 : t->nu_macs_int8;
    w->nu_cycles += runs / (double)(rate > 0 ? rate : 1);
    return;
  }
  double ops = ops_of(s->rhs) + (s->op != OP_NONE ? 1 : 0);
  int size = s->lhs && s->lhs->type ? s->lhs->type->size : 4;
  int64_t lanes = t->vu_vector_bytes / (size > 0 ? size : 4);
  double rate = (double)(lanes > 0 ? lanes : 1) * (double)(t->vu_count > 0 ? t->vu_count : 1);
  w->vu_cycles += runs * ops / rate;
}

static void count(Work *w, const Stmt *s, double runs) {
  for (; s; s = s->next) {
    int64_t n;
    switch (s->kind) {
    case ST_BLOCK:
      if (!s->call) count(w, s->body, runs);
      else {
        w->in_program = true;
        w->calls += runs * call_bound(s, w->t);
      }
      break;
    case ST_FOR: count(w, s->body, runs * (double)(ir_trip_count(s, &n) && n > 0 ? n : 1)); break;
    case ST_IF:
      count(w, s->then_s, runs);
      count(w, s->else_s, runs);
      break;
    case ST_ASSIGN: count_stmt(w, s, runs); break;
    case ST_DECL: break;
    }
  }
}

/* How each array is first touched in program order: read first (its
 * values come in), or written first (an output the kernel fills itself,
 * as a matmul's init does before its updates read C). */
typedef struct {
  const Buffer *buf[BOUND_MAX_ARRAYS];
  bool read_first[BOUND_MAX_ARRAYS];
  int n;
} FirstTouch;

static void touch(FirstTouch *f, const Buffer *b, bool read) {
  for (int i = 0; i < f->n; i++)
    if (f->buf[i] == b) return;
  if (f->n == BOUND_MAX_ARRAYS) return;
  f->buf[f->n] = b;
  f->read_first[f->n++] = read;
}

static void reads(FirstTouch *f, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_LOAD && e->buf) touch(f, e->buf, true);
  for (int i = 0; e->kind == EX_LOAD && e->idx && i < e->buf->ndim; i++) reads(f, e->idx[i]);
  reads(f, e->a);
  reads(f, e->b);
  reads(f, e->c);
  for (int i = 0; i < e->nargs; i++) reads(f, e->args[i]);
}

static void first_touch(FirstTouch *f, const Stmt *s) {
  for (; s; s = s->next) {
    if (s->kind == ST_BLOCK || s->kind == ST_FOR) first_touch(f, s->body);
    if (s->kind == ST_IF) {
      reads(f, s->cond);
      first_touch(f, s->then_s);
      first_touch(f, s->else_s);
    }
    if (s->kind != ST_ASSIGN) continue;
    reads(f, s->rhs);
    for (int i = 0; s->lhs->kind == EX_LOAD && s->lhs->idx && i < s->lhs->buf->ndim; i++) reads(f, s->lhs->idx[i]);
    if (s->lhs->kind == EX_LOAD && s->lhs->buf) touch(f, s->lhs->buf, s->op != OP_NONE);
  }
}

/* Bytes the array parameters move at least: an input read once, an
 * output written once, both for one read first and written. */
static double least_traffic(const Kernel *k) {
  FirstTouch f = {.n = 0};
  first_touch(&f, k->body);
  double bytes = 0;
  for (const Param *p = k->params; p; p = p->next) {
    if (!p->buf) continue;
    double b = (double)buffer_elems(p->buf) * (double)p->buf->elem->size;
    bool read = p->buf->role == ROLE_INPUT;
    for (int i = 0; i < f.n; i++)
      if (f.buf[i] == p->buf) read = f.read_first[i];
    bool written = p->buf->role != ROLE_INPUT;
    bytes += (read ? b : 0) + (written ? b : 0);
  }
  return bytes;
}

uint64_t kernel_bound(const Kernel *k, const NpuTarget *t, char *unit, size_t n) {
  Work w = {.t = t};
  count(&w, k->body, 1);
  const char *name = "ddr";
  double most;
  if (w.in_program) {
    /* a program: its calls moved its data; what it computes itself adds */
    most = w.calls + (w.nu_cycles > w.vu_cycles ? w.nu_cycles : w.vu_cycles);
    name = "sum";
  } else {
    most = least_traffic(k) / (double)(t->ddr_bandwidth > 0 ? t->ddr_bandwidth : 1);
    if (w.nu_cycles > most) most = w.nu_cycles, name = "nu";
    if (w.vu_cycles > most) most = w.vu_cycles, name = "vu";
  }
  if (unit && n) snprintf(unit, n, "%s", name);
  return (uint64_t)ceil(most); /* a run takes whole cycles: the next whole one is still a bound */
}
