/* npugen tune of a program (docs/tune.md, "Programs"): a kernel that
 * calls other kernels. Each distinct callee is tuned on its own by the
 * kernel tuner, at the program's sizes, under an equal share of the
 * budget; the program's variant then runs each call on its callee's
 * tuned variant (`use`) where that beats the callee as written, and the
 * whole program is checked against the program as written and costed by
 * its simulated cycles, against its own bound (jit/kernel_bound.c: the
 * program as one kernel). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/check.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

/* The calls of the program, outside each other (a call inside a callee is
 * the callee's), each counted as often as the loops around it run. */

static int callee_index(TuneProgram *p, const Kernel *k) {
  for (int i = 0; i < p->ncallees; i++)
    if (p->callee[i].kernel == k) return i;
  if (p->ncallees == TUNE_MAX_CALLEES) return -1;
  TuneCallee *c = &p->callee[p->ncallees];
  memset(c, 0, sizeof *c);
  c->kernel = k;
  c->bound = k->nsizes ? 0 : kernel_bound(k, p->target, c->unit, sizeof c->unit);
  return p->ncallees++;
}

static void add_call(TuneProgram *p, const Stmt *s, uint64_t times) {
  int ci = callee_index(p, s->call->callee);
  if (ci < 0 || p->ncalls == TUNE_MAX_CALLS) {
    p->too_many = true;
    return;
  }
  TuneCall *c = &p->call[p->ncalls++];
  memset(c, 0, sizeof *c);
  c->name = s->call->name;
  c->line = s->loc.line;
  c->callee = ci;
  c->times = times;
  p->callee[ci].calls += (int)times;
}

static void find_calls(TuneProgram *p, const Stmt *s, uint64_t times) {
  for (; s; s = s->next) {
    if (s->kind == ST_BLOCK && s->call) add_call(p, s, times);
    else if (s->kind == ST_BLOCK) find_calls(p, s->body, times);
    else if (s->kind == ST_IF) {
      find_calls(p, s->then_s, times); /* either branch may run: each counted, a bound above the work */
      find_calls(p, s->else_s, times);
    } else if (s->kind == ST_FOR) {
      int64_t trip = tune_trip(s);
      if (trip < 0) p->trips_unknown = true; /* 0: an empty loop, its calls never run */
      find_calls(p, s->body, times * (uint64_t)(trip < 0 ? 1 : trip));
    }
  }
}

static bool holds_call(const Stmt *s) {
  for (; s; s = s->next)
    if ((s->kind == ST_BLOCK && (s->call || holds_call(s->body))) || (s->kind == ST_FOR && holds_call(s->body)) ||
        (s->kind == ST_IF && (holds_call(s->then_s) || holds_call(s->else_s))))
      return true;
  return false;
}

bool tune_program_find(NpgSession *s, const char *kernel, TuneProgram *p) {
  memset(p, 0, sizeof *p);
  const Module *m = session_module(s);
  const Kernel *k = m ? module_kernel(m, kernel) : NULL;
  if (!k) return false;
  p->program = k;
  p->target = session_target(s);
  find_calls(p, k->body->body, 1);
  p->bound = kernel_bound(k, p->target, NULL, 0); /* the program as one kernel, as the check bounds it */
  return p->ncalls > 0;
}

/* The share of the budget each callee's search gets: --trials and
 * --time-limit split evenly (at least one trial each). */
static TuneOptions share(const TuneOptions *o, int n) {
  TuneOptions s = *o;
  if (o->max_trials > 0) s.max_trials = o->max_trials / n > 0 ? o->max_trials / n : 1;
  if (o->time_limit >= 0) s.time_limit = o->time_limit / n;
  return s;
}

/* A callee no NPU sketch takes, in a program whose other calls run on the
 * NPU: each sketch's refusal (refusals: the space's notes) to msgs, and
 * the call's note. */
