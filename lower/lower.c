/* The lowering phase's driver: its passes, in order, over each top-level
 * statement of the kernel (docs/lowering.md). */
#include "lower/lower.h"

/* Each pass maps a list, statement by statement. */
static Stmt *each(Lower *lw, const Stmt *list, Stmt *(*pass)(Lower *, const Stmt *)) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) tail = lower_append(tail, pass(lw, s));
  return out;
}

/* Top-level statement s lowered; the first node names s (emit/'s nest
 * comment), the others continue it. A statement holding a bound loop is
 * left as it is: emit/ plans its DMA still. */
static Stmt *lower_top(Lower *lw, const Stmt *s) {
  if (lower_holds_bound(s)) return lower_shallow(lw, s);
  Stmt *out = each(lw, lower_pipelines(lw, s, 0), lower_copies);
  for (Stmt *n = out; n; n = n->next) {
    n->from = n == out ? s : NULL;
    n->continued = n != out;
  }
  return out;
}

Kernel *lower_kernel(Arena *a, const Kernel *k, const NpuTarget *target) {
  NpuTarget def;
  if (!target) {
    npusim_target_default(&def);
    target = &def;
  }
  Lower lw = {a, k, target->dma_max_tokens, target->dma_channels > 0 ? (int)target->dma_channels : 1,
              arena_strdup(a, target->name), 0};
  Kernel *out = ARENA_NEW(a, Kernel);
  *out = *k;
  out->body = ir_stmt(a, ST_BLOCK, k->body->loc);
  out->body->body = each(&lw, k->body->body, lower_top);
  return out;
}
