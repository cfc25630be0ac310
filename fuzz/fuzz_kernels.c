/* Random valid kernels, differentially checked: `make fuzz-kernels N=20000 [SEED=1]`.
 *
 *   fuzz_kernels [-n N] [-s SEED] [-j JOBS] [-T SECONDS] [-t SECONDS] [--cc none]
 *                [--case SEED [-k]]
 *
 * Each case generates a kernel file (fuzz/kernel_gen.h) and, in its own
 * forked process (JOBS at a time; a crash, a hang past -t seconds (default
 * 120) or a leak in an ASan build is a failure like any other):
 *   1. npugen parses it: any error is a failure (the generator claims the
 *      kernel is valid);
 *   2. `npugen check` of every kernel as written (npg_check: the kernel
 *      built by tcc against the emitted C built by tcc) must pass;
 *   3. the emitted C (npg_emit_source, with its npg_emit_header) is built by
 *      gcc -O2 -ffp-contract=off -fno-fast-math -fno-builtin with UBSan
 *      (float-cast-overflow too) and ASan, no recovery, together with a
 *      driver main (kg_driver_source) that fills every input in check's
 *      ranges and prints every output element; the same driver with the
 *      kernel file as written is built by the tcc command. Both run; their
 *      outputs must be identical: integers exactly, floats bit for bit (any
 *      NaN equals any NaN). A sanitizer report is a failure too: if gcc
 *      reports it for the kernel as written as well, the generator made
 *      undefined behaviour. A mismatch is triaged with a gcc build of the
 *      kernel as written (which side moved: npugen's emitted C, or tcc vs
 *      gcc on the source itself).
 * --cc none skips step 3. Failures are written to fuzz/failures/ as
 * kgen-seed<N>.c: the kernel file with what differed in a comment on top
 * (`npugen check` reproduces steps 1-2; `fuzz_kernels --case N -k` all of it,
 * keeping the build directory). -T stops starting cases after SECONDS (the
 * smoke run in `make test`). Exits 1 when a case failed. */
/* MAP_ANONYMOUS and mkdtemp are not POSIX 2008 C */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fork_pool.h"
#include "fuzz/kernel_gen.h"
#include "ir/util.h"
#include "npugen.h"

enum { SLOT_TEXT = 16 << 10, MAX_KINDS = 64, FILES_PER_KIND = 3, MAX_RECORDS = 200 };
static const char *failure_dir = "fuzz/failures";

typedef enum { K_PASSED, K_FAILED } Outcome;

/* What a child leaves for the parent. */
typedef struct {
  int outcome; /* -1 until the case finished */
  char phase[64];
  char kind[192];
  char text[SLOT_TEXT];
} Slot;

typedef struct {
  bool cc;         /* step 3 */
  int run_timeout; /* seconds per executable */
  bool keep;       /* keep the build directory (--case) */
  bool verbose;
} Options;

static void set_phase(Slot *s, const char *p) { snprintf(s->phase, sizeof s->phase, "%s", p); }

static void fail(Slot *s, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(Slot *s, const char *kind, const char *fmt, ...) {
  snprintf(s->kind, sizeof s->kind, "%s", kind);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->text, sizeof s->text, fmt, ap);
  va_end(ap);
  s->outcome = K_FAILED;
}

static bool write_text(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return false;
  fputs(text, f);
  return fclose(f) == 0;
}

static char *read_text(const char *dir, const char *name) {
  char path[512];
  size_t n;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *t = read_file(path, &n);
  return t ? t : strdup("");
}

/* Runs a shell command in dir; its exit status (-1 when it could not run). */
static int sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(const char *dir, const char *fmt, ...) {
  char cmd[4096];
  int n = snprintf(cmd, sizeof cmd, "cd '%s' && ", dir);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---------------- output comparison ---------------- */

typedef struct {
  long lines, differ;
  char first[1024];
} Diff;

static bool is_nan_line(const char *l) {
  /* "kgen.B[3] f 7fc00000 nan" */
  const char *t = strchr(l, ' ');
  if (!t || (t[1] != 'f' && t[1] != 'd')) return false;
  unsigned long long b = strtoull(t + 3, NULL, 16);
  if (t[1] == 'f') return (b & 0x7f800000ull) == 0x7f800000ull && (b & 0x7fffffull);
  return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull);
}

