/* Your own Criterion test of a kernel and its NPU schedule, through
 * npugen's C API. `make install` puts it in PREFIX/share/npugen/examples/;
 * it builds with pkg-config alone:
 *
 *   cc -std=c11 test_my_kernel.c $(pkg-config --cflags --libs npugen criterion) -o test_my_kernel
 *   ./test_my_kernel
 *
 * (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig when PREFIX is not a system one.)
 * The kernel is a string here so that the file stands alone; a real test
 * opens its kernel file with npg_open_file(). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <npugen.h>

static const char kernel[] =
    "#include <stdint.h>\n"
    "void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 64; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n"
    "#pragma npu schedule(mm, mm_nu)\n"
    "#pragma npu split(i, 32, io, ii)\n"
    "#pragma npu split(j, 32, jo, ji)\n"
    "#pragma npu reorder(io, jo, ii, ji)\n"
    "#pragma npu cache_read(A, nu_ib, jo, A_ib)\n"
    "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
    "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
    "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n";

/* npugen's own check: the variant against the kernel as written, on seeded
 * random inputs, in the simulator. */
Test(my_kernel, the_nu_schedule_passes_the_check) {
  NpgSession *s = npg_open_string("mm.c", kernel, sizeof kernel - 1);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int v = npg_variant_index(s, "mm_nu");
  cr_assert_geq(v, 0);
  NpgCheckResult r;
  cr_expect(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect_gt(r.sim_cycles, 0);
  npg_close(s);
}

/* Your arrays: the variant run in a simulator that npg_jit_run binds for
 * it, compared with plain C. */
Test(my_kernel, the_nu_schedule_computes_my_arrays) {
  static int8_t A[64][64], B[64][64];
  static int32_t C[64][64], want[64][64];
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      A[i][j] = (int8_t)((i * 7 + j * 3) % 19 - 9);
      B[i][j] = (int8_t)((i * 5 - j * 11) % 23);
    }
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      for (int k = 0; k < 64; k++) want[i][j] += A[i][k] * B[k][j];
  NpgSession *s = npg_open_string("mm.c", kernel, sizeof kernel - 1);
  NpgJit *j = npg_jit_variant(s, npg_variant_index(s, "mm_nu"));
  cr_assert_null(npg_jit_error(j), "%s", npg_jit_error(j));
  void *args[] = {A, B, C};
  cr_assert(npg_jit_run(j, args), "%s", npg_jit_error(j));
  cr_expect_eq(memcmp(C, want, sizeof C), 0);
  cr_expect_gt(npg_jit_sim_cycles(j), 0);
  npg_jit_free(j);
  npg_close(s);
}
