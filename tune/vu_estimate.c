/* The VU sketch's estimate: what one pass of a candidate asks of the
 * units, read off its IR (a probe of its steps at one q), and the cycles
 * that bounds, by the simulator's model (docs/npu-model.md section 4,
 * sim/vu.c, sim/dma.c, sim/timeline.c):
 *  - a VU instruction costs its core overhead + ceil(bytes of its widest
 *    operand / vector_bytes), the bytes being the iterations of its nest
 *    times the widest element (as `npugen intrinsics` prints it);
 *  - the CU issues in program order, a pass phase by phase over the cores,
 *    and stalls while a unit's queue holds queue_depth instructions: past
 *    the first queue_depth instructions of a core's pass, it waits for
 *    that core, so a pass costs it at least the work of each core's first
 *    n - queue_depth instructions, plus an issue slot per intrinsic;
 *  - a DMA takes a channel for latency + bytes / bandwidth (loads on two
 *    channels, copies out on two), and the DDR port for bytes / bandwidth;
 *  - a buffer with one copy chains its DMA and the compute of every pass
 *    (the next load waits for the compute reading it, the compute for the
 *    load); with two copies the chain spans two passes.
 * The estimate is the largest of these bounds; a candidate whose staged
 * buffers (declared at the core loop, so all live at once) exceed a
 * core's vector memory is refused: UINT64_MAX. */
#include <stdint.h>
#include <string.h>

#include "tune/tune.h"

/* Products of the kernel's extents saturate here (2^51 cycles or bytes, far
 * past any run the simulator makes), so sums of a few thousand of them
 * cannot overflow either. */
#define SATURATED (INT64_MAX >> 12)

static int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) || r > SATURATED ? SATURATED : r;
}

/* A bound of constants: a sized kernel at its --size values leaves
 * npugen's ceiling division as `256 / 64 + (256 % 64 > 0)`. */
static bool constant(const Expr *e, int64_t *v) {
  int64_t a, b;
  if (ir_const_int(e, v)) return true;
  if (e->kind == EX_CAST) return type_is_integer(e->type) && constant(e->a, v);
  if (e->kind != EX_BINARY || !constant(e->a, &a) || !constant(e->b, &b)) return false;
  switch (e->op) {
  case OP_ADD: return !__builtin_add_overflow(a, b, v);
  case OP_SUB: return !__builtin_sub_overflow(a, b, v);
  case OP_MUL: return !__builtin_mul_overflow(a, b, v);
  case OP_DIV: return b != 0 && !(a == INT64_MIN && b == -1) && ((*v = a / b), true);
  case OP_MOD: return b != 0 && !(a == INT64_MIN && b == -1) && ((*v = a % b), true);
  case OP_LT: *v = a < b; return true;
  case OP_LE: *v = a <= b; return true;
  case OP_GT: *v = a > b; return true;
  case OP_GE: *v = a >= b; return true;
  case OP_EQ: *v = a == b; return true;
  case OP_NE: *v = a != b; return true;
  default: return false;
  }
}

static int64_t trip_or_one(const Stmt *l) {
  int64_t t = tune_trip(l), lo, hi;
  if (t < 0 && l->kind == ST_FOR && constant(l->lo, &lo) && constant(l->hi, &hi) &&
      !ir_trip_count_between(l->cmp, l->step, lo, hi, &t))
    t = -1;
  return t > 0 ? t : 1;
}

static bool widen(const Expr *e, void *ctx) {
  int *w = ctx;
  if (e->kind == EX_LOAD && e->buf && e->buf->elem->size > *w) *w = e->buf->elem->size;
  return true;
}

/* The widest element e reads or writes. */
static int widest_in(const Expr *e) {
  int w = 0;
  ir_walk_expr(e, widen, &w);
  return w;
}

/* A nest's iterations around its deepest statement and its widest
 * element: the work of the VU instruction that computes it. */
static void nest_work(const Stmt *list, int64_t *iters, int *widest) {
  int64_t most = 1;
  for (const Stmt *c = list; c; c = c->next) {
    int64_t n = 1;
    if (c->kind == ST_FOR) {
      nest_work(c->body->body, &n, widest);
      n = mul(n, trip_or_one(c));
    } else if (c->kind == ST_IF) {
      int64_t e = 1; /* the larger branch */
      nest_work(c->then_s->body, &n, widest);
      if (c->else_s) nest_work(c->else_s->body, &e, widest);
      if (e > n) n = e;
    } else if (c->kind == ST_ASSIGN) {
      int w = widest_in(c->lhs), r = widest_in(c->rhs);
      if (w > *widest) *widest = w;
      if (r > *widest) *widest = r;
    }
    if (n > most) most = n;
  }
  *iters = most;
}

/* The vu_vm buffer of a copy nest's statement and whether it loads it;
 * *global the array on the other side. */
