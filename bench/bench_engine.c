/* make bench, legality engine part: three measurements of how fast schedules
 * are applied and checked, each against gcc or against itself, through the
 * public C API only (include/npugen.h):
 *
 * (a) per example file: generation (npg_open_file, then npg_emit_source and
 *     npg_emit_header of every variant: what `npugen emit FILE -o DIR` does
 *     but the file writes) against `gcc -std=c99 -O2 -c` of every emitted .c;
 * (b) a 256x128x512 int8 matmul under schedules of 1, 4, 8, 16 and 32 steps,
 *     each a prefix of the next: (open with the schedule - open without) /
 *     steps, and how that per-step cost grows from 4 to 32 steps;
 * (c) one loop of 100, 400 and 1000 statements followed by parallel(i):
 *     generation as in (a) against gcc -O2 of the emitted files.
 *
 * Times are CPU times (this process for npugen, gcc with its cc1 and as),
 * the minimum over repeated runs. Each measurement runs in a child process
 * that is killed after BENCH_TIMEOUT seconds (default 60); what it had
 * measured by then is kept, otherwise the table says "timeout". */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "bench_util.h"

/* ---- measuring in a child process, bounded in time ---- */

enum { GEN, GCC, OPEN_PLAIN, OPEN_SCHED, VARIANTS, IR_LINES, NKIND };

typedef struct {
  double v[NKIND];
  bool have[NKIND];
  bool timed_out, failed;
} Result;

typedef struct {
  int kind; /* -1: failed */
  double value;
} Record;

static double timeout_s = 60;
static int report_fd = -1;
static char job_dir[64]; /* the child's scratch directory, made and removed by the parent */

static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      char path[512];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      remove(path);
    }
  closedir(d);
  rmdir(dir);
}

/* Sent after every run with the best so far: a killed child has reported
 * what it measured. A record is smaller than PIPE_BUF, so written whole. */
static void report(int kind, double value) {
  Record r = {kind, value};
  if (write(report_fd, &r, sizeof r) != (ssize_t)sizeof r) _exit(3);
}

typedef void (*Job)(const void *arg);

static Result measure(Job job, const void *arg) {
  Result r;
  memset(&r, 0, sizeof r);
  int p[2];
  snprintf(job_dir, sizeof job_dir, "/tmp/npg-bench-XXXXXX");
  if (!mkdtemp(job_dir) || pipe(p)) {
    r.failed = true;
    return r;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) {
    r.failed = true;
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0); /* its own group: a timeout ends it and the gcc it runs */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does the end of make bench (^C) */
    if (getppid() != parent) _exit(1);
    close(p[0]);
    report_fd = p[1];
    job(arg);
    _exit(0);
  }
  close(p[1]);
  setpgid(pid, pid);
  double deadline = now() + timeout_s;
  for (;;) {
    double left = deadline - now();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    struct pollfd pf = {p[0], POLLIN, 0};
    int n = poll(&pf, 1, (int)(left * 1e3) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.failed = true;
      break;
    }
    if (n == 0) continue; /* the deadline is checked above */
    Record rec;
    ssize_t got = read(p[0], &rec, sizeof rec);
    if (got < 0 && errno == EINTR) continue;
    if (got != (ssize_t)sizeof rec) break; /* EOF: the child is done */
    if (rec.kind < 0 || rec.kind >= NKIND) r.failed = true;
    else {
      r.v[rec.kind] = rec.value;
      r.have[rec.kind] = true;
    }
  }
  if (r.timed_out) kill(-pid, SIGKILL); /* our own child's group, by its id */
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!r.timed_out && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) r.failed = true;
  close(p[0]);
  remove_dir(job_dir); /* also what a killed child left */
  return r;
}

/* Repetitions: up to 20 runs; stop after 3 once 1 s is spent, and after 20 s
 * in any case (the minimum is kept). */
static bool more_runs(int runs, double spent_s) {
  return runs < 20 && !(runs >= 3 && spent_s >= 1.0) && spent_s < 20.0;
}

/* ---- what is measured ---- */

typedef struct {
  const char *name; /* file name shown in errors */
  const char *path; /* a file, or */
  const char *src;  /* the text of one */
  const char *plain; /* (b), (c): the same kernel without its schedule */
  int variants;     /* expected, with the schedule */
} Input;

static NpgSession *open_input(const Input *in, const char *src) {
  if (src) return npg_open_string(in->name, src, strlen(src));
  return npg_open_file(in->path);
}

