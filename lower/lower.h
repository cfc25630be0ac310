/* The lowering phase: scheduled IR -> explicit IR (docs/lowering.md).
 *
 * Between schedule/ and emit/. Its passes turn cache copies and
 * double_buffer marks into DMA starts and waits with tokens, views of
 * double-buffered buffers and notes for marks that do nothing; each pass
 * takes IR and returns IR, sharing the statements it does not change
 * (the scheduled IR is never modified). The lowered nodes are described in
 * ir/ir.h (LowKind). lower_check_sync then checks the synchronisation of
 * the result statically.
 *
 * Not lowered yet: top-level statements that hold a loop bound to the VU
 * cores (their phases, pass loops and deferred copies out are still
 * planned by emit/emit_c.c); they are left as they are. */
#ifndef NPG_LOWER_H
#define NPG_LOWER_H

#include "ir/ir.h"
#include "sim/npusim.h"

/* What the passes need from the target, and their shared counters. */
typedef struct {
  Arena *arena;           /* the lowered nodes' */
  const Kernel *k;        /* the scheduled kernel */
  int64_t max_tokens;     /* DMAs in flight the target allows */
  int channels;           /* DMA channels */
  const char *target_name;
  int next_sync_id;       /* ids of copies waited for where they start */
} Lower;

/* The whole phase: a new kernel (sharing k's unchanged parts), in a. */
Kernel *lower_kernel(Arena *a, const Kernel *k, const NpuTarget *target);

/* ---- passes (one a file) ---- */
/* Each pass rewrites statement s (alone, not its siblings) and returns
 * the list it becomes. */
/* lower/pipeline.c: each loop whose body declares double-buffered buffers
 * -> its copies' starts one iteration ahead and the waits; notes where
 * double_buffer does nothing. `held`: DMAs in flight around s. */
Stmt *lower_pipelines(Lower *lw, const Stmt *s, int64_t held);
/* lower/copies.c: every other copy nest that is one DMA (with host loops
 * around it, when needed) -> a start and its wait at once. */
Stmt *lower_copies(Lower *lw, const Stmt *s);

/* ---- shared by the passes (lower/nodes.c) ---- */
Stmt *lower_node(Lower *lw, LowKind kind, SrcLoc loc);
Stmt *lower_note(Lower *lw, SrcLoc loc, const char *text);
/* a shallow copy of s, alone (next NULL) */
Stmt *lower_shallow(Lower *lw, const Stmt *s);
/* Appends s (a list) at *tail; returns the new tail. */
Stmt **lower_append(Stmt **tail, Stmt *s);
/* A copy nest (cache.c's LOOP_DMA, or a plain serial copy between DDR and
 * an on-chip buffer or two on-chip buffers). */
bool lower_is_copy_nest(const Stmt *loop);
/* Copy nest c prints as one DMA: async (one call, a token) or not (host
 * loops may go around the call). */
bool lower_one_dma(Arena *scratch, const Stmt *c, bool async);
/* A copy nest under list (not those in skip[]). */
bool lower_has_copy(const Stmt *list, const Stmt *const *skip, int nskip);
/* A loop bound to the VU cores in s (s alone, not its siblings). */
bool lower_holds_bound(const Stmt *s);

/* ---- the static synchronisation check (lower/sync_check.c) ---- */
/* Every read of an on-chip buffer a DMA fills comes after that DMA's
 * wait on every path; no buffer is written while a DMA reading or writing
 * it is in flight; a token is not started again while in flight; at most
 * max_tokens in flight; none left at the end. False with the first
 * violation (buffer and lines) in why. */
bool lower_check_sync(const Kernel *lowered, int64_t max_tokens, char *why, size_t n);

#endif
