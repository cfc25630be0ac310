/* unroll(loop) marks a loop with a constant trip count (at most
 * SCHED_MAX_UNROLL) to be unrolled: it stays one loop while the schedule
 * goes on, so later steps and the legality model see one statement where
 * the emitted C will have one copy per iteration (copies share one domain),
 * and a mark set inside it later holds in every copy. unroll(loop, f) steps
 * the loop by f around an inner loop of f iterations marked the same way,
 * plus a remainder loop when f does not divide the trip count (a loop
 * counting down or by a stride is counted up by 1 first).
 * sched_expand_unrolled, once the schedule is done, copies each marked
 * loop's body once per iteration; each copy gets its own inner counters and
 * locals. Only reorder may name an unrolled loop: every other step would
 * replace or anchor on a loop that is about to disappear. */
#include "schedule/primitives.h"


static bool has_decl(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next)
    if (c->kind == ST_DECL) return true;
  return false;
}

/* Copies of body with the counter replaced by base + t*step, t = 0..n-1,
 * as one statement list (a block per copy when the body declares locals). */
static Stmt *copies(Sched *s, const Stmt *loop, Expr *base, int64_t n, Stmt **second) {
  const Type *t = loop->var->type;
  Stmt *head = NULL, **tail = &head;
  bool blocks = has_decl(loop->body->body);
  for (int64_t i = 0; i < n; i++) {
    CloneMap cm = {.k = s->k};
    Stmt *list = NULL, **lt = &list;
    for (const Stmt *c = loop->body->body; c; c = c->next) {
      *lt = ir_clone_stmt(s->a, c, &cm);
      lt = &(*lt)->next;
    }
    clone_map_free(&cm);
    Expr *v = ir_add(s->a, ir_expr_copy(s->a, base), ir_int(s->a, i * loop->step, t, loop->loc), t);
    for (Stmt *c = list; c; c = c->next) ir_subst_stmt(s->a, c, loop->var, v);
    if (blocks) list = sched_block(s, list, loop->loc);
    if (i == 1) *second = list;
    *tail = list;
    while (*tail) tail = &(*tail)->next;
  }
  return head;
}

static void mark(Sched *s, Stmt *loop, const SchedStep *st) {
  s->unroll_step = st;
  loop->loop_kind = LOOP_UNROLL;
  loop->mark_step = st->text;
  loop->mark_loc = st->loc;
}

/* A loop whose iterations alternate a double-buffered buffer declared in
 * its body: unrolled, the copies would be straight-line code with nothing
 * to alternate over. */
static const Buffer *alternates(const Stmt *loop) {
  for (const Stmt *c = loop->body->body; c; c = c->next)
    if (c->kind == ST_DECL && c->buf && c->buf->copies > 1) return c->buf;
  return NULL;
}

bool prim_unroll(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop || !sched_loop_unmarked(s, st, &st->args[0], loop)) return false;
  /* (sched_loop_unmarked refuses a tensorized loop; a loop inside its nest
   * may be unrolled: the nest then no longer matches, and the emitted C
   * says so, as after any step that changes it) */
  const Buffer *db = alternates(loop);
  if (db)
    return sched_error(s, &st->args[0], "%s is double-buffered over loop %s: its copies alternate over the loop's "
                       "iterations, which unroll would make straight-line code; unroll a loop inside or around %s",
                       db->name, loop->name, loop->name);
  int64_t n;
  if (st->nargs == 1) {
    if (!ir_trip_count(loop, &n))
      return sched_error(s, &st->args[0], "loop %s has no constant trip count; unroll by a factor, or split it first", loop->name);
    if (n > SCHED_MAX_UNROLL)
      return sched_error(s, &st->args[0], "loop %s runs %lld iterations; full unrolling is limited to %d", loop->name, (long long)n, SCHED_MAX_UNROLL);
    mark(s, loop, st); /* the same loop, the same instances in the same order */
    return true;
  }
  int64_t f;
  if (!sched_positive(s, &st->args[1], "the unroll factor", &f)) return false;
  if (f > SCHED_MAX_UNROLL) return sched_error(s, &st->args[1], "unroll factor %lld is above the limit of %d", (long long)f, SCHED_MAX_UNROLL);
  Expr *lo, *end;
  if (!ir_trip_count(loop, &n))
    return sched_error(s, &st->args[0], "loop %s needs constant bounds to be unrolled by a factor; split it first", loop->name);
  if (f > n) return sched_error(s, &st->args[1], "the factor %lld is larger than loop %s's trip count %lld", (long long)f, loop->name, (long long)n);
  /* a loop counting down or by a stride is counted up by 1 first */
  if (!sched_begin_rewrite(s) || !loop_normalize(s, loop, &st->args[0]) ||
      !loop_unit_range(s, loop, &st->args[0], &lo, &end))
    return false;
  const Type *t = loop->var->type;
  int64_t lo_c, end_c;
  if (!ir_const_int(lo, &lo_c) || !ir_const_int(end, &end_c))
    return sched_error(s, &st->args[0], "loop %s needs constant bounds to be unrolled by a factor; split it first", loop->name);
  int64_t main_end = lo_c + n / f * f;
  Stmt **link = sched_link(s, loop, NULL);
  Stmt *after = loop->next;
  /* remainder first (it clones the original body) */
  Stmt *rem = NULL;
  if (main_end < end_c) {
    CloneMap cm = {.k = s->k};
    rem = ir_clone_stmt(s->a, loop, &cm);
    clone_map_free(&cm);
    rem->lo = ir_int(s->a, main_end, t, loop->loc);
    rem->hi = ir_int(s->a, end_c, t, loop->loc);
    rem->cmp = OP_LT;
    rem->name = sched_fresh_name(s, loop->var->name);
    rem->labeled = false;
    sched_rename_copies(s, rem);
  }
  Stmt *main = NULL;
  if (main_end > lo_c) {
    main = ir_stmt(s->a, ST_FOR, loop->loc);
    *main = *loop;
    main->var = ir_new_var(s->a, s->k, loop->var->name, t, VAR_LOOP, loop->loc);
    main->lo = ir_int(s->a, lo_c, t, loop->loc);
    main->hi = ir_int(s->a, main_end, t, loop->loc);
    main->cmp = OP_LT;
    main->step = f;
    /* the body once, in an inner loop of f iterations: main + u */
    Var *u;
    Stmt *inner = sched_make_loop(s, sched_derived_name(s, loop->name, "_u"), t, ir_int(s->a, 0, t, loop->loc),
                                  ir_int(s->a, f, t, loop->loc), loop->loc, &u);
    CloneMap cm = {.k = s->k};
    Stmt *body = NULL, **bt = &body;
    for (const Stmt *c = loop->body->body; c; c = c->next) {
      *bt = ir_clone_stmt(s->a, c, &cm);
      bt = &(*bt)->next;
    }
    clone_map_free(&cm);
    Expr *v = ir_add(s->a, ir_var(s->a, main->var, loop->loc), ir_var(s->a, u, loop->loc), t);
    for (Stmt *c = body; c; c = c->next) ir_subst_stmt(s->a, c, loop->var, v);
    inner->body = sched_block(s, body, loop->loc);
    mark(s, inner, st);
    main->body = sched_block(s, inner, loop->loc);
  }
  Stmt *list = NULL, **tail = &list;
  if (main) { *tail = main; tail = &main->next; }
  if (rem) { *tail = rem; tail = &rem->next; }
  *tail = after;
  *link = list;
  return sched_legal(s);
}