static void fail(NpgSession *s, const char *what) {
  fprintf(stderr, "%s: %s", what, s && npg_error_count(s) ? npg_errors(s) : "unexpected variant count\n");
  report(-1, 0);
  _exit(1);
}

/* Open (parse + apply and check every schedule) and emit every variant's
 * source and header; CPU time, min over runs. The open part alone is
 * reported too. Then gcc of every emitted .c, min of 3 runs per file. */
static void job_generate(const void *arg) {
  const Input *in = arg;
  double best = 1e300, best_open = 1e300, spent = 0;
  NpgSession *s = NULL;
  for (int runs = 0; more_runs(runs, spent); runs++) {
    if (s) npg_close(s);
    double t0 = cpu_now();
    s = open_input(in, in->src);
    double t1 = cpu_now();
    for (int i = 0; i < npg_variant_count(s); i++) {
      (void)npg_emit_source(s, i);
      (void)npg_emit_header(s, i);
    }
    double t2 = cpu_now();
    if (npg_error_count(s) || (in->variants && npg_variant_count(s) != in->variants)) fail(s, in->name);
    spent += t2 - t0;
    if (t2 - t0 < best) best = t2 - t0;
    if (t1 - t0 < best_open) best_open = t1 - t0;
    report(GEN, best * 1e3);
    report(OPEN_SCHED, best_open * 1e3);
    if (runs == 0) report(VARIANTS, npg_variant_count(s));
  }
  if (in->plain) {
    double best_plain = 1e300;
    spent = 0;
    for (int runs = 0; more_runs(runs, spent); runs++) {
      double t0 = cpu_now();
      NpgSession *p = open_input(in, in->plain);
      double t = cpu_now() - t0;
      if (npg_error_count(p)) fail(p, in->name);
      npg_close(p);
      spent += t;
      if (t < best_plain) best_plain = t;
      report(OPEN_PLAIN, best_plain * 1e3);
    }
  }
  const char *dir = job_dir;
  if (emit_files(s, dir) < 0) fail(NULL, "cannot write the emitted files\n");
  double total = 0;
  for (int i = 0; i < npg_variant_count(s); i++) {
    char src[4096];
    snprintf(src, sizeof src, "%s/%s.c", dir, npg_variant_name(s, i));
    double file_best = 1e300;
    for (int r = 0; r < 3; r++) {
      double wall, cpu;
      if (!run_gcc(src, &wall, &cpu)) fail(NULL, "gcc failed on the emitted C\n");
      if (cpu < file_best) file_best = cpu;
    }
    total += file_best;
  }
  report(GCC, total);
  npg_close(s);
}

/* (b): open without, then with the schedule (no emission), min over runs. */
static void job_open(const void *arg) {
  const Input *in = arg;
  const char *texts[2] = {in->plain, in->src};
  int kinds[2] = {OPEN_PLAIN, OPEN_SCHED}, want[2] = {1, in->variants};
  for (int k = 0; k < 2; k++) {
    double best = 1e300, spent = 0;
    for (int runs = 0; more_runs(runs, spent); runs++) {
      double t0 = cpu_now();
      NpgSession *s = open_input(in, texts[k]);
      double t = cpu_now() - t0;
      if (npg_error_count(s) || npg_variant_count(s) != want[k]) fail(s, in->name);
      if (k == 1 && runs == 0) {
        /* the size of the scheduled variant's IR, for the reader */
        const char *ir = npg_dump_ir(s, 1);
        int lines = 0;
        for (const char *c = ir; c && *c; c++) lines += *c == '\n';
        report(IR_LINES, lines);
      }
      npg_close(s);
      spent += t;
      if (t < best) best = t;
      report(kinds[k], best * 1e3);
    }
  }
}

/* ---- (b)'s kernel and schedule ---- */

static const char *matmul =
    "#include <stdint.h>\n"
    "void matmul(const int8_t A[256][512], const int8_t B[512][128], int32_t C[256][128]) {\n"
    "  for (int i = 0; i < 256; i++)\n"
    "    for (int j = 0; j < 128; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 512; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n";

/* 32 legal steps; a schedule of n steps is the first n. Tiles of 64x32, the
 * init nest decomposed per tile, k split 64 then 4 (the 4 unrolled), jo
 * parallel, ji vectorized, A, B staged and C accumulated in DM per io, the k
 * tiles cut by 3 (16 = 5 x 3 + 1, a guarded tail) and partitioned so the tail
 * gets its own loop, rows split and reordered, DM rows aligned. */