static const Buffer *copy_buffer(const Stmt *nest, bool *load, const Buffer **global) {
  const Stmt *s = nest;
  /* a sized array's copy has a tail guard at each level (`if (io * 8 + core * 2 + a_vm_0 < n)`) */
  while (s && (s->kind == ST_FOR || s->kind == ST_IF)) s = tune_first_stmt(s->kind == ST_FOR ? s->body : s->then_s);
  if (!s || s->kind != ST_ASSIGN || s->lhs->kind != EX_LOAD) return NULL;
  const Buffer *other = s->rhs && s->rhs->kind == EX_LOAD ? s->rhs->buf : NULL;
  *load = buffer_onchip(s->lhs->buf);
  *global = *load ? other : s->lhs->buf;
  if (*load) return s->lhs->buf;
  return other && buffer_onchip(other) ? other : NULL;
}

enum { MAX_STAGED = 32 };
typedef struct {
  const TuneArray *const *arr;
  int narr;
  const NpuTarget *t;
  VuPassCost *c;
  const Var *pass[IR_MAX_DIMS]; /* the counters of the loops around the core loop */
  int npass;
  /* each vu_vm buffer a copy nest fills or drains, and the staged array
   * (index into arr[]) on the copy's other side: what the IR says it
   * holds, not what its name spells */
  const Buffer *staged[MAX_STAGED];
  int staged_as[MAX_STAGED];
  int nstaged;
} CostWalk;

/* The staged array (index into arr[]) a vu_vm buffer holds, or -1. */
static int array_of(const CostWalk *w, const Buffer *b) {
  for (int i = 0; i < w->nstaged; i++)
    if (w->staged[i] == b) return w->staged_as[i];
  return -1;
}

/* The copy nests under list (the core loop's body): which array each
 * vu_vm buffer stages. */
static void find_staged(CostWalk *w, const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c->kind == ST_FOR && c->loop_kind == LOOP_DMA) {
      bool load = false;
      const Buffer *g = NULL, *b = copy_buffer(c, &load, &g);
      if (!b || !g || array_of(w, b) >= 0 || w->nstaged == MAX_STAGED) continue;
      for (int i = 0; i < w->narr; i++)
        if (!strcmp(w->arr[i]->name, g->name)) { /* the kernel's array of that name */
          w->staged[w->nstaged] = b;
          w->staged_as[w->nstaged++] = i;
          break;
        }
    } else if (c->kind == ST_FOR || c->kind == ST_BLOCK) {
      find_staged(w, c->body && c->kind == ST_FOR ? c->body->body : c->body);
    } else if (c->kind == ST_IF) {
      find_staged(w, c->then_s ? c->then_s->body : NULL);
      if (c->else_s) find_staged(w, c->else_s->body);
    }
  }
}

/* Does a statement of list (or of their bodies) use counter v? */
static bool uses_var(const Stmt *list, const Var *v) {
  for (const Stmt *c = list; c; c = c->next) {
    if (ir_stmt_uses(c, v, NULL)) return true;
    if ((c->kind == ST_FOR || c->kind == ST_BLOCK) && c->body && uses_var(c->body, v)) return true;
    if (c->kind == ST_IF && (uses_var(c->then_s, v) || (c->else_s && uses_var(c->else_s, v)))) return true;
  }
  return false;
}

static void copy_nest(CostWalk *w, const Stmt *nest, int64_t mult) {
  bool load = false;
  const Buffer *g = NULL, *b = copy_buffer(nest, &load, &g);
  int i = b ? array_of(w, b) : -1;
  if (i < 0) return;
  int64_t iters = 1;
  int widest = 0;
  nest_work(nest->body->body, &iters, &widest);
  int64_t bytes = mul(mul(iters, trip_or_one(nest)), w->arr[i]->elem_size);
  w->c->dma_bytes[i] += mul(mult, bytes);
  w->c->dmas[i] += mult;
  w->c->load[i] = load;
  w->c->resident[i] = load;
  for (int v = 0; v < w->npass; v++)
    w->c->resident[i] &= !ir_stmt_uses(nest, w->pass[v], NULL) && !uses_var(nest->body, w->pass[v]);
}

