/* npugen tune (usage: cli/tune.h): parses the command line and prints;
 * tune/ decides (the space, the search, the plan's files, the winner). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tune.h"
#include "cli/tune_print.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

typedef struct {
  const char *kernel, *out, *plan, *merge, *trial, *log;
  TuneInvocation inv;
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

static bool whole(const char *s, double lo, double hi, double *v) { return number(s, lo, hi, v) && *v == (double)(uint64_t)*v; }

static bool seed_number(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return s[0] >= '0' && s[0] <= '9' && !*end && !errno;
}

/* An option with a value; 0, or a usage error's status. */
static int option(TuneArgs *a, const char *o, const char *v) {
  const char **text[] = {&a->kernel, &a->inv.target, &a->out, &a->plan, &a->merge, &a->trial, &a->log, &a->inv.size};
  const char *texts[] = {"--kernel", "--target", "-o", "--plan", "--merge", "--trial", "--log", "--size"};
  if (!strcmp(o, "--size") && a->inv.size) /* it replaced the first unseen: tune tunes for one set */
    return usage_error("--size is given twice; tune tunes for one size set: give all its sizes in one --size "
                       "(NAME=VALUE,...), and the sets to check as #pragma npu sizes%s", "");
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
    if (!strcmp(o, texts[i])) return *text[i] = v, 0;
  const char *numbers[] = {"--time-limit", "--trials", "--jobs", "--trial-timeout", "--max-steps", "--seed"};
  bool numeric = false;
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) numeric |= !strcmp(o, numbers[i]);
  double x;
  if (!numeric) return usage_error("unknown option '%s'", o);
  if (!strcmp(o, "--time-limit") && number(v, 0, 1e7, &x)) a->t.time_limit = x;
  else if (!strcmp(o, "--trials") && whole(v, 1, 1e7, &x)) a->t.max_trials = (int)x;
  else if (!strcmp(o, "--jobs") && whole(v, 1, 64, &x)) a->t.jobs = (int)x;
  else if (!strcmp(o, "--trial-timeout") && whole(v, 1, 86400, &x)) a->t.trial_timeout = (int)x;
  else if (!strcmp(o, "--max-steps") && whole(v, 1, 1e18, &x)) a->inv.max_steps = (uint64_t)x;
  else if (!(!strcmp(o, "--seed") && seed_number(v, &a->t.seed))) return usage_error("invalid value '%s'", v);
  return 0;
}

static int parse(int argc, char **argv, TuneArgs *a) {
  memset(a, 0, sizeof *a);
  a->t = (TuneOptions){.seed = 1, .jobs = 1, .trial_timeout = 120, .time_limit = -1};
  for (int i = 2; i < argc; i++) {
    const char *o = argv[i];
    int rc = 0;
    if (o[0] != '-' && a->inv.file) return usage_error("unexpected argument '%s'", o);
    if (o[0] != '-') a->inv.file = o;
    else if (!strcmp(o, "--host")) a->inv.host = true;
    else if (i + 1 >= argc) return usage_error("option '%s' needs a value", o);
    else rc = option(a, o, argv[++i]);
    if (rc) return rc;
  }
  if (!a->inv.file) return usage_error("missing input FILE", "");
  if ((a->plan != NULL) + (a->merge != NULL) + (a->trial != NULL) > 1)
    return usage_error("--plan, --merge and --trial go one at a time", "");
  if (!a->out && !a->plan && !a->trial) return usage_error("missing -o OUT.sched", "");
  if (a->t.time_limit < 0 && !a->t.max_trials) a->t.time_limit = 120;
  a->inv.seed = a->t.seed;
  a->inv.trial_timeout = a->t.trial_timeout;
  return 0;
}

/* The winner of run, checked and written to a->out. */
static int write_best(const TuneArgs *a, const TuneSpace *sp, const TuneRun *run) {
  TuneWinner w;
  tune_print_table(sp, run);
  if (!tune_write_best(sp, &a->inv, run, a->out, &w, stderr)) {
    fprintf(stderr, "npugen tune: %s; nothing written\n", w.check.message);
    return 1;
  }
  printf("%s: PASS npugen check (seed %" PRIu64 ", %s); %s\n", sp->variant, a->t.seed,
         w.check.exact ? "bit-exact" : "within the tolerance", w.check.summary);
  printf("wrote %s (npugen check %s --schedule %s)\n", a->out, a->inv.file, a->out);
  if (!a->merge) tune_print_as_written(sp, run, &w); /* a --merge run has no trial of it */
  return 0;
}

