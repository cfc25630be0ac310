/* Building blocks of the lowering passes: lowered nodes, shallow copies,
 * and the questions the passes ask of copy nests. */
#include <string.h>

#include "emit/emit.h"
#include "lower/lower.h"
#include "schedule/sched.h"

Stmt *lower_node(Lower *lw, LowKind kind, SrcLoc loc) {
  Stmt *s = ir_stmt(lw->arena, ST_BLOCK, loc);
  s->low = ARENA_NEW(lw->arena, Lowered);
  memset(s->low, 0, sizeof *s->low);
  s->low->kind = kind;
  return s;
}

Stmt *lower_note(Lower *lw, SrcLoc loc, const char *text) {
  Stmt *s = lower_node(lw, LOW_NOTE, loc);
  s->note = arena_strdup(lw->arena, text);
  return s;
}

Stmt *lower_shallow(Lower *lw, const Stmt *s) {
  Stmt *c = ARENA_NEW(lw->arena, Stmt);
  *c = *s;
  c->next = NULL;
  return c;
}

Stmt **lower_append(Stmt **tail, Stmt *s) {
  *tail = s;
  while (*tail) tail = &(*tail)->next;
  return tail;
}

/* A local array lives in the control unit's memory, not in DDR: no DMA reaches it. */
static bool dma_addressable(const Buffer *b) { return buffer_onchip(b) || b->role != ROLE_LOCAL; }

/* A plain serial copy nest between a DDR array (a parameter) and an
 * on-chip buffer (or two on-chip buffers), such as a reduction's init from
 * a bias vector after decompose_reduction: the control unit does not store
 * into unit buffers element by element, so it becomes a DMA like the
 * caches' copies. */
static bool onchip_copy(const Stmt *loop) {
  const Stmt *leaf = ir_nest_leaf(loop);
  if (!leaf || leaf->op != OP_NONE || (!buffer_onchip(leaf->lhs->buf) && !buffer_onchip(leaf->rhs->buf))) return false;
  if (!dma_addressable(leaf->lhs->buf) || !dma_addressable(leaf->rhs->buf)) return false;
  for (const Stmt *l = loop; l && l->kind == ST_FOR; l = ir_nest_inner(l))
    if (l->loop_kind != LOOP_SERIAL || l->intrin || l->annots) return false;
  return true;
}

bool lower_is_copy_nest(const Stmt *loop) {
  return loop->kind == ST_FOR && (loop->loop_kind == LOOP_DMA || onchip_copy(loop));
}

/* The shape rules live with the printer of the call (emit/emit_dma.c):
 * the nest is printed to nowhere. */
bool lower_one_dma(Arena *scratch, const Stmt *c, bool async) {
  StrBuf dry;
  sb_init(&dry);
  DmaAsync as = {"t", "0", NULL, NULL};
  bool one = emit_dma_copy(&dry, scratch, c, 0, async ? &as : NULL);
  sb_free(&dry);
  return one;
}

typedef struct {
  const Stmt *const *skip;
  int nskip;
  bool found;
} CopyScan;

static bool scan_copy(Stmt *st, int depth, void *ctx) {
  (void)depth;
  CopyScan *c = ctx;
  for (int i = 0; i < c->nskip; i++)
    if (st == c->skip[i] || sched_encloses(c->skip[i], st)) return true;
  if (lower_is_copy_nest(st)) c->found = true;
  return !c->found;
}

bool lower_has_copy(const Stmt *list, const Stmt *const *skip, int nskip) {
  CopyScan c = {skip, nskip, false};
  for (const Stmt *s = list; s && !c.found; s = s->next) {
    bool skipped = false;
    for (int i = 0; i < nskip; i++) skipped |= s == skip[i];
    if (skipped) continue;
    Stmt one = *s; /* walked alone: its siblings are the loop's */
    one.next = NULL;
    ir_walk_stmts(&one, scan_copy, &c);
  }
  return c.found;
}

static bool find_bound(Stmt *st, int depth, void *ctx) {
  (void)depth;
  if (st->kind == ST_FOR && st->loop_kind == LOOP_VU) *(bool *)ctx = true;
  return !*(bool *)ctx;
}

bool lower_holds_bound(const Stmt *s) {
  bool found = false;
  Stmt one = *s;
  one.next = NULL;
  ir_walk_stmts(&one, find_bound, &found);
  return found;
}
