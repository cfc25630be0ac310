/* What the check's C of a variant changes (LowerUnit.order, .cu_hooks;
 * docs/check.md): which loops run in a permuted order, and which accesses
 * of host code go through the control unit's hook. */
#include "lower/lower.h"

/* A marked loop (parallel, vectorize, bind): its iterations are proven
 * independent, so the check runs them in other orders too. An intrinsic
 * or a DMA is one instruction: it is never asked. */
bool lower_permutable(const Stmt *loop) {
  return loop->loop_kind == LOOP_PARALLEL || loop->loop_kind == LOOP_VECTORIZE || loop->loop_kind == LOOP_VU;
}

/* An element of an on-chip buffer or a parameter: a DMA may touch it, so
 * the simulator times its host accesses and checks them against DMAs in
 * flight. Locals of the host (C scalars and arrays) are the host's: their
 * host accesses are not hooked (those a DMA reaches are declared to the
 * simulator, lower_declares_locals). */
bool lower_cu_hooked(const Buffer *b) { return buffer_onchip(b) || b->role != ROLE_LOCAL; }

static bool copies_a_local(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if (st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->rhs->kind == EX_LOAD) {
    const Buffer *d = st->lhs->buf, *s = st->rhs->buf;
    *found |= (d->role == ROLE_LOCAL && !buffer_onchip(d)) || (s->role == ROLE_LOCAL && !buffer_onchip(s));
  }
  return !*found;
}

static bool dma_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if (st->kind == ST_BLOCK && st->call) *found = true; /* a callee's DMAs may reach the caller's arrays */
  else if (st->kind == ST_FOR && st->loop_kind == LOOP_DMA) ir_walk_stmts(st->body, copies_a_local, found);
  return !*found;
}

bool lower_declares_locals(const Kernel *k) {
  bool found = false;
  ir_walk_stmts(k->body, dma_visit, &found);
  return found;
}
