/* double_buffer(BUF): BUF, an on-chip buffer that cache_read or cache_write
 * made in loop L's body, gets two copies. While an iteration of L runs on
 * one, DMA fills the other with the next iteration's region (a read cache)
 * or drains the previous one's (a write cache); the emitter places the
 * waits (emit/emit_c.c, pipelined loops). The IR keeps the synchronous
 * program, which every step and proof sees; the overlap is legal because
 * nothing else under L touches the array the copies read or write. */
#include <stdio.h>
#include <string.h>

#include "schedule/layout.h"
#include "schedule/primitives.h"

/* The copy nest (LOOP_DMA) of b: right after its declaration (into b) or
 * last in the body (out of b). */
static const Stmt *copy_of(const Stmt *first, const Buffer *b, bool into) {
  for (const Stmt *c = first; c; c = c->next) {
    if (c->kind != ST_FOR || c->loop_kind != LOOP_DMA) continue;
    const Stmt *in = c;
    while (in->kind == ST_FOR) in = in->body->body;
    if (in && in->kind == ST_ASSIGN && (into ? in->lhs->buf : in->rhs->buf) == b && (into ? c == first : !c->next))
      return in;
  }
  return NULL;
}

/* The outermost loop of the copy nest whose leaf is `leaf` (after decl). */
static const Stmt *copy_nest_of(const Stmt *decl, const Stmt *leaf) {
  for (const Stmt *c = decl->next; c; c = c->next)
    if (c->kind == ST_FOR && c->loop_kind == LOOP_DMA) {
      const Stmt *in = c;
      while (in->kind == ST_FOR) in = in->body->body;
      if (in == leaf) return c;
    }
  return NULL;
}

typedef struct {
  const Buffer *array, *cache;
  const Stmt *other;
} Touch;

static bool other_access(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Touch *t = ctx;
  if (t->other || st->kind != ST_ASSIGN) return !t->other;
  bool copy = (st->lhs->kind == EX_LOAD && st->lhs->buf == t->cache) || ir_expr_uses(st->rhs, NULL, t->cache);
  if (!copy && ir_stmt_uses(st, NULL, t->array)) t->other = st;
  return !t->other;
}

typedef struct {
  const Buffer *b;
  Stmt *decl;
} FindDecl;

static bool find_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  FindDecl *f = ctx;
  if (st->kind == ST_DECL && st->buf == f->b) f->decl = st;
  return !f->decl;
}

bool prim_double_buffer(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  if (!buffer_onchip(b))
    return sched_error(s, &st->args[0], "%s is not an on-chip buffer (make one with cache_read or cache_write)", b->name);
  if (b->copies > 1) return sched_error(s, &st->args[0], "%s is already double-buffered", b->name);
  FindDecl f = {b, NULL};
  ir_walk_stmts(s->k->body, find_decl, &f);
  Stmt *loop = f.decl ? sched_parent_loop(s, f.decl) : NULL;
  if (!loop) return sched_error(s, &st->args[0], "%s is not declared directly in a loop's body", b->name);
  int64_t lo, trips;
  if (!ir_const_int(loop->lo, &lo) || lo != 0 || loop->step != 1 || loop->cmp != OP_LT ||
      !sched_trip_count(loop, &trips) || trips < 1)
    return sched_error(s, &st->args[0], "loop %s must run from 0 by 1 to a constant for %s to be double-buffered",
                       loop->name, b->name);
  const Stmt *load = copy_of(f.decl->next, b, true), *store = copy_of(f.decl->next, b, false);
  if (!load && !store)
    return sched_error(s, &st->args[0], "%s has no DMA copy at the start or the end of loop %s's body", b->name,
                       loop->name);
  if (load && store)
    return sched_error(s, &st->args[0], "%s is both filled and drained by DMA (a cache_write that copies in); "
                       "double-buffer a read cache or a write-only one", b->name);
  /* the overlap moves a copy across the rest of an iteration: nothing else
   * under the loop may touch the array it reads or writes */
  const Buffer *array = load ? load->rhs->buf : store->lhs->buf;
  Touch t = {array, b, NULL};
  ir_walk_stmts(loop->body, other_access, &t);
  if (t.other)
    return sched_error(s, &st->args[0], "%s (line %d) accesses %s under loop %s, so its copy to %s cannot move "
                       "into another iteration", t.other->name, t.other->loc.line, array->name, loop->name, b->name);
  bool is_param = false;
  for (const Param *p = s->k->params; p; p = p->next) is_param |= p->buf == array;
  if (!is_param)
    return sched_error(s, &st->args[0], "%s is copied %s %s, not an array passed in: only copies from and to DDR "
                       "are double-buffered", b->name, load ? "from" : "to", array->name);
  /* a copy out stays in flight while the next iteration runs and issues its
   * own: their boxes in the array must not overlap */
  if (store && !ir_copy_steps_apart(copy_nest_of(f.decl, store), loop->var))
    return sched_error(s, &st->args[0], "the regions of %s that consecutive iterations of %s copy out may overlap, "
                       "so the copies could not run at once", array->name, loop->name);
  char name[160];
  snprintf(name, sizeof name, "%s_db", b->name);
  b->db_name = sched_name_taken(s, name) ? sched_fresh_name(s, name) : arena_strdup(s->a, name);
  snprintf(name, sizeof name, "%s_tok", b->name);
  b->db_token = sched_name_taken(s, name) ? sched_fresh_name(s, name) : arena_strdup(s->a, name);
  b->copies = 2;
  return true;
}