static void no_npu_sketch(TuneCallee *c, const char *refusals, FILE *msgs) {
  fprintf(msgs,
          "npugen tune: no NPU sketch takes %s, so the program runs it as written, on the CU (not tuned for this "
          "CPU: its time here is not its cycles there); why each sketch does not apply:\n%s",
          c->kernel->name, refusals);
  snprintf(c->note, sizeof c->note,
           "no NPU sketch takes it, so it runs as written, on the CU (the messages above say why)");
}

/* Callee c's search and its winner's steps, when one passes its check
 * and beats the callee as written. host_only not NULL: a callee that gets
 * only host sketches (where the NPU was asked for) is not searched, and
 * *host_only holds why each NPU sketch refused it (malloc'ed): in a
 * program whose other calls run on the NPU it runs on the CU, in the
 * simulator, where a time measured on this CPU says nothing of its
 * cycles. */
static void tune_callee(NpgSession *s, const TuneInvocation *inv, const TuneOptions *o, TuneCallee *c,
                        const TuneProgramHooks *h, FILE *msgs, char **host_only) {
  const Kernel *k = c->kernel;
  char why[5000];
  tune_variant_name(inv->file, k->name, c->variant, sizeof c->variant);
  if (holds_call(k->body)) {
    snprintf(c->note, sizeof c->note, "it calls kernels itself: tune it with --kernel %s first", k->name);
    return;
  }
  TuneSpace sp;
  if (!tune_space_build(&sp, s, k->name, inv->host, why, sizeof why)) {
    snprintf(c->note, sizeof c->note, "%.*s", (int)strcspn(why, "\n"), why);
    return;
  }
  if (host_only && sp.host && !inv->host) {
    *host_only = strdup(sp.notes);
    tune_space_free(&sp);
    return;
  }
  sp.variant = c->variant;
  if (h && h->space) h->space(&sp, h->ctx);
  TuneRun run;
  tune_run_init(&run);
  tune_search(&sp, o, &run);
  if (h && h->ran) h->ran(&sp, &run, h->ctx);
  TuneWinner w;
  if (!tune_pick_best(&sp, inv, &run, &w, msgs)) snprintf(c->note, sizeof c->note, "%.500s", w.check.message);
  else if (run.v[w.rank].g.sketch == TUNE_AS_WRITTEN)
    snprintf(c->note, sizeof c->note, "no candidate beat it as written (timed in the same run)");
  else {
    c->steps = strdup(run.v[w.rank].steps);
    c->result = run.v[w.rank].r;
    c->check = w.check;
    c->host = sp.host;
    tune_describe(&sp, &run.v[w.rank].g, c->describe, sizeof c->describe);
  }
  tune_run_free(&run);
  tune_space_free(&sp);
}

/* text (lines ended by '\n') as a block comment, escaped: the paths
 * and sizes in it are the user's text. */
static void comment(StrBuf *sb, const char *text) {
  const char *nl = strchr(text, '\n');
  sb_puts(sb, "/* ");
  sb_c_text(sb, C_TEXT_COMMENT, text, (size_t)(nl - text) + 1);
  sb_lines(sb, nl + 1, " * ");
  sb->len--; /* the last line's newline: the comment closes on it */
  sb_puts(sb, " */\n");
}

/* The schedule file's steps: each callee's tuned variant (with a comment
 * of what it is), then the program's variant: the intermediates' scopes
 * first (a set_scope after the use lines may be refused: docs/programs.md),
 * then a use() per call that runs its callee's variant. */
