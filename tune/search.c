/* The search: evolutionary, seeded by structure (as Ansor does).
 *
 * Generation 0 is each sketch's structured seed (tile sizes near the NU's
 * natural tile, every buffer double-buffered, the rows a core's vector
 * memory holds) and every point one knob away from it, ranked by the cheap
 * estimate. Later generations mutate the best candidates (a knob to a
 * neighbouring value or to any value; one or two knobs) and cross two
 * of the best of one sketch. Every proposal is deduplicated by the hash of
 * its schedule, and dropped when its estimate (a bound on what the
 * candidate can do: the units' work, the DMA bytes over the bandwidth) is
 * already worse than the best simulated, or says the candidate cannot run
 * (UINT64_MAX: its buffers do not fit); the rest are ranked by the
 * estimate, half the batch taken from the top and half at random so the
 * estimate's blind spots still get tried. Every random choice comes from
 * one generator seeded by --seed, and results come back in batch order,
 * so the search is the same at every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/session_ir.h"
#include "tune/tune.h"

enum { BATCH = 8, ELITE = 6, PROPOSALS = 64 };

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int below(uint64_t *s, int n) { return n > 0 ? (int)(next(s) % (uint64_t)n) : 0; }

void tune_run_init(TuneRun *run) {
  memset(run, 0, sizeof *run);
  tune_cache_init(&run->cache);
}

void tune_run_free(TuneRun *run) {
  for (int i = 0; i < run->n; i++) free(run->v[i].steps);
  free(run->v);
  tune_cache_free(&run->cache);
  memset(run, 0, sizeof *run);
}

void tune_describe(const TuneSpace *sp, const TuneGenome *g, char *out, size_t n) {
  const TuneSketch *sk = tune_sketch_of(sp, g->sketch);
  size_t len = (size_t)snprintf(out, n, "%s", sk->name);
  for (int i = 0; i < sk->nknobs && len < n; i++)
    if (sk->knobs[i].n > 1)
      len += (size_t)snprintf(out + len, n - len, " %s=%lld", sk->knobs[i].name, sk->knobs[i].val[g->choice[i]]);
}

/* The simulated (or timed) entry of least cost (the first of them), or NULL. */
static const TuneEntry *best_entry(const TuneRun *run) {
  const TuneEntry *best = NULL;
  for (int i = 0; i < run->n; i++)
    if (run->v[i].r.status == TRIAL_SIMULATED && (!best || tune_cost(&run->v[i].r) < tune_cost(&best->r))) best = &run->v[i];
  return best;
}

/* Adds g to out unless it was run or proposed already (or the estimate
 * rules it out): true when added. */
static bool propose(const TuneSpace *sp, TuneRun *run, const TuneGenome *g, TuneEntry *out, int *n, int max,
                    uint64_t best) {
  if (*n >= max) return false;
  char *steps = tune_render(sp, g, sp->variant);
  uint64_t h = tune_hash(steps);
  bool seen = tune_cache_get(&run->cache, h) != NULL;
  for (int i = 0; i < *n && !seen; i++) seen = out[i].r.hash == h;
  const TuneSketch *sk = tune_sketch_of(sp, g->sketch);
  uint64_t est = sk->estimate ? sk->estimate(sk, g->choice, session_target(sp->s)) : 0;
  /* cannot run (UINT64_MAX), or cannot come within 5% of the best */
  if (!seen && (est == UINT64_MAX || (best && est > best + best / 20))) {
    TrialResult r = {.hash = h, .status = TRIAL_PRUNED};
    tune_cache_put(&run->cache, &r);
    run->pruned++;
    seen = true;
  }
  if (seen) {
    free(steps);
    return false;
  }
  memset(&out[*n], 0, sizeof out[*n]);
  out[*n].g = *g;
  out[*n].steps = steps;
  out[*n].estimate = est;
  out[*n].r.hash = h;
  (*n)++;
  return true;
}

static TuneGenome seed_of(const TuneSpace *sp, int sketch) {
  TuneGenome g;
  memset(&g, 0, sizeof g);
  g.sketch = sketch;
  for (int i = 0; i < sp->sketch[sketch].nknobs; i++) g.choice[i] = sp->sketch[sketch].knobs[i].seed;
  return g;
}

