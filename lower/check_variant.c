/* What the check's C of a variant changes (EmitUnit.order, .cu_hooks;
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
 * flight. Locals of the host (C scalars and arrays) no DMA can touch. */
bool lower_cu_hooked(const Buffer *b) { return buffer_onchip(b) || b->role != ROLE_LOCAL; }
