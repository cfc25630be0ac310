/* The cost of a host-only variant: its emitted C compiled with the system
 * C compiler (cc -O3 -march=native -fopenmp-simd, and -fopenmp when the
 * variant has a parallel loop) together with a small timing program,
 * which calls it on seeded arrays once to warm up, then again and again
 * (at least 7 runs and 0.2 s, at most 101 runs or 3 s) and reports the
 * median time of one call (CPU time on one thread, else wall-clock:
 * host_clock). The timed runs of all trials on
 * the machine take turns (a lock file), so two trials never share the
 * cores while they are timed. */
#define _DEFAULT_SOURCE /* mkdtemp, flock */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ir/sizes.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

enum { MAX_ARRAY_BYTES = 1 << 30 };

/* The value the timer passes for scalar parameter v: a size at the size
 * set tuned for (npugen tune --size), any other scalar a small value
 * (as the check's scalars are: no division by zero, no overflow). */
static void scalar_value(const Kernel *k, const SizeSet *set, const Var *v, StrBuf *sb) {
  for (int i = 0; i < k->nsizes; i++)
    if (k->sizes[i] == v || !strcmp(k->sizes[i]->name, v->name)) {
      sb_printf(sb, "%lld", (long long)set->val[i]);
      return;
    }
  sb_printf(sb, type_is_float(v->type) ? "1.25" : "2");
}

/* The element type of array b in the timer's C, and whether it is a
 * floating type. */
static const char *array_type(const Buffer *b) {
  return b->elem->kind == TY_FLOAT    ? "float"
         : b->elem->kind == TY_DOUBLE ? "double"
         : b->elem->size == 1         ? "uint8_t"
         : b->elem->size == 2         ? "uint16_t"
         : b->elem->size == 4         ? "uint32_t"
                                      : "uint64_t";
}

/* Array i's allocation and its seeded values into sb; false with why when
 * it is larger than the timer allocates. */
static bool write_array(const Buffer *b, int i, StrBuf *sb, char *msg, size_t n) {
  uint64_t count = 1;
  for (int d = 0; d < b->ndim; d++) {
    if (b->shape[d] <= 0 || count > MAX_ARRAY_BYTES / (uint64_t)b->shape[d]) {
      snprintf(msg, n, "array '%s' is larger than the host timer allocates (1 GiB)", b->name);
      return false;
    }
    count *= (uint64_t)b->shape[d];
  }
  if (count > MAX_ARRAY_BYTES / (uint64_t)b->elem->size) {
    snprintf(msg, n, "array '%s' is larger than the host timer allocates (1 GiB)", b->name);
    return false;
  }
  const char *t = array_type(b);
  bool fp = b->elem->kind == TY_FLOAT || b->elem->kind == TY_DOUBLE;
  sb_printf(sb, "  %s *a%d = malloc(%" PRIu64 "u * sizeof(%s));\n  if (!a%d) return 1;\n", t, i, count, t, i);
  sb_printf(sb, "  for (uint64_t e = 0; e < %" PRIu64 "u; e++) a%d[e] = (%s)%s;\n", count, i, t,
            fp ? "((e * 2654435761u >> 7) % 2001 / 1000.0 - 1.0)" : "((e * 2654435761u >> 7) % 7)");
  return true;
}

/* The timing program: the variant's arrays, filled with small values (no
 * denormals, no overflow), its scalars, and the timed calls. shapes: the
 * kernel at the size set tuned for (its arrays' extents constant). clock:
 * the POSIX clock that times a call. */
