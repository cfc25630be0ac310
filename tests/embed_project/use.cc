// A C++ file includes the three kernel files' headers and calls one with a
// variable-length array parameter (C++ sees `const int32_t x[][4]`).
#include <cstdint>

#include "mm.h"
#include "mm_tiled.h"
#include "pool.h"
#include "pool_split.h"
#include "rows.h"
#include "rows_split.h"

extern "C" int cxx_rows(void);

int cxx_rows(void) {
  int32_t x[3][ROWS_SPLIT_K] = {}, y[3][ROWS_SPLIT_K] = {};
  x[2][3] = 2;
  rows_split(3, x, y);
  return y[2][3]; // 2 * 2 + 3
}
