#!/bin/bash
# The issue's host figure at several sizes: an fp32 matmul C = A B, N^3,
# tuned with `OMP_NUM_THREADS=1 npugen tune --host --trials T` (seed 1),
# against the kernel as written under gcc -O3 -march=native, both in one
# program on one thread, timed in turn (as written, tuned, as written, ...)
# by the thread's CPU time (other work on the machine's cores does not
# count; tune's own timer measures the same way), RUNS calls each.
#   bash bench/tune_host_mm.sh [N...]      default: 1000 1024 999
# Environment: TRIALS (default 8), RUNS (default 5), RESTRICT=1 to declare
# A, B and C restrict (the register block needs it: without it gcc keeps
# no tile of C in registers, since a store to C might change A or B), and
# SCHED=FILE to time that schedule instead of tuning (one N only).
# Prints, per N: the schedule's knobs, each one's median GFLOP/s with the
# spread of its RUNS calls (min-max), and the ratio of the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
npugen=${NPUGEN:-build/npugen}
trials=${TRIALS:-8} runs=${RUNS:-5}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 1024 999)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=
[ "${RESTRICT:-0}" = 1 ] && q="restrict "
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores); A, B, C ${q:-not restrict}"
for n in "${sizes[@]}"; do
  k=$tmp/mm_f32_$n.c
  cat > "$k" <<C
#define N $n
void mm_f32(const float A[${q}N][N], const float B[${q}N][N], float C[${q}N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      init: C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        update: C[i][j] += A[i][k] * B[k][j];
    }
}
C
  sched=${SCHED:-}
  if [ -z "$sched" ]; then
    sched=$tmp/t$n.sched
    OMP_NUM_THREADS=1 "$npugen" tune "$k" --host --seed 1 --trials "$trials" --jobs 1 -o "$sched" >"$tmp/tune$n.log" 2>&1 ||
      { cat "$tmp/tune$n.log" >&2; exit 1; }
  fi
  # the schedule's own variant name, whatever file it was tuned for
  v=$(sed -n 's/^#pragma npu schedule(mm_f32, *\([A-Za-z0-9_]*\)).*/\1/p' "$sched")
  "$npugen" emit "$k" --schedule "$sched" -o "$tmp/e$n" >/dev/null
  cat > "$tmp/main$n.c" <<C
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N $n
void mm_f32(const float A[N][N], const float B[N][N], float C[N][N]);
void $v(const float A[N][N], const float B[N][N], float C[N][N]);
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
enum { RUNS = $runs };
int main(void) {
  float (*A)[N] = aligned_alloc(64, (sizeof(float[N][N]) + 63) / 64 * 64), (*B)[N] = aligned_alloc(64, (sizeof(float[N][N]) + 63) / 64 * 64);
  float (*C)[N] = aligned_alloc(64, (sizeof(float[N][N]) + 63) / 64 * 64), (*D)[N] = aligned_alloc(64, (sizeof(float[N][N]) + 63) / 64 * 64);
  for (int i = 0; i < N * N; i++) A[0][i] = (float)(i % 7) / 7.0f, B[0][i] = (float)(i % 5) / 5.0f;
  double asis[RUNS], tuned[RUNS];
  $v((const float (*)[N])A, (const float (*)[N])B, C); /* warm */
  for (int r = 0; r < RUNS; r++) { /* in turn: load hits both alike */
    double t0 = now();
    mm_f32((const float (*)[N])A, (const float (*)[N])B, D);
    asis[r] = now() - t0;
    t0 = now();
    $v((const float (*)[N])A, (const float (*)[N])B, C);
    tuned[r] = now() - t0;
  }
  for (int i = 0; i < N * N; i++) /* the same sums in another order: a float tolerance */
    if (C[0][i] - D[0][i] > 1e-3f * N || D[0][i] - C[0][i] > 1e-3f * N) return fprintf(stderr, "element %d: %g, as written %g\n", i, C[0][i], D[0][i]), 1;
  qsort(asis, RUNS, sizeof *asis, cmp);
  qsort(tuned, RUNS, sizeof *tuned, cmp);
  double f = 2.0 * N * N * N * 1e-9, a = asis[RUNS / 2], t = tuned[RUNS / 2];
  printf("  as written (gcc -O3 -march=native): %7.2f GFLOP/s (%.2f-%.2f)\n", f / a, f / asis[RUNS - 1], f / asis[0]);
  printf("  tuned, one thread:                  %7.2f GFLOP/s (%.2f-%.2f)\n", f / t, f / tuned[RUNS - 1], f / tuned[0]);
  printf("  tuned / as written: %.2fx (medians of %d calls each)\n", a / t, RUNS);
  return 0;
}
C
  gcc -O3 -march=native -c "$k" -o "$tmp/asis$n.o"
  gcc -O3 -march=native -fopenmp-simd -fopenmp -c "$tmp/e$n/$v.c" -I"$tmp/e$n" -o "$tmp/tuned$n.o"
  gcc -O2 "$tmp/main$n.c" "$tmp/asis$n.o" "$tmp/tuned$n.o" -fopenmp -o "$tmp/bench$n"
  echo "N = $n: $(sed -n 2p "$sched" | sed 's/^ \* //')"
  OMP_NUM_THREADS=1 "$tmp/bench$n"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
