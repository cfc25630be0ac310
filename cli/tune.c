/* npugen tune: search for a schedule of one kernel (tune/), write the best
 * as `#pragma npu` lines for variant <file>_<kernel>_tuned, and check it.
 *
 *   npugen tune FILE [--kernel NAME] [--target INI] [--time-limit S] [--trials N]
 *                    [--jobs N] [--seed S] [--trial-timeout S] [--size N=V,...] -o OUT.sched
 *   npugen tune FILE ... --plan DIR     one generation's trials, as files and commands
 *   npugen tune FILE ... --trial SCHED  run one trial: its result line on stdout
 *   npugen tune FILE ... --merge DIR -o OUT.sched   the best of DIR's results */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/tune.h"
#include "ir/sizes.h"
#include "ir/suggest.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

typedef struct {
  const char *file, *kernel, *target, *out, *plan, *merge, *trial, *log;
  const char *size; /* --size n=V,m=W: the sizes to tune a kernel with symbolic sizes for */
  bool host;
  double max_steps; /* --max-steps: a trial's run budget (0: the check's default) */
  TuneOptions t;
} TuneArgs;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "npugen tune: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nusage:%s", TUNE_USAGE + 6);
  return 2;
}

static bool number(const char *s, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return s[0] && !*end && !errno && *v >= lo && *v <= hi;
}

static bool seed_number(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return s[0] >= '0' && s[0] <= '9' && !*end && !errno;
}

static int parse(int argc, char **argv, TuneArgs *a) {
  memset(a, 0, sizeof *a);
  a->t.seed = 1;
  a->t.jobs = 1;
  a->t.trial_timeout = 120;
  for (int i = 2; i < argc; i++) {
    const char *o = argv[i];
    if (o[0] != '-') {
      if (a->file) return usage_error("unexpected argument '%s'", o);
      a->file = o;
      continue;
    }
    if (!strcmp(o, "--host")) {
      a->host = true;
      continue;
    }
    if (i + 1 >= argc) return usage_error("option '%s' needs a value", o);
    const char *v = argv[++i];
    double x;
    if (!strcmp(o, "--kernel")) a->kernel = v;
    else if (!strcmp(o, "--target")) a->target = v;
    else if (!strcmp(o, "-o")) a->out = v;
    else if (!strcmp(o, "--plan")) a->plan = v;
    else if (!strcmp(o, "--merge")) a->merge = v;
    else if (!strcmp(o, "--trial")) a->trial = v;
    else if (!strcmp(o, "--log")) a->log = v;
    else if (!strcmp(o, "--size")) a->size = v;
    else if (!strcmp(o, "--time-limit") && number(v, 0, 1e7, &x)) a->t.time_limit = x;
    else if (!strcmp(o, "--trials") && number(v, 1, 1e7, &x) && x == (int)x) a->t.max_trials = (int)x;
    else if (!strcmp(o, "--jobs") && number(v, 1, 64, &x) && x == (int)x) a->t.jobs = (int)x;
    else if (!strcmp(o, "--trial-timeout") && number(v, 1, 86400, &x) && x == (int)x) a->t.trial_timeout = (int)x;
    else if (!strcmp(o, "--max-steps") && number(v, 1, 1e18, &x) && x == (double)(uint64_t)x) a->max_steps = x;
    else if (!strcmp(o, "--seed") && seed_number(v, &a->t.seed)) continue;
    else if (!strcmp(o, "--time-limit") || !strcmp(o, "--trials") || !strcmp(o, "--jobs") ||
             !strcmp(o, "--trial-timeout") || !strcmp(o, "--seed") || !strcmp(o, "--max-steps"))
      return usage_error("invalid value '%s'", v);
    else return usage_error("unknown option '%s'", o);
  }
  if (!a->file) return usage_error("missing input FILE", "");
  if ((a->plan != NULL) + (a->merge != NULL) + (a->trial != NULL) > 1)
    return usage_error("--plan, --merge and --trial go one at a time", "");
  if (!a->out && !a->plan && !a->trial) return usage_error("missing -o OUT.sched", "");
  if (!a->t.time_limit && !a->t.max_trials) a->t.time_limit = 120;
  return 0;
}