/* One core's pass: its copies and its VU instructions, mult times. */
static void core_body(CostWalk *w, const Stmt *list, int64_t mult) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c->kind == ST_IF) {
      core_body(w, c->then_s->body, mult);
      if (c->else_s) core_body(w, c->else_s->body, mult);
    } else if (c->kind == ST_FOR && c->loop_kind == LOOP_DMA) {
      copy_nest(w, c, mult);
    } else if (c->kind == ST_FOR && c->intrin) {
      int64_t iters = 1;
      int widest = 1;
      nest_work(c->body->body, &iters, &widest);
      iters = mul(iters, trip_or_one(c));
      int64_t vb = w->t->vu_vector_bytes > 0 ? w->t->vu_vector_bytes : 1;
      w->c->vu_work += mul(mult, w->t->vu_overhead + (mul(iters, widest) + vb - 1) / vb);
      w->c->vu_ops += mult;
    } else if (c->kind == ST_FOR) {
      core_body(w, c->body->body, mul(mult, trip_or_one(c)));
    } else if (c->kind == ST_ASSIGN) { /* host code: the CU accesses each element itself */
      w->c->cu_work += mul(mul(mult, 2), w->t->cu_access_cycles);
    }
  }
}

/* The bytes of the vu_vm buffers declared in the core loop's body. */
static void core_buffers(CostWalk *w, const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c->kind != ST_DECL || !c->buf || !c->buf->scope || strcmp(c->buf->scope, "vu_vm")) continue;
    int64_t bytes = mul(buffer_elems(c->buf), c->buf->elem->size);
    int i = array_of(w, c->buf);
    if (i >= 0) w->c->vm_bytes[i] += bytes;
    else w->c->vm_other += bytes;
  }
}

/* Down to the loop bound to the VU cores; the loops above it make the
 * passes. */
static bool find_core(CostWalk *w, const Stmt *list, int64_t passes) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c->kind != ST_FOR) continue;
    if (c->loop_kind == LOOP_VU) {
      w->c->passes = passes;
      w->c->cores = trip_or_one(c);
      find_staged(w, c->body->body);
      core_buffers(w, c->body->body);
      core_body(w, c->body->body, 1);
      return true;
    }
    if (w->npass == IR_MAX_DIMS) return false;
    w->pass[w->npass++] = c->var;
    if (find_core(w, c->body->body, mul(passes, trip_or_one(c)))) return true;
    w->npass--;
  }
  return false;
}

bool tune_vu_pass_cost(const Kernel *k, const TuneArray *const *arr, int narr, const NpuTarget *t, VuPassCost *c) {
  memset(c, 0, sizeof *c);
  CostWalk w = {.arr = arr, .narr = narr, .t = t, .c = c};
  return t->ddr_bandwidth > 0 && find_core(&w, k->body->body, 1) && c->vu_ops > 0;
}

static int64_t ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

static uint64_t larger(uint64_t a, int64_t b) { return b > 0 && (uint64_t)b > a ? (uint64_t)b : a; }

uint64_t tune_vu_estimate(const VuPassCost *c, const bool *db, int narr, const NpuTarget *t) {
  int64_t passes = c->passes, cores = c->cores;
  int64_t vm = c->vm_other, bytes = 0, dmas = 0, chain = 0, channel[2] = {0, 0};
  for (int i = 0; i < narr; i++) {
    vm += mul(c->vm_bytes[i], db[i] ? 2 : 1);
    if (!c->dmas[i]) continue;
    /* a resident load (one copy, the same region every pass) is made
     * once, before the passes (lower/pass_loop.c) */
    bool once = c->resident[i] && !db[i];
    int64_t times = once ? 1 : passes;
    /* one core's DMA of this array, latency included */
    int64_t dma = t->ddr_latency + ceil_div(ceil_div(c->dma_bytes[i], c->dmas[i]), t->ddr_bandwidth);
    bytes += mul(times, c->dma_bytes[i]);
    dmas += mul(times, c->dmas[i]);
    channel[c->load[i] ? 0 : 1] += mul(mul(times, c->dmas[i]), dma);
    if (once) continue;
    /* its DMA and the pass's compute in a chain, over one pass or two */
    int64_t link = db[i] ? (dma + c->vu_work) / 2 : dma + c->vu_work;
    if (link > chain) chain = link;
  }
  if (vm > t->vu_vm_size) return UINT64_MAX;
  uint64_t est = (uint64_t)mul(passes, c->vu_work); /* the busiest core */
  est = larger(est, mul(cores, bytes) / t->ddr_bandwidth);
  /* loads take channels 0 and 1, copies out 2 and 3 (lower/bound.c) */
  if (t->dma_channels >= 4) est = larger(est, mul(cores, channel[0] > channel[1] ? channel[0] : channel[1]) / 2);
  else est = larger(est, mul(cores, channel[0] + channel[1]) / t->dma_channels);
  /* the CU: waits on each core past its queue, issues every intrinsic */
  int64_t waited = c->vu_ops > t->cu_queue_depth ? mul(c->vu_work, c->vu_ops - t->cu_queue_depth) / c->vu_ops : 0;
  int64_t cu = mul(mul(passes, cores), waited + c->cu_work + mul(t->cu_issue_cycles, c->vu_ops)) +
               mul(mul(cores, t->cu_issue_cycles), dmas);
  est = larger(est, cu);
  return larger(est, mul(passes, chain));
}