static bool write_harness(const Kernel *k, const Kernel *shapes, const SizeSet *set, const char *variant,
                          const char *clock, StrBuf *sb, char *msg, size_t n) {
  sb_printf(sb, "#define _POSIX_C_SOURCE 199309L\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                "#include <time.h>\n#include \"%s.h\"\n"
                "static double now(void) { struct timespec t; clock_gettime(%s, &t);"
                " return t.tv_sec + 1e-9 * t.tv_nsec; }\n"
                "static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b;"
                " return x < y ? -1 : x > y; }\n"
                "int main(void) {\n",
            variant, clock);
  StrBuf args;
  sb_init(&args);
  bool ok = true;
  int i = 0;
  for (const Param *p = k->params, *q = shapes->params; ok && p && q; p = p->next, q = q->next, i++) {
    if (i) sb_printf(&args, ", ");
    if (p->buf) {
      ok = write_array(q->buf, i, sb, msg, n);
      sb_printf(&args, "(void *)a%d", i);
    } else scalar_value(k, set, p->var, &args);
  }
  sb_printf(sb, "  %s(%s);\n", variant, args.data ? args.data : "");
  sb_printf(sb, "  double t[101], total = 0;\n  int n = 0;\n"
                "  while (n < 101 && (n < 7 || total < 0.2) && total < 3.0) {\n"
                "    double t0 = now();\n    %s(%s);\n    t[n] = now() - t0;\n    total += t[n++];\n  }\n"
                "  qsort(t, n, sizeof *t, cmp);\n"
                "  printf(\"%%.0f %%.0f %%.0f %%.0f %%d\\n\", 1e9 * t[n / 2], 1e9 * t[0], 1e9 * t[n / 4],"
                " 1e9 * t[(3 * n) / 4], n);\n  return 0;\n}\n",
            variant, args.data ? args.data : "");
  sb_free(&args);
  return ok;
}

const char *tune_host_cflags(bool openmp) {
  return openmp ? "-O3 -march=native -fopenmp-simd -fopenmp" : "-O3 -march=native -fopenmp-simd";
}

