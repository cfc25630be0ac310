/* Pass: double-buffered loops -> explicit starts one iteration ahead.
 *
 *   for v: { decl b; b_load: b <- A[v]; ...; c_store: C[v] <- c; }
 * becomes
 *   { view b_db; tokens b_tok; { view b = b_db[0]; dma_start(b_tok, b <- A[lo]) }
 *     view c_db; tokens c_tok[2];
 *     for v (in source order):
 *       view b = b_db[v % 2]; dma_wait(b_tok)
 *       if v + 1 < trips: view b = b_db[(v + 1) % 2]; dma_start(b_tok, b <- A[v + 1])
 *       view c = c_db[v % 2]; dma_wait(c_tok[v % 2]) if v >= 2
 *       ...; dma_start(c_tok[v % 2], C[v] <- c)
 *     dma_wait(c_tok[0]); dma_wait(c_tok[1]) }
 *
 * trips is a constant or (a kernel with sizes) an expression of the sizes:
 * then the first load runs where trips > 0, and the last waits are for
 * c_tok[(trips - 2) % 2] where trips >= 2 and c_tok[(trips - 1) % 2].
 *
 * The DMAs in flight are the target's to limit: a read cache holds one
 * (its load ahead), a write cache two (this iteration's copy out and the
 * last one's), plus one when another copy runs synchronously inside. Loads
 * are granted first (they cost one); a buffer left over keeps synchronous
 * copies, and a note says why. A rule of double buffering that no longer
 * holds after later steps (ir_double_buffer_rules), or a copy that is not
 * one DMA, leaves the whole loop synchronous, after a note. */
#include <stdio.h>
#include <string.h>

#include "ir/arith.h"
#include "lower/lower.h"

enum { MAX_DB = 8 };

typedef struct {
  const Stmt *decl;
  DbCopies c;
} DbBuf;

static Stmt **note_nothing(Lower *lw, Stmt **tail, const Stmt *L, const Buffer *b, const char *why) {
  char text[700];
  snprintf(text, sizeof text, "double_buffer(%s) does nothing here: %s", b->name, why);
  return lower_append(tail, lower_note(lw, L->loc, text));
}

/* The double-buffered buffers of L's body and their copies; 0 with a note
 * (at *tail) when a rule does not hold, -1 when L has none. */
static int find_buffers(Lower *lw, const Stmt *L, DbBuf *db, Stmt ***tail) {
  int n = 0;
  char why[512];
  for (const Stmt *c = L->body->body; c; c = c->next) {
    if (c->kind != ST_DECL || !c->buf || c->buf->copies < 2) continue;
    if (n == MAX_DB) {
      *tail = note_nothing(lw, *tail, L, c->buf, "too many double-buffered buffers in one loop");
      return 0;
    }
    if (!ir_double_buffer_rules(L, c, NULL, &db[n].c, why, sizeof why)) {
      *tail = note_nothing(lw, *tail, L, c->buf, why);
      return 0;
    }
    db[n++].decl = c;
  }
  if (!n) return -1;
  return n;
}

static const Stmt *own_copy(const DbBuf *d) { return d->c.load ? d->c.load : d->c.store; }

/* Grants the buffers their overlap, loads first (they cost one; a buffer
 * left keeps synchronous copies, which then run inside the others'
 * overlap); keeps those granted in db (returns how many), holding their
 * tokens in lw->held (returned in *need). */
static int grant(Lower *lw, const Stmt *L, DbBuf *db, int n, int64_t *need, Stmt ***tail) {
  const Stmt *own[MAX_DB];
  int order[MAX_DB], nordered = 0;
  int64_t all = 0;
  for (int i = 0; i < n; i++) {
    own[i] = own_copy(&db[i]);
    all += db[i].c.store ? 2 : 1;
    if (!db[i].c.store) order[nordered++] = i;
  }
  for (int i = 0; i < n; i++)
    if (db[i].c.store) order[nordered++] = i;
  bool others = lower_has_copy(L->body->body, own, n);
  bool all_fit = lower_in_flight(lw) + all + others <= lw->max_tokens;
  bool denied = false, ok[MAX_DB];
  for (int k = 0; k < n; k++) {
    int i = order[k];
    Need one = {db[i].c.store ? 2 : 1, others || (!all_fit && (denied || k < n - 1))};
    if ((ok[i] = lower_grant(lw, db[i].decl, one, NULL))) {
      lw->held += one.tokens;
      *need += one.tokens;
      continue;
    }
    denied = true;
    char note[400] = "overlapping its copies ";
    lower_no_room(lw, one, note + strlen(note), sizeof note - strlen(note));
    *tail = note_nothing(lw, *tail, L, db[i].decl->buf, note);
  }
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (ok[i]) db[kept++] = db[i];
  return kept;
}

/* ---- the nodes ---- */

