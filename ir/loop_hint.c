/* How a marked loop asks the C compiler for what its mark means: the
 * pragma lines printed before it. The schedule decided the mark
 * (vectorize, parallel: a loop that carries no dependence); this is its
 * spelling, one for every build a user makes.
 *
 * vectorize: OpenMP's `omp simd` where OpenMP is on (_OPENMP) and under
 * clang, which reads it with -fopenmp or -fopenmp-simd and ignores it
 * quietly otherwise; gcc's own `GCC ivdep` in every other gcc build.
 * gcc -fopenmp-simd honours omp simd but defines no macro to test, and
 * gcc -Wall warns on an omp pragma it ignores, so `#ifdef _OPENMP` alone
 * left the mark without effect there (the host timer's build). ivdep
 * asserts what the vectorize step proved: no dependence between
 * iterations. (clang's `loop vectorize(enable)` is not used: clang warns,
 * an error under -Werror, where it cannot vectorize.) tcc reads neither.
 *
 * parallel: only where OpenMP is on: without its runtime there are no
 * threads, and the loop runs serially as written. */
#include "ir/ir.h"

const char *ir_loop_hint(LoopKind kind) {
  switch (kind) {
  case LOOP_VECTORIZE:
    return "#if defined(_OPENMP) || defined(__clang__)\n#pragma omp simd\n"
           "#elif defined(__GNUC__) && !defined(__TINYC__)\n#pragma GCC ivdep\n#endif\n";
  case LOOP_PARALLEL:
    return "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n";
  default:
    return "";
  }
}