static bool write_file(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

/* The first line of dir/name, for a message. */
static void first_line(const char *dir, const char *name, char *out, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  out[0] = 0;
  if (f && fgets(out, (int)n, f)) out[strcspn(out, "\n")] = 0;
  if (f) fclose(f);
}

static void remove_dir(const char *dir) {
  const char *names[] = {"v.c", "h.c", "t", "cc.txt", "run.txt"};
  char path[4096];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* Where the timer's files go: $TMPDIR unless its name would need quoting
 * in the shell commands below. */
static const char *temp_root(void) {
  const char *tmp = getenv("TMPDIR");
  return tmp && *tmp && !strchr(tmp, '\'') ? tmp : "/tmp";
}

/* cc on dir/v.c and dir/h.c into dir/t; its first line of errors in msg. */
static bool compile(const char *dir, bool openmp, char *msg, size_t n) {
  char cmd[8192];
  /* -lm: a kernel may call <math.h> (sqrt in a covariance or a correlation) */
  snprintf(cmd, sizeof cmd, "cc %s -I'%s' -o '%s/t' '%s/v.c' '%s/h.c' -lm >'%s/cc.txt' 2>&1", tune_host_cflags(openmp),
           dir, dir, dir, dir, dir);
  if (system(cmd) == 0) return true;
  char line[200];
  first_line(dir, "cc.txt", line, sizeof line);
  snprintf(msg, n, "the system C compiler refused the variant: %s", line);
  return false;
}

/* Runs dir/t holding the machine's timing lock: one timed run at a time. */
static bool timed_run(const char *dir, TuneHostTime *out, char *msg, size_t n) {
  char lock[1024], cmd[4096];
  snprintf(lock, sizeof lock, "%.900s/npugen-tune-%u.lock", temp_root(), (unsigned)getuid());
  int fd = open(lock, O_RDWR | O_CREAT, 0600);
  if (fd >= 0) flock(fd, LOCK_EX);
  snprintf(cmd, sizeof cmd, "'%s/t' >'%s/run.txt' 2>&1", dir, dir);
  int rc = system(cmd);
  if (fd >= 0) close(fd); /* releases the lock */
  char line[200];
  first_line(dir, "run.txt", line, sizeof line);
  double med, lo, q1, q3;
  if (rc != 0 || sscanf(line, "%lf %lf %lf %lf %d", &med, &lo, &q1, &q3, &out->runs) != 5 || med <= 0) {
    snprintf(msg, n, "the timed run failed: %s", line[0] ? line : "no output");
    return false;
  }
  out->median_ns = (uint64_t)med;
  out->min_ns = (uint64_t)lo;
  out->spread = (q3 - q1) / med;
  return true;
}

typedef struct {
  bool npu, parallel;
} HostFacts;

static bool host_fact(Stmt *st, int depth, void *ctx) {
  (void)depth;
  HostFacts *f = ctx;
  f->npu |= stmt_uses_npu(st);
  f->parallel |= st->kind == ST_FOR && st->loop_kind == LOOP_PARALLEL;
  return true;
}

/* A call on one thread is timed by that thread's CPU time: the time the
 * machine's other work takes from the core is not the variant's (on this
 * 2-core VM at a load average of 6 to 9, the wall-clock medians of one
 * binary moved by 2x between runs, and the search ranked by that noise).
 * The thread's clock, not the process's: under the trial's RLIMIT_CPU
 * (tune/trial_pool.c) Linux reads the process's CPU clock from a sample
 * taken at each tick, and a call shorter than a tick timed 0. A call that
 * may run on several threads (a parallel loop, OMP_NUM_THREADS not 1) is
 * timed by the wall clock, since CPU time leaves out the other threads'.
 * On a quiet machine both are the call's time. */
static const char *host_clock(bool parallel) {
  const char *threads = getenv("OMP_NUM_THREADS");
  bool one = !parallel || (threads && !strcmp(threads, "1"));
  return one ? "CLOCK_THREAD_CPUTIME_ID" : "CLOCK_MONOTONIC";
}

bool tune_host_openmp(NpgSession *s, int variant) {
  const Kernel *k = session_variant_ir(s, variant);
  HostFacts facts = {false, false};
  if (k) ir_walk_stmts(k->body, host_fact, &facts);
  return facts.parallel;
}

bool tune_host_time(NpgSession *s, int variant, TuneHostTime *out, char *msg, size_t n) {
  memset(out, 0, sizeof *out);
  const char *name = npg_variant_name(s, variant);
  const Kernel *k = session_variant_ir(s, variant);
  const char *src = npg_emit_source(s, variant);
  const char *hdr = npg_emit_header(s, variant);
  if (!name || !k || !src || !hdr) {
    snprintf(msg, n, "the variant did not emit");
    return false;
  }
  /* what the IR says, not the printed text */
  HostFacts facts = {false, false};
  ir_walk_stmts(k->body, host_fact, &facts);
  if (facts.npu) {
    snprintf(msg, n, "the variant calls NPU intrinsics: not a host-only variant");
    return false;
  }
  StrBuf harness;
  sb_init(&harness);
  char dir[1024];
  snprintf(dir, sizeof dir, "%.900s/npugen-tune-XXXXXX", temp_root());
  /* a kernel with sizes: its arrays' extents at the size set tuned for */
  SizeSet set;
  memset(&set, 0, sizeof set);
  Arena arena;
  arena_init(&arena, 0);
  const Kernel *shapes = k;
  bool sized = true;
  char why[300] = "";
  if (k->nsizes) {
    sized = k->nsize_sets >= 1 && ir_size_sets(k, &set, 1) == 1 &&
            (shapes = ir_instantiate(&arena, k, &set, why, sizeof why)) != NULL;
    if (!sized) snprintf(msg, n, "the kernel's sizes have no value to time it at%s%s", *why ? ": " : "", why);
  }
  bool ok = sized && write_harness(k, shapes, &set, name, host_clock(facts.parallel), &harness, msg, n);
  arena_free(&arena);
  bool made = ok && mkdtemp(dir);
  if (ok && !made) {
    snprintf(msg, n, "no temporary directory for the host timer");
    ok = false;
  }
  /* the header, which the source and the harness both include */
  char hname[300];
  snprintf(hname, sizeof hname, "%.200s.h", name);
  if (ok && !(write_file(dir, "v.c", src) && write_file(dir, hname, hdr) && write_file(dir, "h.c", harness.data))) {
    snprintf(msg, n, "cannot write the host timer's files in %s", dir);
    ok = false;
  }
  sb_free(&harness);
  out->openmp = facts.parallel;
  ok = ok && compile(dir, out->openmp, msg, n) && timed_run(dir, out, msg, n);
  if (made) {
    char hpath[1400];
    snprintf(hpath, sizeof hpath, "%s/%s", dir, hname);
    unlink(hpath);
    remove_dir(dir);
  }
  return ok;
}
