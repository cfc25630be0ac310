// The 3x3 float convolution of `make bench-peers` under Halide 14's JIT:
// out(x, y) = sum of in(x + r.x, y + r.y) w(r.x, r.y) over the 3x3 window,
// 2048 x 2048 (conv3x3_f32.c). Halide's repository has no one 3x3
// convolution to copy, so the schedule is the classic one of its
// tutorials and apps for a stencil (lesson 5's tiles, the blur app's
// strips): strips of 32 rows, in parallel (run.sh runs one thread and
// two), 2 vectors of the host's width across x, the sum kept in registers
// (computed at the vector tile, its window loops unrolled). Prints GFLOP/s:
// the best of REPS runs (wall-clock and CPU time) after one warm-up, once a few outputs match a
// direct sum.
#include <Halide.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>

using namespace Halide;

static const int H = 2048, W = 2048, REPS = 40;

int main() {
  Buffer<float> in(W + 2, H + 2), w(3, 3), out(W, H);
  unsigned seed = 1;
  for (int y = 0; y < H + 2; y++)
    for (int x = 0; x < W + 2; x++) in(x, y) = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1.0f;
  seed = 2;
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 3; x++) w(x, y) = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1.0f;
  ImageParam a(Float(32), 2, "in"), b(Float(32), 2, "w");
  Var x("x"), y("y"), xi("xi"), yi("yi");
  RDom r(0, 3, 0, 3);
  Func sum("sum"), f("out");
  sum(x, y) = 0.0f;
  sum(x, y) += a(x + r.x, y + r.y) * b(r.x, r.y);
  f(x, y) = sum(x, y);

  Target t = get_jit_target_from_environment();
  const int V = t.natural_vector_size<float>();
  f.split(y, y, yi, 32).parallel(y).split(x, x, xi, 2 * V).vectorize(xi, V).unroll(xi);
  sum.compute_at(f, x).vectorize(x, V).unroll(x);
  sum.update().reorder(x, r.x, r.y).vectorize(x, V).unroll(x).unroll(r.x).unroll(r.y);

  a.set(in);
  b.set(w);
  f.compile_jit(t);
  std::fprintf(stderr, "Halide target %s, %d-wide float vectors\n", t.to_string().c_str(), V);
  f.realize(out);
  for (int k = 0; k < 16; k++) {
    int yy = (k * 397) % H, xx = (k * 611 + 5) % W;
    if (k == 15) yy = H - 1, xx = W - 1;
    double want = 0;
    for (int s = 0; s < 3; s++)
      for (int q = 0; q < 3; q++) want += (double)in(xx + q, yy + s) * w(q, s);
    if (std::fabs(out(xx, yy) - want) > 1e-4) {
      std::fprintf(stderr, "out[%d][%d] = %g, want %g\n", yy, xx, out(xx, yy), want);
      return 1;
    }
  }
  double best = 1e30, best_cpu = 1e30;
  for (int k = 0; k < REPS; k++) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    f.realize(out);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double c = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
    if (s < best) best = s;
    if (c < best_cpu) best_cpu = c;
  }
  // by wall-clock time and by the process's CPU time, as time_kernel.c
  std::printf("%.1f %.1f\n", 2.0 * 9 * H * W / best * 1e-9, 2.0 * 9 * H * W / best_cpu * 1e-9);
  return 0;
}