/* The kernel of file to tune: --kernel, or the file's only one. */
static const char *pick_kernel(const Module *m, const char *file, const char *want) {
  int n = 0;
  const char *only = NULL;
  IrSuggest near = ir_suggest_start(want);
  for (const Kernel *k = m ? m->kernels : NULL; k; k = k->next, n++) {
    only = k->name;
    if (want && !strcmp(want, k->name)) return k->name;
    ir_suggest_add(&near, k->name);
  }
  char dym[160];
  if (want) fprintf(stderr, "%s:1:1: error: no kernel '%s' in the file%s\n", file, want, ir_suggest_text(&near, dym, sizeof dym));
  else if (n != 1) fprintf(stderr, "%s:1:1: error: the file has %d kernels: name one with --kernel\n", file, n);
  return !want && n == 1 ? only : NULL;
}

/* --size "n=1000,m=7": every size of kernel k once, into set; false
 * after an error message. The schedules found apply to every size; the
 * trials run at these. */
static bool parse_sizes(const char *file, const Kernel *k, const char *text, SizeSet *set) {
  bool given[IR_MAX_SIZES] = {false};
  for (const char *p = text; *p;) {
    const char *eq = strchr(p, '='), *comma = strchr(p, ',');
    if (!comma) comma = p + strlen(p);
    int i = -1;
    for (int j = 0; eq && eq < comma && j < k->nsizes; j++)
      if (strlen(k->sizes[j]->name) == (size_t)(eq - p) && !strncmp(p, k->sizes[j]->name, (size_t)(eq - p))) i = j;
    char *end;
    errno = 0;
    long long v = eq && eq < comma ? strtoll(eq + 1, &end, 10) : 0;
    if (i < 0 || given[i] || errno || end != comma || eq + 1 == comma) {
      fprintf(stderr, "%s:1:1: error: --size takes each size of kernel %s once, as NAME=VALUE separated by commas "
                      "(its sizes:", file, k->name);
      for (int j = 0; j < k->nsizes; j++) fprintf(stderr, " %s", k->sizes[j]->name);
      fprintf(stderr, "); got '%s'\n", text);
      return false;
    }
    given[i] = true;
    set->val[i] = v;
    p = *comma ? comma + 1 : comma;
  }
  for (int j = 0; j < k->nsizes; j++)
    if (!given[j]) {
      fprintf(stderr, "%s:1:1: error: --size gives no value for size %s of kernel %s\n", file, k->sizes[j]->name, k->name);
      return false;
    }
  return true;
}

/* Host trials: the median time of one call, its spread, and GFLOP/s
 * from the contraction's 2 m n k flops. */
static void print_host_table(const TuneSpace *sp, const TuneRun *run, FILE *f) {
  fprintf(f, "%-4s %12s %7s %8s %8s  %s\n", "rank", "median us", "spread", "GFLOP/s", "trial s", "candidate");
  for (int i = 0, shown = 0; i < run->n && shown < 5; i++) {
    const TuneEntry *e = &run->v[i];
    if (e->r.status != TRIAL_SIMULATED) break;
    char d[512];
    tune_describe(sp, &e->g, d, sizeof d);
    char gflops[32] = "-";
    if (sp->flops > 0) snprintf(gflops, sizeof gflops, "%.2f", sp->flops / (double)e->r.cycles);
    fprintf(f, "%-4d %12.1f %6.1f%% %8s %8.2f  %s\n", ++shown, 1e-3 * (double)e->r.cycles, 100.0 * e->r.spread, gflops,
            e->r.seconds, d);
  }
}

static void print_table(const TuneSpace *sp, const TuneRun *run, FILE *f) {
  if (sp->host) {
    print_host_table(sp, run, f);
    return;
  }
  fprintf(f, "%-4s %12s %9s %-6s %8s  %s\n", "rank", "cycles", "roofline", "bound", "trial s", "candidate");
  for (int i = 0, shown = 0; i < run->n && shown < 5; i++) {
    const TuneEntry *e = &run->v[i];
    if (e->r.status != TRIAL_SIMULATED) break;
    char d[512];
    tune_describe(sp, &e->g, d, sizeof d);
    fprintf(f, "%-4d %12" PRIu64 " %8.1f%% %-3s%3.0f%% %8.2f  %s\n", ++shown, e->r.cycles, 100.0 * e->r.roofline,
            e->r.bound, 100.0 * e->r.bound_util, e->r.seconds, d);
  }
}