char *tune_program_steps(const TuneProgram *p) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < p->ncallees; i++) {
    const TuneCallee *c = &p->callee[i];
    if (!c->steps) continue;
    sb_puts(&sb, "\n");
    StrBuf head;
    sb_init(&head);
    sb_printf(&head, "%s, tuned alone: %s\n", c->kernel->name, c->describe);
    if (c->host) sb_printf(&head, "%.1f us per call on the machine that tuned it\n", 1e-3 * (double)c->result.median_ns);
    else sb_printf(&head, "%" PRIu64 " cycles, roofline %.1f%%\n", c->check.sim_cycles, 100.0 * c->result.roofline);
    comment(&sb, head.data);
    sb_free(&head);
    sb_puts(&sb, c->steps);
  }
  sb_printf(&sb, "\n#pragma npu schedule(%s, %s)\n", p->program->name, p->variant);
  for (int i = 0; i < p->ninter; i++)
    if (p->inter[i].scope) sb_printf(&sb, "#pragma npu set_scope(%s, %s)\n", p->inter[i].array, p->inter[i].scope);
  for (int i = 0; i < p->ncalls; i++)
    if (p->call[i].used) sb_printf(&sb, "#pragma npu use(%s, %s)\n", p->call[i].name, p->callee[p->call[i].callee].variant);
  return sb_take(&sb);
}

/* Does the text apply to the file (every step legal)? why: the first
 * refusal, without its location. */
bool tune_program_applies(const TuneInvocation *inv, const char *text, char *why, size_t n) {
  NpgSession *s = npg_open_file_for_target(inv->file, inv->target);
  size_t before = strlen(npg_errors(s));
  bool ok = npg_error_count(s) == 0;
  ok = ok && npg_add_schedule_string(s, "<tune>", text, strlen(text)) && npg_error_count(s) == 0;
  if (!ok) tune_first_error(s, before, why, n);
  npg_close(s);
  return ok;
}

static void use_tuned_from(TuneProgram *p, int from) {
  for (int j = from; j < p->ncalls; j++) p->call[j].used = p->callee[p->call[j].callee].steps != NULL;
}

/* call[i].used: call i runs its callee's tuned variant. Every call whose
 * callee has one, unless the step is refused (a layout the call's arrays
 * do not have): then each call is tried alone, in order, on top of those
 * kept. */
static void choose_uses(TuneProgram *p, const TuneInvocation *inv) {
  use_tuned_from(p, 0);
  char *text = tune_program_steps(p), why[400];
  bool all = tune_program_applies(inv, text, why, sizeof why);
  free(text);
  if (all) return;
  for (int i = 0; i < p->ncalls; i++) {
    if (!p->call[i].used) continue;
    for (int j = i + 1; j < p->ncalls; j++) p->call[j].used = false;
    text = tune_program_steps(p);
    if (!tune_program_applies(inv, text, why, sizeof why)) {
      p->call[i].used = false;
      snprintf(p->call[i].why, sizeof p->call[i].why, "use refused: %s", why);
    }
    free(text);
    use_tuned_from(p, i + 1);
  }
}

/* The program variant (and the program as written) checked in a session of
 * their own. */
static bool check_program(TuneProgram *p, const TuneInvocation *inv, const char *text) {
  NpgSession *s = npg_open_file_for_target(inv->file, inv->target);
  if (inv->max_steps > CHECK_DEFAULT_MAX_STEPS) npg_set_check_limits(s, inv->max_steps, 0);
  npg_add_schedule_string(s, "<tune>", text, strlen(text));
  int v = npg_variant_index(s, p->variant), w = npg_variant_index(s, p->program->name);
  bool ok = npg_error_count(s) == 0 && v >= 0 && npg_check(s, v, inv->seed, &p->check) && p->check.pass;
  if (npg_error_count(s)) snprintf(p->check.message, sizeof p->check.message, "%.1000s", npg_errors(s));
  /* the program as written, simulated alone (it was the reference above) */
  NpgSimResult aw;
  if (ok && w >= 0) {
    npg_simulate(s, w, inv->seed, &aw);
    p->as_written_cycles = aw.sim_cycles;
    snprintf(p->as_written, sizeof p->as_written, "%.1000s", aw.summary[0] ? aw.summary : aw.message);
  }
  npg_close(s);
  return ok;
}

