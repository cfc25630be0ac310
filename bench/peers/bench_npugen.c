/* Times npugen's emitted float matmul (built with gcc -O3 -march=native by
 * run.sh) on 1024^3 and prints its GFLOP/s: the best of REPS runs, after
 * one warm-up. It checks a few elements of C against a direct dot product,
 * so a fast wrong kernel cannot pass. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include KERNEL_HEADER

enum { REPS = 5 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float (*matrix(unsigned seed))[N] {
  float (*m)[N] = aligned_alloc(64, sizeof(float) * N * N);
  if (!m) exit(2);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) m[i][j] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1.0f;
  return m;
}

/* C[i][j] against the dot product in double, at a few places. */
static int wrong(const float (*A)[N], const float (*B)[N], const float (*C)[N]) {
  for (int t = 0; t < 16; t++) {
    int i = (t * 397) % N, j = (t * 611 + 5) % N;
    double want = 0;
    for (int k = 0; k < N; k++) want += (double)A[i][k] * B[k][j];
    if (fabs(C[i][j] - want) > 1e-3 * N) {
      fprintf(stderr, "C[%d][%d] = %g, want %g\n", i, j, C[i][j], want);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  float (*A)[N] = matrix(1), (*B)[N] = matrix(2), (*C)[N] = matrix(3);
  KERNEL(A, B, C);
  if (wrong((const float (*)[N])A, (const float (*)[N])B, (const float (*)[N])C)) return 1;
  double best = 1e30;
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    KERNEL(A, B, C);
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("%.1f\n", 2.0 * N * N * N / best * 1e-9);
  free(A);
  free(B);
  free(C);
  return 0;
}
