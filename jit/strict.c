/* --strict and `#pragma npu strict`: every weakening of the verdict is an
 * error. A weakening is what lets a variant pass while it does less than
 * its schedule says: a vectorize on vector memory that stays a hint (the
 * control unit runs the loop). The schedule step reports it as a warning
 * marked `weakens` (sched_weakening); strict makes those errors, and the
 * check fails a variant that holds one, saying which. */
#include <stdio.h>
#include <string.h>

#include "jit/session.h"

static bool strict(const NpgSession *s) { return s->strict || (s->m && s->m->strict); }

void session_strict_diags(NpgSession *s) {
  if (strict(s)) diag_strict(&s->diags);
}

void npg_set_strict(NpgSession *s, bool on) {
  if (!s) return; /* as every entry point: NULL refused, nothing done */
  s->strict = on;
  session_strict_diags(s);
}

typedef struct {
  const Stmt *hint; /* the first vectorized loop whose nest no VU instruction computes */
} Hint;

static bool hint_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Hint *h = ctx;
  if (st->kind == ST_FOR && st->loop_kind == LOOP_VECTORIZE && st->vec_note) h->hint = st;
  return !h->hint;
}

bool session_strict_verdict(const NpgSession *s, int i, NpgCheckResult *r) {
  if (!strict(s) || !r->pass) return r->pass;
  if (r->fallbacks) {
    r->pass = false;
    snprintf(r->message, sizeof r->message, "strict: %llu call%s of %s ran the nest as written instead (its operands "
             "outside the domain it is defined for)", (unsigned long long)r->fallbacks, r->fallbacks == 1 ? "" : "s",
             r->fallback_op);
    return false;
  }
  if (r->size_sets_not_run) { /* a size the kernel is defined for went unchecked */
    r->pass = false;
    snprintf(r->message, sizeof r->message, "strict: %d size set%s over the step budget, not run (raise it with "
             "--max-steps, or assume smaller sizes)", r->size_sets_not_run, r->size_sets_not_run == 1 ? "" : "s");
    return false;
  }
  Hint h = {NULL};
  ir_walk_stmts(s->v[i].ir->body, hint_visit, &h);
  if (!h.hint) return true;
  r->pass = false;
  snprintf(r->message, sizeof r->message, "strict: %s (line %d) stays a hint: no VU instruction computes the nest under %s (%s)",
           h.hint->mark_step ? h.hint->mark_step : "vectorize", h.hint->mark_loc.line, h.hint->name, h.hint->vec_note);
  return false;
}
