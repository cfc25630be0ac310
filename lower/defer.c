/* Deferred copies out of bound loops (part of the DMA pass).
 *
 * bind(loop, vu): iteration i runs on VU core i while the control unit
 * goes on to the next core. A copy out of a core's buffer (a cache_write's
 * store) is not waited for where it is issued, which would stall the
 * control unit until that core finished: its token is kept per core and
 * waited for just before the core writes the buffer again (in the next
 * pass) and after `home`, the outermost loop inside which nothing else uses
 * the copy's destination and no other VM buffer could share the buffer's
 * bytes. */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"
#include "schedule/sched.h"

typedef struct {
  const Stmt *skip, *inside;
  const Buffer *b;
  bool found;
  const Stmt *partner; /* a fill of the same box, apart across iterations (ir_store_partner_apart) */
} Scan;

/* A statement outside skip that uses b: a declaration too, whose
 * initializer may read it (`float v = x_vm[i];`). */
static bool scan_use(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Scan *u = ctx;
  if (u->skip && (st == u->skip || sched_encloses(u->skip, st))) return true;
  if (u->partner && (st == u->partner || sched_encloses(u->partner, st))) return true;
  if (ir_stmt_uses(st, NULL, u->b)) u->found = true;
  return !u->found;
}

/* A vu_vm buffer declared outside loop `inside`. */
static bool scan_vm_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Scan *u = ctx;
  if (st->kind == ST_DECL && st->buf && st->buf->scope && !strcmp(st->buf->scope, "vu_vm") &&
      !sched_encloses(u->inside, st))
    u->found = true;
  return !u->found;
}

bool lower_stmt_uses(const Stmt *c, const Buffer *b) {
  Scan u = {NULL, NULL, b, false, NULL};
  ir_walk_one(c, scan_use, &u);
  return u.found;
}

const Buffer *lower_bound_copy(Lower *lw, const Stmt *c, const Stmt *L, bool *load) {
  if (!lower_is_copy_nest(c)) return NULL;
  const Stmt *leaf = ir_nest_leaf(c);
  if (!leaf || leaf->op != OP_NONE) return NULL;
  const Buffer *dst = leaf->lhs->buf, *src = leaf->rhs->buf;
  if ((dst->core == L->var) == (src->core == L->var)) return NULL;
  *load = dst->core == L->var;
  return lower_one_dma(lw, c, true) ? (*load ? dst : src) : NULL;
}

const Deferred *lower_deferred(const Lower *lw, const Stmt *store, const Buffer *decl) {
  for (int i = 0; i < lw->ndefer; i++)
    if ((store && lw->defer[i].store == store) || (decl && lw->defer[i].b == decl)) return &lw->defer[i];
  return NULL;
}

/* Plans the deferred stores of the bound loops under home (home included)
 * that no outer home took; counts them in added. */
typedef struct {
  Lower *lw;
  const Stmt *home;
  Stmt ***tail; /* notes on copies out left synchronous */
  int added;
} Plan;

static void plan_store(Plan *p, const Stmt *L, const Stmt *c, const Buffer *b, int64_t cores) {
  Lower *lw = p->lw;
  Scan dst = {c, NULL, ir_nest_leaf(c)->lhs->buf, false, ir_store_partner_apart(p->home, L, c)};
  Scan vm = {NULL, L, NULL, false, NULL};
  ir_walk_stmts(p->home->body, scan_use, &dst);
  ir_walk_stmts(p->home->body, scan_vm_decl, &vm);
  if (dst.found || vm.found) return;
  /* one per core: a pass loop that alternates a double-buffered one's
   * copies holds the second (lower/pass_loop.c); the home may hold
   * synchronous copies anywhere */
  Need need = {cores, true};
  bool decided;
  if (!lower_grant(lw, c, need, &decided)) {
    char why[300], text[500];
    if (decided) return; /* said where it was first planned */
    snprintf(text, sizeof text, "the copies out of %s are waited for where they are issued: deferring them %s", b->name,
             lower_no_room(lw, need, why, sizeof why));
    *p->tail = lower_append(*p->tail, lower_note(lw, c->loc, text));
    return;
  }
  lw->defer[lw->ndefer++] = (Deferred){c, L, b, cores, p->home};
  p->added++;
}

static bool plan_bound(Stmt *L, int depth, void *ctx) {
  (void)depth;
  Plan *p = ctx;
  Lower *lw = p->lw;
  if (L->kind != ST_FOR || L->loop_kind != LOOP_VU) return true;
  if (L->body == p->home->body) L = (Stmt *)p->home; /* the real statement, not the walk's copy */
  int64_t cores; /* bind: L counts 0, 1, ..., one iteration per core (schedule/bind.c) */
  ir_trip_count(L, &cores);
  for (const Stmt *c = L->body->body; c; c = c->next) {
    bool load;
    const Buffer *b = lower_bound_copy(lw, c, L, &load);
    if (b && !load && !lower_deferred(lw, c, NULL) && lw->ndefer < LOWER_MAX_DEFER) plan_store(p, L, c, b, cores);
  }
  return true;
}

int lower_plan_defer(Lower *lw, const Stmt *home, Stmt ***tail) {
  Plan p = {lw, home, tail, 0};
  ir_walk_one(home, plan_bound, &p);
  return p.added;
}

static DmaToken token_at(const Buffer *b, int64_t copy, int64_t core, Lower *lw) {
  if (b->copies == 2) return lower_token(b->db_token, lower_int(lw, copy), lower_int(lw, core));
  return lower_token(b->db_token, lower_int(lw, core), NULL);
}

Stmt *lower_defer_block(Lower *lw, int from, Stmt *body, SrcLoc loc) {
  Stmt *block = ir_stmt(lw->arena, ST_BLOCK, loc), **tail = &block->body;
  for (int i = from; i < lw->ndefer; i++) {
    const Buffer *b = lw->defer[i].b;
    int64_t cores;
    ir_trip_count(lw->defer[i].loop, &cores);
    char what[200];
    snprintf(what, sizeof what, "the copy out of %s not yet waited for", b->name);
    tail = lower_append(tail, lower_core_tokens(lw, b, cores, true, what, loc));
  }
  tail = lower_append(tail, body);
  for (int i = from; i < lw->ndefer; i++) {
    const Buffer *b = lw->defer[i].b;
    int64_t cores;
    ir_trip_count(lw->defer[i].loop, &cores);
    for (int k = 0; k < (b->copies == 2 ? 2 : 1); k++)
      for (int64_t c = 0; c < cores; c++) tail = lower_append(tail, lower_wait(lw, token_at(b, k, c, lw), NULL, true, NULL, loc));
  }
  return block;
}
