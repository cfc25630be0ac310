/* The scopes of a tuned program's intermediates (docs/tune.md,
 * "Programs"): each local array the calls pass between them is tried in
 * the on-chip scopes the functions of those calls use, then in dm, with
 * `set_scope` (docs/programs.md, "Scopes across calls": where a variant
 * stages the array in that scope, the stage is the array and its copy
 * goes). A scope is kept where the whole program's simulated cycles drop;
 * the engine proves each plan (a refused one, or one that does not fit,
 * is skipped) and the program's check runs the one kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

/* The on-chip scopes by name; the names outlive the probe sessions. */
static const char *const scopes[] = {"dm", "nu_ib", "nu_wb", "nu_ob", "vu_vm"};
enum { NSCOPES = sizeof scopes / sizeof *scopes };

typedef struct {
  char array[64];
  bool scope[NSCOPES]; /* tried in that scope: a call's function uses it, or dm */
} Candidates;

typedef struct {
  Candidates c[TUNE_MAX_INTERMEDIATES];
  int n;
} Found;

/* The on-chip scopes a call's function places its buffers in. */
static bool scopes_of(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Candidates *c = ctx;
  for (int i = 0; i < NSCOPES; i++)
    if (st->kind == ST_DECL && st->buf && st->buf->scope && !strcmp(st->buf->scope, scopes[i])) c->scope[i] = true;
  return true;
}

static Candidates *intermediate(Found *f, const Buffer *b) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->c[i].array, b->name)) return &f->c[i];
  if (f->n == TUNE_MAX_INTERMEDIATES || strlen(b->name) >= sizeof f->c[0].array) return NULL;
  memset(&f->c[f->n], 0, sizeof f->c[f->n]);
  snprintf(f->c[f->n].array, sizeof f->c[f->n].array, "%s", b->name);
  return &f->c[f->n++];
}

/* Is b a local array of the program in DDR (not a parameter)? */
static bool local_array(const Kernel *k, const Buffer *b) {
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf == b) return false;
  return !buffer_onchip(b);
}

/* Every call's local arrays, with the scopes its function uses. */
static void find(const Kernel *k, const Stmt *s, Found *f) {
  for (; s; s = s->next) {
    if (s->kind == ST_BLOCK && s->call) {
      const CallSite *c = s->call;
      for (int i = 0; i < c->nparams; i++) {
        Candidates *t = c->arg_buf[i] && local_array(k, c->arg_buf[i]) ? intermediate(f, c->arg_buf[i]) : NULL;
        if (t && c->fn_ir) ir_walk_stmts(c->fn_ir->body, scopes_of, t);
      }
    } else if (s->kind == ST_BLOCK || s->kind == ST_FOR) find(k, s->body, f);
    else if (s->kind == ST_IF) {
      find(k, s->then_s, f);
      find(k, s->else_s, f);
    }
  }
}

/* p's program variant simulated as its steps stand: its cycles, 0 when a
 * step is refused or the run fails. found: its intermediates (NULL: not
 * asked). */
static uint64_t simulate(const TuneProgram *p, const TuneInvocation *inv, Found *found) {
  char *text = tune_program_steps(p);
  NpgSession *s = npg_open_file_for_target(inv->file, inv->target);
  if (inv->max_steps) npg_set_check_limits(s, inv->max_steps, 0);
  bool ok = npg_error_count(s) == 0 && npg_add_schedule_string(s, "<tune>", text, strlen(text));
  int v = npg_variant_index(s, p->variant);
  ok = ok && npg_error_count(s) == 0 && v >= 0;
  NpgSimResult sim;
  uint64_t cycles = ok && npg_simulate(s, v, inv->seed, &sim) ? sim.sim_cycles : 0;
  const Kernel *k = ok ? session_variant_ir(s, v) : NULL;
  if (found && k) find(k, k->body->body, found);
  npg_close(s);
  free(text);
  return cycles;
}

/* Intermediate i in each of its candidate scopes, the others as kept:
 * the scope that gives the fewest cycles below best, or none. */
static void try_scopes(TuneProgram *p, const TuneInvocation *inv, const Candidates *c, int i, uint64_t *best) {
  const char *kept = NULL;
  for (int j = 0; j < NSCOPES; j++) {
    if (!c->scope[j]) continue;
    p->inter[i].scope = scopes[j];
    uint64_t cycles = simulate(p, inv, NULL);
    if (cycles && cycles < *best) {
      *best = cycles;
      kept = scopes[j];
    }
  }
  p->inter[i].scope = kept;
  p->inter[i].cycles = *best;
  p->nscoped += kept != NULL;
}

void tune_program_scopes(TuneProgram *p, const TuneInvocation *inv) {
  Found f;
  memset(&f, 0, sizeof f);
  uint64_t best = p->ddr_cycles = simulate(p, inv, &f);
  if (!best) return; /* no cycle figure (all on the host): nothing to cost a scope by */
  p->ninter = f.n;
  for (int i = 0; i < f.n; i++) {
    f.c[i].scope[0] = true; /* dm: any unit's copies reach it */
    snprintf(p->inter[i].array, sizeof p->inter[i].array, "%s", f.c[i].array);
    try_scopes(p, inv, &f.c[i], i, &best);
  }
}
