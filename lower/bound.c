/* Loops bound to the VU cores (part of the DMA pass).
 *
 * The body runs as phases, each a loop over the cores: every core's loads
 * (issued, not waited for), then every core's compute (after waiting for
 * its loads and for its last copy out of a buffer it writes again), then
 * every core's copies out. The control unit so keeps all cores busy rather
 * than waiting on one core's loads before issuing to the next. The
 * iterations are independent (bind proved it, again after every step), so
 * running the body phase by phase over the cores changes nothing but the
 * order of issue. A loaded buffer is never a deferred store (its load
 * uses the store's destination: lower/defer.c). Inside a pass loop
 * (lower/pass_loop.c), a read cache whose copies alternate is loaded one
 * pass ahead: the loads phase fills the other copy with the next pass's
 * region, after this pass's other loads; a resident one is not loaded here
 * at all. A body of another shape, or one whose loads do not fit the
 * target's DMAs in flight, runs one core after another, its loads
 * synchronous and its copies out deferred. */
#include <stdio.h>
#include <string.h>

#include "lower/bound.h"

/* A per-core buffer of bound loop L whose two copies alternate by pass. */
bool lower_by_pass(const PassLoop *pass, const Stmt *L, const Buffer *b) {
  return pass && pass->L == L && b->copies == 2 && b->core == L->var;
}

/* A read cache of bound loop L loaded once, before the pass loop. */
bool lower_resident(const PassLoop *pass, const Stmt *L, const Buffer *b) {
  for (int i = 0; pass && pass->L == L && i < pass->nresident; i++)
    if (pass->resident[i] == b) return true;
  return false;
}

/* The copy of per-core buffer b of bound loop L: NULL when b has one;
 * this pass's (with next: the next pass's) when its copies alternate by
 * pass; else copy 0. */
Expr *lower_copy_of(Lower *lw, const PassLoop *pass, const Stmt *L, const Buffer *b, bool next) {
  if (b->copies < 2) return NULL;
  if (!lower_by_pass(pass, L, b)) return lower_int(lw, 0);
  Expr *p = lower_var(lw, pass->P->var);
  if (next) p = lower_bin(lw, OP_ADD, p, lower_int(lw, 1));
  return lower_bin(lw, OP_MOD, p, lower_int(lw, 2));
}

/* b's token for one core: b_tok[core], or b_tok[copy][core]. */
DmaToken lower_core_token(Lower *lw, const Buffer *b, Expr *copy, const Var *core) {
  return copy ? lower_token(b->db_token, copy, lower_var(lw, core)) : lower_token(b->db_token, lower_var(lw, core), NULL);
}

bool lower_classify(Lower *lw, const Stmt *L, Body *b) {
  b->n = 0;
  b->loop = L;
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (b->n == BOUND_MAX) return false;
    bool load = false;
    const Buffer *cb = c->kind == ST_DECL ? NULL : lower_bound_copy(lw, c, L, &load);
    b->st[b->n] = c;
    b->buf[b->n] = load ? cb : NULL;
    b->kind[b->n++] = c->kind == ST_DECL             ? B_DECL
                      : load && cb                   ? B_LOAD
                      : lower_deferred(lw, c, NULL) ? B_STORE
                                                     : B_COMPUTE;
  }
  return true;
}

bool lower_phases_fit(const Stmt *L, const Body *b, int count[3]) {
  BoundKind last = B_LOAD;
  count[0] = count[1] = count[2] = 0;
  for (int i = 0; i < b->n; i++) {
    if (b->kind[i] == B_DECL) {
      if (!b->st[i]->buf || b->st[i]->buf->core != L->var) return false;
      continue;
    }
    if (b->kind[i] < last) return false;
    last = b->kind[i];
    count[last]++;
  }
  return count[B_LOAD] > 0;
}

Loads lower_count_loads(const PassLoop *pass, const Body *b) {
  Loads n = {0, 0, 0};
  for (int i = 0; i < b->n; i++) {
    if (b->kind[i] != B_LOAD) continue;
    if (lower_resident(pass, b->loop, b->buf[i])) n.once++;
    else if (lower_by_pass(pass, b->loop, b->buf[i])) n.ahead++;
    else n.now++;
  }
  return n;
}

bool lower_compute_copies(const Body *b) {
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == B_COMPUTE && lower_holds_copy(b->st[i])) return true; /* alone: its siblings are the other phases' */
  return false;
}

