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

/* The check's size sets of scale: a tail in every tile of the tests below
 * (rows of 8 and 16, 4 per core, 64 floats), and cores with no rows in
 * the last pass; the largest set first. */
#define SCALE_SIZES                                                                                                  \
  "#pragma npu assume(scale, m <= 64)\n#pragma npu sizes(scale, n = 21, m = 13)\n"                                  \
  "#pragma npu sizes(scale, n = 3, m = 5)\n"

/* The check of the variant passes (seed 1, at its size sets), its DMA
 * moved bytes from and to DDR and the host touched no DDR element
 * itself; returns the variant's index. */
static int runs_on_dma_saying(NpgSession *s, const char *variant, const char *summary_part) {
  int v = npg_variant_index(s, variant);
  cr_assert_geq(v, 0, "no variant %s: %s", variant, npg_errors(s));
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  if (summary_part) has(r.summary, summary_part);
  cr_expect_gt(r.ddr_bytes, 0, "%s", r.summary);
  const char *host = strstr(r.summary, " ddr elements itself");
  cr_expect(!host || (host - r.summary >= 2 && !strncmp(host - 2, " 0", 2)), "%s", r.summary);
  return v;
}

static int runs_on_dma(NpgSession *s, const char *variant) { return runs_on_dma_saying(s, variant, NULL); }

/* A const input of three dimensions, its middle one sized: the pitch of
 * the rows is m * 4 elements (the constant extent folds into the bytes),
 * the row inside it constant. */
static void a_3d_input_with_a_sized_middle_extent_reads_by_dma(void) {
  NpgSession *s = open_ok("void k(int n, int m, const float x[n][m][4], float y[n][m][4]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < m; j++)\n"
                          "      for (int l = 0; l < 4; l++)\n"
                          "        y[i][j][l] = x[i][j][l] + 1.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, m <= 16)\n#pragma npu sizes(k, n = 10, m = 13)\n"
                          "#pragma npu schedule(k, t)\n"
                          "#pragma npu split(i, 4, io, ii)\n#pragma npu cache_read(x, vu_vm, io, x_vm)\n");
  has(npg_emit_source(s, checked_once(s, "t")), "(const float *)x + (ptrdiff_t)(io * 4) * m * 4, (ptrdiff_t)m * 16, ");
  npg_close(s);
}

/* bind on a kernel with sizes: the pass loop's trip count and the cores'
 * tails follow n. The cores' copies of a[n][m] are npu_dma_2d calls whose
 * host-side stride is the run-time pitch, m floats, and whose address is
 * computed in full (the same text for C99's `float a[n][m]` and tcc's
 * flat pointer). The check runs it with a tail in the passes, the cores
 * and the rows. Before: "bind is not supported with them yet", and
 * without bind the copies stayed host loops ("a run-time pitch: no
 * DMA"). */
static void bind_runs_a_sized_kernel_on_the_vu_cores_with_run_time_pitch_dma(void) {
  NpgSession *s = open_ok(scale, SCALE_SIZES "#pragma npu schedule(scale, vu)\n"
                                 "#pragma npu split(i, 16, io, ir)\n#pragma npu split(ir, 4, core, ii)\n"
                                 "#pragma npu bind(core, vu)\n#pragma npu cache_write(a, vu_vm, core, a_vm)\n"
                                 "#pragma npu split(j, 64, jo, ji)\n#pragma npu vectorize(ji)\n");
  /* the figures are the largest set's, though it is not the last one run
   * (they were the last set's) */
  const char *c = npg_emit_source(s, runs_on_dma_saying(s, "vu", "; the figures at n = 21, m = 13, the largest set "
                                                                 "run; at 2 size sets: (n = 21, m = 13: "));
  has(c, "for (int io = 0; io < n / 16 + (n % 16 > 0); io++) {");
  has(c, "a_vm_tok[core] = n - (io * 16 + core * 4) > 0 ? npu_dma_2d(core % 2, &a_vm[0][0], 256, (float *)a + "
         "(ptrdiff_t)(io * 16 + core * 4) * m, (ptrdiff_t)m * 4, 4 * npu_clamp(m, 64), npu_clamp(n - (io * 16 + "
         "core * 4), 4)) : 0;");
  has(c, "if (n - (io * 16 + core * 4) > 0) npu_dma_wait(npu_dma_2d(0, (float *)a + (ptrdiff_t)(io * 16 + core * 4) "
         "* m, (ptrdiff_t)m * 4, &a_vm[0][0], 256, 4 * npu_clamp(m, 64), npu_clamp(n - (io * 16 + core * 4), 4)));");
  has(c, "npu_vu_muls_f32(&a_vm[ii][jo * 64], &a_vm[ii][jo * 64], npu_clamp(m - jo * 64, 64), s);");
  npg_close(s);
}

