/* The DMA pass: plans how each copy overlaps the compute, statement by
 * statement in program order (the order the DMAs in flight are granted
 * in, lower/grant.c).
 *
 * A loop is, in this order of preference: a copy nest (left to
 * lower/copies.c), a tensorized nest (one instruction), a loop bound to
 * the VU cores (lower/bound.c), a double-buffered loop (pipeline.c), a
 * pass loop around a bound loop (pass_loop.c), or a plain loop. A
 * top-level loop, and each bound loop, is first a home for the deferred
 * copies out of the bound loops inside it (defer.c): their tokens are
 * declared before it and waited for after it. */
#include "lower/lower.h"

Stmt *lower_dma_list(Lower *lw, const Stmt *list, const PassLoop *pass) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) tail = lower_append(tail, lower_dma(lw, s, false, pass));
  return out;
}

Stmt *lower_rebuild(Lower *lw, const Stmt *s, LowerListFn fn, const void *ctx) {
  Stmt *c = lower_shallow(lw, s);
  if (s->low) return c;
  if (s->kind == ST_FOR) {
    c->body = lower_shallow(lw, s->body);
    c->body->body = fn(lw, s->body->body, ctx);
  } else if (s->kind == ST_BLOCK && s->call) {
    /* a call emitted as a call: its function is lowered on its own
     * (lower_program_functions); here its statements stand for what it
     * reads and writes, synchronously */
  } else if (s->kind == ST_BLOCK) {
    c->body = fn(lw, s->body, ctx);
  } else if (s->kind == ST_IF) {
    c->then_s = lower_shallow(lw, s->then_s);
    c->then_s->body = fn(lw, s->then_s->body, ctx);
    if (s->else_s) {
      c->else_s = lower_shallow(lw, s->else_s);
      c->else_s->body = fn(lw, s->else_s->body, ctx);
    }
  }
  return c;
}

static Stmt *dma_list(Lower *lw, const Stmt *list, const void *pass) { return lower_dma_list(lw, list, pass); }

Stmt *lower_plain(Lower *lw, const Stmt *s, const PassLoop *pass) { return lower_rebuild(lw, s, dma_list, pass); }

static Stmt *lower_loop(Lower *lw, const Stmt *s, bool top, const PassLoop *pass) {
  if ((lower_is_copy_nest(s) && lower_one_dma(lw, s, false)) || s->intrin) return lower_shallow(lw, s);
  Stmt *out = NULL, **tail = &out, *body = NULL, **in = &body;
  int from = lw->ndefer, added = 0;
  if (top || s->loop_kind == LOOP_VU) added = lower_plan_defer(lw, s, &tail);
  if (s->loop_kind == LOOP_VU) lower_bound(lw, s, pass, &in);
  else if (!lower_pipeline(lw, s, pass, &in) && !lower_pass_loop(lw, s, pass, &in)) lower_append(in, lower_plain(lw, s, pass));
  if (added) {
    lower_append(tail, lower_defer_block(lw, from, body, s->loc));
    lw->ndefer = from; /* an outer home's waits must not name these tokens, out of scope there */
  } else {
    lower_append(tail, body);
  }
  for (Stmt *n = out; n; n = n->next) n->annots = NULL;
  out->annots = s->annots; /* before all that s became, as before s */
  return out;
}

Stmt *lower_dma(Lower *lw, const Stmt *s, bool top, const PassLoop *pass) {
  if (s->kind == ST_FOR) return lower_loop(lw, s, top, pass);
  if (s->kind == ST_DECL && s->buf && buffer_onchip(s->buf)) return lower_onchip_decl(lw, s);
  if (s->kind == ST_BLOCK && s->call) return lower_call(lw, s);
  return lower_plain(lw, s, pass);
}