/* Generation 0: each sketch's seed and its neighbours one knob away. */
static int structured(const TuneSpace *sp, TuneRun *run, TuneEntry *out, int max) {
  int n = 0;
  for (int s = 0; s < sp->nsketch; s++) {
    TuneGenome g = seed_of(sp, s);
    propose(sp, run, &g, out, &n, max, 0);
  }
  for (int s = 0; s < sp->nsketch; s++) {
    const TuneSketch *sk = &sp->sketch[s];
    for (int k = 0; k < sk->nknobs; k++)
      for (int c = 0; c < sk->knobs[k].n; c++) {
        TuneGenome g = seed_of(sp, s);
        g.choice[k] = c;
        propose(sp, run, &g, out, &n, max, 0);
      }
  }
  return n;
}

static void mutate(const TuneSpace *sp, TuneGenome *g, uint64_t *rng) {
  const TuneSketch *sk = &sp->sketch[g->sketch];
  int times = 1 + below(rng, 2);
  for (int t = 0; t < times; t++) {
    int k = below(rng, sk->nknobs);
    int n = sk->knobs[k].n;
    if (n < 2) continue;
    if (below(rng, 2)) g->choice[k] = below(rng, n);
    else g->choice[k] = g->choice[k] + (below(rng, 2) ? 1 : -1);
    if (g->choice[k] < 0) g->choice[k] = 1;
    if (g->choice[k] >= n) g->choice[k] = n - 2;
  }
}

static int by_estimate(const void *a, const void *b) {
  const TuneEntry *x = a, *y = b;
  return x->estimate < y->estimate ? -1 : x->estimate > y->estimate;
}

int tune_propose(const TuneSpace *sp, TuneRun *run, uint64_t *rng, int max, TuneEntry *out) {
  TuneEntry pool[PROPOSALS];
  int n = 0;
  const TuneEntry *top = best_entry(run);
  uint64_t best = top ? tune_cost(&top->r) : 0;
  if (run->generations == 0) {
    TuneEntry *all = calloc(1024, sizeof *all);
    int m = structured(sp, run, all, 1024);
    /* the seeds first (they come first), then the neighbours by estimate */
    int seeds = sp->nsketch < m ? sp->nsketch : m;
    qsort(all + seeds, (size_t)(m - seeds), sizeof *all, by_estimate);
    for (int i = 0; i < m; i++) {
      if (n < max) out[n++] = all[i];
      else free(all[i].steps);
    }
    free(all);
    return n;
  }
  tune_rank(run);
  /* the parents: the best simulated (or timed) candidates; the kernel as
   * written has no knob to breed from */
  int parent[ELITE], elite = 0;
  for (int i = 0; i < run->n && elite < ELITE && run->v[i].r.status == TRIAL_SIMULATED; i++)
    if (run->v[i].g.sketch != TUNE_AS_WRITTEN) parent[elite++] = i;
  for (int tries = 0; tries < 40 * PROPOSALS && n < PROPOSALS; tries++) {
    TuneGenome g;
    if (!elite) { /* nothing legal yet: anywhere in the space */
      g = seed_of(sp, below(rng, sp->nsketch));
      for (int k = 0; k < sp->sketch[g.sketch].nknobs; k++) g.choice[k] = below(rng, sp->sketch[g.sketch].knobs[k].n);
    } else {
      /* parents: the best more often */
      int p = below(rng, elite);
      p = below(rng, p + 1);
      g = run->v[parent[p]].g;
      const TuneEntry *q = &run->v[parent[below(rng, elite)]];
      if (below(rng, 4) == 0 && q->g.sketch == g.sketch)
        for (int k = 0; k < sp->sketch[g.sketch].nknobs; k++)
          if (below(rng, 2)) g.choice[k] = q->g.choice[k];
      mutate(sp, &g, rng);
    }
    propose(sp, run, &g, pool, &n, PROPOSALS, best);
  }
  qsort(pool, (size_t)n, sizeof *pool, by_estimate);
  int taken = 0;
  /* half by the estimate, half at random from the rest */
  for (int i = 0; i < n; i++) {
    bool take = taken < max && (taken < max / 2 || below(rng, n - i) < max - taken);
    if (take) out[taken++] = pool[i];
    else free(pool[i].steps);
  }
  return taken;
}

void tune_record(TuneRun *run, TuneEntry *batch, int n) {
  for (int i = 0; i < n; i++) {
    if (run->n == run->cap) {
      run->cap = run->cap ? 2 * run->cap : 64;
      run->v = realloc(run->v, (size_t)run->cap * sizeof *run->v);
      if (!run->v) abort();
    }
    run->v[run->n++] = batch[i];
    tune_cache_put(&run->cache, &batch[i].r);
    if (batch[i].g.sketch == TUNE_AS_WRITTEN) continue; /* what the candidates are measured against */
    run->generated++;
    run->legal += batch[i].r.status != TRIAL_ILLEGAL;
    run->simulated += batch[i].r.status == TRIAL_SIMULATED;
  }
}

