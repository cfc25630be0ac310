/* Times one float kernel of `make bench-peers` and prints its GFLOP/s: the
 * best of REPS calls after one warm-up call, by wall-clock time and by the
 * process's CPU time (time a loaded machine gives to other work is not in
 * the second, and with one thread it is the call's own time), once the result matches a
 * direct computation in double at a few places (a fast wrong kernel
 * cannot pass). run.sh builds it once per kernel and implementation with
 * gcc -O3 -march=native (and -fopenmp: OMP_NUM_THREADS says the threads):
 *   -DMATMUL -DN=1024 -DFN=name   C[N][N] = A[N][N] B[N][N]
 *   -DCONV3X3 -DH=2048 -DW=2048 -DFN=name   out[H][W] = 3x3 window of in[H+2][W+2] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float *data(size_t n, unsigned seed) {
  float *m = aligned_alloc(64, (sizeof(float) * n + 63) / 64 * 64);
  if (!m) exit(2);
  for (size_t i = 0; i < n; i++) m[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1.0f;
  return m;
}

#ifdef MATMUL
enum { REPS = 10 };
void FN(const float A[N][N], const float B[N][N], float C[N][N]);
static const double FLOPS = 2.0 * N * N * N;
static float *in0, *in1, *out0;
static void setup(void) { in0 = data((size_t)N * N, 1), in1 = data((size_t)N * N, 2), out0 = data((size_t)N * N, 3); }
static void call(void) { FN((const float (*)[N])in0, (const float (*)[N])in1, (float (*)[N])out0); }
static int wrong(void) {
  const float (*A)[N] = (const float (*)[N])in0, (*B)[N] = (const float (*)[N])in1;
  float (*C)[N] = (float (*)[N])out0;
  for (int t = 0; t < 16; t++) {
    int i = (t * 397) % N, j = (t * 611 + 5) % N;
    if (t == 15) i = j = N - 1; /* the last tail element */
    double want = 0;
    for (int k = 0; k < N; k++) want += (double)A[i][k] * B[k][j];
    if (fabs(C[i][j] - want) > 1e-3 * N) return fprintf(stderr, "C[%d][%d] = %g, want %g\n", i, j, C[i][j], want), 1;
  }
  return 0;
}
#elif defined CONV3X3
enum { REPS = 40 };
void FN(const float in[H + 2][W + 2], const float w[3][3], float out[H][W]);
static const double FLOPS = 2.0 * 9 * H * W;
static float *in0, *in1, *out0;
static void setup(void) { in0 = data((size_t)(H + 2) * (W + 2), 1), in1 = data(9, 2), out0 = data((size_t)H * W, 3); }
static void call(void) { FN((const float (*)[W + 2])in0, (const float (*)[3])in1, (float (*)[W])out0); }
static int wrong(void) {
  const float (*in)[W + 2] = (const float (*)[W + 2])in0, (*w)[3] = (const float (*)[3])in1;
  float (*out)[W] = (float (*)[W])out0;
  for (int t = 0; t < 16; t++) {
    int y = (t * 397) % H, x = (t * 611 + 5) % W;
    if (t == 15) y = H - 1, x = W - 1;
    double want = 0;
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) want += (double)in[y + r][x + s] * w[r][s];
    if (fabs(out[y][x] - want) > 1e-4) return fprintf(stderr, "out[%d][%d] = %g, want %g\n", y, x, out[y][x], want), 1;
  }
  return 0;
}
#endif

int main(void) {
  setup();
  call();
  if (wrong()) return 1;
  double best = 1e30, best_cpu = 1e30;
  for (int r = 0; r < REPS; r++) {
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    call();
    double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (t < best) best = t;
    if (c < best_cpu) best_cpu = c;
  }
  printf("%.1f %.1f\n", FLOPS / best * 1e-9, FLOPS / best_cpu * 1e-9);
  return 0;
}
