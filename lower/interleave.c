/* A bound loop's compute phase, issued to the cores in turn.
 *
 * lower/bound.c's compute phase is a loop over the cores around each
 * core's whole compute. The control unit issues in program order and a
 * core's queue holds a few instructions (the target's queue_depth), so
 * with the loop over the cores outermost it stalls on core 0's full queue
 * until core 0 has nearly finished, and the cores run one after another.
 * Here the loop over the cores moves inside each loop and guard of the
 * compute that does not depend on the core:
 *
 *   for core: { views; waits; for oyi: for ox: { fill; for ky: if (g(core)) taps } }
 * becomes
 *   for core: { waits }
 *   for oyi: for ox: { for core: { views; fill }  for ky: for core: { views; if (g(core)) taps } }
 *
 * Why it computes the same: the cores' iterations are independent (bind
 * proved it, again after every step), so any interleaving of them that
 * keeps each core's own statements in their order computes the same, and
 * moving the loop over the cores inside a loop (an interchange) or into a
 * list (a distribution) keeps each core's order. Only loops and guards
 * that read loop counters and sizes alone, not the core's counter, are
 * moved through (they evaluate alike for every core, and nothing the
 * cores write changes them), and only statements free of DMAs, tokens,
 * copies and calls: those stay whole under a loop over the cores, as do
 * the waits at the top, each on its core's own token. A list that
 * declares a name is not split (its scope would be cut); the per-core
 * buffers' views declared at the phase's top are declared again in each
 * loop over the cores that uses them (a pointer each, computed from the
 * core's number). The loops over the cores keep their mark, so the check
 * still runs them in its permuted orders. */
#include "lower/bound.h"

typedef struct {
  Lower *lw;
  const Stmt *L;     /* the bound loop */
  const Stmt *views; /* the phase's views of per-core buffers, a list */
  bool moved;        /* the loop over the cores went inside a loop or a guard */
} Sink;

/* A statement that issues or waits for DMAs, holds a copy nest or a call,
 * or is itself a bound loop: it stays whole under a loop over the cores. */
static bool stays_whole(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  if ((st->low && st->low->kind != LOW_VIEW && st->low->kind != LOW_NOTE) || (st->kind == ST_BLOCK && st->call) ||
      (st->kind == ST_FOR && (st->loop_kind == LOOP_VU || lower_is_copy_nest(st))))
    *found = true;
  return !*found;
}

static bool whole(const Stmt *s) {
  bool found = false;
  ir_walk_one(s, stays_whole, &found);
  return found;
}

/* e evaluates alike for every core and no statement changes it. */
static bool core_free(const Sink *S, const Expr *e) {
  return !e || (ir_expr_counters_only(S->lw->k, e) && !ir_expr_uses(e, S->L->var, NULL));
}

/* The loop over the cores may move inside s. */
static bool movable(const Sink *S, const Stmt *s) {
  if (s->low || whole(s)) return false;
  switch (s->kind) {
  case ST_FOR:
    return s->loop_kind == LOOP_SERIAL && !s->intrin && !s->annots && !s->note && !s->order_note && !s->vec_note &&
           !s->isel_note && core_free(S, s->lo) && core_free(S, s->hi);
  case ST_IF: return s->then_s && core_free(S, s->cond);
  case ST_BLOCK: return !s->call;
  default: return false;
  }
}

/* A name declared in list: splitting the list would cut its scope. */
static bool declares(const Stmt *list) {
  for (const Stmt *s = list; s; s = s->next)
    if (s->kind == ST_DECL || (s->low && (s->low->kind == LOW_VIEW || s->low->kind == LOW_TOKENS))) return true;
  return false;
}

/* `for core: { the views stmts use; stmts }` (stmts: a list, not shared). */
static Stmt *core_loop(Sink *S, Stmt *stmts) {
  Stmt *loop = lower_core_loop(S->lw, S->L, NULL, true), **in = &loop->body->body;
  for (const Stmt *v = S->views; v; v = v->next) {
    bool used = false;
    for (const Stmt *s = stmts; s && !used; s = s->next) used = lower_stmt_uses(s, v->low->view_buf);
    if (used) in = lower_append(in, lower_shallow(S->lw, v));
  }
  lower_append(in, stmts);
  return loop;
}

static Stmt *sink_list(Sink *S, const Stmt *list);

/* s under a loop over the cores, that loop moved inside s (movable). */
static Stmt *sink(Sink *S, const Stmt *s) {
  Stmt *c = lower_shallow(S->lw, s);
  S->moved = S->moved || s->kind != ST_BLOCK;
  if (s->kind == ST_FOR) {
    c->body = lower_shallow(S->lw, s->body);
    c->body->body = sink_list(S, s->body->body);
  } else if (s->kind == ST_BLOCK) {
    c->body = sink_list(S, s->body);
  } else {
    c->then_s = lower_shallow(S->lw, s->then_s);
    c->then_s->body = sink_list(S, s->then_s->body);
    if (s->else_s) {
      c->else_s = lower_shallow(S->lw, s->else_s);
      c->else_s->body = sink_list(S, s->else_s->body);
    }
  }
  return c;
}

/* list under a loop over the cores: each run of statements that stay
 * whole under one loop over the cores, the others with it moved inside. */
static Stmt *sink_list(Sink *S, const Stmt *list) {
  Stmt *out = NULL, **tail = &out, *run = NULL, **rtail = &run;
  bool split = !declares(list);
  for (const Stmt *s = list; s; s = s->next) {
    if (split && movable(S, s)) {
      if (run) tail = lower_append(tail, core_loop(S, run));
      run = NULL, rtail = &run;
      tail = lower_append(tail, sink(S, s));
    } else {
      rtail = lower_append(rtail, lower_shallow(S->lw, s));
    }
  }
  if (run) lower_append(tail, core_loop(S, run));
  return out;
}

