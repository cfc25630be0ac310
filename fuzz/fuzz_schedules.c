/* Long random-schedule runs: `make fuzz-schedules N=100000 [SEED=1]`.
 *
 *   fuzz_schedules [-n N] [-s SEED] [-j JOBS] [-t SECONDS] [-T SECONDS] [-u COPIES LEAVES]
 *                  [-k TOKENS] [-S STEPS] [--cc CC|none] [--in-process [-v]] [FILE...]
 *
 * Runs N cases (fuzz/sched_gen.h) over every kernel file (tests/kernels,
 * tests/kernels/realworld, examples, fuzz/kernels; or the files given); a
 * variant with marked loops is checked in each order of their iterations
 * (source, reversed, odd-even), so on large kernels a case takes up to
 * three variant runs. Each case runs in
 * its own forked process, JOBS at a time, so a crash, a sanitizer report or
 * a hang (past -t seconds, default 60) is caught and recorded like any
 * other failure. -T ends the run after that many seconds in all (the cases
 * running then finish; `make test`'s smoke run uses it). Each failure and each internal error is written to
 * fuzz/failures/ as a file `npugen check` reproduces it with: the kernel
 * source plus the case's pragmas, the description in a comment on top.
 * Exits 1 when any case failed or hit an internal error.
 *
 * Passing variants are also compiled with gcc's strict flags (--cc none
 * turns that off). -u sets the generator's unroll limits (default 8 copies,
 * 32 new statements, twice the test's; slow legality proofs show up as
 * timeouts). -k plans, emits and runs every case for the default target
 * with at most TOKENS DMAs in flight (its reproductions need a target file
 * with that max_tokens). -S bounds each run at STEPS steps (a case past it
 * is a limit, counted as refused; make test's smoke run uses 2^30, as the
 * sched_random test does). --in-process runs the cases in this
 * process (for a debugger); -v then prints each case's outcome. */
/* MAP_ANONYMOUS is not POSIX */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fork_pool.h"
#include "fuzz/sched_gen.h"

enum { MAX_FILES = 1024, SLOT_TEXT = 256 << 10, MAX_RECORDS = 200 };

static const char *failure_dir = "fuzz/failures";

/* What a child leaves for the parent: the case so far (updated before each
 * step, so it survives a crash) and, at the end, its outcome. */
typedef struct {
  int outcome; /* -1 until the case finished */
  int ntried, napplied, prims[SG_MAX_STEPS];
  char kernel[128], variant[160];
  char schedule[16 << 10];
  char text[SLOT_TEXT]; /* sg_case_describe of a failed or internal-error case */
} Slot;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_dir(const char *dir, char **out, int n) {
  DIR *d = opendir(dir);
  if (!d) return n;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_FILES) {
    size_t l = strlen(e->d_name);
    if (l > 2 && !strcmp(e->d_name + l - 2, ".c")) {
      char *p = malloc(strlen(dir) + l + 2);
      sprintf(p, "%s/%s", dir, e->d_name);
      out[n++] = p;
    }
  }
  closedir(d);
  return n;
}

static void save_slot(void *ctx, const SgCase *c) {
  Slot *s = ctx;
  snprintf(s->kernel, sizeof s->kernel, "%s", c->kernel);
  snprintf(s->variant, sizeof s->variant, "%s", c->variant);
  snprintf(s->schedule, sizeof s->schedule, "%s", c->schedule ? c->schedule : "");
  s->ntried = c->ntried;
  memcpy(s->prims, c->prims, sizeof s->prims);
}

typedef struct {
  SgFile *file;
  uint64_t seed;
  const SgOptions *opt;
} SchedCase;

/* in the case's process: exits with the outcome */
static int run_child(void *ctx, void *slot_) {
  const SchedCase *sc = ctx;
  Slot *slot = slot_;
  SgCase c;
  sg_run_case(sc->file, sc->seed, sc->opt, &c, save_slot, slot);
  save_slot(slot, &c);
  slot->napplied = c.napplied;
  if (c.outcome == SG_FAILED || c.outcome == SG_INTERNAL) {
    char *t = sg_case_describe(&c);
    snprintf(slot->text, sizeof slot->text, "%s", t);
    free(t);
  }
  slot->outcome = c.outcome;
  int rc = c.outcome;
  sg_case_free(&c);
  return rc;
}