const TuneEntry *tune_as_written(const TuneRun *run) {
  for (int i = 0; i < run->n; i++)
    if (run->v[i].g.sketch == TUNE_AS_WRITTEN) return &run->v[i];
  return NULL;
}

static int by_cost(const void *a, const void *b) {
  const TuneEntry *x = a, *y = b;
  bool xs = x->r.status == TRIAL_SIMULATED, ys = y->r.status == TRIAL_SIMULATED;
  if (xs != ys) return xs ? -1 : 1;
  if (xs && tune_cost(&x->r) != tune_cost(&y->r)) return tune_cost(&x->r) < tune_cost(&y->r) ? -1 : 1;
  return x->r.hash < y->r.hash ? -1 : x->r.hash > y->r.hash; /* a total order: the same ranking every run */
}

void tune_rank(TuneRun *run) { qsort(run->v, (size_t)run->n, sizeof *run->v, by_cost); }

static void progress(const TuneSpace *sp, const TuneRun *run, double t0, bool tty, bool last) {
  const TuneEntry *best = best_entry(run);
  char b[96] = "none yet";
  if (best && sp->host)
    snprintf(b, sizeof b, "%.1f us per call (spread %.0f%%)", 1e-3 * (double)best->r.median_ns, 100.0 * best->r.spread);
  else if (best)
    snprintf(b, sizeof b, "%llu cycles (roofline %.1f%%)", (unsigned long long)best->r.cycles,
             100.0 * best->r.roofline);
  fprintf(stderr, "%stune %s: gen %d, generated %d, legal %d, %s %d, pruned %d, best %s, %.1f s%s",
          tty ? "\r\033[K" : "", sp->kernel, run->generations, run->generated, run->legal,
          sp->host ? "timed" : "simulated", run->simulated, run->pruned, b, tune_now() - t0, tty && !last ? "" : "\n");
  fflush(stderr);
}

static void log_batch(const TuneSpace *sp, const TuneEntry *b, int n, int gen, FILE *f) {
  for (int i = 0; i < n; i++) {
    char d[512];
    tune_describe(sp, &b[i].g, d, sizeof d);
    fprintf(f, "gen %d\t%s\testimate %llu\t", gen, d, (unsigned long long)b[i].estimate);
    tune_result_write(f, &b[i].r);
  }
  fflush(f);
}

/* Is r's race with the best close: r within the noise of it (10%, or
 * twice the larger spread of the two: times that move that much between
 * calls cannot order the two)? */
static bool close_race(const TrialResult *best, const TrialResult *r) {
  double margin = 2 * (best->spread > r->spread ? best->spread : r->spread);
  if (margin < 0.10) margin = 0.10;
  return (double)r->median_ns <= (double)best->median_ns * (1 + margin);
}

/* Host trials: the best few timed twice more and ranked by the median of
 * their three times, so a candidate that was timed once in a quiet moment
 * (or a slow one) does not win (or lose) by that alone; with its own
 * times, only a close race is run again (those of the best three within
 * the noise of the best: a clear winner's order no timing would change,
 * and each timing costs a compile). Without `own`
 * (times read from files, --merge) only the times taken here count. The
 * runs go round the best (each once, then each again), so a time limit
 * that stops them (stop) leaves each timed as evenly as it can. */
