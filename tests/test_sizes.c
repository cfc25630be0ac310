/* Symbolic sizes (frontend/sizes.c, ir/bounds.c, ir/sizes.c,
 * jit/check_sizes.c): C99 array parameters sized by integer parameters,
 * loop bounds in them, `#pragma npu assume` and `sizes`. The bounds hold
 * for every size the assumptions allow, or the error names the size that
 * breaks them; the check runs the emitted C at several size sets; the
 * emitted C tests the assumptions at entry. tests/kernels/sized_*.c are
 * checked end to end by test_kernels. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"
#include "tests/test_cli_util.h"
#include "tests/test_sched_util.h"

static const char *copy =
    "void copy(int n, float A[128], const float B[n]) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    A[i] = B[i];\n"
    "}\n";

/* The bound that holds only for some sizes names them. */
Test(sizes, an_index_that_fits_only_some_sizes_names_them) {
  refused(copy, "",
          "k.c:3:7: error: index 'i' can leave dimension 1 of 'A' (extent 128): it needs n <= 128 (it fails at n = "
          "129); state that with #pragma npu assume(copy, ...) or change the bound");
  NpgSession *s = open_ok(copy, "#pragma npu assume(copy, n <= 128)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  has(r.summary, "size sets: (n = 1), (n = 7), (n = 33), (n = 64), (n = 128)");
  npg_close(s);
  /* an assumption that leaves a failing size */
  refused(copy, "#pragma npu assume(copy, n <= 129)\n",
          "k.c:3:7: error: index 'i' can leave dimension 1 of 'A' (extent 128): it needs n <= 128 (it fails at n = "
          "129); state that with #pragma npu assume(copy, ...) or change the bound");
}

/* A symbolic extent: i + 1 < n + 1 holds at every size. */
Test(sizes, a_symbolic_extent_is_proven_for_every_size) {
  NpgSession *s = open_ok("void shift(int n, const float x[n + 1], float y[n]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    y[i] = x[i + 1] - x[i];\n"
                          "}\n",
                          "#pragma npu assume(shift, n < 100000)\n#pragma npu sizes(shift, n = 5)\n"
                          "#pragma npu sizes(shift, n = 300)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  has(r.summary, "at 2 size sets: (n = 5), (n = 300)");
  const char *c = npg_emit_source(s, 0);
  has(c, "void shift(int n, const float x[NPUGEN_FIRST_EXTENT((long long)n + 1)], float y[NPUGEN_FIRST_EXTENT(n)]) {\n  NPUGEN_ASSUME(n < 100000);\n"
         "  NPUGEN_ASSUME(n + 1 >= 1); /* an extent of x */\n"
         "  NPUGEN_ASSUME(n >= 1); /* an extent of y */\n");
  npg_close(s);
  refused("void shift(int n, const float x[n], float y[n]) {\n"
          "  for (int i = 0; i < n; i++)\n"
          "    y[i] = x[i + 1];\n"
          "}\n",
          "",
          "k.c:3:14: error: index 'i + 1' leaves dimension 1 of 'x' (extent n) at every size the assumptions allow "
          "(e.g. n = 1)");
}

Test(sizes, input_errors) {
  refused("void k(int n, float A[n]) {\n  n = 2;\n  for (int i = 0; i < n; i++) A[i] = 0;\n}\n", "",
          "k.c:2:3: error: 'n' sizes an array or bounds a loop, so the kernel may not assign it; copy it into a local");
  refused("void k(int n, float A[n * n]) {\n  for (int i = 0; i < n; i++) A[i] = 0;\n}\n", "",
          "k.c:1:23: error: array extent 'n * n' must be a constant or affine in integer parameters declared before "
          "it (e.g. 'float A[n][m]' after 'int n, int m')");
  const char *k = "void k(int n, int m, float A[n]) {\n  for (int i = 0; i < n; i++) A[i] = m;\n}\n";
  refused(k, "#pragma npu assume(k, m >= 1)\n",
          "k.c:4:23: error: 'm' is not one of kernel k's sizes; an assumption may name only them");
  refused(k, "#pragma npu sizes(k, m = 1)\n", "k.c:4:22: error: 'm' is not one of kernel k's sizes (n)");
  refused(k, "#pragma npu sizes(k)\n",
          "k.c:4:13: error: sizes takes (KERNEL, SIZE = VALUE, ...), e.g. 'sizes(gemm, n = 64, m = 7)'");
  refused(k, "#pragma npu inputs(k, n, 1, 4)\n",
          "k.c:4:23: error: 'n' is one of kernel k's sizes: the check takes its values from the size sets (#pragma "
          "npu sizes(k, n = ...))");
  refused("void k(float A[4]) {\n  A[0] = 1;\n}\n", "#pragma npu assume(k, 1 >= 0)\n",
          "k.c:4:20: error: kernel 'k' has no symbolic sizes, so assume does not apply: no integer parameter sizes an "
          "array or bounds a loop");
}

/* Schedules of a kernel with symbolic sizes: the loop-rewriting steps
 * work (split's tail guarded by the size), each step's new bounds are
 * checked at every size the assumptions allow, and the steps that size
 * buffers or regions from the bounds are refused, not ignored. */
Test(sizes, split_guards_its_tail_with_the_size) {
  NpgSession *s = open_ok(copy, "#pragma npu assume(copy, n <= 128)\n#pragma npu schedule(copy, c2)\n"
                                "#pragma npu split(i, 8, io, ii)\n#pragma npu parallel(io)\n");
  int v = checked(s, "c2");
  const char *c = npg_emit_source(s, v);
  has(c, "for (int io = 0; io < n / 8 + (n % 8 > 0); io++) {");
  has(c, "if (ii < n - io * 8) {");
  npg_close(s);
}

/* npugen's own arithmetic needs no assumption (issue 42): a split of a
 * loop to n counts its tiles as `n / 8 + (n % 8 > 0)` and guards its tail
 * as `ii < n - io * 8`, where `(n + 7) / 8` and `io * 8 + ii < n` would
 * pass INT_MAX at n near it; the variant runs at every default size set. */
Test(sizes, a_split_of_a_sized_loop_needs_no_assumption) {
  NpgSession *s = open_ok("void k(int n, float A[n]) {\n  for (int i = 0; i < n; i++)\n    A[i] = 1;\n}\n",
                          "#pragma npu schedule(k, k2)\n#pragma npu split(i, 8, io, ii)\n");
  int v = checked(s, "k2");
  NpgCheckResult r;
  cr_expect(npg_check(s, v, 1, &r), "%s", r.message);
  const char *c = npg_emit_source(s, v);
  has(c, "for (int io = 0; io < n / 8 + (n % 8 > 0); io++) {");
  has(c, "if (ii < n - io * 8) {");
  npg_close(s);
}

/* The errors of kernel + pragmas hold want. */
static void errors_have(const char *kernel, const char *pragmas, const char *want) {
  char src[8192];
  snprintf(src, sizeof src, "%s%s", kernel, pragmas);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), want);
  npg_close(s);
}