static double line_value(const char *l) {
  const char *t = strchr(l, ' ');
  if (!t) return NAN;
  if (t[1] == 'i') return strtod(t + 3, NULL);
  const char *v = strchr(t + 3, ' ');
  return v ? strtod(v + 1, NULL) : NAN;
}

/* Line by line; NaN equals NaN. */
static void compare_outputs(const char *a, const char *b, Diff *d) {
  memset(d, 0, sizeof *d);
  while (*a || *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
    char x[256], y[256];
    snprintf(x, sizeof x, "%.*s", (int)(la < 255 ? la : 255), a);
    snprintf(y, sizeof y, "%.*s", (int)(lb < 255 ? lb : 255), b);
    d->lines++;
    if (strcmp(x, y) && !(is_nan_line(x) && is_nan_line(y))) {
      if (!d->differ++) {
        double vx = line_value(x), vy = line_value(y), err = fabs(vx - vy);
        double mag = fmax(fabs(vx), fabs(vy));
        bool dbl = strstr(x, "] d ") != NULL;
        bool tol = strstr(x, "] i ") == NULL && err <= (dbl ? 1e-12 + 1e-12 * mag : 1e-6 + 1e-5 * mag);
        snprintf(d->first, sizeof d->first, "gcc(emitted): %s\n  tcc(source):  %s%s", x, y,
                 tol ? "\n  (within check's float tolerance, but not bit-exact)" : "");
      }
    }
    a += la + (ea ? 1 : 0);
    b += lb + (eb ? 1 : 0);
  }
}

/* ---------------- one case ---------------- */

static const char *GCC_FLAGS = "gcc -std=c99 -pedantic-errors -O2 -ffp-contract=off -fno-fast-math -fno-builtin -g "
                               "-fsanitize=undefined,float-cast-overflow,address -fno-sanitize-recover=all -w";
/* A run stopped by its CPU-time limit (ulimit -t: SIGXCPU, or SIGKILL at
 * the hard limit), as the shell reports it. */
static bool timed_out(int rc) { return rc == 128 + SIGXCPU || rc == 128 + SIGKILL; }

static const char *RUN_ENV = "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1";