/* A bound loop split straight off a sized loop (core < 4, guarded by n)
 * with a read cache double-buffered over the passes: the last pass's
 * cores past n issue no copy (token 0). */
static void bind_with_a_core_tail_and_double_buffer(void) {
  NpgSession *s = open_ok("void k(int n, int m, const float x[n][m], float y[n][m]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < m; j++)\n"
                          "      y[i][j] = x[i][j] * 2.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, m <= 16)\n#pragma npu sizes(k, n = 10, m = 13)\n"
                          "#pragma npu schedule(k, vu)\n"
                          "#pragma npu split(i, 4, io, core)\n#pragma npu bind(core, vu)\n"
                          "#pragma npu cache_read(x, vu_vm, core, x_vm)\n#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                          "#pragma npu double_buffer(x_vm)\n#pragma npu split(j, 16, jo, ji)\n"
                          "#pragma npu vectorize(ji)\n");
  /* x_vm's copies alternate by pass over n's passes: the next pass's rows */
  has(npg_emit_source(s, runs_on_dma(s, "vu")), "(const float *)x + (ptrdiff_t)((io + 1) * 4 + core) * m, (ptrdiff_t)m * 4,");
  npg_close(s);
}

/* Two nests of a sized kernel: a[n][m], and b[n][16] whose rows are
 * constant. */
static const char *two_nests =
    "void k(int n, int m, float a[n][m], float b[n][16]) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < m; j++)\n"
    "      a[i][j] = a[i][j] * 3.0f;\n"
    "  for (int i2 = 0; i2 < n; i2++)\n"
    "    for (int j2 = 0; j2 < 16; j2++)\n"
    "      b[i2][j2] = b[i2][j2] + 1.0f;\n"
    "}\n"
    "#pragma npu assume(k, m <= 64)\n#pragma npu sizes(k, n = 11, m = 6)\n";

/* fuse and loop_partition on a sized kernel: a loop over n fused with a
 * constant one counts in long long (n * 16 passes int at the largest n);
 * two tile loops fuse under their tails' guards; a partitioned tile loop
 * keeps the tail's guard in each piece (it holds at some sizes only).
 * fuse's inner loop still needs a constant trip count, and
 * loop_partition constant bounds. Before: "fuse (loop_partition) is not
 * supported with them yet". */
static void fuse_and_loop_partition_in_a_sized_kernel(void) {
  NpgSession *s = open_ok(two_nests, "#pragma npu schedule(k, whole)\n#pragma npu fuse(i2, j2, ij)\n"
                                     "#pragma npu schedule(k, tiles)\n#pragma npu split(i, 8, io, ii)\n"
                                     "#pragma npu split(j, 4, jo, ji)\n#pragma npu reorder(io, jo, ii, ji)\n"
                                     "#pragma npu fuse(ii, ji, iji)\n#pragma npu schedule(k, lp)\n"
                                     "#pragma npu split(i2, 8, io2, ii2)\n#pragma npu loop_partition(ii2, 4)\n");
  has(npg_emit_source(s, checked_once(s, "whole")), "for (long long ij = 0ll; ij < n * 16ll; ij++) {");
  const char *c = npg_emit_source(s, checked_once(s, "tiles"));
  has(c, "for (int iji = 0; iji < 32; iji++) {");
  has(c, "if (iji / 4 < n - io * 8) {");
  has(npg_emit_source(s, checked_once(s, "lp")), "for (int ii2 = 4; ii2 < 8; ii2++) {\n      if (ii2 < n - io2 * 8) {");
  npg_close(s);
  refused(two_nests, "#pragma npu schedule(k, f)\n#pragma npu split(j, 8, jo, ji)\n#pragma npu fuse(i, jo, ijo)\n",
          "k.c:13:21: error: fuse: loop jo needs a constant trip count to be fused (its bounds may follow loop i when "
          "their difference is a constant)");
  refused(two_nests, "#pragma npu schedule(k, lp)\n#pragma npu loop_partition(i, 4)\n",
          "k.c:12:28: error: loop_partition: loop i needs constant bounds to be partitioned");
}