/* The legality proofs hold at every size the assumptions allow, and no
 * more: the sizes are the outermost dimensions of the dependence model.
 * A[i + 64] = A[i] over i < n is parallel when n <= 64, and refused, at a
 * size named, when n may pass 64. */
Test(sizes, legality_proofs_hold_for_each_size_and_name_it) {
  const char *k = "void k(int n, float A[256]) {\n"
                  "  for (int i = 0; i < n; i++)\n"
                  "    A[i + 64] = A[i] * 2.0f;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu assume(k, n <= 64)\n#pragma npu schedule(k, kp)\n#pragma npu parallel(i)\n");
  checked(s, "kp");
  npg_close(s);
  const char *wide = "#pragma npu assume(k, n <= 100)\n#pragma npu schedule(k, kp)\n#pragma npu parallel(i)\n";
  refused(k, wide,
          "k.c:7:13: error: parallel: illegal: loop i would run its iterations in any order, but it carries the flow "
          "dependence on A from s1 (line 3) to s1 (line 3), distance (64)");
  errors_have(k, wide, "k.c:7:13: note: s1 (line 3) at n=65, i=0 writes A[64], then s1 (line 3) at n=65, i=64 reads it");
}

/* An index in the sizes (y[n - 1 - j]) is exact in the model: merging the
 * producer into the consumer reverses a dependence and is refused (it was
 * accepted, and wrong, while such an index touched nothing there). */
Test(sizes, an_index_in_the_sizes_orders_its_accesses) {
  const char *k = "void k(int n, const float x[n], float y[n], float z[n]) {\n"
                  "  for (int i = 0; i < n; i++) y[i] = x[i] * 2.0f;\n"
                  "  for (int j = 0; j < n; j++) z[j] = y[n - 1 - j];\n"
                  "}\n";
  const char *merge = "#pragma npu assume(k, n <= 100)\n#pragma npu schedule(k, a)\n#pragma npu merge(i, j)\n";
  refused(k, merge, "k.c:7:13: error: merge: illegal: it reverses the flow dependence on y from s1 (line 2) to s2 (line 3)");
  errors_have(k, merge, "k.c:7:13: note: s1 (line 2) at n=2, i=1 writes y[1], then s2 (line 3) at n=2, j=0 reads it");
}

/* A split whose factor does not divide the largest size, then reorder: the
 * instances before and after are the same at every size (a model that took
 * the bounds apart from the sizes found them unequal). A size of type long
 * with an int counter keeps its tail copies DMAs and double-buffers. */
Test(sizes, a_split_that_does_not_divide_the_sizes_reorders) {
  NpgSession *s = open_ok("void k(int n, const float B[n][16], float A[n][16]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    for (int j = 0; j < 16; j++)\n"
                          "      A[i][j] = B[i][j] * 2.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, n <= 100)\n#pragma npu schedule(k, k1)\n"
                          "#pragma npu split(i, 8, io, ii)\n#pragma npu reorder(io, j, ii)\n");
  checked(s, "k1");
  npg_close(s);
  s = open_ok("void k(long n, const float x[n], float y[n]) {\n"
              "  for (int i = 0; i < n; i++)\n"
              "    y[i] = x[i] * 2.0f;\n"
              "}\n",
              "#pragma npu assume(k, n <= 500)\n#pragma npu schedule(k, t)\n#pragma npu split(i, 32, io, ii)\n"
              "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu double_buffer(x_vm)\n");
  has(npg_emit_source(s, checked(s, "t")), "x_vm_tok = npu_dma_1d(");
  npg_close(s);
}

/* Where every read of a cache_write's buffer follows a write of it in
 * the iteration, its region need not be copied in; with sizes the model
 * that would prove it over-approximates the instances (a bound in the
 * sizes is no bound there, so writes that never run would count), so the
 * region is copied in. */