/* Failures grouped by kind, so one bug hit a thousand times is one line
 * of the summary and a few files, not a thousand. */
enum { MAX_KINDS = 128, FILES_PER_KIND = 3 };
typedef struct {
  char sig[200];
  long count;
  char first[1024]; /* the first reproduction written */
} Kind;
typedef struct {
  Kind k[MAX_KINDS];
  int n;
  long written;
} Records;

/* The kind of a failure: outcome, last primitive tried, and the first line
 * of the message with numbers and temporary file names left out. */
static void signature(const SgCase *c, const char *describe, char *sig, size_t n) {
  const char *m = strstr(describe, "-- message:\n");
  m = m ? m + 12 : strstr(describe, "ended abnormally");
  if (!m) m = "";
  size_t o = (size_t)snprintf(sig, n, "%s in %s: ", sg_outcome_name(c->outcome),
                              c->ntried ? sg_prim_name(c->prims[c->ntried - 1]) : "?");
  for (; *m && *m != '\n' && o + 1 < n; m++) {
    if (!strncmp(m, "/tmp/npg-sched-random-", 22)) m += 27; /* the 6-letter suffix */
    else if (*m < '0' || *m > '9') sig[o++] = *m;
  }
  sig[o < n ? o : n - 1] = 0;
}

/* Writes a reproduction (a few per kind); the description goes in a
 * comment on top. */
static void record(Records *r, SgFile *f, const SgCase *c, const char *describe) {
  char sig[200];
  signature(c, describe, sig, sizeof sig);
  int i = 0;
  while (i < r->n && strcmp(r->k[i].sig, sig)) i++;
  if (i == r->n && r->n < MAX_KINDS) snprintf(r->k[r->n++].sig, sizeof r->k[0].sig, "%s", sig);
  if (i == MAX_KINDS) i = MAX_KINDS - 1; /* too many kinds: counted with the last */
  if (r->k[i].count++ >= FILES_PER_KIND || r->written >= MAX_RECORDS) return;
  const char *base = strrchr(sg_file_path(f), '/');
  base = base ? base + 1 : sg_file_path(f);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s%.*s-seed%llu.c", failure_dir, c->outcome == SG_INTERNAL ? "internal-" : "",
           (int)(strlen(base) - 2), base, (unsigned long long)c->seed);
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return;
  }
  fprintf(out, "/* Reproduce: ./build/npugen check %s\n", path);
  for (const char *p = describe; *p; p++) {
    if (p[0] == '*' && p[1] == '/') fputs("* /", out), p++; /* keep the comment closed */
    else fputc(*p, out);
  }
  fputs("*/\n", out);
  char *repro = sg_case_repro(f, c);
  fputs(repro, out);
  free(repro);
  fclose(out);
  r->written++;
  if (!r->k[i].first[0]) snprintf(r->k[i].first, sizeof r->k[i].first, "%s", path);
  printf("  %s: %s\n", c->outcome == SG_INTERNAL ? "internal error" : "FAILURE", path);
}

static void usage(void) {
  fprintf(stderr, "usage: fuzz_schedules [-n N] [-s SEED] [-j JOBS] [-t SECONDS] [-T SECONDS]\n"
                  "                      [-u MAX_COPIES MAX_NEW_LEAVES] [-k TOKENS] [-S STEPS]\n"
                  "                      [--cc CC|none] [--in-process [-v]] [FILE...]\n");
  exit(2);
}

