/* make bench, spine part: per kernel file, measured in this one run:
 *   parse+check+emit time (mean of 20), tcc JIT compile of the emitted C,
 *   gcc -O2 -c of the same file, and JIT check time (reference + variant run). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

int main(int argc, char **argv) {
  printf("%-36s %10s %10s %10s %8s %10s\n", "kernel file", "gen ms", "tcc ms", "gcc-O2 ms",
         "gcc/tcc", "check ms");
  double tot_gen = 0, tot_tcc = 0, tot_gcc = 0, tot_check = 0;
  int files = 0;
  for (int a = 1; a < argc; a++) {
    const char *path = argv[a];
    enum { REPS = 20 };
    double t0 = now();
    NpgSession *s = NULL;
    for (int r = 0; r < REPS; r++) {
      if (s) npg_close(s);
      s = npg_open_file(path);
      for (int i = 0; i < npg_variant_count(s); i++) (void)npg_emit_source(s, i);
    }
    double gen = (now() - t0) / REPS * 1e3;
    if (npg_error_count(s)) {
      fprintf(stderr, "%s", npg_errors(s));
      return 1;
    }
    double tcc = 0, gcc = 0, check = 0;
    char dir[] = "/tmp/npg-bench-XXXXXX";
    if (!mkdtemp(dir) || emit_files(s, dir) < 0) return 1;
    for (int i = 0; i < npg_variant_count(s); i++) {
      t0 = now();
      NpgJit *j = npg_jit_variant(s, i);
      tcc += (now() - t0) * 1e3;
      npg_jit_free(j);
      char src[4096];
      snprintf(src, sizeof src, "%s/%s.c", dir, npg_variant_name(s, i));
      double wall, cpu;
      if (!run_gcc(src, &wall, &cpu)) return 1;
      gcc += wall;
      NpgCheckResult r;
      t0 = now();
      if (!npg_check(s, i, 1, &r)) {
        fprintf(stderr, "%s: %s\n", path, r.message);
        return 1;
      }
      check += (now() - t0) * 1e3;
    }
    remove_files(s, dir);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("%-36s %10.3f %10.3f %10.3f %7.1fx %10.2f\n", base, gen, tcc, gcc, gcc / tcc, check);
    tot_gen += gen;
    tot_tcc += tcc;
    tot_gcc += gcc;
    tot_check += check;
    files++;
    npg_close(s);
  }
  printf("%-36s %10.3f %10.3f %10.3f %7.1fx %10.2f\n", "TOTAL", tot_gen, tot_tcc, tot_gcc,
         tot_gcc / tot_tcc, tot_check);
  printf("(%d files; gen = parse + check + emit, mean of 20; check = JIT compile of both + run + compare)\n", files);
  return 0;
}