/* Checks entry e against the kernel as written in a session of its own;
 * true and the check's line when it passes. */
static bool check_winner(const TuneArgs *a, const char *steps, NpgCheckResult *r, bool *openmp) {
  NpgSession *s = npg_open_file_for_target(a->file, a->target);
  npg_add_schedule_string(s, "<tune>", steps, strlen(steps));
  bool ok = npg_error_count(s) == 0 && npg_check(s, npg_variant_count(s) - 1, a->t.seed, r);
  *openmp = ok && tune_host_openmp(s, npg_variant_count(s) - 1);
  if (npg_error_count(s)) snprintf(r->message, sizeof r->message, "%.1000s", npg_errors(s));
  npg_close(s);
  return ok;
}

/* Writes the best candidate that passes the check to a->out. */
static int write_best(const TuneArgs *a, const TuneSpace *sp, const TuneRun *run) {
  for (int i = 0; i < run->n && i < 5; i++) {
    const TuneEntry *e = &run->v[i];
    if (e->r.status != TRIAL_SIMULATED) break;
    NpgCheckResult cr;
    bool openmp;
    if (!check_winner(a, e->steps, &cr, &openmp)) {
      fprintf(stderr, "npugen tune: candidate %d fails the check (%s); trying the next\n", i + 1, cr.message);
      continue;
    }
    FILE *f = fopen(a->out, "w");
    if (!f) {
      fprintf(stderr, "npugen tune: cannot write %s: %s\n", a->out, strerror(errno));
      return 1;
    }
    char d[512];
    tune_describe(sp, &e->g, d, sizeof d);
    char cost[200];
    if (sp->host)
      snprintf(cost, sizeof cost, "%.1f us per call on the machine that tuned it (median, spread %.1f%%, cc %s)",
               1e-3 * (double)e->r.cycles, 100.0 * e->r.spread, tune_host_cflags(openmp));
    else snprintf(cost, sizeof cost, "%" PRIu64 " cycles, roofline %.1f%%", e->r.cycles, 100.0 * e->r.roofline);
    /* the paths and the size are the user's text: escaped into the comment (sb_lines) */
    StrBuf head;
    sb_init(&head);
    sb_printf(&head, "npugen tune %s --kernel %s%s%s%s%s%s --seed %" PRIu64 ": best of %d candidates (%d legal, %d %s)\n%s\n%s; passes npugen check (seed %" PRIu64 ")",
              a->file, sp->kernel, a->target ? " --target " : "", a->target ? a->target : "", a->host ? " --host" : "",
              a->size ? " --size " : "", a->size ? a->size : "", a->t.seed, run->generated, run->legal, run->simulated,
              sp->host ? "timed" : "simulated", d, cost, a->t.seed);
    StrBuf text;
    sb_init(&text);
    const char *nl = strchr(head.data, '\n');
    sb_puts(&text, "/* ");
    sb_c_text(&text, C_TEXT_COMMENT, head.data, (size_t)(nl - head.data) + 1);
    sb_lines(&text, nl + 1, " * ");
    text.len--; /* the last line's newline: the comment closes on it */
    sb_puts(&text, " */\n");
    fprintf(f, "%s%s", text.data, e->steps);
    sb_free(&head);
    sb_free(&text);
    if (fclose(f)) {
      fprintf(stderr, "npugen tune: cannot write %s\n", a->out);
      return 1;
    }
    printf("%s: PASS npugen check (seed %" PRIu64 ", %s); %s\n", sp->variant, a->t.seed,
           cr.exact ? "bit-exact" : "within the tolerance", cr.summary);
    printf("wrote %s (npugen check %s --schedule %s)\n", a->out, a->file, a->out);
    return 0;
  }
  bool simulated = run->n && run->v[0].r.status == TRIAL_SIMULATED;
  fprintf(stderr, "npugen tune: %s; nothing written\n",
          simulated ? "none of the (at most five) best simulated candidates passes the check" : "no candidate was simulated");
  return 1;
}

