/* make bench, schedule part: the time to apply a 10-step schedule (each step
 * proven legal with isl), measured as the difference between opening a
 * kernel with and without the schedule, mean of 20 runs each. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "npugen.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *kernel =
    "#include <stdint.h>\n"
    "void matmul(const int8_t A[256][512], const int8_t B[512][128], int32_t C[256][128]) {\n"
    "  for (int i = 0; i < 256; i++)\n"
    "    for (int j = 0; j < 128; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 512; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n";

static const char *schedule =
    "#pragma npu schedule(matmul, tiled)\n"
    "#pragma npu decompose_reduction(init, i)\n"
    "#pragma npu split(i, 64, io, ii)\n"
    "#pragma npu split(j, 32, jo, ji)\n"
    "#pragma npu reorder(io, jo, ii, k, ji)\n"
    "#pragma npu split(k, 4, ko, ki)\n"
    "#pragma npu reorder(io, jo, ko, ii, ji, ki)\n"
    "#pragma npu unroll(ki)\n"
    "#pragma npu vectorize(ji)\n"
    "#pragma npu parallel(io)\n"
    "#pragma npu annotate(jo, \"tile\", (64, 32))\n";

static double open_ms(const char *src, int want_variants) {
  enum { REPS = 20 };
  double t0 = now();
  for (int r = 0; r < REPS; r++) {
    NpgSession *s = npg_open_string("matmul.c", src, strlen(src));
    if (npg_error_count(s) || npg_variant_count(s) != want_variants) {
      fprintf(stderr, "%s", npg_errors(s));
      return -1;
    }
    npg_close(s);
  }
  return (now() - t0) / REPS * 1e3;
}

int main(void) {
  char both[8192];
  snprintf(both, sizeof both, "%s%s", kernel, schedule);
  double plain = open_ms(kernel, 1), scheduled = open_ms(both, 2);
  if (plain < 0 || scheduled < 0) return 1;
  printf("parse+check of matmul: %.2f ms; with a 10-step schedule: %.2f ms; the schedule: %.2f ms (%.2f ms a step)\n",
         plain, scheduled, scheduled - plain, (scheduled - plain) / 10);
  return 0;
}
