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
 * The DMAs in flight are the target's to limit: a read cache holds one
 * (its load ahead), a write cache two (this iteration's copy out and the
 * last one's), plus one when another copy runs synchronously inside. Loads
 * are granted first (they cost one); a buffer left over keeps synchronous
 * copies, and a note says why. A rule of double buffering that no longer
 * holds after later steps (ir_double_buffer_rules), or a copy that is not
 * one DMA, leaves the whole loop synchronous, after a note. */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"

enum { MAX_DB = 8 };

typedef struct {
  const Stmt *decl;
  DbCopies c;
} DbBuf;

/* Copies issued and not waited for, at most: one structure's need. */
typedef struct {
  int64_t tokens;
  bool copy_inside; /* a synchronous copy runs while it holds them */
} Need;

static Stmt **note_nothing(Lower *lw, Stmt **tail, const Stmt *L, const Buffer *b, const char *why) {
  char text[700];
  snprintf(text, sizeof text, "double_buffer(%s) does nothing here: %s", b->name, why);
  return lower_append(tail, lower_note(lw, L->loc, text));
}

/* "would keep up to 24 DMAs in flight (with those around it and a copy
 * inside), and target 'small' allows 16" */
static const char *no_room(const Lower *lw, int64_t held, Need need, char *buf, size_t n) {
  snprintf(buf, n, "would keep up to %lld DMAs in flight (with those around it%s), and target '%s' allows %lld",
           (long long)(held + need.tokens + need.copy_inside), need.copy_inside ? " and a copy inside" : "",
           lw->target_name, (long long)lw->max_tokens);
  return buf;
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
    if (!ir_double_buffer_rules(lw->k, L, c, NULL, &db[n].c, why, sizeof why)) {
      *tail = note_nothing(lw, *tail, L, c->buf, why);
      return 0;
    }
    db[n++].decl = c;
  }
  if (!n) return -1;
  return n;
}

static const Stmt *own_copy(const DbBuf *d) { return d->c.load ? d->c.load : d->c.store; }

/* Grants the buffers their overlap, loads first; keeps those granted in
 * db (returns how many) and adds their tokens to *held. */
static int grant(Lower *lw, const Stmt *L, DbBuf *db, int n, int64_t *held, Stmt ***tail) {
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
  bool others = lower_has_copy(L->body->body, own, n), all_fit = *held + all + others <= lw->max_tokens;
  bool denied = false, ok[MAX_DB];
  for (int k = 0; k < n; k++) {
    int i = order[k];
    Need one = {db[i].c.store ? 2 : 1, others || (!all_fit && (denied || k < n - 1))};
    if ((ok[i] = *held + one.tokens + one.copy_inside <= lw->max_tokens)) {
      *held += one.tokens;
      continue;
    }
    denied = true;
    char note[400] = "overlapping its copies ";
    no_room(lw, *held, one, note + strlen(note), sizeof note - strlen(note));
    *tail = note_nothing(lw, *tail, L, db[i].decl->buf, note);
  }
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (ok[i]) db[kept++] = db[i];
  return kept;
}

static Stmt *pipelines_list(Lower *lw, const Stmt *list, int64_t held);

/* ---- the nodes ---- */

static Expr *counter(Lower *lw, const Stmt *L) { return ir_var(lw->arena, L->var, L->loc); }

static Expr *num(Lower *lw, const Stmt *L, int64_t v) { return ir_int(lw->arena, v, L->var->type, L->loc); }

/* v % 2, or (v + 1) % 2 */
static Expr *copy_index(Lower *lw, const Stmt *L, int ahead) {
  Expr *v = counter(lw, L);
  if (ahead) v = ir_binary(lw->arena, OP_ADD, v, num(lw, L, ahead), L->var->type, L->loc);
  return ir_binary(lw->arena, OP_MOD, v, num(lw, L, 2), L->var->type, L->loc);
}

static Stmt *view(Lower *lw, const Buffer *b, Expr *copy, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_VIEW, loc);
  s->low->view_buf = (Buffer *)b;
  s->low->view_copy = copy;
  return s;
}

static Stmt *tokens(Lower *lw, const Buffer *b, int ndims, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_TOKENS, loc);
  s->low->token.base = b->db_token;
  s->low->ndims = ndims;
  s->low->dims[0] = 2;
  return s;
}

static DmaToken token(const Buffer *b, Expr *idx) {
  DmaToken t = {b->db_token, {idx, NULL}, idx ? 1 : 0, 0};
  return t;
}

static Stmt *start(Lower *lw, DmaToken t, const Stmt *copy, int channel, const Var *at, Expr *value) {
  Stmt *s = lower_node(lw, LOW_DMA_START, copy->loc);
  s->low->token = t;
  s->low->copy = copy;
  s->low->channel = ir_int(lw->arena, channel % lw->channels, &ty_int, copy->loc);
  s->low->at_var = at;
  s->low->at_value = value;
  return s;
}

static Stmt *wait(Lower *lw, DmaToken t, Expr *guard, const char *note, SrcLoc loc) {
  Stmt *s = lower_node(lw, LOW_DMA_WAIT, loc);
  s->low->token = t;
  s->low->guard = guard;
  s->note = note;
  return s;
}

/* Before the loop: the pointer to both copies, the token(s) and, for a
 * read cache, the first iteration's load into copy 0. */