static void cc_steps(const KgCase *kc, NpgSession *s, Slot *slot, const Options *o) {
  char dir[] = "/tmp/npg-kgen-XXXXXX";
  if (!mkdtemp(dir)) {
    fail(slot, "harness", "mkdtemp: %s", strerror(errno));
    return;
  }
  char *driver = kg_driver_source(kc, kc->seed * 0x9e3779b97f4a7c15ull + 11);
  StrBuf all, srcs;
  sb_init(&all);
  sb_init(&srcs);
  bool ok = write_text(dir, "kernel.c", kc->src) && write_text(dir, "driver.c", driver);
  for (int v = 0; v < npg_variant_count(s) && ok; v++) {
    char name[160];
    snprintf(name, sizeof name, "%s.c", npg_variant_name(s, v));
    ok = write_text(dir, name, npg_emit_source(s, v));
    sb_printf(&srcs, " %s", name);
    snprintf(name, sizeof name, "%s.h", npg_variant_name(s, v));
    ok = ok && write_text(dir, name, npg_emit_header(s, v));
    sb_printf(&all, "#include \"%s\"\n", name);
  }
  ok = ok && write_text(dir, "kg_all.h", all.data ? all.data : "");
  free(driver);
  if (!ok) {
    fail(slot, "harness", "cannot write to %s: %s", dir, strerror(errno));
    goto done;
  }
  set_phase(slot, "gcc build of the emitted C");
  if (sh(dir, "%s -DKG_HEADER='\"kg_all.h\"' -o gcc.exe driver.c%s -lm >gcc.log 2>&1", GCC_FLAGS, srcs.data)) {
    char *log = read_text(dir, "gcc.log");
    fail(slot, "emitted C does not build with gcc", "%.4000s", log);
    free(log);
    goto done;
  }
  set_phase(slot, "tcc build of the kernel file");
  if (sh(dir, "tcc -o tcc.exe driver.c kernel.c -lm >tcc.log 2>&1")) {
    char *log = read_text(dir, "tcc.log");
    fail(slot, "kernel file does not build with tcc", "%.4000s", log);
    free(log);
    goto done;
  }
  set_phase(slot, "runs");
  int rg = sh(dir, "ulimit -t %d; %s ./gcc.exe >gcc.out 2>gcc.err", o->run_timeout, RUN_ENV);
  int rt = sh(dir, "ulimit -t %d; ./tcc.exe >tcc.out 2>tcc.err", o->run_timeout);
  char *og = read_text(dir, "gcc.out"), *ot = read_text(dir, "tcc.out"), *eg = read_text(dir, "gcc.err"),
       *et = read_text(dir, "tcc.err");
  Diff d;
  compare_outputs(og, ot, &d);
  long want = 0; /* one line per output element: a run that printed less compared less */
  for (int k = 0; k < kc->nkernels; k++)
    for (int i = 0; i < kc->kernels[k].nparams; i++) {
      const KgParam *p = &kc->kernels[k].params[i];
      long e = 1;
      for (int x = 0; x < p->ndim; x++) e *= (long)p->dims[x];
      if (p->is_array && !p->is_const) want += e;
    }
  if (!rg && !rt && !d.differ && d.lines != want) {
    fail(slot, "harness: incomplete output", "%ld lines printed, %ld output elements", d.lines, want);
  } else if (rg || rt || d.differ) {
    /* triage: the kernel file as written, built by gcc the same way */
    set_phase(slot, "triage build");
    int bs = sh(dir, "%s -o src.exe driver.c kernel.c -lm >src.log 2>&1", GCC_FLAGS);
    int rs = bs ? -1 : sh(dir, "ulimit -t %d; %s ./src.exe >src.out 2>src.err", o->run_timeout, RUN_ENV);
    char *os = read_text(dir, "src.out"), *es = read_text(dir, "src.err");
    bool san_g = strstr(eg, "runtime error") || strstr(eg, "AddressSanitizer");
    bool san_s = strstr(es, "runtime error") || strstr(es, "AddressSanitizer");
    Diff ds, dt;
    compare_outputs(og, os, &ds);
    compare_outputs(os, ot, &dt);
    if (san_g && san_s)
      fail(slot, "undefined behaviour in the generated kernel (generator bug)", "gcc's sanitizers, on the kernel as written too:\n%.6000s", es);
    else if (san_g)
      fail(slot, "undefined behaviour in the emitted C only", "gcc's sanitizers on the emitted C:\n%.6000s", eg);
    else if (rg || rt)
      fail(slot, timed_out(rt) || timed_out(rg) ? "timeout (CPU time)" : "run failed",
           "gcc(emitted) exit %d, tcc(source) exit %d, gcc(source) exit %d\n-- gcc stderr:\n%.3000s\n-- tcc stderr:\n%.2000s", rg,
           rt, rs, eg, et);
    else if (!ds.differ && rs == 0)
      fail(slot, "tcc and gcc disagree on the kernel as written", "%ld of %ld lines differ; first:\n  %s\n(gcc builds of the source and of the emitted C agree)", d.differ, d.lines, d.first);
    else if (!dt.differ && rs == 0)
      fail(slot, "emitted C differs from the kernel (gcc)", "%ld of %ld lines differ; first:\n  %s\n(tcc and gcc builds of the source agree)", d.differ, d.lines, d.first);
    else
      fail(slot, "outputs differ three ways", "%ld of %ld lines differ; first:\n  %s\n(gcc(source) exit %d, differs from both)", d.differ, d.lines, d.first, rs);
    free(os);
    free(es);
  }
  free(og);
  free(ot);
  free(eg);
  free(et);
done:
  sb_free(&all);
  sb_free(&srcs);
  if (o->keep) printf("build directory kept: %s\n", dir);
  else sh("/tmp", "rm -rf '%s'", dir);
}