static const char *steps[] = {
    "split(i, 64, io, ii)",
    "split(j, 32, jo, ji)",
    "reorder(io, jo, ii, ji)",
    "decompose_reduction(init, ii)",
    /* 4 */
    "split(k, 64, ko, ki)",
    "reorder(ko, ii, ji, ki)",
    "parallel(jo)",
    "annotate(jo, \"tile\", (64, 32))",
    /* 8 */
    "split(ki, 4, kk, ku)",
    "reorder(kk, ji, ku)",
    "unroll(ku)",
    "vectorize(ji)",
    "fuse(ii_1, ji_1, ij0)",
    "vectorize(ij0)",
    "cache_read(A, dm, io, A_dm)",
    "cache_read(B, dm, io, B_dm)",
    /* 16 */
    "cache_write(C, dm, io, C_dm)",
    "split(ii, 8, i8, i1)",
    "reorder(i8, ko, i1)",
    "annotate(ko, \"pipeline\", 2)",
    "split(kk, 3, k3, kr)",
    "loop_partition(k3, 5)",
    "unroll(kr_1)",
    "storage_align(A_dm, 0, 64, 16)",
    "split(i8, 2, i8o, i8i)",
    "reorder(i8i, i1, ko)",
    "split(i1, 4, i4, i0)",
    "reorder(i0, i4)",
    "storage_align(B_dm, 0, 128, 64)",
    "split(i8o, 2, i8a, i8b)",
    "reorder(i8b, i8a)",
    "annotate(io, \"cores\", 4)",
    /* 32 */
};

static char *schedule_text(int n) {
  size_t cap = strlen(matmul) + 64 + (size_t)n * 64;
  char *t = malloc(cap);
  size_t len = (size_t)snprintf(t, cap, "%s#pragma npu schedule(matmul, s%d)\n", matmul, n);
  for (int i = 0; i < n; i++) len += (size_t)snprintf(t + len, cap - len, "#pragma npu %s\n", steps[i]);
  return t;
}

/* ---- (c)'s kernel ---- */

static char *wide_loop(int n, bool with_schedule) {
  size_t cap = 256 + (size_t)n * 48;
  char *t = malloc(cap);
  size_t len = (size_t)snprintf(t, cap,
                                "void k(const float X[64], float Y[%d][64]) {\n"
                                "  for (int i = 0; i < 64; i++) {\n",
                                n);
  for (int s = 0; s < n; s++) len += (size_t)snprintf(t + len, cap - len, "    Y[%d][i] = X[i] + %d;\n", s, s);
  len += (size_t)snprintf(t + len, cap - len, "  }\n}\n");
  if (with_schedule) snprintf(t + len, cap - len, "#pragma npu schedule(k, k_par)\n#pragma npu parallel(i)\n");
  return t;
}

/* ---- printing ---- */

static void print_ms(const Result *r, int kind, int width) {
  if (r->have[kind]) printf(" %*.1f", width, r->v[kind]);
  else if (r->timed_out) printf(" %*s", width, "timeout");
  else printf(" %*s", width, "failed");
}

static void print_ratio(double num, double den, bool num_lower_bound) {
  printf(" %s%7.2fx", num_lower_bound ? ">" : " ", num / den);
}