bool tune_program_run(NpgSession *s, const TuneInvocation *inv, const TuneOptions *o, TuneProgram *p,
                      const TuneProgramHooks *h, FILE *msgs) {
  tune_variant_name(inv->file, p->program->name, p->variant, sizeof p->variant);
  TuneOptions each = share(o, p->ncallees);
  char *host_only[TUNE_MAX_CALLEES] = {0};
  bool on_npu = false;
  for (int i = 0; i < p->ncallees; i++) {
    tune_callee(s, inv, &each, &p->callee[i], h, msgs, &host_only[i]);
    on_npu |= p->callee[i].steps && !p->callee[i].host;
  }
  /* with no call on the NPU the program is the host's: such callees are
   * tuned for this CPU after all */
  for (int i = 0; i < p->ncallees; i++) {
    if (host_only[i] && on_npu) no_npu_sketch(&p->callee[i], host_only[i], msgs);
    else if (host_only[i]) tune_callee(s, inv, &each, &p->callee[i], h, msgs, NULL);
    free(host_only[i]);
  }
  choose_uses(p, inv);
  for (int i = 0; i < p->ncalls; i++) p->uses += p->call[i].used;
  tune_program_scopes(p, inv);
  p->text = tune_program_steps(p);
  if (check_program(p, inv, p->text) || !p->nscoped) return p->check.pass;
  /* the scopes' plan fails its check: the program with them in DDR instead (the failure named) */
  fprintf(msgs, "npugen tune: %s with its intermediates on chip fails the check (%s); trying them in DDR\n",
          p->variant, p->check.message);
  for (int i = 0; i < p->ninter; i++) p->inter[i].scope = NULL;
  p->nscoped = 0;
  free(p->text);
  p->text = tune_program_steps(p);
  return check_program(p, inv, p->text);
}

/* The schedule file: a comment of how it was made (the paths are the
 * user's text: escaped by sb_lines), then the steps. */
bool tune_program_write(const TuneProgram *p, const TuneInvocation *inv, const char *out, char *why, size_t n) {
  StrBuf head, text;
  sb_init(&head);
  sb_init(&text);
  sb_printf(&head, "npugen tune %s --kernel %s%s%s%s%s --seed %" PRIu64 ": a program of %d call%s to %d kernel%s\n",
            inv->file, p->program->name, inv->target ? " --target " : "", inv->target ? inv->target : "",
            inv->size ? " --size " : "", inv->size ? inv->size : "", inv->seed, p->ncalls, p->ncalls == 1 ? "" : "s",
            p->ncallees, p->ncallees == 1 ? "" : "s");
  sb_printf(&head, "each kernel tuned alone; %d call%s run%s a tuned variant; passes npugen check (seed %" PRIu64 ")\n",
            p->uses, p->uses == 1 ? "" : "s", p->uses == 1 ? "s" : "", inv->seed);
  if (p->nscoped)
    sb_printf(&head, "%d intermediate%s on chip (set_scope), costed by the whole program's cycles: %" PRIu64
                     " with every intermediate in DDR\n", p->nscoped, p->nscoped == 1 ? "" : "s", p->ddr_cycles);
  if (p->check.sim_cycles)
    sb_printf(&head, "%s: %" PRIu64 " cycles; its own bound: %" PRIu64 " cycles (%.1f%%)\n",
              p->program->name, p->check.sim_cycles, p->bound,
              p->bound ? 100.0 * (double)p->bound / (double)p->check.sim_cycles : 0.0);
  comment(&text, head.data);
  sb_puts(&text, p->text + 1); /* its first newline */
  sb_free(&head);
  FILE *f = fopen(out, "w");
  bool ok = f && fputs(text.data, f) >= 0;
  if (f && fclose(f)) ok = false;
  if (!ok) snprintf(why, n, "cannot write %s", out);
  sb_free(&text);
  return ok;
}

void tune_program_free(TuneProgram *p) {
  for (int i = 0; i < p->ncallees; i++) free(p->callee[i].steps);
  free(p->text);
  p->text = NULL;
}