static void run_case(uint64_t seed, Slot *slot, const Options *o) {
  memset(slot, 0, offsetof(Slot, text) + 1);
  slot->outcome = -1;
  set_phase(slot, "generation");
  KgCase kc;
  kg_generate(seed, &kc);
  char name[64];
  snprintf(name, sizeof name, "kgen-seed%llu.c", (unsigned long long)seed);
  set_phase(slot, "npugen parse");
  NpgSession *s = npg_open_string(name, kc.src, strlen(kc.src));
  if (npg_error_count(s)) {
    const char *e = npg_errors(s);
    fail(slot, strstr(e, "internal error") ? "npugen internal error on a valid kernel" : "npugen refuses a valid kernel",
         "%s", e);
  } else if (npg_variant_count(s) != kc.nkernels) {
    fail(slot, "npugen variant count", "%d variants for %d kernels", npg_variant_count(s), kc.nkernels);
  } else {
    set_phase(slot, "npugen check");
    for (int v = 0; v < npg_variant_count(s) && slot->outcome < 0; v++) {
      NpgCheckResult r;
      if (!npg_check(s, v, 1 + seed % 7, &r))
        fail(slot, strstr(r.message, "internal error") ? "npugen check: internal error" : "npugen check fails",
             "variant %s (seed %llu): %s", npg_variant_name(s, v), (unsigned long long)(1 + seed % 7), r.message);
      else if (r.compared == 0 && kc.nkernels == 1 && o->verbose)
        printf("note: variant %s compared nothing\n", npg_variant_name(s, v));
    }
    if (slot->outcome < 0 && o->cc) cc_steps(&kc, s, slot, o);
  }
  if (slot->outcome < 0) slot->outcome = K_PASSED;
  npg_close(s);
  kg_case_free(&kc);
}

/* ---------------- failures ---------------- */

typedef struct {
  char kind[192];
  long count;
  char first[512];
} Kind;

typedef struct {
  Kind k[MAX_KINDS];
  int n;
  long written;
} Records;

static void record(Records *r, uint64_t seed, const char *kind, const char *phase, const char *text) {
  int i = 0;
  while (i < r->n && strcmp(r->k[i].kind, kind)) i++;
  if (i == r->n && r->n < MAX_KINDS) snprintf(r->k[r->n++].kind, sizeof r->k[0].kind, "%s", kind);
  if (i == MAX_KINDS) i = MAX_KINDS - 1;
  if (r->k[i].count++ >= FILES_PER_KIND || r->written >= MAX_RECORDS) return;
  char path[512];
  snprintf(path, sizeof path, "%s/kgen-seed%llu.c", failure_dir, (unsigned long long)seed);
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return;
  }
  KgCase kc;
  kg_generate(seed, &kc);
  fprintf(out, "/* fuzz_kernels failure, case seed %llu: %s (during: %s)\n", (unsigned long long)seed, kind, phase);
  fprintf(out, " * Reproduce: ./build/npugen check %s\n", path);
  fprintf(out, " *        or: build/fuzz_kernels --case %llu -k   (all steps, keeps the build directory)\n",
          (unsigned long long)seed);
  for (const char *p = text; *p; p++) {
    if (p[0] == '*' && p[1] == '/') fputs("* /", out), p++;
    else fputc(*p, out);
  }
  fprintf(out, "\n */\n%s", kc.src);
  fclose(out);
  kg_case_free(&kc);
  r->written++;
  if (!r->k[i].first[0]) snprintf(r->k[i].first, sizeof r->k[i].first, "%s", path);
  printf("  FAILURE (%s): %s\n", kind, path);
}

typedef struct {
  uint64_t seed;
  const Options *o;
} KernelCase;

/* in the case's process: exits with the outcome */
static int run_child(void *ctx, void *slot) {
  const KernelCase *c = ctx;
  Slot *sl = slot;
  run_case(c->seed, sl, c->o);
  return sl->outcome;
}

static void usage(void) {
  fprintf(stderr, "usage: fuzz_kernels [-n N] [-s SEED] [-j JOBS] [-T SECONDS] [-t SECONDS] [--cc none]\n"
                  "                    [--case SEED [-k]]\n");
  exit(2);
}

