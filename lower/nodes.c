/* Building blocks of the lowering passes: lowered nodes, shallow copies,
 * and the questions the passes ask of copy nests. */
#include <stdio.h>
#include <string.h>

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

Expr *lower_scope_at(Lower *lw, const Buffer *b, const Expr *copy) {
  int64_t c;
  Expr *at = b->offset ? lower_int(lw, b->offset) : NULL;
  if (!copy || (ir_const_int(copy, &c) && c == 0)) return at;
  while (copy->kind == EX_CAST && copy->implicit) copy = copy->a; /* printed with its parentheses, not its cast */
  Expr *which = ARENA_NEW(lw->arena, Expr);
  *which = *copy;
  which->parens = 1; /* `(jo % 2) * 4096`, as a reader expects */
  Expr *past = lower_bin(lw, OP_MUL, which, lower_int(lw, buffer_elems(b) * b->elem->size));
  return at ? lower_bin(lw, OP_ADD, at, past) : past;
}

const char *lower_scope_note(Lower *lw, const Buffer *b, bool two_copies, bool of_each_core) {
  int64_t bytes = buffer_elems(b) * b->elem->size, copies = two_copies ? 2 : 1;
  return arena_printf(lw->arena, "%s%s, bytes [%lld, %lld): %s%lld bytes", b->scope, of_each_core ? " of each core" : "",
                      (long long)b->offset, (long long)(b->offset + copies * bytes), two_copies ? "two copies of " : "",
                      (long long)bytes);
}

Stmt *lower_onchip_decl(Lower *lw, const Stmt *decl) {
  Stmt *c = lower_shallow(lw, decl);
  c->scope_at = lower_scope_at(lw, decl->buf, NULL);
  c->scope_note = lower_scope_note(lw, decl->buf, false, decl->buf->core != NULL);
  return c;
}

Stmt *lower_guard(Lower *lw, Expr *cond, const char *note, SrcLoc loc) {
  Stmt *s = ir_stmt(lw->arena, ST_IF, loc);
  s->cond = cond;
  s->note = note;
  s->plain_cond = true;
  return s;
}

Stmt *lower_view(Lower *lw, const Buffer *b, Expr *copy, bool decl, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_VIEW, loc);
  s->low->view_buf = (Buffer *)b;
  s->low->view_copy = copy;
  s->low->decl = decl;
  s->low->scope_at = lower_scope_at(lw, b, decl ? copy : NULL);
  /* a declaration of its own, or the pointer to both copies (a view of
   * one copy names it: no comment) */
  if (decl || !copy) s->low->scope_note = lower_scope_note(lw, b, decl ? copy != NULL : true, decl && b->core);
  return s;
}

Stmt *lower_tokens(Lower *lw, const char *base, int ndims, int64_t d0, int64_t d1, bool zero, const char *note,
                   SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_TOKENS, loc);
  s->low->token.base = base;
  s->low->ndims = ndims;
  s->low->dims[0] = d0;
  s->low->dims[1] = d1;
  s->low->zero = zero;
  s->note = note ? arena_strdup(lw->arena, note) : NULL;
  return s;
}

Stmt *lower_core_tokens(Lower *lw, const Buffer *b, int64_t cores, bool zero, const char *what, SrcLoc loc) {
  char note[300];
  snprintf(note, sizeof note, "per %score: %s", b->copies == 2 ? "copy, per " : "", what);
  return b->copies == 2 ? lower_tokens(lw, b->db_token, 2, 2, cores, zero, note, loc)
                        : lower_tokens(lw, b->db_token, 1, cores, 0, zero, note, loc);
}

DmaToken lower_token(const char *base, Expr *i0, Expr *i1) {
  DmaToken t = {base, {i0, i1}, i1 ? 2 : i0 ? 1 : 0, 0};
  return t;
}

void *lower_room(Arena *a, void *items, int n, int *cap, size_t size) {
  if (n < *cap) return items;
  *cap = *cap ? 2 * *cap : 16;
  void *grown = arena_alloc(a, size * (size_t)*cap);
  if (n) memcpy(grown, items, size * (size_t)n);
  return grown;
}

/* The same nest (a pass's shallow copy of it shares its body and header). */
static bool same_nest(const Stmt *a, const Stmt *b) {
  return a == b || (a->body == b->body && a->var == b->var && a->lo == b->lo && a->hi == b->hi);
}

/* Copy nest c's DMA with no counter set (the shape of a start ahead is
 * worked out where it is made), once for the whole lowering. */
static const DmaShape *shape_of(Lower *lw, const Stmt *c, bool async) {
  Decided *o = lw->once;
  int i = 0;
  while (i < o->nshapes && !same_nest(o->shapes[i].copy, c)) i++;
  if (i == o->nshapes) {
    o->shapes = lower_room(lw->arena, o->shapes, o->nshapes, &o->shapes_cap, sizeof *o->shapes);
    o->shapes[o->nshapes++] = (KnownShape){c, lower_dma_shape(lw->arena, c, NULL, NULL, false)};
  }
  const DmaShape *d = o->shapes[i].shape;
  return d && !(async && d->nhost) ? d : NULL; /* one token is one DMA: no host loops */
}

bool lower_one_dma(Lower *lw, const Stmt *c, bool async) { return shape_of(lw, c, async); }

Stmt *lower_start(Lower *lw, DmaToken t, const Stmt *c, Expr *channel, const Var *at, Expr *value, bool named) {
  Stmt *s = lower_node(lw, LOW_DMA_START, c->loc);
  s->low->token = t;
  s->low->copy = c;
  s->low->shape = at ? lower_dma_shape(lw->arena, c, at, value, t.base != NULL) : shape_of(lw, c, t.base != NULL);
  s->low->channel = channel;
  s->low->at_var = at;
  s->low->at_value = value;
  s->low->named = named;
  return s;
}

Stmt *lower_wait(Lower *lw, DmaToken t, Expr *guard, bool if_issued, const char *note, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_DMA_WAIT, loc);
  s->low->token = t;
  s->low->guard = guard;
  s->low->if_issued = if_issued;
  s->note = note ? arena_strdup(lw->arena, note) : NULL;
  return s;
}

static const SrcLoc nowhere = {0, 0};

Expr *lower_int(Lower *lw, int64_t v) { return ir_int(lw->arena, v, &ty_int, nowhere); }

Expr *lower_var(Lower *lw, const Var *v) { return ir_var(lw->arena, (Var *)v, nowhere); }

Expr *lower_bin(Lower *lw, Op op, Expr *a, Expr *b) { return ir_binary(lw->arena, op, a, b, &ty_int, nowhere); }

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

bool lower_holds_copy(const Stmt *s) {
  CopyScan c = {NULL, 0, false};
  ir_walk_one(s, scan_copy, &c);
  return c.found;
}

bool lower_has_copy(const Stmt *list, const Stmt *const *skip, int nskip) {
  CopyScan c = {skip, nskip, false};
  for (const Stmt *s = list; s && !c.found; s = s->next) {
    bool skipped = false;
    for (int i = 0; i < nskip; i++) skipped |= s == skip[i];
    if (!skipped) ir_walk_one(s, scan_copy, &c);
  }
  return c.found;
}

void lower_comment_lines(StrBuf *sb, const char *text) { sb_lines(sb, text, "  "); }