int main(int argc, char **argv) {
  long n = 1000;
  uint64_t seed = 1;
  int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), timeout = 60;
  double total = 0; /* -T: the whole run's seconds; 0: no limit */
  bool fork_cases = true, verbose = false;
  SgOptions opt = sg_default_options();
  /* longer runs afford larger unrolls than the test (a timeout catches
   * the slow ones) */
  opt.max_copies = 8;
  opt.max_new_leaves = 32;
  /* passing variants also go through gcc's strict flags, when there is a gcc */
  opt.strict_cc = system("command -v gcc >/dev/null 2>&1") == 0 ? "gcc" : NULL;
  char *files[MAX_FILES];
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-j") && i + 1 < argc) jobs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-t") && i + 1 < argc) timeout = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-T") && i + 1 < argc) total = atof(argv[++i]);
    else if (!strcmp(argv[i], "--in-process")) fork_cases = false;
    else if (!strcmp(argv[i], "-v")) verbose = true;
    else if (!strcmp(argv[i], "--cc") && i + 1 < argc) opt.strict_cc = argv[++i];
    else if (!strcmp(argv[i], "-k") && i + 1 < argc) opt.max_tokens = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-S") && i + 1 < argc) opt.max_steps = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-u") && i + 2 < argc) {
      opt.max_copies = atoi(argv[++i]);
      opt.max_new_leaves = atoi(argv[++i]);
    }
    else if (argv[i][0] == '-') usage();
    else if (nfiles < MAX_FILES) files[nfiles++] = strdup(argv[i]);
  }
  if (opt.strict_cc && !strcmp(opt.strict_cc, "none")) opt.strict_cc = NULL;
  if (!nfiles) {
    nfiles = list_dir("tests/kernels", files, nfiles);
    nfiles = list_dir("tests/kernels/realworld", files, nfiles);
    nfiles = list_dir("examples", files, nfiles);
    nfiles = list_dir("fuzz/kernels", files, nfiles);
  }
  qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
  mkdir("fuzz", 0755);
  mkdir(failure_dir, 0755);

  SgFile *sg[MAX_FILES];
  int nsg = 0;
  for (int i = 0; i < nfiles; i++) {
    char err[2048];
    SgFile *f = sg_file_open(files[i], err, sizeof err);
    if (f) sg[nsg++] = f;
    else fprintf(stderr, "skipping %s\n", err);
    free(files[i]);
  }
  if (!nsg) {
    fprintf(stderr, "no kernel files\n");
    return 2;
  }
  /* the case seeds depend on SEED and the case number only */
  uint64_t seed0 = seed << 32;
  ForkPool pool;
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s/.stderr", failure_dir);
  if (!fork_pool_open(&pool, fork_cases ? jobs : 1, sizeof(Slot), prefix)) return 2;
  printf("fuzz-schedules: %ld cases over %d kernel files, seed %llu, %d jobs%s%s%s\n", n, nsg, (unsigned long long)seed,
         pool.jobs, fork_cases ? "" : " (in-process)", opt.strict_cc ? ", strict C check with " : "",
         opt.strict_cc ? opt.strict_cc : "");
  fflush(stdout);

  SgCounts counts = {0};
  static Records rec; /* large: not on the stack */
  long crashes = 0;
  double t0 = fork_pool_now(), last_progress = t0, slowest = 0;
  uint64_t slowest_seed = 0, seed_of[FORK_POOL_MAX_JOBS] = {0};
  int file_of[FORK_POOL_MAX_JOBS] = {0};
  long next = 0, done = 0;
  while (done < n) {
    if (total > 0 && next < n && fork_pool_now() - t0 >= total) {
      printf("time budget of %.0f s reached: no new cases\n", total);
      n = next;
      if (done == n) break;
    }
    if (fork_pool_stop) {
      fork_pool_kill_all(&pool);
      printf("stopped after %ld cases\n", done);
      break;
    }
    if (!fork_cases) {
      uint64_t s = seed0 + (uint64_t)next++;
      SgFile *f = sg[sg_pick_file(s, nsg)];
      double st = fork_pool_now();
      SgCase c;
      sg_run_case(f, s, &opt, &c, NULL, NULL);
      if (verbose) printf("%llu %s %s %.2fs: %.200s\n", (unsigned long long)s, sg_outcome_name(c.outcome), f ? sg_file_path(f) : "", c.seconds, c.message ? strtok(c.message, "\n") : "");
      double dt = fork_pool_now() - st;
      if (dt > slowest) slowest = dt, slowest_seed = s;
      sg_counts_add(&counts, &c);
      if (c.outcome == SG_FAILED || c.outcome == SG_INTERNAL) {
        char *t = sg_case_describe(&c);
        record(&rec, f, &c, t);
        free(t);
      }
      sg_case_free(&c);
      done++;
    } else {
      /* start cases on free jobs, then reap one */
      for (int j = 0; j < pool.jobs && next < n; j++) {
        if (pool.pid[j]) continue;
        Slot *sl = fork_pool_slot(&pool, j);
        memset(sl, 0, offsetof(Slot, text) + 1);
        sl->outcome = -1;
        seed_of[j] = seed0 + (uint64_t)next++;
        file_of[j] = sg_pick_file(seed_of[j], nsg);
        SchedCase sc = {sg[file_of[j]], seed_of[j], &opt};
        if (!fork_pool_start(&pool, j, timeout, run_child, &sc)) return 2;
      }
      if (!fork_pool_busy(&pool)) break;
      int status, j = fork_pool_reap(&pool, &status);
      if (j == -1) continue;
      if (j < 0) return 2;
      Slot *sl = fork_pool_slot(&pool, j);
      SgFile *f = sg[file_of[j]];
      double dt = fork_pool_now() - pool.start[j];
      if (dt > slowest) slowest = dt, slowest_seed = seed_of[j];
      SgCase c;
      memset(&c, 0, sizeof c);
      c.seed = seed_of[j];
      c.file = sg_file_path(f);
      snprintf(c.kernel, sizeof c.kernel, "%s", sl->kernel);
      snprintf(c.variant, sizeof c.variant, "%s", sl->variant);
      c.schedule = sl->schedule;
      c.ntried = sl->ntried;
      c.napplied = sl->napplied;
      memcpy(c.prims, sl->prims, sizeof c.prims);
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) < SG_OUTCOMES && sl->outcome == WEXITSTATUS(status);
      char *describe = NULL;
      if (clean) {
        c.outcome = (SgOutcome)sl->outcome;
        if (c.outcome == SG_FAILED || c.outcome == SG_INTERNAL) describe = strdup(sl->text);
      } else {
        /* crashed, killed by the alarm, or a sanitizer report */
        crashes++;
        c.outcome = SG_FAILED;
        char *err = fork_pool_stderr(&pool, j);
        char how[128];
        fork_pool_how(status, how, sizeof how);
        size_t len = strlen(sl->schedule) + strlen(err) + 512;
        describe = malloc(len);
        /* a leak is found once the case is over; anything else stopped it */
        bool leak = WIFEXITED(status) && WEXITSTATUS(status) == FORK_POOL_LEAK_EXIT;
        snprintf(describe, len, "== FAILED: %s, seed %llu, kernel %s\nthe case process ended abnormally (%s)%s\n-- schedule:\n%s-- stderr:\n%s\n",
                 c.file, (unsigned long long)c.seed, c.kernel, how, leak ? "" : " during the last step", sl->schedule,
                 err);
        free(err);
      }
      /* sg_counts_add only reads the fields set above */
      SgCase counted = c;
      counted.schedule = NULL;
      sg_counts_add(&counts, &counted);
      if (describe) {
        record(&rec, f, &c, describe);
        free(describe);
      }
      done++;
    }
    double t = fork_pool_now();
    if (t - last_progress > 5 || done == n) {
      last_progress = t;
      printf("[%ld/%ld] passed %ld, refused %ld, internal %ld, failed %ld (%.0f s)\n", done, n,
             counts.outcome[SG_PASSED], counts.outcome[SG_REFUSED], counts.outcome[SG_INTERNAL],
             counts.outcome[SG_FAILED], t - t0);
      fflush(stdout);
    }
  }
  double wall = fork_pool_now() - t0;
  char *sum = sg_counts_summary(&counts);
  printf("\n%s", sum);
  free(sum);
  printf("crashes, timeouts and leaks %ld; wall time %.1f s (%.1f cases/s); slowest case %.2f s (seed %llu)\n", crashes, wall,
         wall > 0 ? done / wall : 0.0, slowest, (unsigned long long)slowest_seed);
  if (rec.n) printf("failures and internal errors by kind (count, first reproduction):\n");
  for (int i = 0; i < rec.n; i++) printf("  %6ld  %s\n          %s\n", rec.k[i].count, rec.k[i].sig, rec.k[i].first);
  if (rec.written) printf("reproductions written to %s/ (%ld, at most %d per kind)\n", failure_dir, rec.written, FILES_PER_KIND);
  fork_pool_close(&pool);
  bool bad = counts.outcome[SG_FAILED] || counts.outcome[SG_INTERNAL] || fork_pool_stop;
  sg_counts_free(&counts);
  for (int i = 0; i < nsg; i++) sg_file_close(sg[i]);
  return bad ? 1 : 0;
}
