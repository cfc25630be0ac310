/* The lowering phase's driver: its passes, in order, over each top-level
 * statement of the kernel, then the unused names and the tensorized
 * nests' calls over the whole body (docs/lowering.md). The tidying pass
 * (lower/tidy.c) comes first (loops of one pass) and last (per-core
 * waits, repeated subexpressions). */
#include "lower/lower.h"
#include "lower/tidy.h"

/* Top-level statement s lowered: the DMA pass, the copies left
 * synchronous, then a loop nest's note. */
static Stmt *lower_top(Lower *lw, const Stmt *s) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *n = lower_dma(lw, s, true, NULL); n; n = n->next) tail = lower_append(tail, lower_copies(lw, n));
  /* a block with a name: a loop of one pass (lower/tidy.c) */
  bool nest = s->kind == ST_FOR || (s->kind == ST_BLOCK && s->name && !s->call);
  return nest ? lower_nest_note(lw, s, out) : out;
}

/* The phase, tidied (lower/tidy.c) or not (the kernel as written prints
 * as its source). */
static Kernel *lower_with(Arena *a, const Kernel *k, const NpuTarget *target, bool tidy) {
  NpuTarget def;
  if (!target) {
    npusim_target_default(&def);
    target = &def;
  }
  if (tidy) k = lower_tidy_loops(a, k); /* first: the passes work out their C text from folded indices */
  Decided once = {0};
  Lower lw = {.arena = a, .k = k, .max_tokens = target->dma_max_tokens,
              .channels = target->dma_channels > 0 ? (int)target->dma_channels : 1,
              .queue_depth = target->cu_queue_depth,
              .target_name = arena_strdup(a, target->name), .once = &once};
  Kernel *out = ARENA_NEW(a, Kernel);
  *out = *k;
  out->body = ir_stmt(a, ST_BLOCK, k->body->loc);
  Stmt *body = NULL, **tail = &body;
  for (const Stmt *s = k->body->body; s; s = s->next) tail = lower_append(tail, lower_top(&lw, s));
  out->body->body = lower_intrinsics(&lw, lower_unused(&lw, body));
  lower_hold_core_counts(&lw, out->body->body);
  if (tidy) out->body->body = lower_tidy_code(&lw, out, out->body->body); /* last: over all they made */
  return out;
}

Kernel *lower_kernel(Arena *a, const Kernel *k, const NpuTarget *target) { return lower_with(a, k, target, true); }

Kernel *lower_kernel_as_written(Arena *a, const Kernel *k, const NpuTarget *target) {
  return lower_with(a, k, target, false);
}

const Kernel *lower_for_order(Arena *a, const Kernel *k, const Kernel *lowered, const NpuTarget *target, EmitOrder o,
                              char *why, size_t n) {
  why[0] = '\0';
  if (!lowered) lowered = lower_checked(a, k, target, why, n);
  return o == EMIT_ORDER_SOURCE ? lowered : lower_order(a, lowered, o);
}

Kernel *lower_checked(Arena *a, const Kernel *k, const NpuTarget *target, char *why, size_t n) {
  NpuTarget def;
  if (!target) {
    npusim_target_default(&def);
    target = &def;
  }
  Kernel *low = lower_kernel(a, k, target);
  if (lower_check_sync(low, target->dma_max_tokens, why, n)) why[0] = '\0';
  return low;
}
