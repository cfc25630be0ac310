/* make bench: helpers shared by bench_spine.c and bench_engine.c (static,
 * header only: each benchmark is one translation unit).
 *   now(), cpu_now()       wall and process CPU clocks, in seconds
 *   emit_files()           write every variant's <variant>.c and .h into a dir
 *   remove_files()         and remove them
 *   run_gcc()              gcc -std=c99 -O2 -c of one emitted file: wall and
 *                          CPU time (user + system of gcc and its cc1/as)
 * Run from the repository's root (bench/run.sh): the emitted C includes
 * npu_intrinsics.h, found with -Inpu_intrinsics. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npugen.h"

extern char **environ;

static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Writes DIR/<variant>.c and DIR/<variant>.h for every variant, as
 * `npugen emit FILE -o DIR` does. Returns the number of variants, -1 on error. */
static inline int emit_files(NpgSession *s, const char *dir) {
  int n = npg_variant_count(s);
  for (int i = 0; i < n; i++) {
    const char *texts[2] = {npg_emit_source(s, i), npg_emit_header(s, i)};
    const char *exts[2] = {".c", ".h"};
    for (int f = 0; f < 2; f++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s%s", dir, npg_variant_name(s, i), exts[f]);
      FILE *out = fopen(path, "w");
      if (!out || fputs(texts[f] ? texts[f] : "", out) < 0 || fclose(out)) return -1;
    }
  }
  return n;
}

/* Removes what emit_files wrote, and the directory. */
static inline void remove_files(NpgSession *s, const char *dir) {
  for (int i = 0; i < npg_variant_count(s); i++)
    for (int f = 0; f < 2; f++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s%s", dir, npg_variant_name(s, i), f ? ".h" : ".c");
      remove(path);
    }
  rmdir(dir);
}

/* gcc -std=c99 -O2 -Inpu_intrinsics -I<dir of src> -c src -o <src>.o; the
 * object is removed. Returns false if gcc failed. *wall_ms and *cpu_ms get
 * the times (CPU: user + system of gcc and of the cc1/as it waited for). */
static inline bool run_gcc(const char *src, double *wall_ms, double *cpu_ms) {
  char dir[4096], obj[4200];
  snprintf(dir, sizeof dir, "%s", src);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  snprintf(obj, sizeof obj, "%s.o", src);
  char inc[4200];
  snprintf(inc, sizeof inc, "-I%s", dir);
  char *argv[] = {"gcc", "-std=c99", "-O2", "-Inpu_intrinsics", inc, "-c", (char *)src, "-o", obj, NULL};
  double t0 = now();
  pid_t pid;
  if (posix_spawnp(&pid, "gcc", NULL, NULL, argv, environ)) return false;
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return false;
  *wall_ms = (now() - t0) * 1e3;
  *cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
  remove(obj);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
