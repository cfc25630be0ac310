/* Pass (last): each tensorized nest's call. A later schedule step may
 * have changed a nest tensorize matched; the matcher (schedule/
 * tensorize.c) says whether it still does, and gives the call and the
 * test of its scalar operands' domains. The nest is copied with the
 * answer (Stmt.intrin_call), which emit/ prints: the call, under its test
 * with the nest as written as the other branch, or a comment saying why
 * the loops stay. */
#include <stdio.h>
#include <string.h>

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
  ir_walk_one(s, find_intrin, &found);
  return found;
}

/* A statement of the nest that occurs in it more than once: a later step
 * copied it (unroll expands a loop into copies of its body; a partition
 * or a split's tail repeats it too). */
typedef struct {
  const Stmt *seen[64];
  int nseen;
  const Stmt *copied;
  int copies;
} Copies;

static bool find_copies(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Copies *c = ctx;
  if (s->kind != ST_ASSIGN || !s->name) return true;
  for (int i = 0; i < c->nseen; i++)
    if (!strcmp(c->seen[i]->name, s->name)) {
      if (!c->copied) c->copied = c->seen[i];
      if (c->copied == c->seen[i]) c->copies++;
      return true;
    }
  if (c->nseen < 64) c->seen[c->nseen++] = s;
  return true;
}

/* Why the nest no longer matches, when a later step copied one of its
 * statements: the matcher's own reason ("does more than the intrinsic")
 * would blame the nest as written. */
static bool copied_why(const Stmt *loop, char *why, size_t n) {
  Copies c = {.copies = 1};
  ir_walk_one(loop, find_copies, &c);
  if (!c.copied) return false;
  snprintf(why, n, "the nest holds %d copies of %s (line %d): a later step copied it (an unroll of a loop in the "
           "nest, or a partition), and one call of the intrinsic runs the whole nest; drop that step, or apply it "
           "to a loop around the nest", c.copies, c.copied->name, c.copied->loc.line);
  return true;
}

/* `npu_cu_fallback("NAME");`: the check's C tells the simulator it ran
 * the nest as written instead of intrinsic NAME. */
static const char *fallback_mark(Lower *lw, const char *intrin) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "npu_cu_fallback(\"");
  sb_c_text(&sb, C_TEXT_STRING, intrin, strlen(intrin));
  sb_puts(&sb, "\");");
  const char *text = arena_strdup(lw->arena, sb.data);
  sb_free(&sb);
  return text;
}

/* The call's arguments copied out of the matcher's scratch arena. */
static const IntrinArg *kept_args(Lower *lw, const TensorizedCall *tc) {
  IntrinArg *args = ARENA_ARRAY(lw->arena, IntrinArg, tc->nargs ? tc->nargs : 1);
  for (int i = 0; i < tc->nargs; i++) {
    args[i] = tc->args[i];
    args[i].value = ir_expr_copy(lw->arena, tc->args[i].value);
    if (tc->args[i].cast) args[i].cast = arena_strdup(lw->arena, tc->args[i].cast);
  }
  return args;
}

static const IntrinCall *decide(Lower *lw, const Stmt *loop) {
  IntrinCall *c = ARENA_NEW(lw->arena, IntrinCall);
  StrBuf guard;
  sb_init(&guard);
  char why[1024];
  Arena scratch;
  arena_init(&scratch, 0);
  TensorizedCall *tc = ARENA_NEW(&scratch, TensorizedCall);
  if (tensorize_call(&scratch, loop, tc, &guard, why, sizeof why)) {
    c->fn = loop->intrin;
    c->args = kept_args(lw, tc);
    c->nargs = tc->nargs;
    lower_hold_repeat(lw, loop, c);
    lower_name_args(lw, c);
    c->comment = loop->isel_note;
    if (guard.len) {
      c->guard = arena_strdup(lw->arena, guard.data);
      c->fallback_note = arena_printf(lw->arena, "outside the operands %s is defined for: the nest as written", loop->intrin);
      c->fallback_mark = fallback_mark(lw, loop->intrin);
      Stmt *f = lower_shallow(lw, loop); /* printed as a loop: no call, no notes */
      f->intrin_call = NULL;
      f->annots = NULL;
      f->note = f->order_note = NULL;
      c->fallback = f;
    }
  } else {
    copied_why(loop, why, sizeof why);
    c->note = arena_printf(lw->arena, "tensorize(%s, %s) no longer matches: %s", loop->name, loop->intrin, why);
  }
  arena_free(&scratch);
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