static Expr *counter(Lower *lw, const Stmt *L) { return ir_var(lw->arena, L->var, L->loc); }

static Expr *num(Lower *lw, const Stmt *L, int64_t v) { return ir_int(lw->arena, v, L->var->type, L->loc); }

/* L's trip count where it runs (ir_trips): a constant or an expression of
 * the kernel's sizes. L runs from 0 by 1 (ir_double_buffer_rules), so the
 * count is L->hi, and <= 0 where L does not run: the last waits' guards
 * (trips >= 2, trips >= 1) rely on it. */
static Expr *trips_of(Lower *lw, const Stmt *L) { return ir_trips(lw->arena, L).count; }

/* v % 2, or (v + 1) % 2 */
static Expr *copy_index(Lower *lw, const Stmt *L, int ahead) {
  Expr *v = counter(lw, L);
  if (ahead) v = ir_binary(lw->arena, OP_ADD, v, num(lw, L, ahead), L->var->type, L->loc);
  return ir_binary(lw->arena, OP_MOD, v, num(lw, L, 2), L->var->type, L->loc);
}

static Expr *channel(Lower *lw, int base) { return lower_int(lw, base % lw->channels); }

/* Before the loop: the pointer to both copies, the token(s) and, for a
 * read cache, the first iteration's load into copy 0. */
static Stmt **prologue(Lower *lw, const Stmt *L, const DbBuf *d, Stmt **tail) {
  const Buffer *b = d->decl->buf;
  tail = lower_append(tail, lower_view(lw, b, NULL, false, d->decl->loc));
  tail = lower_append(tail, lower_tokens(lw, b->db_token, d->c.store ? 1 : 0, 2, 0, false, NULL, d->decl->loc));
  if (d->c.store) return tail;
  Stmt *first = ir_stmt(lw->arena, ST_BLOCK, L->loc);
  first->body = lower_view(lw, b, num(lw, L, 0), false, d->decl->loc);
  first->body->next = lower_start(lw, lower_token(b->db_token, NULL, NULL), d->c.load, channel(lw, 1), L->var, L->lo, false);
  IrTrips trips = ir_trips(lw->arena, L);
  if (!trips.runs) return lower_append(tail, first); /* a constant count, at least 1 (ir_double_buffer_rules) */
  /* trips in the sizes: the loop may not run */
  Stmt *runs = lower_guard(lw, trips.runs, "the loop runs: its first iteration's region", L->loc);
  runs->then_s = first;
  return lower_append(tail, runs);
}

/* Load c of b, started at L's next iteration, into the other copy: the
 * view there is named b->db_next, since one named b would shadow this
 * iteration's (gcc -Wshadow). The start keeps copy c (so the
 * synchronisation check sees a DMA into b, whichever name prints it) and
 * prints the shape of c's clone whose destination is the renamed view. */
static Stmt *load_ahead(Lower *lw, const Stmt *L, const Buffer *b, const Stmt *c, Expr *next) {
  Stmt *start = lower_start(lw, lower_token(b->db_token, NULL, NULL), c, channel(lw, 1), L->var, next, false);
  if (!b->db_next) {
    Stmt *view = lower_view(lw, b, copy_index(lw, L, 1), false, c->loc);
    view->next = start;
    return view;
  }
  Buffer *renamed = ARENA_NEW(lw->arena, Buffer);
  *renamed = *b;
  renamed->name = b->db_next;
  CloneMap cm = {0};
  Stmt *copy = ir_clone_stmt(lw->arena, c, &cm);
  clone_map_free(&cm);
  ((Stmt *)ir_nest_leaf(copy))->lhs->buf = renamed;
  start->low->shape = lower_dma_shape(lw->arena, copy, L->var, next, true);
  Stmt *view = lower_view(lw, renamed, copy_index(lw, L, 1), false, c->loc);
  view->next = start;
  return view;
}

/* One statement of the loop's body that belongs to double-buffered d. */
static Stmt **body_part(Lower *lw, const Stmt *L, const DbBuf *d, const Stmt *c, Stmt **tail) {
  const Buffer *b = d->decl->buf;
  if (c == d->decl) {
    tail = lower_append(tail, lower_view(lw, b, copy_index(lw, L, 0), false, c->loc));
    if (!d->c.store) return tail;
    Expr *from_third = ir_binary(lw->arena, OP_GE, counter(lw, L), num(lw, L, 2), &ty_int, L->loc);
    return lower_append(tail, lower_wait(lw, lower_token(b->db_token, copy_index(lw, L, 0), NULL), from_third, false,
                                         "its copy out two iterations ago", c->loc));
  }
  if (c == d->c.load) {
    tail = lower_append(tail, lower_wait(lw, lower_token(b->db_token, NULL, NULL), NULL, false, NULL, c->loc));
    Expr *next = ir_add(lw->arena, counter(lw, L), ir_int(lw->arena, 1, &ty_int, L->loc), L->var->type);
    Stmt *ahead = lower_guard(
        lw,
        ir_binary(lw->arena, OP_LT, ir_binary(lw->arena, OP_ADD, counter(lw, L), num(lw, L, 1), L->var->type, L->loc),
                  trips_of(lw, L), &ty_int, L->loc),
        "the next iteration's region, into the other copy", c->loc);
    ahead->then_s = ir_stmt(lw->arena, ST_BLOCK, c->loc);
    ahead->then_s->body = load_ahead(lw, L, b, c, next);
    return lower_append(tail, ahead);
  }
  return lower_append(tail, lower_start(lw, lower_token(b->db_token, copy_index(lw, L, 0), NULL), c, channel(lw, 2), NULL, NULL, false));
}

