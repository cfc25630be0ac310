/* The search driven in rounds through files (npugen tune --plan/--merge):
 * DIR/trials/<hash>.sched (tune/trial_file.c), DIR/results/<hash>.tsv (a
 * result line, tune/trial.c), and DIR/trials.txt, one shell command per
 * trial, for any tool that runs a list of commands. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune/tune.h"

/* One trial file and its result, if any, into run (or counted pending). */
static void load_trial(const TuneSpace *sp, const char *dir, const char *name, TuneRun *run, int *pending,
                       FILE *msgs) {
  char path[4096], why[300];
  TuneEntry e;
  snprintf(path, sizeof path, "%s/trials/%s", dir, name);
  if (!tune_trial_file_read(sp, path, &e, why, sizeof why)) {
    fprintf(msgs, "npugen tune: %s is not a trial of this plan (%s): left out\n", path, why);
    return;
  }
  snprintf(path, sizeof path, "%s/results/%016" PRIx64 ".tsv", dir, e.r.hash);
  char *line = ir_read_input(path, NPG_MAX_INPUT_BYTES, NULL);
  TrialResult r;
  bool read = line && tune_result_read(line, &r) && r.hash == e.r.hash;
  if (line && !read)
    fprintf(msgs, "npugen tune: %s is not this trial's result line: the trial counts as not run\n", path);
  free(line);
  if (read) {
    e.r = r;
    tune_record(run, &e, 1);
    return;
  }
  (*pending)++;
  tune_cache_put(&run->cache, &e.r); /* planned already: not proposed again */
  free(e.steps);
}

void tune_plan_load(const TuneSpace *sp, const char *dir, TuneRun *run, int *pending, FILE *msgs) {
  char path[4096];
  snprintf(path, sizeof path, "%s/trials", dir);
  struct dirent **files;
  int n = scandir(path, &files, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    if (files[i]->d_name[0] != '.') load_trial(sp, dir, files[i]->d_name, run, pending, msgs);
    free(files[i]);
  }
  if (n > 0) free(files);
}

enum { RECHECKED = 5 }; /* as many as tune_write_best looks at */

static bool listed(const uint64_t *v, int n, uint64_t h) {
  for (int i = 0; i < n; i++)
    if (v[i] == h) return true;
  return false;
}

/* Entry e simulated again as its trial ran: false (and named on msgs)
 * when its cycles are not the file's. */
static bool same_cycles(const TuneSpace *sp, const TuneOptions *o, TuneEntry *e, FILE *msgs) {
  TrialResult r;
  const char *steps = e->steps;
  tune_pool_run(sp->s, &steps, 1, sp->variant, 1, false, 1, o->trial_timeout, NULL, &r);
  if (r.status == TRIAL_SIMULATED && r.cycles == e->r.cycles) return true;
  fprintf(msgs, "npugen tune: the result of trial %016" PRIx64 " says %" PRIu64 " cycles, the simulator gives %" PRIu64
                " here%s%.200s: left out\n", e->r.hash, e->r.cycles, r.cycles, r.message[0] ? ": " : "", r.message);
  e->r.status = TRIAL_FAILED;
  snprintf(e->r.message, sizeof e->r.message, "its result's cycles are not the simulator's");
  return false;
}

void tune_plan_recheck(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, FILE *msgs) {
  if (sp->host) {
    tune_retime_best(sp, o, run, false);
    return;
  }
  uint64_t *done = malloc(((size_t)run->n + 1) * sizeof *done); /* the hashes simulated here */
  int ndone = 0;
  for (bool changed = true; changed && done;) {
    changed = false;
    tune_rank(run);
    for (int i = 0; i < run->n && i < RECHECKED && run->v[i].r.status == TRIAL_SIMULATED; i++)
      if (!listed(done, ndone, run->v[i].r.hash)) {
        done[ndone++] = run->v[i].r.hash;
        changed |= !same_cycles(sp, o, &run->v[i], msgs);
      }
  }
  free(done);
  tune_rank(run);
}

static void shell_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) s[0] == '\'' ? fputs("'\\''", f) : fputc(*s, f);
  fputc('\'', f);
}

/* The command that runs trial `path` into `result`, as one line of cmds:
 * the invocation's options again, so the trial sees the same space. */
static void write_command(FILE *cmds, const char *self, const TuneSpace *sp, const TuneInvocation *inv,
                          const char *path, const char *result) {
  shell_quote(cmds, self);
  fputs(" tune ", cmds);
  shell_quote(cmds, inv->file);
  fputs(" --kernel ", cmds);
  shell_quote(cmds, sp->kernel);
  if (inv->target) {
    fputs(" --target ", cmds);
    shell_quote(cmds, inv->target);
  }
  if (inv->host) fputs(" --host", cmds);
  if (inv->size) {
    fputs(" --size ", cmds);
    shell_quote(cmds, inv->size);
  }
  if (inv->max_steps) fprintf(cmds, " --max-steps %" PRIu64, inv->max_steps);
  fprintf(cmds, " --trial-timeout %d --trial ", inv->trial_timeout); /* the trial's own process honours it */
  shell_quote(cmds, path);
  fputs(" > ", cmds);
  shell_quote(cmds, result);
  fputc('\n', cmds);
}

/* Trial files of b[0..n) under dir/trials and their commands in cmds;
 * false when a file cannot be written. */
static bool write_trials(const TuneSpace *sp, const TuneInvocation *inv, const char *dir, const TuneEntry *b, int n,
                         FILE *cmds) {
  char self[4096] = "npugen", path[4096], result[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) self[len] = 0;
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/trials/%016" PRIx64 ".sched", dir, b[i].r.hash);
    snprintf(result, sizeof result, "%s/results/%016" PRIx64 ".tsv", dir, b[i].r.hash);
    FILE *f = fopen(path, "w");
    if (!f) return false;
    tune_trial_file_write(f, sp, &b[i]);
    if (fclose(f)) return false;
    write_command(cmds, self, sp, inv, path, result);
  }
  return true;
}

bool tune_plan_write(const TuneSpace *sp, const TuneInvocation *inv, const char *dir, int max, TunePlanCount *c,
                     char *why, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/trials", dir);
  mkdir(dir, 0777);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/results", dir);
  mkdir(path, 0777);
  TuneRun run;
  tune_run_init(&run);
  memset(c, 0, sizeof *c);
  tune_plan_load(sp, dir, &run, &c->pending, stderr);
  c->run_before = run.n;
  run.generations = run.n || c->pending ? 1 : 0;
  uint64_t rng = inv->seed ^ (uint64_t)run.n * 0x9e3779b97f4a7c15ull; /* a new round, new choices */
  TuneEntry *b = calloc((size_t)max, sizeof *b);
  c->planned = b ? tune_propose(sp, &run, &rng, max, b) : 0;
  snprintf(path, sizeof path, "%s/trials.txt", dir);
  FILE *cmds = fopen(path, "w");
  bool ok = cmds && write_trials(sp, inv, dir, b, c->planned, cmds);
  if (cmds && fclose(cmds)) ok = false;
  if (!ok) snprintf(why, n, "cannot write %s's trials: %s", dir, strerror(errno));
  for (int i = 0; i < c->planned; i++) free(b[i].steps);
  free(b);
  tune_run_free(&run);
  return ok;
}