Test(sizes, a_cache_write_of_a_kernel_with_sizes_copies_in_when_it_reads) {
  NpgSession *s = open_ok("void k(int n, float y[n], float z[n]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    y[i] = 1.0f;\n"
                          "  for (int i2 = 0; i2 < n; i2++)\n"
                          "    z[i2] = y[i2] * 2.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, n <= 128)\n#pragma npu schedule(k, k2)\n"
                          "#pragma npu cache_write(y, vu_vm, root, y_vm)\n");
  has(npg_emit_source(s, checked(s, "k2")), "npu_dma_wait(npu_dma_1d(0, &y_vm[0], &y[0], 4 * npu_clamp(n, 128)));");
  npg_close(s);
}

/* A cache's buffer is as large as the region at the largest size the
 * assumptions allow, and its copy's count is computed at run time; with
 * no bound on the size the cache is refused, naming what it needs. */
Test(sizes, caches_size_their_buffers_from_the_assumptions) {
  const char *caches = "#pragma npu schedule(copy, c2)\n#pragma npu cache_read(B, vu_vm, root, B_vm)\n"
                       "#pragma npu cache_write(A, vu_vm, root, A_vm)\n";
  char sched[400];
  snprintf(sched, sizeof sched, "#pragma npu assume(copy, n <= 100)\n%s", caches);
  NpgSession *s = open_ok(copy, sched);
  int v = checked(s, "c2");
  const char *c = npg_emit_source(s, v);
  has(c, "float *B_vm = (float *)(void *)((char *)npu_scope_base(NPU_VU_VM, 0)); /* vu_vm, bytes [0, 400): 400 bytes */");
  has(c, "npu_dma_wait(npu_dma_1d(0, &B_vm[0], &B[0], 4 * npu_clamp(n, 100)));");
  npg_close(s);
  refused("void k(int n, float A[n], const float B[n]) {\n"
          "  for (int i = 0; i < n; i++)\n"
          "    A[i] = B[i];\n"
          "}\n",
          "#pragma npu schedule(k, c2)\n#pragma npu cache_read(B, vu_vm, root, B_vm)\n",
          "k.c:6:24: error: cache_read: the region of B spans more than 1 GiB, more than any on-chip scope holds, at "
          "the largest sizes allowed: assume an upper bound on the sizes (#pragma npu assume)");
}

/* A cache_write whose writes leave gaps (the odd elements) copies its
 * region in first, at every size: the box ends at the size (a box that
 * ended at 0 would be covered by no write at all, and the odd elements
 * would come back as whatever the buffer held: 0 at n = 7). */
Test(sizes, a_cache_write_with_gaps_copies_its_region_in) {
  NpgSession *s = open_ok("void k(int n, float y[n]) {\n"
                          "  for (int i = 0; i < (n + 1) / 2; i++)\n"
                          "    y[2 * i] = 1.0f;\n"
                          "}\n",
                          "#pragma npu assume(k, n <= 128)\n#pragma npu schedule(k, k2)\n"
                          "#pragma npu cache_write(y, vu_vm, root, y_vm)\n");
  int v = checked(s, "k2");
  has(npg_emit_source(s, v), "npu_dma_wait(npu_dma_1d(0, &y_vm[0], &y[0], 4 * npu_clamp(n, 127)));");
  npg_close(s);
}

/* A loop bounded by a size vectorizes onto the VU once split: the tail's
 * run-time length is the instruction's; unsplit, the hint says to split. */
Test(sizes, a_split_loop_vectorizes_with_a_run_time_length) {
  const char *k = "void k(int n, const float x[n], float y[n]) {\n"
                  "  for (int i = 0; i < n; i++)\n"
                  "    y[i] = 2.0f * x[i];\n"
                  "}\n";
  const char *caches = "#pragma npu assume(k, n <= 4096)\n#pragma npu schedule(k, v)\n"
                       "#pragma npu cache_read(x, vu_vm, root, x_vm)\n#pragma npu cache_write(y, vu_vm, root, y_vm)\n";
  char sched[600];
  snprintf(sched, sizeof sched, "%s#pragma npu split(i, 256, io, ii)\n#pragma npu vectorize(ii)\n", caches);
  NpgSession *s = open_ok(k, sched);
  has(npg_emit_source(s, checked(s, "v")),
      "npu_vu_muls_f32(&y_vm[io * 256], &x_vm[io * 256], npu_clamp(n - io * 256, 256), /*s=*/2.0f);");
  /* each size set's figures name the unit that bounds it (before: "NU
   * 0.0%" for this VU kernel, whose NU never runs) */
  NpgCheckResult r;
  cr_assert(npg_check(s, npg_variant_index(s, "v"), 1, &r), "%s", r.message);
  has(r.summary, "(n = 257: ");
  has(r.summary, "bound by dma (busy ");
  cr_expect(!strstr(r.summary, "NU 0.0%"), "%s", r.summary);
  npg_close(s);
  snprintf(sched, sizeof sched, "%s#pragma npu vectorize(i)\n", caches);
  s = open_ok(k, sched);
  has(npg_emit_source(s, checked(s, "v")), "the loop's bound is in the kernel's sizes: split the loop first");
  npg_close(s);
}

/* The matmul of examples/matmul_sized_npu.c, smaller: m rows tiled by 32
 * onto the NU, double-buffered. The DMA counts and the NU's row count of
 * the last tile are computed at run time, the first load runs only when
 * the loop does, and the last waits are for the copies out it issued; the
 * check runs it at every default size set, one of them several tiles
 * with a tail (257). */