/* A wait for this core's own token (lower/bound.c's compute waits). */
static bool own_wait(const Sink *S, const Stmt *s) {
  const DmaToken *t = &s->low->token;
  if (s->low->kind != LOW_DMA_WAIT || !t->base) return false;
  for (int i = 0; i < t->nidx; i++)
    if (ir_expr_uses(t->idx[i], S->L->var, NULL)) return true;
  return false;
}

/* The loop over the cores that runs first in s, s's first statement at
 * any depth through loops that run at least once (not under a guard),
 * with in *first the test of its first run (`oyi == 0 && ox == 0`). */
static Stmt *first_core_loop(Sink *S, Stmt *s, Expr **first) {
  while (s) {
    if (s->kind == ST_FOR && s->var == S->L->var) return s;
    int64_t n = 0;
    if (s->kind == ST_BLOCK && !s->low) {
      s = s->body;
      continue;
    }
    if (s->kind != ST_FOR || !ir_trip_count(s, &n) || n < 1) return NULL;
    Expr *at = lower_bin(S->lw, OP_EQ, lower_var(S->lw, s->var), s->lo);
    *first = *first ? lower_bin(S->lw, OP_LAND, *first, at) : at;
    s = s->body->body;
  }
  return NULL;
}

/* The waits that end loop over the cores `run`, before a statement the
 * loop over the cores moved into (next), go to where next first issues
 * to the core, under the test of that first run. A core is so waited for
 * just before its first instruction that needs them, as when its whole
 * compute ran at once, not after every core's loads. True when run is
 * left with nothing but its views. */
static bool wait_late(Sink *S, Stmt *run, Stmt *next) {
  Expr *first = NULL;
  Stmt *to = next ? first_core_loop(S, next, &first) : NULL;
  Stmt **from = &run->body->body;
  for (Stmt **at = from; *at; at = &(*at)->next)
    if (!(*at)->low || (*at)->low->kind != LOW_DMA_WAIT) from = &(*at)->next;
  if (!to || !first || !*from) return false;
  Stmt *g = lower_guard(S->lw, first, "this core's first instruction here: its waits first", run->loc);
  g->then_s = ir_stmt(S->lw->arena, ST_BLOCK, run->loc);
  g->then_s->body = *from;
  *from = NULL;
  Stmt **at = &to->body->body; /* after its views */
  while (*at && (*at)->low && (*at)->low->kind == LOW_VIEW) at = &(*at)->next;
  g->next = *at;
  *at = g;
  for (const Stmt *v = run->body->body; v; v = v->next)
    if (!v->low || v->low->kind != LOW_VIEW) return false;
  return true;
}

/* The instructions list issues to one core at most (a guard's both
 * branches counted), saturating at cap. */
static int64_t issues(const Stmt *list, int64_t cap) {
  int64_t n = 0, trips;
  for (const Stmt *s = list; s && n < cap; s = s->next) {
    if (s->kind == ST_FOR && s->intrin) n++;
    else if (s->kind == ST_FOR) n += ir_trip_count(s, &trips) ? trips * issues(s->body->body, cap) : cap;
    else if (s->kind == ST_IF)
      n += (s->then_s ? issues(s->then_s->body, cap) : 0) + (s->else_s ? issues(s->else_s->body, cap) : 0);
    else if (s->kind == ST_BLOCK && !s->low) n += issues(s->body, cap);
  }
  return n < cap ? n : cap;
}

Stmt *lower_interleave(Lower *lw, const Stmt *L, Stmt *phase) {
  /* A core's compute of at most twice its queue stays whole: the control
   * unit waits on a full queue for half of it at most, and issuing core
   * after core staggers the cores, so one core's loads (waited for one
   * core at a time) and its copies out overlap the other cores' compute.
   * That is worth more where the loads are not issued a pass ahead:
   * dwconv_npu.c's 10 instructions a core with 12 DMAs in flight took
   * 54,634 cycles interleaved against 39,616 whole. */
  if (issues(phase->body->body, 2 * lw->queue_depth + 1) <= 2 * lw->queue_depth) return phase;
  Sink S = {lw, L, NULL, false};
  Stmt *views = NULL, **vtail = &views, *rest = NULL, **rtail = &rest;
  for (const Stmt *s = phase->body->body; s; s = s->next) {
    if (s->low && s->low->kind == LOW_VIEW && s->low->decl && s->low->view_buf->core == L->var)
      vtail = lower_append(vtail, lower_shallow(lw, s));
    else if (s->kind == ST_DECL || (s->low && !own_wait(&S, s)))
      return phase; /* a name its compute declares, or another node: as it is */
    else
      rtail = lower_append(rtail, lower_shallow(lw, s));
  }
  S.views = views;
  Stmt *sunk = sink_list(&S, rest);
  if (!S.moved) return phase;
  for (Stmt **at = &sunk; *at;) {
    bool run = (*at)->kind == ST_FOR && (*at)->var == L->var;
    if (run && wait_late(&S, *at, (*at)->next)) *at = (*at)->next;
    else at = &(*at)->next;
  }
  Stmt *note = lower_note(lw, L->loc,
                          "compute, the cores in turn: the loop over the cores inside each loop and guard that does "
                          "not read the core, so that every core's queue is kept full");
  note->next = sunk;
  return note;
}