enum { RETIMED = 3, RETIMES = 2 };
static void retime(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, bool own, const TunePoolStop *stop) {
  tune_rank(run);
  int n = 0;
  while (n < run->n && n < RETIMED && run->v[n].r.status == TRIAL_SIMULATED) n++;
  if (n < (own ? 2 : 1)) return; /* nothing to choose among */
  while (own && n > 1 && !close_race(&run->v[0].r, &run->v[n - 1].r)) n--;
  if (own && n < 2) {
    fprintf(stderr, "npugen tune: the best is ahead of the next by more than the timer's noise (%.2fx): not timed "
                    "again\n", (double)run->v[1].r.median_ns / (double)run->v[0].r.median_ns);
    return;
  }
  const char *steps[RETIMED * RETIMES];
  TrialResult res[RETIMED * RETIMES];
  for (int i = 0; i < n * RETIMES; i++) steps[i] = run->v[i % n].steps;
  int started = tune_pool_run(sp->s, steps, n * RETIMES, sp->variant, 1, true, 1, o->trial_timeout, stop, res);
  for (int i = 0; i < n; i++) {
    TrialResult *r = &run->v[i].r;
    uint64_t t[1 + RETIMES] = {r->median_ns};
    int m = own ? 1 : 0;
    if (!own) r->spread = 0;
    for (int j = 0; j < RETIMES; j++) {
      const TrialResult *x = &res[j * n + i];
      if (x->status != TRIAL_SIMULATED) continue;
      t[m++] = x->median_ns;
      if (x->spread > r->spread) r->spread = x->spread;
    }
    for (int a = 1; a < m; a++) /* a sort of three */
      for (int b = a; b > 0 && t[b] < t[b - 1]; b--) {
        uint64_t tmp = t[b];
        t[b] = t[b - 1];
        t[b - 1] = tmp;
      }
    if (m) r->median_ns = t[m / 2];
    else { /* no time taken here */
      r->status = TRIAL_FAILED;
      snprintf(r->message, sizeof r->message, "timed again here, it failed: %.180s", res[i].message);
    }
  }
  /* read from files, the rest were not timed here: they cannot win on their files' times */
  for (int i = n; !own && i < run->n; i++)
    if (run->v[i].r.status == TRIAL_SIMULATED) {
      run->v[i].r.status = TRIAL_PRUNED;
      snprintf(run->v[i].r.message, sizeof run->v[i].r.message, "not among the best %d by its file's time", RETIMED);
    }
  tune_rank(run);
  if (started == n * RETIMES)
    fprintf(stderr, "npugen tune: the best %d timed %d times %s each, ranked by the median of %s times\n", n, RETIMES,
            own ? "more" : "here", own ? "their" : "these");
  else if (!started)
    fprintf(stderr, "npugen tune: the best %d not timed again: it would have ended past the time limit\n", n);
  else
    fprintf(stderr, "npugen tune: the best %d timed again %d of %d times (the rest not started: they would have ended "
                    "past the time limit), ranked by the median of their times\n", n, started, n * RETIMES);
}

void tune_retime_best(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, bool own) {
  retime(sp, o, run, own, NULL);
}

/* The kernel as written as a candidate, a run's first trial: timed by
 * the same timer as a host run's candidates, or in an NPU run simulated
 * as they are (its CU cycles: npg_simulate hooks a variant without an
 * intrinsic too), so one that does not beat it does not win (it is not
 * counted among the candidates, nor against --trials: it is what they
 * are measured against). */
static void run_as_written(const TuneSpace *sp, const TuneOptions *o, TuneRun *run) {
  TuneEntry e;
  memset(&e, 0, sizeof e);
  e.g.sketch = TUNE_AS_WRITTEN;
  e.steps = tune_render(sp, &e.g, sp->variant);
  const char *steps = e.steps;
  tune_pool_run(sp->s, &steps, 1, sp->variant, 1, sp->host, 1, o->trial_timeout, NULL, &e.r);
  tune_apply_bound(sp, &e.r);
  if (o->log) log_batch(sp, &e, 1, 0, o->log);
  tune_record(run, &e, 1);
}

/* What the trials so far took, to tell whether the next one ends within
 * the time limit: the mean of the candidates' (a host run's kernel as
 * written's while there is none: an NPU run's, simulated with every
 * access hooked, says nothing of a candidate's), and of the timed ones'
 * (the best are timed again at the end: their share is kept for it). */
typedef struct {
  double sum, timed_sum;
  int n, timed;
} Pace;

static void pace_add(Pace *p, const TuneEntry *e) {
  p->sum += e->r.seconds;
  p->n++;
  if (e->r.timed) {
    p->timed_sum += e->r.seconds;
    p->timed++;
  }
}

static double pace_each(const Pace *p, const TuneSpace *sp, const TuneRun *run) {
  const TuneEntry *aw = sp->host ? tune_as_written(run) : NULL;
  return p->n ? p->sum / p->n : aw ? aw->r.seconds : 0;
}

static double pace_timed(const Pace *p, const TuneRun *run) {
  const TuneEntry *aw = tune_as_written(run);
  return p->timed ? p->timed_sum / p->timed : aw ? aw->r.seconds : 0;
}

/* The seconds kept for timing the best again at the end: as many runs as
 * a close race among them takes now, two entries' at least (the race is
 * not known before the trials end). */
static double kept_for_retime(TuneRun *run, double each) {
  tune_rank(run);
  int n = 0;
  while (n < run->n && n < RETIMED && run->v[n].r.status == TRIAL_SIMULATED && close_race(&run->v[0].r, &run->v[n].r))
    n++;
  return (n > 2 ? n : 2) * RETIMES * each;
}

