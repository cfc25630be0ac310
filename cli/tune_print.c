/* What npugen tune prints: the space, the table of the best candidates,
 * and for a host space the kernel as written against the winner. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/tune_print.h"

/* One row of the table: rank (or "-"), the figures, the candidate. */
static void table_row(const TuneSpace *sp, const TuneEntry *e, const char *rank) {
  const TrialResult *r = &e->r;
  char d[512], gflops[32] = "-";
  tune_describe(sp, &e->g, d, sizeof d);
  if (sp->flops > 0) snprintf(gflops, sizeof gflops, "%.2f", sp->flops / (double)r->median_ns);
  if (sp->host)
    printf("%-4s %12.1f %6.1f%% %8s %8.2f  %s\n", rank, 1e-3 * (double)r->median_ns, 100.0 * r->spread, gflops, r->seconds, d);
  else
    printf("%-4s %12" PRIu64 " %8.1f%% %-3s%3.0f%% %8.2f  %s\n", rank, r->cycles, 100.0 * r->roofline, r->bound,
           100.0 * r->bound_util, r->seconds, d);
}

/* The best five: host ones by their median time (GFLOP/s from the
 * contraction's flops), NPU ones by cycles, with the unit that bounds
 * them (where the work runs: `cu` for code the CU runs itself); then the
 * kernel as written, ranked "-", when it is not among them. */
void tune_print_table(const TuneSpace *sp, const TuneRun *run) {
  if (sp->host) printf("%-4s %12s %7s %8s %8s  %s\n", "rank", "median us", "spread", "GFLOP/s", "trial s", "candidate");
  else printf("%-4s %12s %9s %-6s %8s  %s\n", "rank", "cycles", "roofline", "bound", "trial s", "candidate");
  bool shown = false;
  for (int i = 0; i < run->n && i < 5 && run->v[i].r.status == TRIAL_SIMULATED; i++) {
    char rank[16];
    snprintf(rank, sizeof rank, "%d", i + 1);
    table_row(sp, &run->v[i], rank);
    shown = shown || run->v[i].g.sketch == TUNE_AS_WRITTEN;
  }
  const TuneEntry *aw = tune_as_written(run);
  if (!shown && aw && aw->r.status == TRIAL_SIMULATED) table_row(sp, aw, "-");
}

/* A figure of r as the line below says it: "12.3 us" or "8393 cycles". */
static void figure(const TuneSpace *sp, const TrialResult *r, char *out, size_t n) {
  if (sp->host) snprintf(out, n, "%.1f us", 1e-3 * (double)r->median_ns);
  else snprintf(out, n, "%" PRIu64 " cycles", r->cycles);
}

/* The kernel as written against the winner: its figure is its trial's,
 * taken in the same run by the same timer (a host run), or simulated as
 * the candidates are, its CU cycles (an NPU run: tune_search). */
void tune_print_as_written(const TuneSpace *sp, const TuneRun *run, const TuneWinner *w) {
  const TuneEntry *aw = tune_as_written(run);
  if (!aw || aw->r.status != TRIAL_SIMULATED) {
    fprintf(stderr, "npugen tune: the kernel as written has no figure: %s\n", aw ? aw->r.message : "not run");
    return;
  }
  const TuneEntry *win = &run->v[w->rank];
  double tuned = (double)tune_cost(&win->r), asis = (double)tune_cost(&aw->r);
  char fig[64];
  figure(sp, &aw->r, fig, sizeof fig);
  if (sp->host) printf("%s as written: %s per call (spread %.1f%%", sp->kernel, fig, 100.0 * aw->r.spread);
  else printf("%s as written: %s (bound by %s, roofline %.1f%%", sp->kernel, fig, aw->r.bound, 100.0 * aw->r.roofline);
  if (win == aw) {
    /* the best candidate lost to it: that one's figure says by how much */
    const TuneEntry *next = NULL;
    for (int i = 0; i < run->n && !next; i++)
      if (run->v[i].r.status == TRIAL_SIMULATED && &run->v[i] != aw) next = &run->v[i];
    char d[512];
    if (next) tune_describe(sp, &next->g, d, sizeof d);
    if (next) figure(sp, &next->r, fig, sizeof fig);
    printf("); no candidate beat it, so %s is the kernel as written (no step)", sp->variant);
    if (next) printf("; the best candidate, %s, took %s (%.2fx)", d, fig, asis / (double)tune_cost(&next->r));
    else printf("; no candidate was %s", sp->host ? "timed" : "simulated");
    printf("\n");
    return;
  }
  figure(sp, &win->r, fig, sizeof fig);
  if (sp->host && sp->flops > 0) /* host:loops counts no flops */
    printf(", %.2f GFLOP/s); tuned: %s (%.2f GFLOP/s), %.2fx\n", sp->flops / asis, fig, sp->flops / tuned, asis / tuned);
  else printf("); tuned: %s, %.2fx\n", fig, asis / tuned);
}