/* A statement of phase p that uses buf (a resident load is not in any). */
static bool phase_uses(const PassLoop *pass, const Body *b, BoundKind p, const Buffer *buf) {
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == p && !(p == B_LOAD && lower_resident(pass, b->loop, b->buf[i])) && lower_stmt_uses(b->st[i], buf))
      return true;
  return false;
}

/* The wait before a core writes d's buffer for its copy out the last
 * time round. None where the bound loop is its own home: its tokens are
 * zeroed just before it, and it runs once there, each core's compute
 * before its copy out, so the wait would always see a token of 0. */
static Stmt **wait_last_store(Lower *lw, const PassLoop *pass, const Deferred *d, const Var *core, Stmt **tail) {
  if (d->home == d->loop) return tail;
  char note[300];
  snprintf(note, sizeof note, "this core's copy out of %s %s", d->b->name,
           lower_by_pass(pass, d->loop, d->b) ? "two passes ago, from this copy" : "in the last pass");
  DmaToken t = lower_core_token(lw, d->b, lower_copy_of(lw, pass, d->loop, d->b, false), core);
  return lower_append(tail, lower_wait(lw, t, NULL, true, note, d->store->loc));
}

/* The waits a core's compute needs before statement i (i == b->n: after
 * the last, for what no statement used): for the loads of the buffers it
 * uses, and for the last pass's copy out of a buffer it uses, each as late
 * as it can be, so the core's work on the other buffers is issued first. */
static Stmt **compute_waits(Lower *lw, const PassLoop *pass, const Body *b, int i, bool *waited, Stmt **tail) {
  const Var *v = b->loop->var;
  for (int j = 0; j < b->n; j++) {
    if (waited[j] || (b->kind[j] != B_LOAD && b->kind[j] != B_DECL)) continue;
    const Buffer *buf = b->kind[j] == B_LOAD ? b->buf[j] : b->st[j]->buf;
    if (i < b->n && (b->kind[i] != B_COMPUTE || !lower_stmt_uses(b->st[i], buf))) continue;
    const Deferred *d = b->kind[j] == B_DECL ? lower_deferred(lw, NULL, b->st[j]->buf) : NULL;
    if (d) tail = wait_last_store(lw, pass, d, v, tail);
    if (b->kind[j] == B_LOAD) {
      DmaToken t = lower_core_token(lw, buf, lower_copy_of(lw, pass, b->loop, buf, false), v);
      if (lower_resident(pass, b->loop, buf))
        tail = lower_append(tail, lower_wait(lw, t, lower_bin(lw, OP_EQ, lower_var(lw, pass->P->var), lower_int(lw, 0)),
                                             false, "loaded once, before the passes", b->st[j]->loc));
      else tail = lower_append(tail, lower_wait(lw, t, NULL, false, NULL, b->st[j]->loc));
    }
    waited[j] = d || b->kind[j] == B_LOAD;
  }
  return tail;
}

/* DMA channel `base`, within the target's channels. With bound loop L it
 * alternates between base and base + 1 by core: a channel runs its
 * transfers one after another, each paying the DDR latency, so two in
 * flight hide each other's. Over cores 0 and 1 alone, `core % 2` is
 * `core`. */
static Expr *channel(Lower *lw, int base, const Stmt *L) {
  if (L && lw->channels >= base + 2) {
    int64_t lo = -1, n = 0;
    Expr *core = lower_var(lw, L->var);
    bool two_at_most = ir_trip_count(L, &n) && n <= 2 && ir_const_int(L->lo, &lo) && lo == 0 && L->step == 1;
    Expr *alternate = two_at_most ? core : lower_bin(lw, OP_MOD, core, lower_int(lw, 2));
    return base ? lower_bin(lw, OP_ADD, lower_int(lw, base), alternate) : alternate; /* `core % 2`, not `0 + core % 2` */
  }
  return lower_int(lw, base % lw->channels);
}

/* A load or deferred store: the DMA, not waited for, its token per core
 * (per copy and core when copy is given: the copy's region where the pass
 * counter has value `next`, or the current one when next is NULL). The
 * phases use two channels each, loads 0 and 1, copies out 2 and 3: a
 * single buffer alternates between its two by core (alternate); several
 * buffers take one each in turn, so each buffer's transfers stay in core
 * order on one channel. */