int main(int argc, char **argv) {
  const char *env = getenv("BENCH_TIMEOUT");
  if (env && atof(env) > 0) timeout_s = atof(env);
  int status = 0;

  /* (a) */
  printf("-- (a) generation of each example vs gcc -O2 of its emitted files --\n");
  printf("%-28s %8s %10s %10s %9s\n", "example", "variants", "gen ms", "gcc ms", "gen/gcc");
  double tot_gen = 0, tot_gcc = 0;
  bool tot_ok = true;
  for (int a = 1; a < argc; a++) {
    Input in = {argv[a], argv[a], NULL, NULL, 0};
    Result r = measure(job_generate, &in);
    const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    printf("%-28s", base);
    if (r.have[VARIANTS]) printf(" %8.0f", r.v[VARIANTS]);
    else printf(" %8s", "?");
    print_ms(&r, GEN, 10);
    print_ms(&r, GCC, 10);
    if (r.have[GEN] && r.have[GCC]) print_ratio(r.v[GEN], r.v[GCC], false);
    if (r.timed_out) printf("  (> %.0f s: timeout)", timeout_s);
    printf("\n");
    if (r.have[GEN] && r.have[GCC]) {
      tot_gen += r.v[GEN];
      tot_gcc += r.v[GCC];
    } else tot_ok = false;
    if (r.failed) status = 1;
  }
  printf("%-28s %8s %10.1f %10.1f", tot_ok ? "TOTAL" : "TOTAL (measured files)", "", tot_gen, tot_gcc);
  print_ratio(tot_gen, tot_gcc, false);
  printf("\n(gen = npg_open_file + npg_emit_source and npg_emit_header of every variant, in process;\n"
         " gcc = gcc -std=c99 -O2 -c of every emitted .c, summed over the variants, min of 3 per file;\n"
         " CPU times, gen the min of up to 20 runs; target gen/gcc <= 1x)\n\n");

  /* (b) */
  printf("-- (b) cost per schedule step: 256x128x512 int8 matmul, each schedule a prefix of the next --\n");
  printf("%6s %12s %12s %12s %12s %9s\n", "steps", "plain ms", "scheduled ms", "schedule ms", "per step ms", "IR lines");
  static const int lengths[] = {1, 4, 8, 16, 32};
  double per_step[5] = {0};
  bool lower_bound[5] = {false}, have[5] = {false};
  for (int l = 0; l < 5; l++) {
    int n = lengths[l];
    char *src = schedule_text(n);
    Input in = {"matmul.c", NULL, src, matmul, 2};
    Result r = measure(job_open, &in);
    printf("%6d", n);
    print_ms(&r, OPEN_PLAIN, 12);
    print_ms(&r, OPEN_SCHED, 12);
    if (r.have[OPEN_PLAIN] && r.have[OPEN_SCHED]) {
      per_step[l] = (r.v[OPEN_SCHED] - r.v[OPEN_PLAIN]) / n;
      have[l] = true;
      printf(" %12.1f %12.2f", r.v[OPEN_SCHED] - r.v[OPEN_PLAIN], per_step[l]);
    } else if (r.timed_out && r.have[OPEN_PLAIN]) {
      /* not one run finished: the schedule took more than what was left */
      per_step[l] = (timeout_s * 1e3 - r.v[OPEN_PLAIN]) / n;
      have[l] = lower_bound[l] = true;
      printf(" %12s %11s%.0f", "timeout", ">", per_step[l]);
    } else printf(" %12s %12s", "-", "-");
    if (r.have[IR_LINES]) printf(" %9.0f", r.v[IR_LINES]);
    printf("\n");
    if (r.failed) status = 1;
    free(src);
  }
  if (have[1] && have[4] && !lower_bound[1]) {
    printf("per-step cost, 32 steps / 4 steps:");
    print_ratio(per_step[4], per_step[1], lower_bound[4]);
    printf("  (target <= 2x)\n");
  }
  printf("(plain = npg_open_string of the kernel alone, scheduled = with the schedule, CPU time, min of up to\n"
         " 20 runs each; schedule = scheduled - plain; per step = schedule / steps; IR lines = npg_dump_ir of\n"
         " the scheduled variant. The 32 steps:");
  for (int i = 0; i < 32; i++) printf("%s%s", i % 4 ? "; " : "\n   ", steps[i]);
  printf(")\n\n");

  /* (c) */
  printf("-- (c) one loop of N statements, then parallel(i): generation vs gcc -O2 of the emitted files --\n");
  printf("%10s %12s %12s %9s %14s\n", "statements", "gen ms", "gcc ms", "gen/gcc", "parallel ms");
  static const int sizes[] = {100, 400, 1000};
  for (int z = 0; z < 3; z++) {
    char *src = wide_loop(sizes[z], true), *plain = wide_loop(sizes[z], false);
    Input in = {"wide.c", NULL, src, plain, 2};
    Result r = measure(job_generate, &in);
    printf("%10d", sizes[z]);
    if (r.have[GEN]) print_ms(&r, GEN, 12);
    else printf(" %11s%.0f", ">", timeout_s * 1e3);
    print_ms(&r, GCC, 12);
    if (r.have[GEN] && r.have[GCC]) print_ratio(r.v[GEN], r.v[GCC], false);
    else printf(" %9s", "-");
    if (r.have[OPEN_SCHED] && r.have[OPEN_PLAIN]) printf(" %14.1f", r.v[OPEN_SCHED] - r.v[OPEN_PLAIN]);
    else printf(" %14s", "-");
    if (r.timed_out) printf("  (> %.0f s: timeout)", timeout_s);
    printf("\n");
    if (r.failed) status = 1;
    free(src);
    free(plain);
  }
  printf("(gen and gcc as in (a): 2 variants, the loop as written and k_par; parallel = open with the\n"
         " schedule - open without, CPU time, min of runs; target: 1000 statements under 2x gcc)\n");
  return status;
}
