/* bind(loop, vu): the iterations of `loop` run on the VU cores, iteration
 * i on core i, all at once. The control unit still issues every
 * instruction in program order; a VU instruction runs on the core whose
 * vector memory holds its operands, so what binding changes is where the
 * loop body's buffers live:
 *  - a vu_vm buffer declared in the body (a cache_read or cache_write at
 *    the loop or inside it) has one copy per core, in that core's VM at the
 *    offset placement gave it (Buffer.core is the loop's counter);
 *  - any other on-chip buffer in the body would be one place shared by
 *    cores running at once: refused, as is a vu_vm buffer declared outside
 *    the loop and used inside (it lives in one core's VM).
 * The loop needs a constant trip count of at most the target's VU cores
 * and no dependence between its iterations. The emitter overlaps the
 * cores: it waits for a core's copy out only before that core's buffer is
 * written again (emit/emit_c.c, bound loops). A body buffer may be
 * double-buffered: its two copies alternate over the passes of the loop
 * around the bound one (schedule/double_buffer.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/primitives.h"
#include "sim/npusim.h"

static bool find_bound(Stmt *st, int depth, void *ctx) {
  (void)depth;
  const Stmt **found = ctx;
  if (!*found && st->kind == ST_FOR && st->loop_kind == LOOP_VU) *found = st;
  return !*found;
}

static const Stmt *enclosing_bound(Sched *s, const Stmt *st) {
  for (const Stmt *l = sched_parent_loop(s, st); l; l = sched_parent_loop(s, l))
    if (l->loop_kind == LOOP_VU) return l;
  return NULL;
}

/* The counter is the core: 0, 1, ... below the target's core count. */
static bool fits_cores(const Stmt *loop, const NpuTarget *t) {
  int64_t lo, hi;
  return ir_const_int(loop->lo, &lo) && lo == 0 && loop->step == 1 && loop->cmp == OP_LT && ir_const_int(loop->hi, &hi) &&
         hi >= 1 && hi <= t->vu_count;
}

bool prim_bind(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  const SchedArg *unit = &st->args[1];
  if (unit->kind != SA_NAME || strcmp(unit->name, "vu"))
    return sched_error(s, unit, "expected the unit to bind to, vu (the vector unit cores); got '%s'", unit->text);
  if (loop->loop_kind == LOOP_VU) return sched_error(s, &st->args[0], "loop %s is already bound to the VU cores", loop->name);
  if (loop->loop_kind != LOOP_SERIAL)
    return sched_error(s, &st->args[0], "loop %s is already marked (%s); bind a plain loop", loop->name,
                       loop->loop_kind == LOOP_PARALLEL ? "parallel" : loop->loop_kind == LOOP_VECTORIZE ? "vectorized"
                       : loop->loop_kind == LOOP_DMA ? "a DMA copy" : "unrolled");
  const NpuTarget *t = &s->target;
  if (!fits_cores(loop, t))
    return sched_error(s, &st->args[0], "loop %s must count 0, 1, ... up to at most %lld, one iteration per VU core "
                       "of target '%s'; split it first (split(%s, %lld, outer, inner)) and bind the inner loop",
                       loop->name, (long long)t->vu_count, t->name, loop->name, (long long)t->vu_count);
  const Stmt *inner = NULL;
  ir_walk_stmts(loop->body, find_bound, &inner);
  const Stmt *outer = enclosing_bound(s, loop);
  if (inner || outer)
    return sched_error(s, &st->args[0], "loop %s is %s loop %s, which is bound to the VU cores: one loop of a nest binds",
                       loop->name, inner ? "around" : "inside", (inner ? inner : outer)->name);
  /* the iterations' independence is proven after this step and every later
   * one (sched_check_marks) */
  loop->loop_kind = LOOP_VU;
  loop->mark_step = st->text;
  loop->mark_loc = st->loc;
  return true;
}

/* ---------------- after every step ---------------- */

enum { MAX_VM = 256 };

typedef struct {
  Stmt *decl[MAX_VM];
  int n;
  const Buffer *b; /* uses_buffer: the buffer looked for */
  const Stmt *user;
} VmWalk;

static bool collect_vm(Stmt *st, int depth, void *ctx) {
  (void)depth;
  VmWalk *w = ctx;
  if (st->kind == ST_DECL && st->buf && st->buf->scope && !strcmp(st->buf->scope, "vu_vm") && w->n < MAX_VM)
    w->decl[w->n++] = st;
  return true;
}

static bool uses_buffer(Stmt *st, int depth, void *ctx) {
  (void)depth;
  VmWalk *w = ctx;
  if (!w->user && st->kind != ST_DECL && ir_stmt_uses(st, NULL, w->b)) w->user = st;
  return !w->user;
}

static bool check_bound(Sched *s, Stmt *loop, VmWalk *all) {
  const NpuTarget *t = &s->target;
  if (!fits_cores(loop, t))
    return sched_error(s, NULL, "loop %s, bound to the VU cores, no longer counts 0, 1, ... up to at most %lld "
                       "(the VU cores of target '%s')", loop->name, (long long)t->vu_count, t->name);
  for (int i = 0; i < all->n; i++) {
    Stmt *d = all->decl[i];
    char why[512];
    if (sched_encloses(loop, d) && d->buf->copies > 1 &&
        (sched_parent_loop(s, d) != loop || !sched_bound_double_buffer_rules(s, loop, d, why, sizeof why)))
      return sched_error(s, NULL, "%s is double-buffered in loop %s, which is bound to the VU cores: %s", d->buf->name,
                         loop->name, sched_parent_loop(s, d) != loop ? "it must be declared directly in that loop's body" : why);
    if (sched_encloses(loop, d)) {
      d->buf->core = loop->var;
      /* the token array of its copies out (emit/emit_c.c, bound loops) */
      if (!d->buf->db_token) d->buf->db_token = sched_derived_name(s, d->buf->name, "_tok");
      continue;
    }
    VmWalk w = {.b = d->buf};
    ir_walk_stmts(loop->body, uses_buffer, &w);
    if (w.user)
      return sched_error(s, NULL, "%s (line %d) uses %s inside loop %s, which is bound to the VU cores, but %s lives "
                         "in one core's VM (declared outside the loop); stage it at the bound loop or inside it",
                         w.user->name ? w.user->name : "a statement", w.user->loc.line, d->buf->name, loop->name,
                         d->buf->name);
  }
  return true;
}

typedef struct {
  Sched *s;
  VmWalk *all;
  bool failed;
} BoundWalk;

static bool each_bound(Stmt *st, int depth, void *ctx) {
  (void)depth;
  BoundWalk *w = ctx;
  if (st->kind == ST_FOR && st->loop_kind == LOOP_VU && !check_bound(w->s, st, w->all)) w->failed = true;
  return !w->failed;
}

bool sched_check_bound_loops(Sched *s) {
  VmWalk *all = calloc(1, sizeof *all);
  if (!all) return sched_error(s, NULL, "out of memory");
  ir_walk_stmts(s->k->body, collect_vm, all);
  bool ok = all->n < MAX_VM || sched_error(s, NULL, "too many vu_vm buffers (at most %d)", MAX_VM - 1);
  for (int i = 0; i < all->n; i++) all->decl[i]->buf->core = NULL;
  BoundWalk w = {s, all, false};
  if (ok) ir_walk_stmts(s->k->body, each_bound, &w);
  free(all);
  return ok && !w.failed;
}