/* What the space is, which sketches do not apply and why. */
void tune_print_space(const TuneSpace *sp, bool host_asked, int jobs) {
  fprintf(stderr, "npugen tune: kernel %s, %d sketch%s:", sp->kernel, sp->nsketch, sp->nsketch > 1 ? "es" : "");
  for (int i = 0; i < sp->nsketch; i++) fprintf(stderr, " %s", sp->sketch[i].name);
  fputc('\n', stderr);
  if (sp->host && !host_asked)
    fprintf(stderr, "npugen tune: no NPU sketch applies, so the kernel is tuned for this CPU (the cost is measured time)\n");
  if (sp->notes[0]) fprintf(stderr, "npugen tune: sketches that do not apply, and why:\n%s", sp->notes);
  if (sp->host && jobs > 1) /* a trial compiling beside a timed one makes the timing noise, not the variant */
    fprintf(stderr, "npugen tune: --jobs %d ignored: host trials are timed on this CPU, one at a time\n", jobs);
}


/* One line per call, then the program's figures. */
void tune_print_program(const TuneProgram *p) {
  printf("%s: %d call%s\n", p->program->name, p->ncalls, p->ncalls == 1 ? "" : "s");
  printf("  %-16s %-16s %-6s %12s  %s\n", "call", "kernel", "runs", "own bound", "variant");
  for (int i = 0; i < p->ncalls; i++) {
    const TuneCall *c = &p->call[i];
    const TuneCallee *k = &p->callee[c->callee];
    char bound[32] = "-";
    if (k->bound) snprintf(bound, sizeof bound, "%" PRIu64 " %s", k->bound, k->unit);
    printf("  %-16s %-16s %-6" PRIu64 " %12s  ", c->name, k->kernel->name, c->times, bound);
    if (c->used && k->host) /* timed on this CPU: the check has no cycle figure for it */
      printf("%s (alone: %.1f us per call on this machine, median)\n", k->variant, 1e-3 * (double)k->result.median_ns);
    else if (c->used) printf("%s (alone: %s)\n", k->variant, k->check.summary);
    else printf("%s as written: %s\n", k->kernel->name, c->why[0] ? c->why : k->note[0] ? k->note : "not tuned");
  }
  if (p->too_many) printf("  (more calls or kernels than tune keeps: the rest run as written)\n");
  if (p->trips_unknown) printf("  (a loop around a call has no constant trip count: its calls counted once)\n");
  for (int i = 0; i < p->ninter; i++) {
    if (!p->inter[i].scope) printf("  %s stays in DDR: no on-chip scope took fewer cycles\n", p->inter[i].array);
    else
      printf("  %s in %s: the program took %" PRIu64 " cycles with it there\n", p->inter[i].array, p->inter[i].scope,
             p->inter[i].cycles);
  }
  if (p->ninter)
    printf("  (every intermediate in DDR: %" PRIu64 " cycles; each tried in dm and the scopes its calls use)\n", p->ddr_cycles);
  if (!p->check.pass) return;
  printf("%s: PASS npugen check (%s); %s\n", p->variant, p->check.exact ? "bit-exact" : "within the tolerance",
         p->check.summary);
  if (p->check.sim_cycles && p->bound)
    printf("%s: %" PRIu64 " cycles; roofline %.1f%% of the program's own bound, %" PRIu64 " cycles\n",
           p->program->name, p->check.sim_cycles, 100.0 * (double)p->bound / (double)p->check.sim_cycles, p->bound);
  printf("%s as written: %s\n", p->program->name, p->as_written[0] ? p->as_written : "not run");
}

static void show_space(const TuneSpace *sp, void *ctx) {
  const TuneShown *shown = ctx;
  tune_print_space(sp, shown->host_asked, shown->jobs);
}

static void show_run(const TuneSpace *sp, const TuneRun *run, void *ctx) {
  (void)ctx;
  fprintf(stderr, "npugen tune: %s stopped: %s, after %.1f s\n", sp->kernel, run->stopped, run->seconds);
  printf("%s:\n", sp->kernel);
  tune_print_table(sp, run);
}

TuneProgramHooks tune_print_program_hooks(TuneShown *shown) {
  return (TuneProgramHooks){show_space, show_run, shown};
}
