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
  DmaToken t = {.id = ++lw->next_sync_id};
  Stmt *go = lower_start(lw, t, nest, lower_int(lw, 0), NULL, NULL, false);
  go->annots = nest->annots;
  go->next = lower_wait(lw, t, NULL, false, NULL, nest->loc);
  return go;
}

static Stmt *copies_list(Lower *lw, const Stmt *list, const void *ctx) {
  (void)ctx;
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) tail = lower_append(tail, lower_copies(lw, s));
  return out;
}

Stmt *lower_copies(Lower *lw, const Stmt *s) {
  if (lower_is_copy_nest(s) && lower_one_dma(lw, s, false)) return copy_now(lw, s);
  return lower_rebuild(lw, s, copies_list, NULL);
}
