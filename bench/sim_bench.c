/* Host speed of libnpusim: NU matmul 256x256x256 int8 in the simulator against
 * the same loops (the DSL semantics kernel, npu_intrinsics/npu_nu_matmul_i8.c)
 * compiled natively with this file's flags (gcc -O3). Measured in one run;
 * prints the best of REPS timings of each and their ratio.
 *
 * Build and run from the repo root (after `make`, which builds libnpusim.a):
 *   gcc -std=c11 -O3 -D_POSIX_C_SOURCE=200809L -I. -Inpu_intrinsics -Isim \
 *       bench/sim_bench.c build/libnpusim.a -linih -lm -o build/sim_bench
 *   build/sim_bench
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "npu_intrinsics.h"
#include "sim/npusim.h"

#define M 256
#define N 256
#define K 256
#define REPS 15

/* The semantics kernel's loops, verbatim (i, j, k order). */
static void native_matmul(int32_t C[M][N], const int8_t A[M][K], const int8_t B[K][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0;
      for (int k = 0; k < K; k++) C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];
    }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int8_t hA[M][K], hB[K][N];
static int32_t hC[M][N];

int main(void) {
  uint32_t x = 12345;
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) hA[i][k] = (int8_t)((x = x * 1103515245u + 12345u) >> 24);
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) hB[k][j] = (int8_t)((x = x * 1103515245u + 12345u) >> 24);

  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *sim = npusim_new(&t);
  if (!sim) return 1;
  npusim_bind(sim);
  int8_t *A = npu_scope_base(NPU_NU_IB, 0), *B = npu_scope_base(NPU_NU_WB, 0);
  int32_t *C = npu_scope_base(NPU_NU_OB, 0);
  memcpy(A, hA, sizeof hA);
  memcpy(B, hB, sizeof hB);

  double best_native = 1e9, best_sim = 1e9;
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    native_matmul(hC, (const int8_t(*)[K])hA, (const int8_t(*)[N])hB);
    double t1 = now();
    npu_nu_matmul_i8(C, A, B, M, N, K, K, N, N, 0);
    double t2 = now();
    if (t1 - t0 < best_native) best_native = t1 - t0;
    if (t2 - t1 < best_sim) best_sim = t2 - t1;
  }
  npusim_finish(sim);
  if (npusim_failed(sim) || memcmp(C, hC, sizeof hC)) {
    fprintf(stderr, "sim_bench: simulator result differs from the native loops: %s\n",
            npusim_error(sim));
    return 1;
  }
  NpuSimReport rep;
  npusim_report(sim, &rep);
  npusim_unbind();
  npusim_free(sim);
  printf("sim host speed: NU matmul %dx%dx%d int8 (best of %d)\n", M, N, K, REPS);
  printf("  native gcc -O3 loops   %8.3f ms\n", best_native * 1e3);
  printf("  libnpusim              %8.3f ms\n", best_sim * 1e3);
  printf("  ratio sim/native       %8.2f  (goal <= 2)\n", best_sim / best_native);
  printf("  simulated cycles/op    %8llu\n", (unsigned long long)(rep.total_cycles / REPS));
  return 0;
}
