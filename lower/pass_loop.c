/* Pass loops around bound loops (part of the DMA pass).
 *
 * A loop P whose body holds a bound loop L that fits the phases, with
 * double-buffered read caches (their copies alternate by pass) or read
 * caches that load the same region in every pass (loaded once): before P
 * come their token arrays and the loads of the first pass (into copy 0)
 * and of the resident ones, then L's phases (lower/bound.c) load one pass
 * ahead and skip the resident ones. Not such a loop when L does not fit
 * the phases, has no such buffer or its loads ahead do not fit the
 * target's DMAs in flight (then after a note that says so; a copy out L's
 * plan leaves synchronous is said where it is planned, here or before). */
#include <stdio.h>
#include <string.h>

#include "lower/bound.h"

typedef struct {
  const Buffer *b;
  const Stmt *skip; /* writes: the load's copy statement */
  const Var *v;     /* uses_var: the pass counter */
  bool found;
} Find;

static bool find_write(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  if (st != f->skip && st->kind == ST_ASSIGN && st->lhs->kind == EX_LOAD && st->lhs->buf == f->b) f->found = true;
  return !f->found;
}

static bool find_var(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Find *f = ctx;
  if (ir_stmt_uses(st, f->v, NULL)) f->found = true;
  return !f->found;
}

/* A load of bound loop L, in pass loop P, that brings the same region in
 * every pass into bytes nothing else writes: it can be loaded once, before
 * P. Its region does not use P's counter, nothing under P writes its
 * source, and nothing but the load writes the buffer. No other buffer
 * shares its bytes while P runs: nothing in P but L uses on-chip memory
 * (ir_other_onchip_user, checked by the caller), and placement keeps L's
 * buffers, all live with b, apart. */
static bool loads_once(const Stmt *P, const Stmt *load, const Buffer *b) {
  if (b->copies > 1) return false;
  Find uses = {.v = P->var}, src = {.b = ir_nest_leaf(load)->rhs->buf}, dst = {.b = b, .skip = ir_nest_leaf(load)};
  ir_walk_one(load, find_var, &uses);
  ir_walk_stmts(P->body, find_write, &src);
  ir_walk_stmts(P->body, find_write, &dst);
  return !uses.found && !src.found && !dst.found;
}

static const Stmt *bound_in(const Stmt *P) {
  for (const Stmt *c = P->body->body; c; c = c->next)
    if (c->kind == ST_FOR && c->loop_kind == LOOP_VU) return c;
  return NULL;
}

/* P's copy with its body lowered inside pass loop pl. */
static Stmt *pass_copy(Lower *lw, const Stmt *P, const PassLoop *pl, const char *order_note) {
  Stmt *loop = lower_plain(lw, P, pl);
  loop->annots = NULL;
  loop->order_note = order_note;
  return loop;
}

/* Before the passes: the token arrays of the loads ahead and once, and
 * the first pass's loads (into copy 0) and the resident ones. */
static Stmt **first_loads(Lower *lw, const PassLoop *pl, const Body *b, const Loads *loads, int64_t cores, Stmt **in) {
  const Stmt *P = pl->P, *L = pl->L;
  char note[300];
  for (int i = 0; i < b->n; i++) {
    const Buffer *lb = b->buf[i];
    if (b->kind[i] != B_LOAD || (!lower_by_pass(pl, L, lb) && !lower_resident(pl, L, lb))) continue;
    if (lower_by_pass(pl, L, lb)) snprintf(note, sizeof note, "the load of %s", lb->name);
    else snprintf(note, sizeof note, "the load of %s, the same in every pass of %s", lb->name, P->name);
    in = lower_append(in, lower_core_tokens(lw, lb, cores, false, note, lb->loc));
  }
  int first = loads->ahead + loads->once;
  Stmt *loop = lower_core_loop(lw, L, loads->ahead ? "loaded ahead: the first pass's regions, into copy 0"
                                                   : "loaded ahead: the first pass's regions", false);
  Stmt **at = &loop->body->body;
  Expr *runs = ir_trips(lw->arena, P).runs; /* NULL: a constant count, at least 1 (P holds L) */
  int nth = 0;
  for (int i = 0; i < b->n; i++) {
    if (b->kind[i] != B_LOAD) continue;
    bool alt = lower_by_pass(pl, L, b->buf[i]);
    if (!alt && !lower_resident(pl, L, b->buf[i])) continue;
    at = lower_append(at, lower_view(lw, b->buf[i], alt ? lower_int(lw, 0) : NULL, true, b->st[i]->loc));
    at = lower_issue(lw, pl, b->st[i], b->buf[i], L, nth++ % 2, first == 1, alt ? lower_int(lw, 0) : NULL,
                     alt ? P->lo : NULL, at);
  }
  if (!runs) return lower_append(in, loop);
  /* a pass count in the sizes: P may not run, and then loads nothing */
  Stmt *guard = lower_guard(lw, runs, "the passes run: the first pass's regions", P->loc);
  guard->then_s = ir_stmt(lw->arena, ST_BLOCK, P->loc);
  guard->then_s->body = loop;
  return lower_append(in, guard);
}

