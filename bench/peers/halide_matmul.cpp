// The float matmul of `make bench-peers` under Halide 14's JIT: C = A B,
// N^3 (N the first argument, 1024 by default), with the classic schedule of Halide's own
// test/performance/matrix_multiplication.cpp (output tiles of 3 vectors by
// 32 rows, rows in fours, the 4x3-vector register block unrolled, the
// reduction unrolled by 2), in the host's vector width; its parallel()
// stays; run.sh runs it on one thread and on two (HL_NUM_THREADS). Prints GFLOP/s by wall-clock and by CPU time: the best of REPS runs
// after one warm-up, once a few elements match a direct dot product.
#include <Halide.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace Halide;

static const int REPS = 10;

int main(int argc, char **argv) {
  const int N = argc > 1 ? std::atoi(argv[1]) : 1024;
  // x is a column (contiguous), y a row: A(k, i) is A[i][k] of the C kernel
  Buffer<float> A(N, N), B(N, N), C(N, N);
  unsigned seed = 1;
  for (Buffer<float> *m : {&A, &B}) {
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) (*m)(x, y) = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1.0f;
    seed++;
  }
  ImageParam a(Float(32), 2, "A"), b(Float(32), 2, "B");
  Var x("x"), y("y"), xi("xi"), yi("yi"), yii("yii"), xy("xy");
  RDom k(0, N);
  Func prod("prod"), out("out");
  prod(x, y) += a(k, y) * b(x, k);
  out(x, y) = prod(x, y);

  // the test's 8-wide vectors are AVX2's; V is the host's own width (16
  // floats with AVX-512), so the block is 4 rows of 3 vectors either way
  Target t = get_jit_target_from_environment();
  const int V = t.natural_vector_size<float>();
  out.tile(x, y, xi, yi, 3 * V, 32).fuse(x, y, xy).parallel(xy).split(yi, yi, yii, 4).vectorize(xi, V).unroll(xi).unroll(yii);
  prod.compute_at(out, yi).vectorize(x, V).unroll(y);
  prod.update().reorder(x, y, k).vectorize(x, V).unroll(x).unroll(y).unroll(k, 2);

  a.set(A);
  b.set(B);
  out.compile_jit(t);
  std::fprintf(stderr, "Halide target %s, %d-wide float vectors\n", t.to_string().c_str(), V);
  out.realize(C);
  for (int t = 0; t < 16; t++) {
    int i = (t * 397) % N, j = (t * 611 + 5) % N;
    if (t == 15) i = j = N - 1; // the last tail element
    double want = 0;
    for (int kk = 0; kk < N; kk++) want += (double)A(kk, i) * B(j, kk);
    if (std::fabs(C(j, i) - want) > 1e-3 * N) {
      std::fprintf(stderr, "C[%d][%d] = %g, want %g\n", i, j, C(j, i), want);
      return 1;
    }
  }
  double best = 1e30, best_cpu = 1e30;
  for (int r = 0; r < REPS; r++) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    out.realize(C);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double c = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
    if (t < best) best = t;
    if (c < best_cpu) best_cpu = c;
  }
  // by wall-clock time and by the process's CPU time, as time_kernel.c
  std::printf("%.1f %.1f\n", 2.0 * N * N * N / best * 1e-9, 2.0 * N * N * N / best_cpu * 1e-9);
  return 0;
}
