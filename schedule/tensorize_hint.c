/* What to try when a nest is not an intrinsic: notes after tensorize's
 * refusal (and vectorize's, when no VU instruction computes the nest and
 * the loop cannot be a hint either).
 *
 * Two things a user gets wrong most: the loop named (the loop above the
 * caches' copies, or one inside the nest), and the nest's depth against the
 * intrinsic's (a nest may lack loops of the intrinsic, which then run once,
 * but never have more). So: how deep each is, when the nest is deeper,
 * and a loop inside the nest (computing all it computes) or around it
 * whose nest does match. */
#include "schedule/primitives.h"
#include "schedule/tensorize.h"

/* The deepest chain of loops in list. */
static int depth(const Stmt *list) {
  int n = 0;
  for (const Stmt *c = list; c; c = c->next) {
    int d = c->kind == ST_FOR ? 1 + depth(c->body->body)
            : c->kind == ST_BLOCK ? depth(c->body)
            : c->kind == ST_IF ? (depth(c->then_s) > depth(c->else_s) ? depth(c->then_s) : depth(c->else_s)) : 0;
    if (d > n) n = d;
  }
  return n;
}

/* The statements of list that compute (not in a copy nest of a cache). */
static int computing(const Stmt *list) {
  int n = 0;
  for (const Stmt *c = list; c; c = c->next)
    n += c->kind == ST_ASSIGN ? 1
         : c->kind == ST_FOR ? (c->loop_kind == LOOP_DMA ? 0 : computing(c->body->body))
         : c->kind == ST_BLOCK ? computing(c->body)
         : c->kind == ST_IF ? computing(c->then_s) + computing(c->else_s) : 0;
  return n;
}

typedef struct {
  Sched *s;
  int leaves; /* a loop inside the nest is a candidate when it computes all of it */
  const char *intrin;
  const char *prefix; /* vectorize: any npu_vu_ instruction */
  const Stmt *skip;
  const Stmt *found;
  const char *found_intrin;
} Try;

static bool try_loop(Try *t, const Stmt *loop) {
  if (t->found || loop == t->skip || loop->kind != ST_FOR || loop->loop_kind == LOOP_DMA) return false;
  if (t->leaves && computing(loop->body->body) != t->leaves) return false;
  char why[1024];
  t->found_intrin = t->prefix ? tensorize_find(t->s->sems, t->s->a, loop, t->prefix, why, sizeof why)
                              : tensorize_matches(t->s->sems, t->s->a, loop, t->intrin) ? t->intrin : NULL;
  if (t->found_intrin) t->found = loop;
  return t->found != NULL;
}

/* The loops inside list, outermost first, level by level. */
static void try_inside(Try *t, const Stmt *list, int level) {
  for (const Stmt *c = list; c && !t->found; c = c->next) {
    if (c->kind == ST_FOR && level == 0) try_loop(t, c);
    else if (c->kind == ST_FOR) try_inside(t, c->body->body, level - 1);
    else if (c->kind == ST_BLOCK) try_inside(t, c->body, level);
    else if (c->kind == ST_IF) {
      try_inside(t, c->then_s, level);
      try_inside(t, c->else_s, level);
    }
  }
}

/* The loops around target in list, innermost first: true once target is
 * found below. */
static bool try_around(Try *t, const Stmt *list, const Stmt *target) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == target) return true;
    const Stmt *in = c->kind == ST_FOR ? c->body->body : c->kind == ST_BLOCK ? c->body : NULL;
    bool below = (in && try_around(t, in, target)) ||
                 (c->kind == ST_IF && (try_around(t, c->then_s, target) || try_around(t, c->else_s, target)));
    if (below) {
      if (c->kind == ST_FOR) try_loop(t, c);
      return true;
    }
  }
  return false;
}

static const Stmt *other_loop(Try *t, const Stmt *loop) {
  t->skip = loop;
  t->leaves = computing(loop->body->body);
  for (int level = 0; level < depth(loop->body->body) && !t->found; level++) try_inside(t, loop->body->body, level);
  t->leaves = 0; /* a loop around computes all of the nest and more */
  if (!t->found) try_around(t, t->s->k->body->body, loop);
  return t->found;
}

void tensorize_hint(Sched *s, const Stmt *loop, const char *intrin) {
  int nest = depth(loop->body->body) + 1, want = tensorize_depth(s->sems, intrin);
  if (tensorize_shape_matches(s->sems, s->a, loop, intrin)) want = 0; /* the statements match: depth is not it */
  if (want > 0 && nest > want)
    sched_note(s, 0, "the nest under %s is %d loops deep, %s %d: a nest may lack loops of the intrinsic (they run "
               "once) but not have more", loop->name, nest, intrin, want);
  Try t = {.s = s, .intrin = intrin};
  const Stmt *other = other_loop(&t, loop);
  if (other) sched_note(s, 0, "the nest under %s matches %s: try tensorize(%s, %s)", other->name, intrin, other->name, intrin);
}

void vectorize_hint(Sched *s, const Stmt *loop) {
  Try t = {.s = s, .prefix = "npu_vu_"};
  const Stmt *other = other_loop(&t, loop);
  if (other) sched_note(s, 0, "the nest under %s is %s: try vectorize(%s)", other->name, t.found_intrin, other->name);
}