/* Loops over a size that count down or by a stride: back substitution
 * (i and j down, j's end following i), a stride 2 and an inclusive
 * stride 3. No tile divides the sets' trip counts (2 and 19; 1 and 10
 * by 2; 1 and 6 by 3). */
static const char *counted_down =
    "void k(int n, const float U[n][n], float x[n], const float b[n], float y[n]) {\n"
    "  for (int i = n - 1; i >= 0; i--)\n"
    "    for (int j = n - 1; j > i; j--)\n"
    "      x[i] -= U[i][j] * x[j];\n"
    "  for (int e = 0; e < n; e += 2)\n"
    "    y[e] = b[e] * 2.0f;\n"
    "  for (int o = 1; o <= n - 1; o += 3)\n"
    "    y[o] = b[o] + 1.0f;\n"
    "}\n"
    "#pragma npu sizes(k, n = 2)\n#pragma npu sizes(k, n = 19)\n";

/* split and vectorize(loop, lanes) of such loops count them up by 1 from
 * 0 to their trip count, in the form a split writes (no sum past the
 * counter's type), and the counter's value in the body. Before: "loop i
 * counts by -1 between bounds that are not constants; it is counted up
 * by 1 only between constant bounds". Both loops of the triangle split:
 * j's tile count in the split i, `(io * 4 + ii) / 4 + ...`, is simplified
 * to `io + (ii > 0)`, which ir/affine.c reads as ceil(ii / 3) (before, the
 * fits proof refused it: "'n - 1 - (n - 1 - (io * 4 + ii)) - jo * 4' ...
 * is known only to lie in [-8589934588, 10737418237]"). */
static void split_and_vectorize_of_sized_loops_that_count_down_or_by_a_stride(void) {
  NpgSession *s = open_ok(counted_down, "#pragma npu schedule(k, down)\n#pragma npu split(i, 4, io, ii)\n"
                                        "#pragma npu split(j, 4, jo, ji)\n#pragma npu schedule(k, strided)\n"
                                        "#pragma npu split(e, 8, eo, ei)\n#pragma npu vectorize(o, 4)\n");
  const char *c = npg_emit_source(s, checked_once(s, "down"));
  has(c, "for (int io = 0; io < n / 4 + (n % 4 > 0); io++) {\n    for (int ii = 0; ii < 4; ii++) {\n"
         "      if (ii < n - io * 4) {\n        for (int jo = 0; jo < io + (ii > 0); jo++) {\n");
  has(c, "if (ji < io * 4 + ii - jo * 4) {"); /* j's end, n - 1 - (io * 4 + ii), is io * 4 + ii from its start */
  c = npg_emit_source(s, checked_once(s, "strided"));
  has(c, "for (int eo = 0; eo < (n / 2 + (n % 2 > 0)) / 8 + ((n / 2 + (n % 2 > 0)) % 8 > 0); eo++) {");
  has(c, "if (ei < n / 2 + (n % 2 > 0) - eo * 8) {");
  has(c, "if (o_v < (n - 1) / 3 + ((n - 1) % 3 > 0) - o * 4) {");
  npg_close(s);
}

/* A kernel with a size and a local temporary. */
static const char *with_local =
    "void k(int n, const float x[n], float y[n]) {\n"
    "  float t[64];\n"
    "  for (int i = 0; i < n; i++)\n"
    "    prod: t[i] = x[i] * 2.0f;\n"
    "  for (int i2 = 0; i2 < n; i2++)\n"
    "    cons: y[i2] = t[i2] + x[i2] * x[i2];\n"
    "}\n";

/* set_scope, stage, compute_inline and reverse_compute_inline on a sized
 * kernel: the staged array is as large as the assumptions let its counter
 * run (n <= 64: 64 floats), and both locals move to the VU's memory;
 * without a bound on n the stage is refused, saying to assume one. The
 * inlines' rules are checked on the model at every size, so a write
 * between the producer and the read still refuses. Before: "stage
 * (set_scope, compute_inline, ...) is not supported with them yet". */