Test(sizes, a_tiled_matmul_runs_on_the_nu_with_a_run_time_tail) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void mm(int m, const int8_t A[m][64], const int8_t B[64][64], int32_t C[m][64]) {\n"
                          "  for (int i = 0; i < m; i++)\n"
                          "    for (int j = 0; j < 64; j++) {\n"
                          "      C[i][j] = 0;\n"
                          "      for (int k = 0; k < 64; k++)\n"
                          "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu assume(mm, m <= 4096)\n#pragma npu schedule(mm, mm_nu)\n"
                          "#pragma npu split(i, 32, io, ii)\n#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                          "#pragma npu cache_read(B, nu_wb, root, B_wb)\n#pragma npu cache_write(C, nu_ob, io, C_ob)\n"
                          "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n#pragma npu double_buffer(A_ib)\n"
                          "#pragma npu double_buffer(C_ob)\n");
  NpgCheckResult r;
  int v = checked(s, "mm_nu");
  cr_expect(npg_check(s, v, 1, &r), "%s", r.message);
  has(r.summary, "(m = 257: ");
  const char *c = npg_emit_source(s, v);
  has(c, "if (m / 32 + (m % 32 > 0) > 0) { /* the loop runs: its first iteration's region */");
  has(c, "A_ib_tok = npu_dma_1d(1, &A_ib[0][0], &A[0][0], 64 * npu_clamp(m, 32));");
  has(c, "const int io_count = npu_clamp(m - io * 32, 32);");
  has(c, "&B_wb[0][0], io_count, /*n=*/64, /*k=*/64");
  has(c, "if (m / 32 + (m % 32 > 0) >= 2) npu_dma_wait(C_ob_tok[(m / 32 + (m % 32 > 0)) % 2]);");
  has(c, "if (m / 32 + (m % 32 > 0) >= 1) npu_dma_wait(C_ob_tok[(m / 32 + (m % 32 > 0) + 1) % 2]);");
  npg_close(s);
}

/* The check can fail at one size set and says which: the sum overflows
 * int from n = 22 on. */
Test(sizes, the_check_names_the_size_set_that_fails) {
  NpgSession *s = open_ok("void k(int n, int out[1]) {\n"
                          "  int s = 0;\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    s += 100000000;\n"
                          "  out[0] = s;\n"
                          "}\n",
                          "");
  NpgCheckResult r;
  cr_expect(!npg_check(s, 0, 1, &r));
  has(r.message, "at n = 33: k.c:4:5: error: signed overflow in 's += 100000000' (int)");
  npg_close(s);
}

/* The emitted C tests the assumptions at entry: a call at sizes they do
 * not allow aborts, and -D'NPUGEN_ASSUME(c)=' turns the test off. */
Test(sizes, emitted_code_tests_the_assumptions_at_entry) {
  NpgSession *s = open_ok(copy, "#pragma npu assume(copy, n <= 128, n % 2 == 0)\n");
  const char *c = npg_emit_source(s, 0);
  has(c, "  NPUGEN_ASSUME(n <= 128);\n  NPUGEN_ASSUME(n % 2 == 0);\n  NPUGEN_ASSUME(n >= 1); /* an extent of B */\n");
  char dir[] = "/tmp/npg-sizes-XXXXXX";
  cr_assert(mkdtemp(dir));
  char path[600], cmd[1600];
  snprintf(path, sizeof path, "%s/copy.c", dir);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs(c, f);
  fputs("#include <string.h>\nint main(int argc, char **argv) {\n  (void)argv;\n  float a[128], b[200];\n"
        "  memset(b, 0, sizeof b);\n  copy(argc == 1 ? 7 : 8, a, b);\n  return 0;\n}\n",
        f);
  fclose(f);
  fputs(npg_emit_header(s, 0), (f = fopen(strcat(strcpy(cmd, dir), "/copy.h"), "w")));
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "cd %s && gcc -std=c99 -Wall -Wextra -pedantic -Werror copy.c -o on && "
           "gcc -std=c99 -Wall -Wextra -pedantic -Werror '-DNPUGEN_ASSUME(c)=' copy.c -o off && "
           "./on x && ! ./on 2>/dev/null && ./off",
           dir);
  cr_expect_eq(system(cmd), 0, "n = 8 runs, n = 7 (odd) aborts, and not once turned off: %s", cmd);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  (void)!system(cmd);
  npg_close(s);
}

/* An extent is evaluated at every call: its arithmetic must fit its type
 * at every size, or be assumed to. */