/* The kernel as written, timed as the trials were: the figure the tuned
 * time is measured against. */
static void print_untiled(const TuneSpace *sp, NpgSession *s, const char *kernel, const TuneRun *run) {
  TuneHostTime t;
  char msg[240];
  if (!tune_host_time(s, npg_variant_index(s, kernel), &t, msg, sizeof msg)) {
    fprintf(stderr, "npugen tune: the kernel as written could not be timed: %s\n", msg);
    return;
  }
  double tuned = (double)run->v[0].r.cycles;
  if (sp->flops <= 0) { /* host:loops counts no flops */
    printf("%s as written: %.1f us per call (median of %d, spread %.1f%%); tuned: %.1f us, %.2fx\n", kernel,
           1e-3 * (double)t.median_ns, t.runs, 100.0 * t.spread, 1e-3 * tuned, (double)t.median_ns / tuned);
    return;
  }
  printf("%s as written: %.1f us per call (median of %d, spread %.1f%%, %.2f GFLOP/s); tuned: %.1f us (%.2f GFLOP/s), "
         "%.2fx\n",
         kernel, 1e-3 * (double)t.median_ns, t.runs, 100.0 * t.spread, sp->flops / (double)t.median_ns, 1e-3 * tuned,
         sp->flops / tuned, (double)t.median_ns / tuned);
}

/* ---- --plan / --trial / --merge: trials as files, run by another tool ---- */

/* A plan's trial file: the genome in a comment, then the steps. */
static bool read_trial(const TuneSpace *sp, const char *path, TuneEntry *e) {
  char *text = ir_read_input(path, NPG_MAX_INPUT_BYTES, NULL);
  if (!text) return false;
  memset(e, 0, sizeof *e);
  const char *g = strstr(text, "tune-genome:");
  int used = 0;
  bool ok = g && sscanf(g, "tune-genome: %d%n", &e->g.sketch, &used) == 1 && e->g.sketch >= 0 &&
            e->g.sketch < sp->nsketch;
  for (int k = 0; ok && k < sp->sketch[e->g.sketch].nknobs; k++) {
    int more = 0;
    ok = sscanf(g + used, " %d%n", &e->g.choice[k], &more) == 1 && e->g.choice[k] >= 0 &&
         e->g.choice[k] < sp->sketch[e->g.sketch].knobs[k].n;
    used += more;
  }
  if (ok) {
    e->steps = tune_render(sp, &e->g, sp->variant);
    e->r.hash = tune_hash(e->steps);
    /* the same genome in another space (--host or not) renders other steps */
    ok = strstr(text, e->steps) != NULL;
    if (!ok) free(e->steps);
  }
  free(text);
  return ok;
}

/* Every trial of DIR with its result (results/<hash>.tsv) into run; those
 * without a result yet into *pending. */
static void load_dir(const TuneSpace *sp, const char *dir, TuneRun *run, int *pending) {
  char path[4096];
  snprintf(path, sizeof path, "%s/trials", dir);
  struct dirent **files;
  int n = scandir(path, &files, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    TuneEntry e;
    snprintf(path, sizeof path, "%s/trials/%s", dir, files[i]->d_name);
    if (files[i]->d_name[0] == '.') {
      /* not a trial */
    } else if (!read_trial(sp, path, &e)) {
      fprintf(stderr, "npugen tune: %s is not a trial of this plan (another kernel, target or --host?): left out\n",
              path);
    } else {
      snprintf(path, sizeof path, "%s/results/%016" PRIx64 ".tsv", dir, e.r.hash);
      char *line = ir_read_input(path, NPG_MAX_INPUT_BYTES, NULL);
      TrialResult r;
      bool read = line && tune_result_read(line, &r) && r.hash == e.r.hash;
      if (line && !read)
        fprintf(stderr, "npugen tune: %s is not this trial's result line: the trial counts as not run\n", path);
      if (read) {
        e.r = r;
        tune_record(run, &e, 1);
      } else {
        (*pending)++;
        tune_cache_put(&run->cache, &e.r); /* planned already: not proposed again */
        free(e.steps);
      }
      free(line);
    }
    free(files[i]);
  }
  if (n > 0) free(files);
}