static void stage_set_scope_and_inlines_in_a_sized_kernel(void) {
  const char *sized = "#pragma npu assume(k, n <= 64)\n#pragma npu sizes(k, n = 37)\n";
  char pragmas[600];
  snprintf(pragmas, sizeof pragmas,
           "%s#pragma npu schedule(k, st)\n#pragma npu stage(cons, \"x[i2] * x[i2]\", sq)\n"
           "#pragma npu set_scope(sq, vu_vm)\n#pragma npu set_scope(t, vu_vm)\n"
           "#pragma npu schedule(k, ci)\n#pragma npu compute_inline(prod)\n"
           "#pragma npu schedule(k, rci)\n#pragma npu reverse_compute_inline(cons)\n",
           sized);
  NpgSession *s = open_ok(with_local, pragmas);
  const char *c = npg_emit_source(s, checked_once(s, "st"));
  has(c, "float *sq = (float *)(void *)((char *)npu_scope_base(NPU_VU_VM, 0) + 256); /* vu_vm, bytes [256, 512): 256 "
         "bytes */");
  has(c, "    sq[i2] = x[i2] * x[i2];\n    y[i2] = t[i2] + sq[i2];");
  has(npg_emit_source(s, checked_once(s, "ci")), "    y[i2] = x[i2] * 2.0f + x[i2] * x[i2]; /* cons */");
  has(npg_emit_source(s, checked_once(s, "rci")), "    y[i] = x[i] * 2.0f + x[i] * x[i]; /* cons */");
  npg_close(s);
  refused("void k(int n, const float x[n], float y[n]) {\n"
          "  for (int i2 = 0; i2 < n; i2++)\n"
          "    y[i2] = x[i2] * x[i2];\n"
          "}\n",
          "#pragma npu schedule(k, st)\n#pragma npu stage(s1, \"x[i2] * x[i2]\", sq)\n",
          "k.c:6:23: error: stage: the array for 'x[i2] * x[i2]' would take more than 1048576 bytes (the limit of a "
          "kernel's local arrays) at the largest sizes allowed: assume an upper bound on the sizes (#pragma npu "
          "assume)");
  refused("void k(int n, float x[n], float y[n]) {\n"
          "  float t[64];\n"
          "  for (int i = 0; i < n; i++)\n"
          "    prod: t[i] = x[i] * 2.0f;\n"
          "  for (int j = 0; j < n; j++)\n"
          "    wipe: x[j] = 0.0f;\n"
          "  for (int i2 = 0; i2 < n; i2++)\n"
          "    cons: y[i2] = t[i2] + 1.0f;\n"
          "}\n",
          "#pragma npu assume(k, n <= 64)\n#pragma npu schedule(k, ci)\n#pragma npu compute_inline(prod)\n",
          "k.c:12:13: error: compute_inline: cannot inline prod (line 4): wipe (line 6) overwrites x, which prod reads, "
          "before cons (line 8) reads t");
}

/* A sized kernel with a constant weight W and a constant local t. */
static const char *with_weights =
    "void k(int n, const float W[16][16], const float x[n][16], float y[n][16]) {\n"
    "  float t[16][16];\n"
    "  for (int a = 0; a < 16; a++)\n"
    "    for (int b = 0; b < 16; b++)\n"
    "      t[a][b] = W[b][a] * 0.5f;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < 16; j++)\n"
    "      y[i][j] = x[i][j] * W[i % 16][j] + t[j][i % 16];\n"
    "}\n"
    "#pragma npu sizes(k, n = 19)\n";

/* The layout steps on a sized kernel: arrays of constant extents take new
 * layouts (the parameter W with its pack and unpack helpers, the local t),
 * an array sized by n is refused, saying so. Before: "transform_layout
 * (buffer_split, ...) is not supported with them yet". */
