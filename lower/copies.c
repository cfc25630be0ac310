/* Pass: a copy nest left synchronous -> dma_start and, at once, its wait.
 *
 *   for ii: for k: A_ib_load: A_ib[ii][k] = A[io * 64 + ii][k]
 * becomes
 *   dma_start(%dma3, A_ib[ii][k] <- A[io * 64 + ii][k] for ii < 64, k < 512, channel 0)
 *   dma_wait(%dma3)
 *
 * The pair shares a token of its own (an id, no name): emit/ prints it as
 * one call waited for where it is issued. A nest that is not one DMA (a
 * shape a later step made) stays the copy loop it is. Runs after the DMA
 * pass (lower/walk.c), which has taken the copies that overlap. */
#include "lower/lower.h"

static Stmt *copy_now(Lower *lw, const Stmt *nest) {
  int id = ++lw->next_sync_id;
  Stmt *go = lower_node(lw, LOW_DMA_START, nest->loc), *done = lower_node(lw, LOW_DMA_WAIT, nest->loc);
  go->low->token.id = done->low->token.id = id;
  go->low->copy = nest;
  go->low->shape = lower_dma_shape(lw->arena, nest, NULL, NULL, false);
  go->low->channel = ir_int(lw->arena, 0, &ty_int, nest->loc);
  go->annots = nest->annots;
  go->next = done;
  return go;
}

static Stmt *copies_list(Lower *lw, const Stmt *list) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) tail = lower_append(tail, lower_copies(lw, s));
  return out;
}

Stmt *lower_copies(Lower *lw, const Stmt *s) {
  if (s->kind == ST_FOR && lower_is_copy_nest(s) && lower_one_dma(lw->arena, s, false)) return copy_now(lw, s);
  Stmt *c = lower_shallow(lw, s);
  if (s->kind == ST_FOR) {
    c->body = lower_shallow(lw, s->body);
    c->body->body = copies_list(lw, s->body->body);
  } else if (s->kind == ST_BLOCK && !s->low) {
    c->body = copies_list(lw, s->body);
  } else if (s->kind == ST_IF) {
    c->then_s = lower_shallow(lw, s->then_s);
    c->then_s->body = copies_list(lw, s->then_s->body);
    if (s->else_s) {
      c->else_s = lower_shallow(lw, s->else_s);
      c->else_s->body = copies_list(lw, s->else_s->body);
    }
  }
  return c;
}