/* Why the run stopped when the time limit stops a trial from starting. */
static void stopped_for_limit(TuneRun *run, int generation, int not_started, double each, double left) {
  if (left < 0) left = 0;
  snprintf(run->stopped_text, sizeof run->stopped_text,
           "the time limit is reached: %d trial%s of generation %d not started (a trial takes about %.1f s; %.1f s "
           "of the limit were left)", not_started, not_started == 1 ? "" : "s", generation, each, left);
  run->stopped = run->stopped_text;
}

/* The trials of batch b[0..n) that stop lets start, recorded into run
 * (the rest freed: not run, not cached); how many started. */
static int run_batch(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, TuneEntry *b, int n, int jobs,
                     const TunePoolStop *stop, Pace *pace) {
  const char **steps = malloc((size_t)n * sizeof *steps);
  TrialResult *res = calloc((size_t)n, sizeof *res);
  if (!steps || !res) abort();
  for (int i = 0; i < n; i++) steps[i] = b[i].steps;
  int started = tune_pool_run(sp->s, steps, n, sp->variant, 1, sp->host, jobs, o->trial_timeout, stop, res);
  for (int i = 0; i < started; i++) {
    b[i].r = res[i];
    tune_apply_bound(sp, &b[i].r);
    pace_add(pace, &b[i]);
  }
  if (o->log) log_batch(sp, b, started, run->generations, o->log);
  tune_record(run, b, started);
  for (int i = started; i < n; i++) free(b[i].steps);
  free(steps);
  free(res);
  return started;
}

/* Has the trial that starts whatever the limit run? A host run's is the
 * kernel as written; an NPU run's is its first candidate: there the
 * kernel as written is the CU's figure a schedule is asked to beat, and
 * --time-limit 0 still gives a schedule of the NPU, as it did. */
static bool started_any(const TuneSpace *sp, const TuneRun *run) { return sp->host ? run->n > 0 : run->generated > 0; }

/* The time limit is checked before each trial (not only between
 * generations): a trial starts only when, at the pace of those before
 * it, it ends within the limit, less the share kept for timing the best
 * again; the first trial of a run always starts (nothing else gives a
 * figure to write). */
void tune_search(const TuneSpace *sp, const TuneOptions *o, TuneRun *run) {
  double t0 = tune_now();
  uint64_t rng = o->seed;
  bool tty = isatty(2), limited = o->time_limit >= 0;
  double deadline = t0 + (limited ? o->time_limit : 0);
  int jobs = sp->host ? 1 : o->jobs; /* host trials are timed: one at a time, nothing compiling beside them */
  int batch = jobs > BATCH / 2 ? 2 * jobs : BATCH;
  Pace pace = {0, 0, 0, 0};
  run->stopped = "no new candidate is left near the best";
  run_as_written(sp, o, run);
  for (;;) {
    double each = pace_each(&pace, sp, run), keep = sp->host ? kept_for_retime(run, pace_timed(&pace, run)) : 0;
    if (limited && started_any(sp, run) && tune_now() + each > deadline - keep) {
      stopped_for_limit(run, run->generations + 1, 1, each, deadline - keep - tune_now());
      break;
    }
    int max = batch;
    if (run->generations == 0) max = batch * 2; /* the structured seeds get a double share */
    if (o->max_trials > 0 && run->generated + max > o->max_trials) max = o->max_trials - run->generated;
    if (max <= 0) {
      run->stopped = "the trial budget is spent";
      break;
    }
    TuneEntry *b = calloc((size_t)max, sizeof *b);
    int n = tune_propose(sp, run, &rng, max, b);
    run->generations++;
    if (!n) {
      free(b);
      if (run->generations > 3) break; /* no new candidate: the space is exhausted near the best */
      continue;
    }
    TunePoolStop stop = {deadline - keep, each, started_any(sp, run) ? 0 : 1};
    int started = run_batch(sp, o, run, b, n, jobs, limited ? &stop : NULL, &pace);
    if (started < n) stopped_for_limit(run, run->generations, n - started, each, deadline - keep - tune_now());
    free(b);
    progress(sp, run, t0, tty, false);
    if (started < n) break;
  }
  if (sp->host) {
    TunePoolStop stop = {deadline, pace_timed(&pace, run), 0};
    retime(sp, o, run, true, limited ? &stop : NULL);
  }
  run->seconds = tune_now() - t0;
  tune_rank(run);
  if (tty) progress(sp, run, t0, tty, true); /* ends the line rewritten in place */
}