static void layout_steps_on_constant_arrays_of_a_sized_kernel(void) {
  NpgSession *s = open_ok(with_weights, "#pragma npu schedule(k, tl)\n#pragma npu transform_layout(W, (p, q), (q, p))\n"
                                        "#pragma npu buffer_split(t, 0, 4)\n#pragma npu set_axis_separators(t, 1)\n"
                                        "#pragma npu schedule(k, sa)\n#pragma npu storage_align(W, 0, 8, 1)\n"
                                        "#pragma npu buffer_fuse(W, 0, 1)\n#pragma npu buffer_pad(t, (16, 20), 0)\n"
                                        "#pragma npu buffer_reorder(t, 1, 0)\n");
  const char *c = npg_emit_source(s, checked_once(s, "tl"));
  has(c, "y[i][j] = x[i][j] * W[j][i % 16] + t[j / 4][j % 4 * 16 + i % 16];");
  has(c, "void tl_pack_W(const float logical[16][16], float physical[16][16]) {");
  c = npg_emit_source(s, checked_once(s, "sa"));
  has(c, "y[i][j] = x[i][j] * W[i % 16 * 17 + j] + t[i % 16][j];");
  has(c, "void sa_pack_W(const float logical[16][16], float physical[272]) {");
  npg_close(s);
  refused(with_weights, "#pragma npu schedule(k, bad)\n#pragma npu buffer_fuse(x, 0, 1)\n",
          "k.c:12:25: error: buffer_fuse: x's extents are in the kernel's sizes: a new layout of such an array is not "
          "supported yet (an array of constant extents in the same kernel can take one)");
}


/* A long counter over a tile, and an unsigned size: cache.c's copies
 * count in int, casting the counter (the size), and those casts, proven
 * to keep their values, no longer keep the copies host loops; a long
 * size's count is computed in long. Before: host loops (0 DMA bytes). */
