/* Pass: a note before each top-level loop nest, naming its statements,
 *
 *   note: loop nest i (line 4): init (line 6), update (line 8)
 *
 * (the emitted C's comment above the nest, DESIGN.md section 6), made
 * once the nest is lowered: it goes before all the nest became, with the
 * nest's annotations, which print before it. The loop is named by the
 * counter the C declares (`i`, not a fission copy's `i_1`), and only
 * where the C still has it: a loop of one pass (lower/tidy.c) or a copy
 * nest the DMA pass made one call is "nest at line 4", since a comment
 * naming a counter the reader cannot find reads as a bug. */
#include <stdio.h>

#include "lower/lower.h"

enum { NAMED = 6 }; /* statements named; "and N more" for the others */

typedef struct {
  char *text;
  size_t cap;
  int len, n;
} Names;

static bool name_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Names *l = ctx;
  if (s->kind != ST_ASSIGN) return true;
  if (l->n++ < NAMED && l->len < (int)l->cap)
    l->len += snprintf(l->text + l->len, l->cap - (size_t)l->len, "%s %s (line %d)", l->n > 1 ? "," : ":", s->name,
                       s->loc.line);
  return true;
}

static bool finds_loop(Stmt *s, int depth, void *ctx) {
  (void)depth;
  const Var **v = ctx;
  if (s->kind == ST_FOR && s->var == *v) *v = NULL;
  return *v != NULL;
}

/* The lowered statements still loop over v. */
static bool loops_over(const Stmt *lowered, const Var *v) {
  for (const Stmt *s = lowered; s && v; s = s->next) ir_walk_one(s, finds_loop, &v);
  return !v;
}

Stmt *lower_nest_note(Lower *lw, const Stmt *nest, Stmt *lowered) {
  char text[1024];
  Names l = {text, sizeof text, 0, 0};
  if (nest->kind == ST_FOR && loops_over(lowered, nest->var))
    l.len = snprintf(text, sizeof text, "loop nest %s (line %d)", nest->var->name, nest->loc.line);
  else
    l.len = snprintf(text, sizeof text, "nest at line %d", nest->loc.line);
  ir_walk_one(nest, name_stmt, &l);
  if (l.n > NAMED && l.len < (int)sizeof text) snprintf(text + l.len, sizeof text - (size_t)l.len, ", and %d more", l.n - NAMED);
  Stmt *note = lower_note(lw, nest->loc, text);
  note->annots = lowered->annots;
  lowered->annots = NULL;
  note->next = lowered;
  return note;
}

bool lower_vec_note(const Stmt *s, StrBuf *out) {
  if (s->loop_kind != LOOP_VECTORIZE || !s->vec_note) return false;
  sb_printf(out, "vectorize(%s) stays a hint: no VU instruction computes this nest (%s)", s->name, s->vec_note);
  return true;
}