/* After L, the waits for b's copies out of its last two iterations (of
 * one, when it ran once; of none, when not at all). With a constant trip
 * count each wait needs no guard: its note says which iteration issued
 * the token, beside the loop's own wait guarded by `>= 2`. */
static Stmt **last_waits(Lower *lw, const Stmt *L, const Buffer *b, Stmt **tail) {
  int64_t trips;
  if (ir_trip_count(L, &trips)) {
    for (int64_t t = trips >= 2 ? trips - 2 : trips - 1; t < trips; t++) {
      const char *note = arena_printf(lw->arena, "the copy out of %s = %lld, %s", L->var->name, (long long)t,
                                      t + 1 < trips ? "the iteration before the last" : "the last iteration");
      tail = lower_append(tail, lower_wait(lw, lower_token(b->db_token, lower_int(lw, t % 2), NULL), NULL, false, note,
                                           L->loc));
    }
    return tail;
  }
  /* `trips >= back` and the copy (trips + back) % 2, the same parity as
   * trips - back: in an unsigned counter's type the difference would wrap
   * where the loop ran fewer times (and `trips - back >= 0` always hold) */
  for (int64_t back = 2; back >= 1; back--) {
    Expr *sum = ir_binary(lw->arena, OP_ADD, trips_of(lw, L), num(lw, L, back), L->var->type, L->loc);
    Expr *t = back == 2 ? trips_of(lw, L) : arith_simplify(lw->arena, sum, NULL, 0);
    Expr *ran = ir_binary(lw->arena, OP_GE, trips_of(lw, L), num(lw, L, back), &ty_int, L->loc);
    Expr *at = ir_binary(lw->arena, OP_MOD, t, num(lw, L, 2), L->var->type, L->loc);
    tail = lower_append(tail, lower_wait(lw, lower_token(b->db_token, at, NULL), ran, false, NULL, L->loc));
  }
  return tail;
}

/* L with its double-buffered copies explicit, in a block (a loop emitted
 * twice, by loop_partition, declares its copies twice). */
static Stmt *pipelined(Lower *lw, const Stmt *L, const DbBuf *db, int n, const PassLoop *pass) {
  Stmt *block = ir_stmt(lw->arena, ST_BLOCK, L->loc), **tail = &block->body;
  for (int i = 0; i < n; i++) tail = prologue(lw, L, &db[i], tail);
  Stmt *loop = lower_shallow(lw, L);
  loop->annots = NULL; /* they go before the block */
  loop->order_note = "each iteration loads the next one's region";
  loop->body = ir_stmt(lw->arena, ST_BLOCK, L->body->loc);
  Stmt **in = &loop->body->body;
  for (const Stmt *c = L->body->body; c; c = c->next) {
    const DbBuf *d = NULL;
    for (int i = 0; i < n; i++)
      if (db[i].decl == c || db[i].c.load == c || db[i].c.store == c) d = &db[i];
    in = d ? body_part(lw, L, d, c, in) : lower_append(in, lower_dma(lw, c, false, pass));
  }
  tail = lower_append(tail, loop);
  for (int i = 0; i < n; i++)
    if (db[i].c.store) tail = last_waits(lw, L, db[i].decl->buf, tail);
  return block;
}

bool lower_pipeline(Lower *lw, const Stmt *L, const PassLoop *pass, Stmt ***tail) {
  DbBuf db[MAX_DB];
  int64_t need = 0;
  int n = find_buffers(lw, L, db, tail);
  if (n <= 0) return false;
  for (int i = 0; i < n; i++)
    if (!lower_one_dma(lw, own_copy(&db[i]), true)) {
      *tail = note_nothing(lw, *tail, L, db[i].decl->buf,
                           "its copy is not one DMA (it needs host loops around the DMA call, or it is not a plain "
                           "box copy), so the copies stay synchronous");
      return false;
    }
  if (!(n = grant(lw, L, db, n, &need, tail))) return false;
  *tail = lower_append(*tail, pipelined(lw, L, db, n, pass));
  lw->held -= need;
  return true;
}
