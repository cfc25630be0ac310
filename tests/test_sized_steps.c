/* Steps on kernels with symbolic sizes (schedule/sched.c's sized list)
 * and the DMA of arrays whose rows are sized (lower/dma_shape.c): each
 * variant is checked by execution at the kernel's size sets, and the
 * emitted C shows what the step made. Kept small: every check here runs
 * a few thousand elements at most. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* scale(n, m, a[n][m], s): a's rows are m floats, known at run time. */
static const char *scale =
    "void scale(int n, int m, float a[n][m], float s) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < m; j++)\n"
    "      a[i][j] = a[i][j] * s;\n"
    "}\n";

/* The check of variant v passes, its DMA moved bytes from and to DDR and
 * the host touched no DDR element itself. */
static void runs_on_dma(NpgSession *s, int v) {
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect_gt(r.ddr_bytes, 0, "%s", r.summary);
  has(r.summary, "and 0 ddr elements itself");
}

/* A tile of a[n][m] is one npu_dma_2d whose source (destination) stride
 * is the run-time pitch, m floats, and whose address is computed in full
 * (the same text for C99's `float a[n][m]` and tcc's flat pointer). Before:
 * both copies stayed host loops ("a run-time pitch: no DMA"). */
Test(sized_steps, a_tile_of_sized_rows_is_a_2d_dma_with_a_run_time_stride) {
  NpgSession *s = open_ok(scale, "#pragma npu assume(scale, m <= 64)\n#pragma npu schedule(scale, t)\n"
                                 "#pragma npu split(i, 8, io, ii)\n#pragma npu cache_write(a, vu_vm, io, a_vm)\n");
  int v = checked(s, "t");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_dma_wait(npu_dma_2d(0, &a_vm[0][0], 256, (float *)a + (ptrdiff_t)(io * 8) * m, (ptrdiff_t)m * 4, "
         "4 * npu_clamp(m, 64), npu_clamp(n - io * 8, 8)));");
  has(c, "npu_dma_wait(npu_dma_2d(0, (float *)a + (ptrdiff_t)(io * 8) * m, (ptrdiff_t)m * 4, &a_vm[0][0], 256, "
         "4 * npu_clamp(m, 64), npu_clamp(n - io * 8, 8)));");
  runs_on_dma(s, v);
  npg_close(s);
}

/* A const input of three dimensions, its middle one sized: the pitch of
 * the rows is m * 4 elements (the constant extent folds into the bytes),
 * the row inside it constant. */
Test(sized_steps, a_3d_input_with_a_sized_middle_extent_reads_by_dma) {
  NpgSession *s = open_ok("void k(int n, int m, const float x[n][m][4], float y[n][m][4]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < m; j++)\n"
                          "      for (int l = 0; l < 4; l++)\n"
                          "        y[i][j][l] = x[i][j][l] + 1.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, m <= 16)\n#pragma npu schedule(k, t)\n"
                          "#pragma npu split(i, 4, io, ii)\n#pragma npu cache_read(x, vu_vm, io, x_vm)\n");
  int v = checked(s, "t");
  has(npg_emit_source(s, v), "(const float *)x + (ptrdiff_t)(io * 4) * m * 4, (ptrdiff_t)m * 16, ");
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect_gt(r.ddr_bytes, 0, "%s", r.summary);
  npg_close(s);
}
