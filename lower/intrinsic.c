/* Pass (last): each tensorized nest's call. A later schedule step may
 * have changed a nest tensorize matched; the matcher (schedule/
 * tensorize.c) says whether it still does, and gives the call and the
 * test of its scalar operands' domains. The nest is copied with the
 * answer (Stmt.intrin_call), which emit/ prints: the call, under its test
 * with the nest as written as the other branch, or a comment saying why
 * the loops stay. */
#include "lower/lower.h"
#include "schedule/tensorize.h"

static bool find_intrin(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *found = ctx;
  *found |= s->kind == ST_FOR && s->intrin;
  return !*found;
}

static bool holds_intrin(const Stmt *s) {
  bool found = false;
  lower_walk_one(s, find_intrin, &found);
  return found;
}

static const IntrinCall *decide(Lower *lw, const Stmt *loop) {
  IntrinCall *c = ARENA_NEW(lw->arena, IntrinCall);
  StrBuf call, guard;
  sb_init(&call);
  sb_init(&guard);
  char why[1024];
  Arena scratch;
  arena_init(&scratch, 0);
  if (tensorize_call(&scratch, loop, &call, &guard, why, sizeof why)) {
    c->call = arena_strdup(lw->arena, call.data);
    if (guard.len) c->guard = arena_strdup(lw->arena, guard.data);
  } else {
    c->why = arena_strdup(lw->arena, why);
  }
  arena_free(&scratch);
  sb_free(&call);
  sb_free(&guard);
  return c;
}

/* list with each tensorized nest copied with its call; the statements
 * around them copied, the others shared. */
static Stmt *calls(Lower *lw, const Stmt *list, const void *ctx) {
  Stmt *out = NULL, **tail = &out;
  for (const Stmt *s = list; s; s = s->next) {
    if (!holds_intrin(s)) {
      tail = lower_append(tail, lower_shallow(lw, s));
      continue;
    }
    Stmt *c = lower_rebuild(lw, s, calls, ctx);
    if (s->kind == ST_FOR && s->intrin) c->intrin_call = decide(lw, c);
    tail = lower_append(tail, c);
  }
  return out;
}

Stmt *lower_intrinsics(Lower *lw, const Stmt *body) { return calls(lw, body, NULL); }
