/* Pass: a note before each top-level loop nest, naming its statements,
 *
 *   note: loop nest i (line 4): init (line 6), update (line 8)
 *
 * (the emitted C's comment above the nest, DESIGN.md section 6), made
 * once the nest is lowered: it goes before all the nest became, with the
 * nest's annotations, which print before it. */
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

Stmt *lower_nest_note(Lower *lw, const Stmt *nest, Stmt *lowered) {
  char text[1024];
  Names l = {text, sizeof text, 0, 0};
  l.len = snprintf(text, sizeof text, "loop nest %s (line %d)", nest->name, nest->loc.line);
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