Stmt **lower_issue(Lower *lw, const PassLoop *pass, const Stmt *c, const Buffer *b, const Stmt *L, int ch,
                   bool alternate, Expr *copy, Expr *next, Stmt **tail) {
  DmaToken t = lower_core_token(lw, b, copy, L->var);
  return lower_append(tail, lower_start(lw, t, c, channel(lw, ch, alternate ? L : NULL), next ? pass->P->var : NULL,
                                        next, true));
}

/* A loop over L's cores for one phase (note: what it runs). */
Stmt *lower_core_loop(Lower *lw, const Stmt *L, const char *note, bool keep_mark) {
  Stmt *loop = lower_shallow(lw, L);
  loop->lo = lower_int(lw, 0);
  loop->lo->type = L->var->type;
  loop->cmp = OP_LT;
  loop->step = 1;
  loop->annots = NULL;
  loop->note = note;
  if (!keep_mark) loop->loop_kind = LOOP_SERIAL;
  loop->body = ir_stmt(lw->arena, ST_BLOCK, L->body->loc);
  return loop;
}

/* One phase's loop over the cores. */
static Stmt *phase(Lower *lw, const PassLoop *pass, const Body *b, BoundKind p, const int count[3], int issued) {
  static const char *const what[3] = {"loads", "compute", "copies out"};
  const Stmt *L = b->loop;
  Stmt *loop = lower_core_loop(lw, L, what[p], true), **in = &loop->body->body;
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == B_DECL && phase_uses(pass, b, p, b->st[i]->buf))
      in = lower_append(in, lower_view(lw, b->st[i]->buf, lower_copy_of(lw, pass, L, b->st[i]->buf, p == B_LOAD), true,
                                       b->st[i]->loc));
  bool waited[BOUND_MAX] = {false};
  int nth = 0;
  for (int i = 0; i <= b->n; i++) {
    if (p == B_COMPUTE) in = compute_waits(lw, pass, b, i, waited, in);
    if (i == b->n || b->kind[i] != p) continue;
    if (p == B_LOAD && (lower_by_pass(pass, L, b->buf[i]) || lower_resident(pass, L, b->buf[i]))) continue;
    if (p == B_LOAD)
      in = lower_issue(lw, pass, b->st[i], b->buf[i], L, nth++ % 2, issued == 1,
                       lower_copy_of(lw, pass, L, b->buf[i], false), NULL, in);
    else if (p == B_STORE) {
      const Buffer *out = lower_deferred(lw, b->st[i], NULL)->b;
      in = lower_issue(lw, pass, b->st[i], out, L, 2 + nth++ % 2, count[p] == 1, lower_copy_of(lw, pass, L, out, false),
                       NULL, in);
    } else {
      in = lower_append(in, lower_dma(lw, b->st[i], false, pass));
    }
  }
  Stmt *ahead = NULL, **at = NULL;
  for (int i = 0; p == B_LOAD && i < b->n; i++) {
    if (b->kind[i] != B_LOAD || !lower_by_pass(pass, L, b->buf[i])) continue;
    const Stmt *P = pass->P;
    if (!ahead) {
      /* P runs from 0 by 1 (lower_pass_loop): pass P + 1 is the next, and
       * the count (a constant or an expression of the sizes) its bound */
      Expr *passes = ir_trips(lw->arena, P).count;
      ahead = lower_guard(lw,
                          lower_bin(lw, OP_LT, lower_bin(lw, OP_ADD, lower_var(lw, P->var), lower_int(lw, 1)), passes),
                          "the next pass's regions, into the other copies", P->loc);
      ahead->then_s = ir_stmt(lw->arena, ST_BLOCK, P->loc);
      at = &ahead->then_s->body;
    }
    Expr *next = ir_add(lw->arena, ir_var(lw->arena, P->var, P->loc), ir_int(lw->arena, 1, &ty_int, P->loc), P->var->type);
    at = lower_issue(lw, pass, b->st[i], b->buf[i], L, nth++ % 2, issued == 1,
                     lower_copy_of(lw, pass, L, b->buf[i], true), next, at);
  }
  if (ahead) lower_append(in, ahead);
  return p == B_COMPUTE ? lower_interleave(lw, L, loop) : loop;
}