Test(sizes, extent_arithmetic_must_not_overflow) {
  const char *k = "void k(int n, float x[n + 1]) {\n  for (int i = 0; i <= n; i++)\n    x[i] = 0;\n}\n";
  /* at some sizes it is a derived precondition (tests/test_preconditions.c); at every size, an error */
  refused(k, "#pragma npu assume(k, n >= 2147483647)\n",
          "k.c:1:23: error: array extent 'n + 1' ranges over [2147483648, 2147483648], outside its type int "
          "[-2147483648, 2147483647]: C would wrap it around or overflow; compute it in a wider signed type, or assume "
          "smaller sizes");
  NpgSession *s = open_ok(k, "#pragma npu assume(k, n <= 1000)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

/* ---- found by review: each failed before its mend ---- */

/* A size set that breaks an assumption was run (the reference wrote past
 * A); it is refused at the pragma. */
Test(sizes, a_size_set_that_breaks_an_assumption_is_refused) {
  refused(copy, "#pragma npu assume(copy, n <= 100)\n#pragma npu sizes(copy, n = 200)\n",
          "k.c:6:13: error: n = 200 breaks the assumption 'n <= 100' (line 5) of copy");
  refused("void k(int n, float A[n]) {\n  for (int i = 0; i < n; i++) A[i] = 1;\n}\n",
          "#pragma npu sizes(k, n = 0)\n", "k.c:4:13: error: at n = 0 an extent of an array of k is less than 1");
  refused(copy, "#pragma npu assume(copy, n > 5, n < 3)\n",
          "k.c:5:26: error: no sizes satisfy the assumptions of kernel copy (and every extent at least 1)");
}

/* An assumption is computed in C at entry: `n * 4` would wrap where isl
 * reasons exactly, so its arithmetic must fit, given the ones before. */
Test(sizes, an_assumption_whose_arithmetic_can_wrap_is_refused) {
  refused(copy, "#pragma npu assume(copy, n * 4 <= 512)\n",
          "k.c:5:26: error: assumption 'n * 4' ranges over [4, 8589934588], outside its type int [-2147483648, "
          "2147483647]: C would wrap it around or overflow; compute it in a wider signed type, or assume smaller "
          "sizes");
  NpgSession *s = open_ok(copy, "#pragma npu assume(copy, n <= 1000, n * 4 <= 512)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

/* A 64-bit unsigned size holds values the proofs' int64 arithmetic does
 * not; a narrower unsigned one can be bounded (an unsigned comparison of
 * the size itself is exact). */
Test(sizes, unsigned_sizes) {
  refused("void k(unsigned long n, float A[8]) {\n  for (unsigned long i = 0; i < n; i++) A[i % 8] = 1;\n}\n", "",
          "k.c:1:22: error: size 'n' is unsigned long, which holds values past 2^63 - 1; give it a signed type "
          "(long)");
  const char *k = "void k(unsigned n, float A[64]) {\n  for (unsigned i = 0; i < n; i++) A[i] = 1;\n}\n";
  refused(k, "",
          "k.c:2:38: error: index 'i' can leave dimension 1 of 'A' (extent 64): it needs n <= 64 (it fails at n = "
          "65); state that with #pragma npu assume(k, ...) or change the bound");
  NpgSession *s = open_ok(k, "#pragma npu assume(k, n <= 64u)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

/* The C tcc compiles addresses an array by its sizes' names: a local
 * named like a size would change the stride (the check saw wrong values). */
Test(sizes, a_local_that_hides_a_size_is_refused) {
  refused("void k(int m, int n, float A[m][n]) {\n  for (int i = 0; i < m; i++)\n    for (int n = 0; n < 1; n++)\n"
          "      A[i][n] = 1;\n}\n",
          "",
          "k.c:3:10: error: 'n' hides the size 'n' (a parameter that sizes an array or bounds a loop); rename it");
}

/* Sizes unlike each other: the loop from m to n runs 26 times at m = 7,
 * n = 33 and overflows there; the default sets find it. */
Test(sizes, the_default_sets_hold_sizes_unlike_each_other) {
  NpgSession *s = open_ok("void k(int m, int n, int out[1]) {\n  int s = 0;\n  for (int i = m; i < n; i++)\n"
                          "    s += 100000000;\n  out[0] = s;\n}\n",
                          "");
  NpgCheckResult r;
  cr_expect(!npg_check(s, 0, 1, &r));
  has(r.message, "signed overflow in 's += 100000000'");
  npg_close(s);
}

/* The JIT of a variant tests the assumptions as the emitted C does; a
 * failed one comes back as the run's error, not an abort of the caller. */
Test(sizes, a_failed_assumption_in_the_jit_is_an_error) {
  NpgSession *s = open_ok(copy, "#pragma npu assume(copy, n <= 100)\n");
  NpgJit *j = npg_jit_variant(s, 0);
  cr_assert(j && !npg_jit_error(j), "%s", j ? npg_jit_error(j) : "no jit");
  int n = 150;
  float a[128] = {0}, b[150] = {0};
  void *args[] = {&n, a, b};
  cr_expect(!npg_jit_run(j, args));
  has(npg_jit_error(j), "an assumption of the kernel does not hold at these sizes: NPUGEN_ASSUME(n <= 100)");
  npg_jit_free(j);
  npg_close(s);
}

/* Hostile input: each disjunctive assumption multiplies the domains'
 * pieces (9 values for each of 5 sizes: 9^5). isl's operation budget
 * turns minutes and half a gigabyte into a message (before, too, isl's
 * failure made aff_range and domain_empty call each other without end). */
Test(sizes, assumptions_of_too_many_pieces_are_refused_quickly) {
  char src[2048] = "void k(int a, int b, int c, int d, int e, float A[64]) {\n  A[0] = 1.0f;\n"
                   "  for (int ia = 0; ia < a; ia++) A[ia] = 2.0f;\n  for (int ib = 0; ib < b; ib++) A[ib] = 2.0f;\n"
                   "  for (int ic = 0; ic < c; ic++) A[ic] = 2.0f;\n  for (int id = 0; id < d; id++) A[id] = 2.0f;\n"
                   "  for (int ie = 0; ie < e; ie++) A[ie] = 2.0f;\n}\n";
  char pragmas[2048] = "";
  for (const char *v = "abcde"; *v; v++) {
    size_t at = strlen(pragmas);
    snprintf(pragmas + at, sizeof pragmas - at, "#pragma npu assume(k, %c == 1", *v);
    for (int x = 3; x <= 17; x += 2) {
      at = strlen(pragmas);
      snprintf(pragmas + at, sizeof pragmas - at, " || %c == %d", *v, x);
    }
    strcat(pragmas, ")\n");
  }
  refused(src, pragmas,
          "k.c:3:36: error: the assumptions of k are too many pieces for the bounds proof (isl's budget of 5000000 "
          "operations ran out here); state them with fewer disjunctions (a range, `n % 2 == 1`, instead of a list of "
          "values)");
}

/* A counter that overflows only at some sizes says an assumption helps. */
Test(sizes, a_counter_that_overflows_at_some_size_says_to_assume) {
  const char *k = "void k(int n, float A[n]) {\n  for (int i = 0; i <= n; i++) A[i % n] = 1;\n}\n";
  /* at some sizes it is a derived precondition (tests/test_preconditions.c); at every size, an error */
  refused(k, "#pragma npu assume(k, n == 2147483647)\n",
          "k.c:2:3: error: loop counter 'i' (int) would reach, after its last iteration, 2147483648, outside its "
          "type's range [-2147483648, 2147483647]: the loop would overflow or never end; use a wider counter or a "
          "smaller bound, or assume smaller sizes");
}

/* A split's tail guard in a size is a guard no statement changes, for
 * fission as for reorder (one test, ir_expr_counters_only with the
 * kernel's sizes): fission cuts through it and repeats it. */
Test(sizes, fission_cuts_through_a_size_guard) {
  NpgSession *s = open_ok("void k(int n, float A[n], float B[n]) {\n  for (int i = 0; i < n; i++) {\n"
                          "    a: A[i] = 1;\n    b: B[i] = A[i] * 2;\n  }\n}\n",
                          "#pragma npu assume(k, n <= 100000)\n#pragma npu schedule(k, k2)\n"
                          "#pragma npu split(i, 8, io, ii)\n#pragma npu fission(ii, a)\n");
  const char *c = npg_emit_source(s, checked(s, "k2"));
  const char *first = strstr(c, "if (ii < n - io * 8)");
  cr_assert(first, "%s", c);
  cr_expect_eq(strstr(first + 1, "if (ii < n - io * 8)") != NULL, true, "%s", c);
  npg_close(s);
}

/* The check's figure of compared outputs counts every size set run, not
 * the last set's alone: copy at n = 5 and n = 300 compares 305. */
Test(sizes, the_compared_outputs_count_every_size_set) {
  NpgSession *s = open_ok("void k(int n, const float x[n], float y[n]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    y[i] = x[i];\n"
                          "}\n",
                          "#pragma npu sizes(k, n = 5)\n#pragma npu sizes(k, n = 300)\n");
  NpgCheckResult r;
  cr_assert(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.compared, 305, "%ld", r.compared);
  npg_close(s);
}

/* A 3-D stencil with sizes and a time loop, tiled 8 x 32: the default
 * sets vary one size at a time from a small base, so every set runs within
 * 2^21 steps (the check's own budget here: a set past it would be listed
 * as not run), and still one runs n's splits past a full tile with a tail
 * in each (n = 35: j runs 33 = 32 + 1, i 33 = 4 * 8 + 1; the tiled variant
 * takes 1.5 million steps there). The sets of every size at 64 and 257 at
 * once (30 million steps and more) are left out. */
static const char *heat3d =
    "void heat3d(int tsteps, int n, float A[n][n][n], float B[n][n][n]) {\n"
    "  for (int t = 1; t < tsteps; t++) {\n"
    "    for (int i = 1; i < n - 1; i++)\n"
    "      for (int j = 1; j < n - 1; j++)\n"
    "        for (int k = 1; k < n - 1; k++)\n"
    "          B[i][j][k] = 0.125f * (A[i + 1][j][k] - 2.0f * A[i][j][k] + A[i - 1][j][k]) +\n"
    "                       0.125f * (A[i][j + 1][k] - 2.0f * A[i][j][k] + A[i][j - 1][k]) +\n"
    "                       0.125f * (A[i][j][k + 1] - 2.0f * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];\n"
    "    for (int i = 1; i < n - 1; i++)\n"
    "      for (int j = 1; j < n - 1; j++)\n"
    "        for (int k = 1; k < n - 1; k++)\n"
    "          A[i][j][k] = B[i][j][k];\n"
    "  }\n"
    "}\n";

Test(sizes, default_sets_scale_with_the_work_and_hit_every_tail) {
  NpgSession *s = open_ok(heat3d, "#pragma npu assume(heat3d, tsteps <= 1000 && n <= 1000)\n"
                                  "#pragma npu schedule(heat3d, heat3d_tiled)\n"
                                  "#pragma npu tile(i_1, j_1, 8, 32, io, jo, ii, ji)\n");
  npg_set_check_limits(s, 1u << 21, 0);
  for (int v = 0; v < 2; v++) {
    NpgCheckResult r;
    cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
    cr_expect_eq(r.size_sets_not_run, 0, "%s", r.summary);
    lacks(r.summary, "not run");
    has(r.summary, "(tsteps = 33, n = 7)"); /* the time loop's turn */
  }
  NpgCheckResult r;
  cr_assert(npg_check(s, npg_variant_index(s, "heat3d_tiled"), 1, &r), "%s", r.message);
  has(r.summary, "(tsteps = 7, n = 35)");
  npg_close(s);
  /* the other sizes stay where the assumptions allow, near the base */
  s = open_ok(heat3d, "#pragma npu assume(heat3d, tsteps <= 6 && n <= 1000)\n"
                      "#pragma npu schedule(heat3d, heat3d_tiled)\n"
                      "#pragma npu tile(i_1, j_1, 8, 32, io, jo, ii, ji)\n");
  cr_assert(npg_check(s, npg_variant_index(s, "heat3d_tiled"), 1, &r), "%s", r.message);
  has(r.summary, "(tsteps = 6, n = 35)");
  npg_close(s);
}

/* A default set over the step budget is not run, and the result says so
 * besides the set's own entry in the summary. */
Test(sizes, a_set_not_run_is_counted) {
  NpgSession *s = open_ok("void k(int n, float a[n][n][n]) {\n"
                          "  for (int t = 0; t < 400; t++)\n"
                          "    for (int i = 0; i < n; i++)\n"
                          "      for (int j = 0; j < n; j++)\n"
                          "        for (int l = 0; l < n; l++)\n"
                          "          a[i][j][l] = a[i][j][l] * 0.5f + 1;\n"
                          "}\n",
                          "#pragma npu assume(k, n <= 2000)\n");
  npg_set_check_limits(s, 100000, 0);
  NpgCheckResult r;
  cr_assert(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.size_sets_not_run, 2, "%s", r.summary);
  has(r.summary, "(n = 7: over the step budget, not run), (n = 8: over the step budget, not run)");
  npg_close(s);
}

/* A write cache double-buffered at a loop of an unsigned size's trips:
 * the last waits' guards and copies wrote `trips - 2`, which wraps in
 * unsigned where the loop ran once (the lowered IR's check refused it as
 * an internal error, found by a new user's trial of issue 42). Now the
 * guard compares and the copy goes by parity. */
Test(sizes, an_unsigned_size_double_buffers_a_write_cache) {
  NpgSession *s = open_ok("void scaleu(unsigned n, const float x[n], float y[n]) {\n"
                          "  for (unsigned i = 0; i < n; i++) y[i] = x[i] * 2.0f;\n}\n"
                          "#pragma npu assume(scaleu, n <= 100000u)\n",
                          "#pragma npu schedule(scaleu, u_db)\n#pragma npu split(i, 1024, io, ii)\n"
                          "#pragma npu cache_write(y, vu_vm, io, y_ob)\n#pragma npu double_buffer(y_ob)\n");
  const char *c = npg_emit_source(s, checked_once(s, "u_db"));
  has(c, "if (n / 1024u + (n % 1024u > 0u) >= 2u) npu_dma_wait(y_ob_tok[(n / 1024u + (n % 1024u > 0u)) % 2u]);");
  npg_close(s);
}

/* expand's array form on a sized kernel is as large as the assumptions
 * let its counters run, as stage's (before: "acc lives in loop i, whose
 * range npugen cannot bound" although n <= 100 bounds it; found by a new
 * user's trial of issue 42); without a bound, the refusal says to assume
 * one. */
Test(sizes, expand_over_a_sized_loop_is_as_large_as_the_assumptions_allow) {
  static const char *k = "void rowsum(int n, int m, const float a[n][m], float out[n]) {\n"
                         "  for (int i = 0; i < n; i++) { float acc = 0.0f;\n"
                         "    for (int j = 0; j < m; j++) upd: acc += a[i][j];\n"
                         "    st: out[i] = acc * 0.5f; } }\n";
  char src[1024];
  snprintf(src, sizeof src, "%s#pragma npu assume(rowsum, n <= 100)\n", k);
  NpgSession *s = open_ok(src, "#pragma npu schedule(rowsum, r_exp)\n#pragma npu expand(acc, i)\n");
  has(npg_emit_source(s, checked_once(s, "r_exp")), "  float acc[100];\n");
  npg_close(s);
  refused(k, "#pragma npu schedule(rowsum, r_exp)\n#pragma npu expand(acc, i)\n",
          "k.c:6:25: error: expand: the array for acc would take more than 1048576 bytes (the limit of a kernel's local "
          "arrays) at the largest sizes allowed (assume an upper bound on the sizes); expand it over fewer loops: "
          "expand(acc, loop)");
}

/* A cache of a sized array after a split by a factor no power of two:
 * the copy's tail guard was `io * 100 + a_vm_0 < n`, which the check of
 * npugen's own arithmetic could not bound past the last tile at the
 * largest n (the step was refused; found by a new user's trial of issue
 * 42). Split's form, `a_vm_0 < n - io * 100`, cannot overflow: the copy
 * is one DMA of a run-time count. */
Test(sizes, a_cache_after_a_split_by_100_needs_no_assumption) {
  NpgSession *s = open_ok("void cp(int n, const float a[n], float b[n]) {\n"
                          "  for (int i = 0; i < n; i++) b[i] = a[i] * 2.0f;\n}\n",
                          "#pragma npu schedule(cp, c100)\n#pragma npu split(i, 100, io, ii)\n"
                          "#pragma npu cache_read(a, vu_vm, io, a_vm)\n");
  has(npg_emit_source(s, checked_once(s, "c100")),
      "npu_dma_wait(npu_dma_1d(0, &a_vm[0], &a[io * 100], 4 * npu_clamp(n - io * 100, 100)));");
  npg_close(s);
}

/* The usual 2-D tile of a sized kernel reaches the VU: reorder leaves the
 * row tile's guard right under the row loop, not under the column loop
 * that vectorize matches (before: "vectorize(ji) stays a hint: the
 * statements differ", all of it on the CU at 5.8% of the roofline, where
 * the same loops split and reordered by hand ran on the VU; found by a new
 * user's trial of issue 42). */
Test(sizes, a_2d_tile_of_a_sized_kernel_vectorizes_its_columns) {
  NpgSession *s = open_ok("void scale2(int n, int m, const float a[n][m], float b[n][m], float s) {\n"
                          "  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) b[i][j] = a[i][j] * s; }\n"
                          "#pragma npu assume(scale2, n <= 1024, m <= 1024)\n#pragma npu sizes(scale2, n = 13, m = 300)\n",
                          "#pragma npu schedule(scale2, s_tile)\n#pragma npu tile(i, j, 8, 256, io, jo, ii, ji)\n"
                          "#pragma npu cache_read(a, vu_vm, jo, a_vm)\n#pragma npu cache_write(b, vu_vm, jo, b_vm)\n"
                          "#pragma npu vectorize(ji)\n");
  lacks(npg_errors(s), "stays a hint");
  has(npg_emit_source(s, checked_once(s, "s_tile")),
      "      for (int ii = 0; ii < 8; ii++) {\n        if (ii < n - io * 8) {\n"
      "          npu_vu_muls_f32(&b_vm[ii][0], &a_vm[ii][0], jo_count, s);");
  npg_close(s);
}

/* A `long` counter over a size keeps its compute on the VU: the nest's
 * tile loop counts in long over a constant range, the same values as the
 * instruction's int counter (before: "the loop counters' types differ",
 * the copies DMAs but the multiply on the CU; found by a new user's trial
 * of issue 42). */
Test(sizes, a_long_counter_vectorizes_on_the_vu) {
  NpgSession *s = open_ok("void f(long n, const float x[n], float y[n]) {\n"
                          "  for (long i = 0; i < n; i++) y[i] = x[i] * 2.0f;\n}\n"
                          "#pragma npu assume(f, n <= 1000000)\n",
                          "#pragma npu schedule(f, v)\n#pragma npu split(i, 256, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                          "#pragma npu vectorize(ii)\n");
  lacks(npg_errors(s), "stays a hint");
  has(npg_emit_source(s, checked_once(s, "v")), "npu_vu_muls_f32(&y_vm[0], &x_vm[0], npu_clamp(n - io * 256l, 256), ");
  npg_close(s);
}

/* An `unsigned` counter over an unsigned size keeps its compute on the VU
 * where every value fits int (n <= 1000000 here; the copies need it too):
 * the nest is counted in int, `ii < (int)n - (int)io * 256`, as the copies
 * count (before: the guard needed "a signed int counter", the multiply
 * stayed on the CU; found by a new user's trial of issue 42, D5). */
Test(sizes, an_unsigned_counter_vectorizes_on_the_vu) {
  NpgSession *s = open_ok("void f(unsigned n, const float x[n], float y[n], float s) {\n"
                          "  for (unsigned i = 0; i < n; i++) y[i] = x[i] * s;\n}\n"
                          "#pragma npu assume(f, n <= 1000000)\n#pragma npu sizes(f, n = 300)\n",
                          "#pragma npu schedule(f, v)\n#pragma npu split(i, 256, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
                          "#pragma npu vectorize(ii)\n");
  lacks(npg_errors(s), "stays a hint");
  /* n = 300: a full tile and a tail */
  has(npg_emit_source(s, checked_once(s, "v")), "npu_vu_muls_f32(&y_vm[0], &x_vm[0], io_count, s);");
  npg_close(s);
  /* no assume: the extent n is at most an array's 2^31 - 1, a derived
   * precondition, which bounds the caches (trial 42b, D2: "cache_read:
   * the extent of x along dimension 0 may pass 2147483647 ... assume a
   * bound") */
  s = open_ok("void f(unsigned n, const float x[n], float y[n], float s) {\n"
              "  for (unsigned i = 0; i < n; i++) y[i] = x[i] * s;\n}\n#pragma npu sizes(f, n = 300)\n",
              "#pragma npu schedule(f, v)\n#pragma npu split(i, 256, io, ii)\n"
              "#pragma npu cache_read(x, vu_vm, io, x_vm)\n#pragma npu cache_write(y, vu_vm, io, y_vm)\n"
              "#pragma npu vectorize(ii)\n");
  has(npg_errors(s), "npugen assumes n <= 2147483647u (array extent 'n' must be at most 2147483647)");
  has(npg_emit_source(s, checked_once(s, "v")), "npu_vu_muls_f32(&y_vm[0], &x_vm[0], io_count, s);");
  npg_close(s);
}

/* A kernel with sizes named as glibc's <stdlib.h> names a type in GNU
 * mode (ulong, uint, ushort, u_char): its C declares abort() for
 * NPUGEN_ASSUME instead of including <stdlib.h>, so the name is the
 * kernel's (trial 42b, D4: "redefinition of 'ulong'", an internal error
 * of the check). */
Test(sizes, a_sized_kernel_may_take_a_name_stdlib_declares) {
  NpgSession *s = open_ok("void ulong(int n, const float x[n], float y[n]) {\n"
                          "  for (int i = 0; i < n; i++) y[i] = x[i] * 2.0f;\n}\n",
                          "");
  const char *c = npg_emit_source(s, checked_once(s, "ulong"));
  lacks(c, "#include <stdlib.h>");
  has(c, "void abort(void);");
  npg_close(s);
}

/* A second --size of npugen tune is a usage error (it replaced the first
 * unseen: the trials ran at the last one alone). */
Test(sizes, tune_refuses_a_second_size_option) {
  char cmd[512], out[4096];
  snprintf(cmd, sizeof cmd, "%s tune k.c --size n=4 --size n=8 -o /dev/null 2>&1", npugen());
  cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
  cr_expect(strstr(out, "npugen tune: --size is given twice; tune tunes for one size set: give all its sizes in one "
                        "--size (NAME=VALUE,...), and the sets to check as #pragma npu sizes\n"),
            "%s", out);
}