static Stmt **prologue(Lower *lw, const Stmt *L, const DbBuf *d, Stmt **tail) {
  const Buffer *b = d->decl->buf;
  tail = lower_append(tail, view(lw, b, NULL, d->decl->loc));
  tail = lower_append(tail, tokens(lw, b, d->c.store ? 1 : 0, d->decl->loc));
  if (d->c.store) return tail;
  Stmt *first = ir_stmt(lw->arena, ST_BLOCK, L->loc);
  first->body = view(lw, b, num(lw, L, 0), d->decl->loc);
  first->body->next = start(lw, token(b, NULL), d->c.load, 1, L->var, L->lo);
  return lower_append(tail, first);
}

/* One statement of the loop's body that belongs to double-buffered d. */
static Stmt **body_part(Lower *lw, const Stmt *L, int64_t trips, const DbBuf *d, const Stmt *c, Stmt **tail) {
  const Buffer *b = d->decl->buf;
  if (c == d->decl) {
    tail = lower_append(tail, view(lw, b, copy_index(lw, L, 0), c->loc));
    if (!d->c.store) return tail;
    Expr *from_third = ir_binary(lw->arena, OP_GE, counter(lw, L), num(lw, L, 2), &ty_int, L->loc);
    return lower_append(tail, wait(lw, token(b, copy_index(lw, L, 0)), from_third, "its copy out two iterations ago", c->loc));
  }
  if (c == d->c.load) {
    tail = lower_append(tail, wait(lw, token(b, NULL), NULL, NULL, c->loc));
    Stmt *ahead = ir_stmt(lw->arena, ST_IF, c->loc);
    Expr *next = ir_add(lw->arena, counter(lw, L), ir_int(lw->arena, 1, &ty_int, L->loc), L->var->type);
    ahead->cond = ir_binary(lw->arena, OP_LT, ir_binary(lw->arena, OP_ADD, counter(lw, L), num(lw, L, 1), L->var->type, L->loc),
                            num(lw, L, trips), &ty_int, L->loc);
    ahead->note = "the next iteration's region, into the other copy";
    ahead->then_s = ir_stmt(lw->arena, ST_BLOCK, c->loc);
    ahead->then_s->body = view(lw, b, copy_index(lw, L, 1), c->loc);
    ahead->then_s->body->next = start(lw, token(b, NULL), c, 1, L->var, next);
    return lower_append(tail, ahead);
  }
  return lower_append(tail, start(lw, token(b, copy_index(lw, L, 0)), c, 2, NULL, NULL));
}

/* L with its double-buffered copies explicit, in a block (a loop emitted
 * twice, by loop_partition, declares its copies twice). */
static Stmt *pipelined(Lower *lw, const Stmt *L, const DbBuf *db, int n, int64_t trips, int64_t held) {
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
    if (d) {
      in = body_part(lw, L, trips, d, c, in);
      continue;
    }
    in = lower_append(in, lower_pipelines(lw, c, held));
  }
  tail = lower_append(tail, loop);
  for (int i = 0; i < n; i++) {
    if (!db[i].c.store) continue;
    for (int64_t t = trips >= 2 ? trips - 2 : trips - 1; t < trips; t++)
      tail = lower_append(tail, wait(lw, token(db[i].decl->buf, ir_int(lw->arena, t % 2, &ty_int, L->loc)), NULL, NULL, L->loc));
  }
  return block;
}

/* L lowered: its notes, then L pipelined or (when no buffer's overlap is
 * granted) L with its body lowered. */
static Stmt *lower_loop(Lower *lw, const Stmt *L, int64_t held) {
  Stmt *out = NULL, **tail = &out;
  DbBuf db[MAX_DB];
  int64_t trips, inside = held;
  int n = find_buffers(lw, L, db, &tail);
  if (n > 0 && !ir_const_int(L->hi, &trips)) n = 0;
  for (int i = 0; i < n; i++)
    if (!lower_one_dma(lw->arena, own_copy(&db[i]), true)) {
      tail = note_nothing(lw, tail, L, db[i].decl->buf,
                          "its copy is not one DMA (it needs host loops around the DMA call, or it is not a plain box "
                          "copy), so the copies stay synchronous");
      n = 0;
      break;
    }
  if (n > 0) n = grant(lw, L, db, n, &inside, &tail);
  if (n > 0) {
    lower_append(tail, pipelined(lw, L, db, n, trips, inside));
  } else {
    Stmt *loop = lower_shallow(lw, L);
    loop->body = lower_shallow(lw, L->body);
    loop->body->body = pipelines_list(lw, L->body->body, held);
    lower_append(tail, loop);
  }
  out->annots = L->annots; /* before the notes, as written before the loop */
  for (Stmt *s = out->next; s; s = s->next) s->annots = NULL;
  return out;
}

static Stmt *pipelines_list(Lower *lw, const Stmt *list, int64_t held) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) tail = lower_append(tail, lower_pipelines(lw, s, held));
  return out;
}

Stmt *lower_pipelines(Lower *lw, const Stmt *s, int64_t held) {
  if (s->kind == ST_FOR && !s->intrin && !lower_is_copy_nest(s)) return lower_loop(lw, s, held);
  Stmt *c = lower_shallow(lw, s);
  if (s->kind == ST_IF) {
    c->then_s = lower_shallow(lw, s->then_s);
    c->then_s->body = pipelines_list(lw, s->then_s->body, held);
    if (s->else_s) {
      c->else_s = lower_shallow(lw, s->else_s);
      c->else_s->body = pipelines_list(lw, s->else_s->body, held);
    }
  } else if (s->kind == ST_BLOCK && !s->low) {
    c->body = pipelines_list(lw, s->body, held);
  }
  return c;
}