/* L phase by phase; false (nothing made) for a body of another shape, and
 * with the reason in why when its loads do not fit the DMAs in flight. */
static bool phases(Lower *lw, const Stmt *L, const PassLoop *pass, const Body *b, Stmt ***tail, char *why, size_t nwhy) {
  int count[3];
  if (!lower_phases_fit(L, b, count)) return false;
  int64_t cores; /* bind: L counts 0, 1, ..., one iteration per core (schedule/bind.c) */
  ir_trip_count(L, &cores);
  Loads loads = lower_count_loads(pass, b);
  int issued = loads.now + loads.ahead; /* loads issued in the loads phase */
  /* each core's loads of this pass are in flight until its compute (a pass
   * loop's grant counts them with its own) */
  Need need = {cores * loads.now, lower_compute_copies(b)};
  bool in_pass = pass && pass->L == L;
  if (!in_pass && !lower_grant(lw, L->body, need, NULL)) {
    snprintf(why, nwhy, "running it phase by phase ");
    lower_no_room(lw, need, why + strlen(why), nwhy - strlen(why));
    return false;
  }
  lw->held += need.tokens;
  char note[200];
  snprintf(note, sizeof note, "loop %s bound to the VU cores, one iteration on each, phase by phase", L->var->name);
  *tail = lower_append(*tail, lower_note(lw, L->loc, note));
  Stmt *block = ir_stmt(lw->arena, ST_BLOCK, L->loc), **in = &block->body;
  for (int i = 0; i < b->n; i++)
    if (b->kind[i] == B_LOAD && !lower_by_pass(pass, L, b->buf[i]) && !lower_resident(pass, L, b->buf[i])) {
      snprintf(note, sizeof note, "the load of %s", b->buf[i]->name);
      in = lower_append(in, lower_core_tokens(lw, b->buf[i], cores, false, note, b->buf[i]->loc));
    }
  for (BoundKind p = B_LOAD; p <= B_STORE; p++) {
    /* compute waits for the loads even when it computes nothing */
    if ((p == B_LOAD && !issued) || (p == B_STORE && !count[p])) continue;
    in = lower_append(in, phase(lw, pass, b, p, count, issued));
  }
  *tail = lower_append(*tail, block);
  lw->held -= need.tokens;
  return true;
}

/* One loop over the cores, loads synchronous, copies out deferred. */
static void one_after_another(Lower *lw, const Stmt *L, const PassLoop *pass, const char *why, Stmt ***tail) {
  char note[700];
  for (const Stmt *c = L->body->body; c; c = c->next)
    if (c->kind == ST_DECL && c->buf && c->buf->copies == 2) {
      snprintf(note, sizeof note, "double_buffer(%s) does nothing here: %s, so each core uses copy 0", c->buf->name,
               *why ? "the cores run one after another (below)"
                    : "the body does not run phase by phase (loads, compute, copies out)");
      *tail = lower_append(*tail, lower_note(lw, c->loc, note));
    }
  int n = snprintf(note, sizeof note, "loop %s bound to the VU cores, one iteration on each", L->var->name);
  if (*why) snprintf(note + n, sizeof note - (size_t)n, ", one core after another: %s", why);
  *tail = lower_append(*tail, lower_note(lw, L->loc, note));
  Stmt *loop = lower_shallow(lw, L);
  loop->annots = NULL;
  loop->body = ir_stmt(lw->arena, ST_BLOCK, L->body->loc);
  Stmt **in = &loop->body->body;
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const Deferred *d = lower_deferred(lw, c, NULL);
    if (d) {
      in = lower_issue(lw, pass, c, d->b, L, 2, true, lower_copy_of(lw, pass, L, d->b, false), NULL, in);
      continue;
    }
    in = lower_append(in, lower_dma(lw, c, false, pass));
    d = c->kind == ST_DECL ? lower_deferred(lw, NULL, c->buf) : NULL;
    if (d) in = wait_last_store(lw, pass, d, L->var, in);
  }
  *tail = lower_append(*tail, loop);
}

void lower_bound(Lower *lw, const Stmt *L, const PassLoop *pass, Stmt ***tail) {
  Body b;
  char why[400] = "";
  if (lower_classify(lw, L, &b) && phases(lw, L, pass, &b, tail, why, sizeof why)) return;
  one_after_another(lw, L, pass, why, tail);
}