static void shell_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) s[0] == '\'' ? fputs("'\\''", f) : fputc(*s, f);
  fputc('\'', f);
}

static int cmd_plan(const TuneArgs *a, const TuneSpace *sp) {
  char path[4096];
  snprintf(path, sizeof path, "%s/trials", a->plan);
  mkdir(a->plan, 0777);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/results", a->plan);
  mkdir(path, 0777);
  TuneRun run;
  tune_run_init(&run);
  int pending = 0;
  load_dir(sp, a->plan, &run, &pending);
  run.generations = run.n || pending ? 1 : 0;
  uint64_t rng = a->t.seed ^ (uint64_t)run.n * 0x9e3779b97f4a7c15ull; /* a new round, new choices */
  int max = a->t.max_trials ? a->t.max_trials : 16;
  TuneEntry *b = calloc((size_t)max, sizeof *b);
  int n = tune_propose(sp, &run, &rng, max, b);
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  self[len > 0 ? len : 0] = 0;
  snprintf(path, sizeof path, "%s/trials.txt", a->plan);
  FILE *cmds = fopen(path, "w");
  for (int i = 0; i < n && cmds; i++) {
    snprintf(path, sizeof path, "%s/trials/%016" PRIx64 ".sched", a->plan, b[i].r.hash);
    FILE *f = fopen(path, "w");
    if (!f) break;
    fprintf(f, "/* tune-genome: %d", b[i].g.sketch);
    for (int k = 0; k < sp->sketch[b[i].g.sketch].nknobs; k++) fprintf(f, " %d", b[i].g.choice[k]);
    fprintf(f, " */\n%s", b[i].steps);
    fclose(f);
    shell_quote(cmds, len > 0 ? self : "npugen");
    fputs(" tune ", cmds);
    shell_quote(cmds, a->file);
    fputs(" --kernel ", cmds);
    shell_quote(cmds, sp->kernel);
    if (a->target) {
      fputs(" --target ", cmds);
      shell_quote(cmds, a->target);
    }
    if (a->host) fputs(" --host", cmds);
    if (a->size) {
      fputs(" --size ", cmds);
      shell_quote(cmds, a->size);
    }
    if (a->max_steps) fprintf(cmds, " --max-steps %.0f", a->max_steps);
    fprintf(cmds, " --trial-timeout %d --trial ", a->t.trial_timeout); /* the trial's own process honours it */
    shell_quote(cmds, path);
    fputs(" > ", cmds);
    snprintf(path, sizeof path, "%s/results/%016" PRIx64 ".tsv", a->plan, b[i].r.hash);
    shell_quote(cmds, path);
    fputc('\n', cmds);
  }
  for (int i = 0; i < n; i++) free(b[i].steps);
  if (cmds) fclose(cmds);
  else fprintf(stderr, "npugen tune: cannot write %s: %s\n", path, strerror(errno));
  free(b);
  if (cmds)
    fprintf(stderr, "npugen tune: %d trials in %s/trials.txt (%d run before, %d planned and not run yet); run them, e.g.\n"
                  "  parallel < %s/trials.txt\nthen plan the next round the same way, or merge: npugen tune %s --merge %s -o OUT.sched\n",
          n, a->plan, run.n, pending, a->plan, a->file, a->plan);
  tune_run_free(&run);
  return cmds ? 0 : 1;
}

static int cmd_trial(const TuneArgs *a, const TuneSpace *sp) {
  TuneEntry e;
  if (!read_trial(sp, a->trial, &e)) {
    fprintf(stderr,
            "%s:1:1: error: not a trial of this space (npugen tune --plan writes them; one planned with --host "
            "needs --host)\n",
            a->trial);
    return 1;
  }
  TrialResult r;
  const char *steps = e.steps;
  tune_pool_run(sp->s, &steps, 1, sp->variant, 1, sp->host, 1, a->t.trial_timeout, &r);
  tune_apply_bound(sp, &r);
  tune_result_write(stdout, &r);
  free(e.steps);
  return 0;
}