/* ---------------- after the last step ---------------- */

typedef struct {
  Sched *s;
  bool failed;
} Expand;

static void expand_list(Expand *e, Stmt **link);

static void expand_in(Expand *e, Stmt *st) {
  switch (st->kind) {
  case ST_BLOCK:
  case ST_FOR:
    expand_list(e, &st->body);
    break;
  case ST_IF:
    expand_list(e, &st->then_s);
    expand_list(e, &st->else_s);
    break;
  default:
    break;
  }
}

/* Inner loops first, as a user unrolls them: each copy is then made once. */
static void expand_list(Expand *e, Stmt **link) {
  while (*link && !e->failed) {
    Stmt *st = *link;
    expand_in(e, st);
    if (st->kind != ST_FOR || st->loop_kind != LOOP_UNROLL || st->intrin) {
      link = &st->next;
      continue;
    }
    int64_t n;
    if (!ir_trip_count(st, &n) || n > SCHED_MAX_UNROLL) {
      e->failed = true;
      sched_error(e->s, NULL, "internal error: unrolled loop %s lost its constant trip count", st->name);
      return;
    }
    Stmt *second = NULL, *after = st->next;
    Stmt *list = copies(e->s, st, st->lo, n, &second);
    if (!list) {
      *link = after;
      continue;
    }
    Stmt *last = list;
    while (last->next) last = last->next;
    last->next = after;
    *link = list;
    /* copies after the first get fresh loop names, now that all are linked */
    for (Stmt *c = second; c && c != after; c = c->next) sched_rename_copies(e->s, c);
    link = &last->next;
  }
}

static bool find_unrolled(Stmt *st, int depth, void *ctx) {
  (void)depth;
  const Stmt **found = ctx;
  if (st->kind == ST_FOR && st->loop_kind == LOOP_UNROLL) *found = st;
  return !*found;
}

const Stmt *sched_unrolled_inside(const Stmt *list) {
  const Stmt *found = NULL;
  ir_walk_stmts((Stmt *)list, find_unrolled, &found);
  return found;
}

/* The statements of list once every unrolled loop in it is expanded,
 * counted up to cap + 1 (the product of nested trip counts would overflow). */
static uint64_t expanded_size(const Stmt *list, uint64_t cap) {
  uint64_t total = 0;
  for (const Stmt *st = list; st && total <= cap; st = st->next) {
    uint64_t one = 1;
    if (st->kind == ST_FOR || st->kind == ST_BLOCK) one += expanded_size(st->body, cap);
    else if (st->kind == ST_IF) one += expanded_size(st->then_s, cap) + expanded_size(st->else_s, cap);
    int64_t n;
    if (st->kind == ST_FOR && st->loop_kind == LOOP_UNROLL && !st->intrin && ir_trip_count(st, &n) && n > 1)
      one = (one - 1) > cap / (uint64_t)n ? cap + 1 : (one - 1) * (uint64_t)n;
    total += one;
  }
  return total > cap ? cap + 1 : total;
}

bool sched_unrolled_size_ok(Sched *s) {
  if (!sched_unrolled_inside(s->k->body)) return true;
  uint64_t n = expanded_size(s->k->body, SCHED_MAX_UNROLLED_STMTS);
  if (n <= SCHED_MAX_UNROLLED_STMTS) return true;
  return sched_error(s, NULL, "the kernel is too large: once its unrolled loops are expanded it would hold more than "
                     "%d statements; unroll fewer nested loops, or by a smaller factor (unroll(loop, f))",
                     SCHED_MAX_UNROLLED_STMTS);
}

bool sched_expand_unrolled(Sched *s) {
  Expand e = {s, false};
  expand_list(&e, &s->k->body->body);
  return !e.failed;
}
