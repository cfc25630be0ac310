/* double_buffer(BUF): BUF, an on-chip buffer that cache_read or cache_write
 * made in loop L's body, gets two copies (the rules it must keep are
 * ir_double_buffer_rules, ir/dma.c). While an iteration of L runs on
 * one, DMA fills the other with the next iteration's region (a read cache)
 * or drains the previous one's (a write cache); the emitter places the
 * waits (emit/emit_c.c, pipelined loops). The IR keeps the synchronous
 * program, which every step and proof sees.
 *
 * In a loop bound to the VU cores the next iteration is another core, so
 * the copies alternate over the loop P around it instead: each core has
 * two copies, and while pass p computes on one, DMA fills the other with
 * pass p + 1's region (a read cache) or drains pass p - 1's (a write
 * cache) (emit/emit_c.c, pass loops around bound loops).
 *
 * A loop that runs once has no iteration for the other copy: double_buffer
 * there changes nothing and says so (a warning), rather than leave a
 * second buffer, its dead branches and waits on tokens that are always 0.
 * A warning, not a refusal: the step is harmless, and a schedule written
 * for a larger size stays valid at a size one tile covers.
 *
 * Legal: by construction (the IR keeps the synchronous program); the
 * rules of the overlap are ir_double_buffer_rules. */
#include <stdio.h>
#include <string.h>

#include "schedule/layout.h"
#include "schedule/primitives.h"

bool sched_bound_double_buffer_rules(Sched *s, const Stmt *bound, const Stmt *decl, char *why, size_t n) {
  const Buffer *b = decl->buf;
  Stmt *pass = sched_parent_loop(s, bound);
  if (!pass)
    return snprintf(why, n, "%s is declared in loop %s, which is bound to the VU cores: its copies alternate over the "
                    "iterations of the loop around it, and loop %s is not directly in a loop's body (at the top, or "
                    "under an if)", b->name, bound->name, bound->name) < 0;
  const Stmt *other = ir_other_onchip_user(pass, bound);
  if (other)
    return snprintf(why, n, "the copies of %s stay live across the passes of loop %s, so nothing in it but loop %s may "
                    "use on-chip memory; %s (line %d) does", b->name, pass->name, bound->name,
                    other->name ? other->name : "a statement", other->loc.line) < 0;
  return ir_double_buffer_rules(pass, decl, bound, NULL, why, n);
}

/* Does loop (from 0 by 1, as the rules ask) run once? */
static bool runs_once(const Stmt *loop) {
  int64_t hi;
  return ir_const_int(loop->hi, &hi) && hi == 1;
}

/* The loop whose iterations the copies alternate over: loop, or for a
 * loop bound to the VU cores the pass loop around it. */
static const Stmt *alternating_loop(Sched *s, Stmt *loop) {
  return loop->loop_kind == LOOP_VU ? sched_parent_loop(s, loop) : loop;
}

bool prim_double_buffer(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  if (!buffer_onchip(b))
    return sched_error(s, &st->args[0], "%s is not an on-chip buffer (make one with cache_read or cache_write)", b->name);
  if (b->copies > 1) return sched_error(s, &st->args[0], "%s is already double-buffered", b->name);
  Stmt *decl = ir_buffer_decl(s->k->body, b);
  Stmt *loop = decl ? sched_parent_loop(s, decl) : NULL;
  if (!loop) return sched_error(s, &st->args[0], "%s is not declared directly in a loop's body", b->name);
  if (loop->loop_kind == LOOP_UNROLL)
    return sched_error(s, &st->args[0], "%s is declared in loop %s, which is unrolled (%s, line %d): its copies would "
                       "have no iterations to alternate over; double_buffer before the unroll is refused too",
                       b->name, loop->name, loop->mark_step ? loop->mark_step : "unroll", loop->mark_loc.line);
  char why[512];
  bool bound = loop->loop_kind == LOOP_VU;
  if (bound ? !sched_bound_double_buffer_rules(s, loop, decl, why, sizeof why)
            : !ir_double_buffer_rules(loop, decl, NULL, NULL, why, sizeof why))
    return sched_error(s, &st->args[0], "%s", why);
  const Stmt *over = alternating_loop(s, loop);
  if (runs_once(over)) {
    sched_warning(s, &st->args[0], "loop %s runs once, so the copies of %s would have no other iteration to "
                  "alternate with: the step changes nothing, and %s keeps one copy; split the loop into more than one "
                  "pass (a smaller tile) to overlap its copies", over->name, b->name, b->name);
    return true;
  }
  /* a bound loop's buffer is reached through its core's pointer, not an
   * array of copies, and has its token array already (schedule/bind.c) */
  if (!bound) {
    b->db_name = sched_derived_name(s, b->name, "_db");
    b->db_next = sched_derived_name(s, b->name, "_next");
  }
  if (!b->db_token) b->db_token = sched_derived_name(s, b->name, "_tok");
  b->copies = 2;
  return true;
}