static int cmd_merge(const TuneArgs *a, const TuneSpace *sp) {
  TuneRun run;
  tune_run_init(&run);
  int pending = 0;
  load_dir(sp, a->merge, &run, &pending);
  tune_rank(&run);
  fprintf(stderr, "npugen tune: %d results in %s (%d trials without one)\n", run.n, a->merge, pending);
  print_table(sp, &run, stdout);
  int rc = write_best(a, sp, &run);
  tune_run_free(&run);
  return rc;
}

int cmd_tune(int argc, char **argv) {
  TuneArgs a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc;
  NpgSession *s = npg_open_file_for_target(a.file, a.target);
  npg_set_check_limits(s, (uint64_t)a.max_steps, 0); /* the trials' runs (npg_simulate) */
  if (npg_error_count(s)) {
    fputs(npg_errors(s), stderr);
    npg_close(s);
    return 1;
  }
  const char *kernel = pick_kernel(session_module(s), a.file, a.kernel);
  if (!kernel) {
    npg_close(s);
    return 1;
  }
  const Kernel *k = module_kernel(session_module(s), kernel);
  if (a.size && !k->nsizes) {
    fprintf(stderr, "%s:%d:%d: error: --size: kernel %s has no symbolic sizes\n", a.file, k->loc.line, k->loc.col, kernel);
    npg_close(s);
    return 1;
  }
  if (a.size) {
    SizeSet set;
    memset(&set, 0, sizeof set);
    char why[400];
    if (!parse_sizes(a.file, k, a.size, &set)) {
      npg_close(s);
      return 1;
    }
    if (!session_fix_sizes(s, kernel, &set, why, sizeof why)) {
      fprintf(stderr, "%s:%d:%d: error: --size: %s\n", a.file, k->loc.line, k->loc.col, why);
      npg_close(s);
      return 1;
    }
  }
  char variant[300];
  tune_variant_name(a.file, kernel, variant, sizeof variant);
  TuneSpace sp;
  char why[5000];
  if (!tune_space_build(&sp, s, kernel, a.host, why, sizeof why)) {
    fprintf(stderr, "%s:%d:%d: error: %s", a.file, k->loc.line, k->loc.col, why);
    npg_close(s);
    return 1;
  }
  sp.variant = variant;
  if (!a.trial) {
    fprintf(stderr, "npugen tune: kernel %s, %d sketch%s:", kernel, sp.nsketch, sp.nsketch > 1 ? "es" : "");
    for (int i = 0; i < sp.nsketch; i++) fprintf(stderr, " %s", sp.sketch[i].name);
    fputc('\n', stderr);
    if (sp.host && !a.host)
      fprintf(stderr, "npugen tune: no NPU sketch applies, so the kernel is tuned for this CPU (the cost is measured "
                      "time)\n");
    if (sp.notes[0]) fprintf(stderr, "npugen tune: sketches that do not apply, and why:\n%s", sp.notes);
    if (sp.host && a.t.jobs > 1) {
      /* a trial compiling beside a timed one (its threads above all) makes the timing noise, not the variant */
      fprintf(stderr, "npugen tune: --jobs %d ignored: host trials are timed on this CPU, one at a time\n", a.t.jobs);
      a.t.jobs = 1;
    }
  }
  if (a.plan) rc = cmd_plan(&a, &sp);
  else if (a.trial) rc = cmd_trial(&a, &sp);
  else if (a.merge) rc = cmd_merge(&a, &sp);
  else {
    TuneRun run;
    tune_run_init(&run);
    if (a.log && !(a.t.log = fopen(a.log, "w"))) fprintf(stderr, "npugen tune: cannot write %s\n", a.log);
    tune_search(&sp, &a.t, &run);
    if (a.t.log) fclose(a.t.log);
    fprintf(stderr, "npugen tune: stopped: %s, after %.1f s\n", run.stopped, run.seconds);
    print_table(&sp, &run, stdout);
    rc = write_best(&a, &sp, &run);
    if (!rc && sp.host) print_untiled(&sp, s, kernel, &run);
    tune_run_free(&run);
  }
  tune_space_free(&sp);
  npg_close(s);
  return rc;
}