/* Why P loads nothing ahead: its loads ahead do not fit (and so its
 * double-buffered buffers do nothing). */
static Stmt *nothing_ahead(Lower *lw, const Stmt *P, const Body *b, Need need) {
  char why[400], note[1200];
  int n = snprintf(note, sizeof note, "pass loop %s loads nothing ahead", P->name);
  for (int i = 0; i < b->n && n < (int)sizeof note; i++)
    if (b->kind[i] == B_DECL && b->st[i]->buf->copies == 2)
      n += snprintf(note + n, sizeof note - (size_t)n, ", double_buffer(%s) does nothing here", b->st[i]->buf->name);
  if (n < (int)sizeof note)
    snprintf(note + n, sizeof note - (size_t)n, ": loading ahead %s", lower_no_room(lw, need, why, sizeof why));
  return lower_note(lw, P->loc, note);
}

bool lower_pass_loop(Lower *lw, const Stmt *P, const PassLoop *around, Stmt ***tail) {
  const Stmt *L = bound_in(P);
  /* P's counter is the pass number (0 the first, P + 1 the next): P runs
   * from 0 by 1, a constant number of passes or one in the sizes (the
   * copy is the pass's parity either way) */
  int64_t lo, cores;
  if (!L || around || !ir_const_int(P->lo, &lo) || lo != 0 || P->step != 1 || !ir_trip_count(L, &cores) ||
      ir_other_onchip_user(P, L))
    return false;
  /* classify L as lower_bound will: with the copies out L's own plan
   * defers, planned on a copy of the pass's state (L plans them again,
   * the same, when it is lowered) */
  Lower with_l = *lw;
  lower_plan_defer(&with_l, L, tail);
  Body b;
  int count[3];
  bool fit = lower_classify(&with_l, L, &b) && lower_phases_fit(L, &b, count);
  /* L's double-buffered copies out alternate across passes when deferred
   * over a nest around P; deferred at L they are waited for every pass */
  int64_t deferred_tokens = lower_in_flight(&with_l) - lower_in_flight(lw), alt_stores = 0;
  for (int i = 0; i < lw->ndefer; i++) alt_stores += lw->defer[i].loop == L && lw->defer[i].b->copies == 2;
  if (!fit) return false;
  int alternate = 0; /* per-core buffers with two copies */
  for (int i = 0; i < b.n; i++) alternate += b.kind[i] == B_DECL && b.st[i]->buf->copies == 2;
  PassLoop pl = {P, L, {NULL}, 0};
  for (int i = 0; i < b.n; i++)
    if (b.kind[i] == B_LOAD && loads_once(P, b.st[i], b.buf[i]) &&
        pl.nresident < (int)(sizeof pl.resident / sizeof pl.resident[0]))
      pl.resident[pl.nresident++] = b.buf[i];
  /* in flight: each core's loads of this pass and of the next (the
   * double-buffered ones), its resident loads until the first pass's
   * compute, its copies out (two of a double-buffered one: this pass's and
   * the last's), and L's other loads */
  Loads loads = lower_count_loads(&pl, &b);
  int64_t held = cores * (2 * loads.ahead + loads.once + alt_stores);
  Need need = {deferred_tokens + held + cores * loads.now, lower_compute_copies(&b)};
  if ((!alternate && !pl.nresident) || !lower_grant(lw, P->body, need, NULL)) {
    if (alternate || pl.nresident) *tail = lower_append(*tail, nothing_ahead(lw, P, &b, need));
    return false;
  }
  lw->held += held;
  if (!loads.ahead && !loads.once) {
    /* only copies out alternate: nothing to load ahead. A core waits for
     * its last copy out of a copy before writing it, in any order of the
     * passes: P may be permuted */
    *tail = lower_append(*tail, pass_copy(lw, P, &pl, NULL));
  } else {
    Stmt *block = ir_stmt(lw->arena, ST_BLOCK, P->loc), **in = &block->body;
    in = first_loads(lw, &pl, &b, &loads, cores, in);
    lower_append(in, pass_copy(lw, P, &pl, "each pass loads the next one's regions"));
    *tail = lower_append(*tail, block);
  }
  lw->held -= held;
  return true;
}