int main(int argc, char **argv) {
  long n = 1000;
  uint64_t seed = 1, one = 0;
  bool single = false;
  int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), timeout = 120;
  double total = 0;
  Options o = {.cc = true, .run_timeout = 20};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-j") && i + 1 < argc) jobs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-T") && i + 1 < argc) total = atof(argv[++i]);
    else if (!strcmp(argv[i], "-t") && i + 1 < argc) timeout = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cc") && i + 1 < argc) o.cc = strcmp(argv[++i], "none") != 0;
    else if (!strcmp(argv[i], "--case") && i + 1 < argc) single = true, one = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-k")) o.keep = true;
    else usage();
  }
  if (o.cc && (system("command -v gcc >/dev/null 2>&1") || system("command -v tcc >/dev/null 2>&1"))) {
    fprintf(stderr, "fuzz_kernels: gcc and tcc are needed (or --cc none)\n");
    return 2;
  }
  if (single) {
    static Slot sl;
    o.verbose = true;
    KgCase kc;
    kg_generate(one, &kc);
    printf("%s\n", kc.src);
    kg_case_free(&kc);
    run_case(one, &sl, &o);
    if (sl.outcome == K_PASSED) printf("case %llu: passed\n", (unsigned long long)one);
    else printf("case %llu: FAILED: %s (during: %s)\n%s\n", (unsigned long long)one, sl.kind, sl.phase, sl.text);
    return sl.outcome == K_PASSED ? 0 : 1;
  }
  mkdir("fuzz", 0755);
  mkdir(failure_dir, 0755);
  uint64_t seed0 = seed << 32;
  ForkPool pool;
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s/.kgen-stderr", failure_dir);
  if (!fork_pool_open(&pool, jobs, sizeof(Slot), prefix)) return 2;
  printf("fuzz-kernels: %ld cases, seed %llu, %d jobs, %s", n, (unsigned long long)seed, pool.jobs,
         o.cc ? "npugen check + gcc (UBSan, ASan) vs tcc builds" : "npugen check only");
  if (total > 0) printf(", starting cases for %.0f s", total);
  printf("\n");
  fflush(stdout);
  static Records rec;
  uint64_t seed_of[FORK_POOL_MAX_JOBS] = {0};
  long next = 0, done = 0, passed = 0, failed = 0;
  double t0 = fork_pool_now(), last = t0;
  for (;;) {
    bool starting = !fork_pool_stop && (total <= 0 || fork_pool_now() - t0 < total);
    for (int j = 0; j < pool.jobs && starting && next < n; j++) {
      if (pool.pid[j]) continue;
      Slot *sl = fork_pool_slot(&pool, j);
      memset(sl, 0, offsetof(Slot, text) + 1);
      sl->outcome = -1;
      KernelCase kc = {seed0 + (uint64_t)next++, &o};
      if (!fork_pool_start(&pool, j, timeout, run_child, &kc)) return 2;
      seed_of[j] = kc.seed;
    }
    if (!fork_pool_busy(&pool)) break;
    int status, j = fork_pool_reap(&pool, &status);
    if (j == -1) {
      if (fork_pool_stop) fork_pool_kill_all(&pool);
      continue;
    }
    if (j < 0) return 2;
    Slot *sl = fork_pool_slot(&pool, j);
    bool clean = WIFEXITED(status) && WEXITSTATUS(status) == sl->outcome && sl->outcome >= 0;
    if (!fork_pool_stop || clean) {
      done++;
      if (clean && sl->outcome == K_PASSED) {
        passed++;
      } else {
        failed++;
        if (!clean) {
          char *err = fork_pool_stderr(&pool, j);
          char how[128];
          fork_pool_how(status, how, sizeof how);
          snprintf(sl->kind, sizeof sl->kind, "case process ended abnormally (%s)", how);
          snprintf(sl->text, sizeof sl->text, "-- stderr:\n%.12000s", err);
          free(err);
        }
        record(&rec, seed_of[j], sl->kind, sl->phase, sl->text);
      }
    }
    double t = fork_pool_now();
    if (t - last > 10) {
      last = t;
      printf("[%ld/%ld] passed %ld, failed %ld (%.0f s, %.2f cases/s)\n", done, n, passed, failed, t - t0,
             (double)done / (t - t0));
      fflush(stdout);
    }
  }
  double wall = fork_pool_now() - t0;
  printf("\n%ld cases: passed %ld, failed %ld; %.2f cases/s; wall time %.1f s%s\n", done, passed, failed,
         wall > 0 ? done / wall : 0.0, wall, fork_pool_stop ? " (interrupted)" : "");
  if (rec.n) printf("failures by kind (count, first reproduction):\n");
  for (int i = 0; i < rec.n; i++) printf("  %6ld  %s\n          %s\n", rec.k[i].count, rec.k[i].kind, rec.k[i].first);
  fork_pool_close(&pool);
  return failed || fork_pool_stop ? 1 : 0;
}
