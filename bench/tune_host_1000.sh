#!/bin/bash
# The issue's host figure: an fp32 matmul at N = 1000 tuned with `npugen
# tune --host`, against the kernel as written under gcc -O3 -march=native,
# on one thread (OMP_NUM_THREADS=1), timed in turn in one process.
#   bash bench/tune_host_1000.sh [SCHED]      # default: the schedule kept beside the kernel
#   bash bench/tune_host_1000.sh tune [S]     # tune it first (--time-limit S, default 120)
# Prints each one's median of RUNS calls and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
k=bench/tune_kernels/host/mm_f32_1000.c
sched=${1:-bench/tune_kernels/host/mm_f32_1000.sched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$sched" = tune ]; then
  sched=$tmp/t.sched
  OMP_NUM_THREADS=1 build/npugen tune "$k" --host --time-limit "${2:-120}" -o "$sched" >&2
fi
build/npugen emit "$k" --schedule "$sched" -o "$tmp/e" >/dev/null
v=mm_f32_1000_mm_f32_tuned
cat > "$tmp/main.c" <<'C'
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mm_f32_1000_mm_f32_tuned.h"
void mm_f32(const float A[1000][1000], const float B[1000][1000], float C[1000][1000]);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
enum { RUNS = 5 };
int main(void) {
  float (*A)[1000] = malloc(sizeof(float[1000][1000])), (*B)[1000] = malloc(sizeof(float[1000][1000]));
  float (*C)[1000] = malloc(sizeof(float[1000][1000]));
  for (int i = 0; i < 1000 * 1000; i++) A[0][i] = (float)(i % 7) / 7.0f, B[0][i] = (float)(i % 5) / 5.0f;
  double asis[RUNS], tuned[RUNS];
  mm_f32_1000_mm_f32_tuned(A, B, C); /* warm */
  for (int r = 0; r < RUNS; r++) { /* in turn: load hits both alike */
    double t0 = now();
    mm_f32(A, B, C);
    asis[r] = now() - t0;
    t0 = now();
    mm_f32_1000_mm_f32_tuned(A, B, C);
    tuned[r] = now() - t0;
  }
  qsort(asis, RUNS, sizeof *asis, cmp);
  qsort(tuned, RUNS, sizeof *tuned, cmp);
  double a = asis[RUNS / 2], t = tuned[RUNS / 2];
  printf("as written (gcc -O3 -march=native): %.1f ms, %.2f GFLOP/s\n", 1e3 * a, 2e9 / a / 1e9);
  printf("tuned, one thread:                  %.1f ms, %.2f GFLOP/s\n", 1e3 * t, 2e9 / t / 1e9);
  printf("tuned / as written: %.2fx (medians of %d, load average %s)\n", a / t, RUNS, getenv("LOAD") ? getenv("LOAD") : "?");
  free(A), free(B), free(C);
  return 0;
}
C
cc -O3 -march=native -c "$k" -o "$tmp/asis.o"
cc -O3 -march=native -fopenmp-simd -fopenmp -c "$tmp/e/$v.c" -I"$tmp/e" -o "$tmp/tuned.o"
cc -O2 -I"$tmp/e" "$tmp/main.c" "$tmp/asis.o" "$tmp/tuned.o" -fopenmp -o "$tmp/bench"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg) OMP_NUM_THREADS=1 "$tmp/bench"
