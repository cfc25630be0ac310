/* make bench, check part: the time of `npugen check FILE` (every variant,
 * seed 1, through the public API: what the command does but the printing;
 * as the command does, the kernel as written is compiled and its run is
 * the reference's, npg_set_as_written_by_reference) against one native run
 * of the kernel as written built with gcc -O3, as a ratio; the goal
 * for examples/matmul_npu.c is 3x at most, in CPU time.
 *
 * The check runs the kernel's instrumented reference in a thread of its
 * own while the first variant runs (jit/check_orders.c), so it is timed
 * twice: wall-clock and CPU time (both threads). The reference's run is
 * kept, so a check of the first scheduled variant again costs that
 * variant alone: that is printed too. The native run is a generated
 * driver that fills the kernel's arrays (from the prototype of its
 * emitted header) and times the call alone (CPU time, single-threaded).
 * The minimum of RUNS runs (on a shared machine wall times swing), each
 * check in a fresh session. Run from the repository's root. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkdtemp */
#include <ctype.h>
#include <stdarg.h>

#include "bench_util.h"

enum { RUNS = 2, GCC_RUNS = 3 };

typedef struct {
  double wall, cpu, first; /* the whole check; the first scheduled variant again, its reference kept */
} CheckTimes;

static bool check_once(const char *path, CheckTimes *t) {
  NpgSession *s = npg_open_file(path);
  if (npg_error_count(s) || !npg_variant_count(s)) {
    fprintf(stderr, "%s", npg_errors(s));
    return false;
  }
  npg_set_as_written_by_reference(s, true); /* as npugen check does */
  NpgCheckResult r;
  double w0 = now(), c0 = cpu_now();
  bool ok = true;
  for (int i = 0; ok && i < npg_variant_count(s); i++) ok = npg_check(s, i, 1, &r);
  t->wall = now() - w0;
  t->cpu = cpu_now() - c0;
  int first = npg_variant_count(s) > 1 ? 1 : 0;
  c0 = cpu_now();
  ok = ok && npg_check(s, first, 1, &r); /* the reference's run is kept now */
  t->first = cpu_now() - c0;
  if (!ok) fprintf(stderr, "%s: %s\n", path, r.message);
  npg_close(s);
  return ok;
}

/* Appends to a malloc'ed text. */
static void put(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(char **text, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  size_t n = *text ? strlen(*text) : 0, more = (size_t)vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *text = realloc(*text, n + more + 1);
  vsnprintf(*text + n, more + 1, fmt, again);
  va_end(again);
}

/* "void f(const int8_t A[4][4], int n)" (in header hdr): a driver that fills a static
 * array per array parameter (values -8..8) and a zero per scalar, and
 * prints the time of the call alone. */
static char *driver(const char *hdr, const char *proto) {
  char *decls = NULL, *args = NULL, *fills = NULL, *text = NULL;
  const char *p = strchr(proto, '(') + 1;
  int n = 0;
  for (; *p && *p != ')'; n++) {
    const char *end = strpbrk(p, ",)");
    char param[256], type[256];
    snprintf(param, sizeof param, "%.*s", (int)(end - p), p);
    char *dims = strchr(param, '['), *name = dims ? dims : param + strlen(param);
    while (name > param && (isalnum((unsigned char)name[-1]) || name[-1] == '_')) name--;
    snprintf(type, sizeof type, "%.*s", (int)(name - param), param);
    char *c = strstr(type, "const ");
    if (c) memmove(c, c + 6, strlen(c + 6) + 1);
    put(&decls, "static %sa%d%s;\n", type, n, dims ? dims : "");
    put(&args, "%sa%d", n ? ", " : "", n);
    if (dims)
      put(&fills, "  for (size_t i = 0; i < sizeof a%d; i++) ((unsigned char *)a%d)[i] = (unsigned char)(rand() %% 17 - 8);\n",
          n, n);
    p = *end == ',' ? end + 2 : end;
  }
  /* the kernel's header first: its #defines name the prototype's extents */
  put(&text, "#define _POSIX_C_SOURCE 200809L\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
             "#include <time.h>\n%s\n%s\nint main(void) {\n%s", hdr, decls ? decls : "", fills ? fills : "");
  const char *fn = proto + 5; /* after "void " */
  put(&text, "  struct timespec t0, t1;\n  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);\n  %.*s(%s);\n"
             "  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);\n"
             "  printf(\"%%.6f\\n\", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));\n"
             "  return 0;\n}\n",
      (int)(strchr(fn, '(') - fn), fn, args ? args : "");
  free(decls);
  free(args);
  free(fills);
  return text;
}

/* gcc -O3 of the kernel file with the driver: the best time of the call. */
static bool native_time(const char *path, NpgSession *s, double *best) {
  const char *hdr = npg_emit_header(s, 0), *proto = strstr(hdr, "\nvoid ");
  char dir[] = "/tmp/npg-bench-check-XXXXXX";
  if (!proto || !mkdtemp(dir)) return false;
  char *pr = strndup(proto + 1, (size_t)(strchr(proto, ';') - proto - 1));
  char *text = driver(hdr, pr);
  char drv_path[128], exe[128], cmd[1024];
  snprintf(drv_path, sizeof drv_path, "%s/driver.c", dir);
  snprintf(exe, sizeof exe, "%s/kernel", dir);
  FILE *f = fopen(drv_path, "w");
  bool ok = f && fputs(text, f) >= 0 && !fclose(f);
  snprintf(cmd, sizeof cmd, "gcc -std=c99 -O3 -o %s %s %s -lm", exe, drv_path, path);
  ok = ok && system(cmd) == 0;
  *best = 1e30;
  for (int r = 0; ok && r < GCC_RUNS; r++) {
    FILE *p = popen(exe, "r");
    double t;
    ok = p && fscanf(p, "%lf", &t) == 1;
    if (p) pclose(p);
    if (ok && t < *best) *best = t;
  }
  remove(drv_path);
  remove(exe);
  rmdir(dir);
  free(pr);
  free(text);
  return ok;
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    const char *path = argv[a];
    CheckTimes best = {1e30, 1e30, 1e30};
    for (int r = 0; r < RUNS; r++) {
      CheckTimes t;
      if (!check_once(path, &t)) return 1;
      if (t.wall < best.wall) best = t;
    }
    NpgSession *s = npg_open_file(path);
    double native;
    if (!native_time(path, s, &native)) {
      fprintf(stderr, "%s: the native build or run failed\n", path);
      return 1;
    }
    printf("%s: check %.2f s wall, %.2f s CPU (%d variants; %s alone %.2f s), "
           "gcc -O3 of the kernel as written %.2f s: ratio %.1fx wall, %.1fx CPU (goal <= 3x CPU)\n",
           path, best.wall, best.cpu, npg_variant_count(s), npg_variant_name(s, npg_variant_count(s) > 1 ? 1 : 0),
           best.first, native, best.wall / native, best.cpu / native);
    npg_close(s);
  }
  return 0;
}