static void long_counters_and_unsigned_sizes_copy_by_dma(void) {
  NpgSession *s = open_ok("void kl(long n, const float x[n], float y[n]) {\n"
                          "  for (long i = 0; i < n; i++)\n"
                          "    y[i] = x[i] * 2.0f;\n"
                          "}\n"
                          "#pragma npu assume(kl, n <= 2000000000)\n#pragma npu sizes(kl, n = 70)\n"
                          "void ku(unsigned n, const float x[n], float y[n]) {\n"
                          "  for (unsigned i = 0; i < n; i++)\n"
                          "    y[i] = x[i] * 2.0f;\n"
                          "}\n"
                          "#pragma npu assume(ku, n <= 4096u)\n#pragma npu sizes(ku, n = 70)\n",
                          "#pragma npu schedule(kl, tl)\n#pragma npu split(i, 64, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                          "#pragma npu schedule(ku, tu)\n#pragma npu split(i, 64, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n");
  has(npg_emit_source(s, runs_on_dma(s, "tl")),
      "npu_dma_wait(npu_dma_1d(0, &x_vm[0], &x[(int)io * 64], 4 * (n - (int)io * 64 < 64 ? n - (int)io * 64 : 64)));");
  has(npg_emit_source(s, runs_on_dma(s, "tu")),
      "npu_dma_wait(npu_dma_1d(0, &y[(int)io * 64], &y_vm[0], 4 * npu_clamp((int)n - (int)io * 64, 64)));");
  npg_close(s);
}

/* A sized kernel calling a constant one: use runs a variant of the
 * callee, inline makes its loops the caller's. (A call of a kernel with
 * sizes is still refused: tests/test_sizes.c.) Before: "use (inline) is
 * not supported with them yet". */
static void use_and_inline_in_a_sized_caller(void) {
  NpgSession *s = open_ok("void sc16(float A[16]) {\n"
                          "  for (int i = 0; i < 16; i++)\n"
                          "    A[i] = A[i] * 2.0f;\n"
                          "}\n"
                          "#pragma npu schedule(sc16, sc16_split)\n#pragma npu split(i, 4, io, ii)\n"
                          "void prog(int n, float W[16], float y[n]) {\n"
                          "  sc16(W);\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    y[i] = y[i] + W[i % 16];\n"
                          "}\n"
                          "#pragma npu sizes(prog, n = 19)\n",
                          "#pragma npu schedule(prog, p_inline)\n#pragma npu inline(sc16)\n"
                          "#pragma npu schedule(prog, p_use)\n#pragma npu use(sc16, sc16_split)\n");
  has(npg_emit_source(s, checked_once(s, "p_inline")), "  for (int i = 0; i < 16; i++) {\n    W[i] = W[i] * 2.0f;");
  has(npg_emit_source(s, checked_once(s, "p_use")), "  sc16_split(W); /* sc16, line 8 */");
  npg_close(s);
}

/* The parts above run as four tests (one process each: under ASan a
 * process costs more than the checks themselves). */

/* The copies of arrays with sized rows, of a long counter's tiles and of
 * an unsigned size are DMAs. */
Test(sized_steps, copies_of_sized_arrays_are_dmas) {
  a_3d_input_with_a_sized_middle_extent_reads_by_dma();
  long_counters_and_unsigned_sizes_copy_by_dma();
}

/* bind on sized kernels, with the run-time pitch and double buffering. */
Test(sized_steps, bind_on_sized_kernels) {
  bind_runs_a_sized_kernel_on_the_vu_cores_with_run_time_pitch_dma();
  bind_with_a_core_tail_and_double_buffer();
}

/* fuse, loop_partition, use and inline on sized kernels, and split and
 * vectorize of sized loops that count down or by a stride. */
Test(sized_steps, loop_and_call_steps_on_sized_kernels) {
  fuse_and_loop_partition_in_a_sized_kernel();
  use_and_inline_in_a_sized_caller();
  split_and_vectorize_of_sized_loops_that_count_down_or_by_a_stride();
}

/* stage, set_scope, the inlines and the layout steps on sized kernels. */
Test(sized_steps, buffer_steps_on_sized_kernels) {
  stage_set_scope_and_inlines_in_a_sized_kernel();
  layout_steps_on_constant_arrays_of_a_sized_kernel();
}

/* A producer and a consumer over a sized outer loop, through a
 * parameter sized by n. */
static const char *pair =
    "void k(int n, const float x[n][16], float u[n][16], float out[n][16]) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < 16; j++)\n"
    "      prod: u[i][j] = x[i][j] * 2.0f;\n"
    "  for (int i2 = 0; i2 < n; i2++)\n"
    "    for (int j2 = 0; j2 < 16; j2++)\n"
    "      cons: out[i2][j2] = u[i2][j2] + 1.0f;\n"
    "}\n";

/* compute_at and reverse_compute_at on a sized kernel: the sizes lead
 * every iteration of the target loop (schedule/region.c), so the region
 * of a tile of 8 is its 8 rows clamped at n, within u's extent n
 * (compute_at.c's within_extent). The narrowed loop is the tile's, the
 * clamp at n a guard. Without an upper bound on n, where the tile's end
 * `io * 8 + 8` could pass INT_MAX, the loop counts from the tile's start.
 * Before: "compute_at is not supported with them yet". */
static void compute_at_and_reverse_on_a_sized_kernel(void) {
  NpgSession *s = open_ok(pair, "#pragma npu assume(k, n <= 4096)\n#pragma npu sizes(k, n = 21)\n"
                                "#pragma npu schedule(k, ca)\n#pragma npu split(i2, 8, io, ii)\n"
                                "#pragma npu compute_at(prod, io)\n"
                                "#pragma npu schedule(k, rca)\n#pragma npu split(i, 8, io, ii)\n"
                                "#pragma npu reverse_compute_at(cons, io)\n");
  has(npg_emit_source(s, checked_once(s, "ca")), "  for (int io = 0; io < n / 8 + (n % 8 > 0); io++) {\n"
                                           "    for (int i = io * 8; i < io * 8 + 8; i++) {\n"
                                           "      if (i < n) {\n");
  has(npg_emit_source(s, checked_once(s, "rca")), "    for (int i2 = io * 8; i2 < io * 8 + 8; i2++) {\n      if (i2 < n) {\n");
  npg_close(s);
  /* no assume: the tile's end `io * 8 + 8` could pass INT_MAX, so the
   * narrowed loop counts from the tile's start, as split's does (trial
   * 42b, D1: refused, "loop bound 'io * 8 + 8' ranges over [8,
   * 2147483648] ... assume smaller sizes") */
  s = open_ok(pair, "#pragma npu sizes(k, n = 21)\n"
                    "#pragma npu schedule(k, ca)\n#pragma npu split(i2, 8, io, ii)\n#pragma npu compute_at(prod, io)\n"
                    "#pragma npu schedule(k, rca)\n#pragma npu split(i, 8, io, ii)\n"
                    "#pragma npu reverse_compute_at(cons, io)\n");
  lacks(npg_errors(s), "error");
  has(npg_emit_source(s, checked_once(s, "ca")), "    for (int i = 0; i < 8; i++) {\n      if (i < n - io * 8) {\n");
  has(npg_emit_source(s, checked_once(s, "rca")), "    for (int i2 = 0; i2 < 8; i2++) {\n      if (i2 < n - io * 8) {\n");
  npg_close(s);
}

/* TFLite's end of a convolution over n pixels (the input offset in the
 * reduction, the output offset and the clamp as reassignments of acc),
 * and a reduction over n. */
static const char *qconv =
    "#include <stdint.h>\n"
    "void qc(int n, const int8_t input[n][16], const int8_t filter[4][16], int8_t out[n][4], int8_t off) {\n"
    "  for (int p = 0; p < n; p++)\n"
    "    for (int oc = 0; oc < 4; oc++) {\n"
    "      int32_t acc = 0;\n"
    "      for (int ic = 0; ic < 16; ic++)\n"
    "        update: acc += filter[oc][ic] * (input[p][ic] + off);\n"
    "      s8: acc += 3;\n"
    "      s9: acc = acc > -128 ? acc : -128;\n"
    "      s10: acc = acc < 127 ? acc : 127;\n"
    "      s11: out[p][oc] = (int8_t)acc;\n"
    "    }\n"
    "}\n"
    "#pragma npu sizes(qc, n = 13)\n"
    "void qk(int n, const int8_t input[4][n], const int8_t filter[4][n], int32_t out[4][4], int8_t off) {\n"
    "  for (int p = 0; p < 4; p++)\n"
    "    for (int oc = 0; oc < 4; oc++) {\n"
    "      int32_t acc = 0;\n"
    "      for (int ic = 0; ic < n; ic++)\n"
    "        update: acc += filter[oc][ic] * (input[p][ic] + off);\n"
    "      out[p][oc] = acc;\n"
    "    }\n"
    "}\n";

/* fold and hoist_offset on a sized kernel: the offset's sums span the
 * constant channel loop (ofs[4], computed once at the start), the chain
 * after the reduction folds into the store; a reduction over n sums to n
 * at the start too, its sums proven to fit at the most trips the
 * assumptions allow (refused without a bound on n, saying so). Before:
 * "fold (hoist_offset) is not supported with them yet". */
static void fold_and_hoist_offset_on_a_sized_kernel(void) {
  NpgSession *s = open_ok(qconv, "#pragma npu schedule(qc, hf)\n#pragma npu hoist_offset(update, off, ofs)\n"
                                 "#pragma npu fold(s8)\n#pragma npu assume(qk, n <= 64)\n"
                                 "#pragma npu schedule(qk, h)\n#pragma npu hoist_offset(update, off, ofs)\n");
  const char *c = npg_emit_source(s, checked_once(s, "hf"));
  has(c, "ofs[ofs_oc] += off * filter[ofs_oc][ofs_ic];");
  has(c, "      for (int ic = 0; ic < 16; ic++) {\n        acc += filter[oc][ic] * input[p][ic]; /* update */\n      }\n"
         "      acc += ofs[oc];\n      const int s11_val = acc + 3 > -128 ? acc + 3 : -128;\n"
         "      out[p][oc] = (int8_t)(s11_val < 127 ? s11_val : 127); /* s11 */");
  has(npg_emit_source(s, checked_once(s, "h")), "    for (int ofs_ic = 0; ofs_ic < n; ofs_ic++) {\n"
                                           "      ofs[ofs_oc] += off * filter[ofs_oc][ofs_ic];");
  npg_close(s);
  refused(qconv, "#pragma npu schedule(qk, h)\n#pragma npu hoist_offset(update, off, ofs)\n",
          "k.c:25:26: error: hoist_offset: a sum of 2147483647 products filter * X could leave int (its trips at the "
          "largest sizes allowed; assume smaller sizes)");
}

/* compute_at, reverse_compute_at, fold and hoist_offset on sized kernels. */
Test(sized_steps, statement_steps_on_sized_kernels) {
  compute_at_and_reverse_on_a_sized_kernel();
  fold_and_hoist_offset_on_a_sized_kernel();
}
