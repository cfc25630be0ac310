/* Names for scalar types, as benchmark suites write them: a macro naming
 * the data type (PolyBench's DATA_TYPE), typedefs of a standard type and
 * of the macro, used in parameters, locals and casts; a schedule on top.
 * The emitted code spells each name as written. */
#include <stdint.h>

#define N 64
#define DATA_TYPE float
typedef int8_t base;
typedef DATA_TYPE real, scalar;

void axpy(DATA_TYPE alpha, const base x[N], real y[N]) {
  for (int i = 0; i < N; i++) {
    scalar t = alpha * (DATA_TYPE)x[i];
    y[i] = y[i] + (real)(t * 0.5f); /* a cast tree-sitter reads as a call */
  }
}

#pragma npu schedule(axpy, axpy_split)
#pragma npu split(i, 16, io, ii)
#pragma npu vectorize(ii)