static int run_mode(TuneArgs *a, TuneSpace *sp) {
  char why[1000];
  TuneRun run;
  tune_run_init(&run);
  int rc = 0, pending = 0;
  if (a->plan) {
    TunePlanCount c;
    rc = !tune_plan_write(sp, &a->inv, a->plan, a->t.max_trials ? a->t.max_trials : 16, &c, why, sizeof why);
    if (rc) fprintf(stderr, "npugen tune: %s\n", why);
    else fprintf(stderr, "npugen tune: %d trials in %s/trials.txt (%d run before, %d planned and not run yet); run them, e.g.\n"
                         "  parallel < %s/trials.txt\nthen plan the next round the same way, or merge: npugen tune %s --merge %s -o OUT.sched\n",
                 c.planned, a->plan, c.run_before, c.pending, a->plan, a->inv.file, a->plan);
  } else if (a->trial) {
    TrialResult r;
    rc = !tune_trial_file_run(sp, a->trial, a->t.trial_timeout, &r, why, sizeof why);
    if (rc) fprintf(stderr, "%s:1:1: error: not a trial of this space (%s); npugen tune --plan writes them, and one "
                            "planned with --host needs --host\n", a->trial, why);
    else tune_result_write(stdout, &r);
  } else if (a->merge) {
    tune_plan_load(sp, a->merge, &run, &pending, stderr);
    fprintf(stderr, "npugen tune: %d results in %s (%d trials without one)\n", run.n, a->merge, pending);
    tune_plan_recheck(sp, &a->t, &run, stderr);
    rc = write_best(a, sp, &run);
  } else {
    if (a->log && !(a->t.log = fopen(a->log, "w"))) fprintf(stderr, "npugen tune: cannot write %s\n", a->log);
    tune_search(sp, &a->t, &run);
    if (a->t.log) fclose(a->t.log);
    fprintf(stderr, "npugen tune: stopped: %s, after %.1f s\n", run.stopped, run.seconds);
    rc = write_best(a, sp, &run);
  }
  tune_run_free(&run);
  return rc;
}

/* A program: each callee tuned, one schedule for the whole (tune/program.c). */
static int run_program(TuneArgs *a, NpgSession *s, TuneProgram *p) {
  if (a->plan || a->merge || a->trial) {
    fprintf(stderr, "npugen tune: --plan, --merge and --trial tune one kernel; %s calls kernels: tune it whole "
                    "without them, or each kernel it calls with --kernel\n", p->program->name);
    return 2;
  }
  char why[300];
  if (a->log) fprintf(stderr, "npugen tune: --log ignored for a program\n");
  TuneShown shown = {a->inv.host, a->t.jobs};
  TuneProgramHooks h = tune_print_program_hooks(&shown);
  bool ok = tune_program_run(s, &a->inv, &a->t, p, &h, stderr);
  tune_print_program(p);
  if (!ok) {
    fprintf(stderr, "npugen tune: %s fails the check: %s; nothing written\n", p->variant, p->check.message);
    return 1;
  }
  if (!tune_program_write(p, &a->inv, a->out, why, sizeof why)) {
    fprintf(stderr, "npugen tune: %s; nothing written\n", why);
    return 1;
  }
  printf("wrote %s (npugen check %s --schedule %s)\n", a->out, a->inv.file, a->out);
  return 0;
}

int cmd_tune(int argc, char **argv) {
  TuneArgs a;
  char why[5000], variant[300];
  int rc = parse(argc, argv, &a);
  if (rc) return rc;
  if (a.out && !a.plan && !a.trial && !tune_output_check(a.out, why, sizeof why)) {
    fprintf(stderr, "npugen tune: %s (checked before the search)\n", why);
    return 1;
  }
  NpgSession *s = npg_open_file_for_target(a.inv.file, a.inv.target);
  npg_set_check_limits(s, a.inv.max_steps, 0); /* the trials' runs (npg_simulate) */
  const char *kernel = npg_error_count(s) ? NULL : tune_pick_kernel(s, &a.inv, a.kernel, why, sizeof why);
  fputs(npg_error_count(s) ? npg_errors(s) : why, stderr); /* an error, or a note */
  TuneProgram prog;
  if (kernel && tune_program_find(s, kernel, &prog)) {
    rc = run_program(&a, s, &prog);
    tune_program_free(&prog);
    npg_close(s);
    return rc;
  }
  TuneSpace sp;
  if (kernel) tune_variant_name(a.inv.file, kernel, variant, sizeof variant);
  if (kernel && !tune_space_build(&sp, s, kernel, a.inv.host, why, sizeof why)) {
    const Kernel *k = module_kernel(session_module(s), kernel);
    fprintf(stderr, "%s:%d:%d: error: %s", a.inv.file, k->loc.line, k->loc.col, why);
    kernel = NULL;
  }
  if (kernel) {
    sp.variant = variant;
    if (!a.trial) tune_print_space(&sp, a.inv.host, a.t.jobs);
    rc = run_mode(&a, &sp);
    tune_space_free(&sp);
  }
  npg_close(s);
  return kernel ? rc : 1;
}
