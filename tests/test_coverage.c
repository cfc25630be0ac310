/* Kernels as a new user writes them, reaching the NPU without rewriting
 * (issue 27): a GEMV on the NU's matmul with the loop it lacks run once,
 * the same on the VU cores, and the look-alikes that must stay refused.
 * Every accepted variant is checked by execution in the simulator. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char gemv[] =
    "#include <stdint.h>\n"
    "void gemv(const int8_t A[64][96], const int8_t x[96], int32_t y[64]) {\n"
    "  for (int i = 0; i < 64; i++) {\n"
    "    init: y[i] = 0;\n"
    "    for (int k = 0; k < 96; k++)\n"
    "      update: y[i] += (int32_t)A[i][k] * (int32_t)x[k];\n"
    "  }\n"
    "}\n";

static const char gemv_staged[] =
    "#pragma npu schedule(gemv, v)\n"
    "#pragma npu split(i, 32, io, ii)\n"
    "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
    "#pragma npu cache_read(x, nu_wb, io, x_wb)\n"
    "#pragma npu cache_write(y, nu_ob, io, y_ob)\n";

Test(coverage, gemv_as_written_runs_on_the_nu_matmul) {
  /* the matmul's j loop runs once (N = 1): y is C[M][1] with LDC = 1, x is
   * B[K][1] with LDB = 1 */
  NpgSession *s = open_ok(gemv, steps_then(gemv_staged, "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"));
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_nu_matmul_i8(&y_ob[0], &A_ib[0][0], &x_wb[0], 32, 1, 96, 96, 1, 1, 0);");
  npg_close(s);
}

Test(coverage, a_vector_matrix_product_leaves_out_the_matmuls_rows) {
  /* y = x B: the matmul's i loop runs once (M = 1), so A[0][k] is x[k] and
   * C[0][j] is y[j]; a leading dimension left out sets no stride */
  static const char gevm[] =
      "#include <stdint.h>\n"
      "void gevm(const int8_t x[64], const int8_t B[64][48], int32_t y[48]) {\n"
      "  for (int j = 0; j < 48; j++) {\n"
      "    y[j] = 0;\n"
      "    for (int k = 0; k < 64; k++)\n"
      "      y[j] += (int32_t)x[k] * (int32_t)B[k][j];\n"
      "  }\n"
      "}\n";
  NpgSession *s = open_ok(gevm, "#pragma npu schedule(gevm, v)\n"
                                "#pragma npu split(j, 16, jo, ji)\n"
                                "#pragma npu cache_read(x, nu_ib, jo, x_ib)\n"
                                "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                                "#pragma npu cache_write(y, nu_ob, jo, y_ob)\n"
                                "#pragma npu tensorize(ji, npu_nu_matmul_i8)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_nu_matmul_i8(&y_ob[0], &x_ib[0], &B_wb[0][0], 1, 16, 64, 64, 16, 16, 0);");
  npg_close(s);
}

Test(coverage, gemv_on_the_vu_cores_sweeps_columns) {
  /* the VU has no int8 row dot product: k outside the rows, each step one
   * multiply-accumulate of a column of A by x[k] (npu_vu_macs_i8_i32 with
   * its column loop run once: COLS = 1, LDD = 1) */
  NpgSession *s = open_ok(gemv, "#pragma npu schedule(gemv, v)\n"
                                "#pragma npu split(i, 16, core, ri)\n"
                                "#pragma npu fission(ri, init)\n"
                                "#pragma npu reorder(k, ri_1)\n"
                                "#pragma npu bind(core, vu)\n"
                                "#pragma npu cache_read(A, vu_vm, core, A_vm)\n"
                                "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                                "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                                "#pragma npu vectorize(ri)\n"
                                "#pragma npu vectorize(ri_1)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "npu_vu_fill_i32(&y_vm[0], 16, 1, 1, 0);");
  has(c, "npu_vu_macs_i8_i32(&y_vm[0], &A_vm[0][k], &x_vm[k], 16, 1, 1, 96);");
  npg_close(s);
}

Test(coverage, a_row_dot_product_needs_a_row_of_x_per_row) {
  /* npu_vu_reduce_dot_f32 reads b[r][c]: x[k] is the same row for every r
   * (a stride of 0), which its operand cannot be: refused */
  static const char fgemv[] =
      "void gemv(const float A[32][16], const float x[16], float y[32]) {\n"
      "  for (int i = 0; i < 32; i++) {\n"
      "    y[i] = 0.0f;\n"
      "    for (int k = 0; k < 16; k++)\n"
      "      y[i] += A[i][k] * x[k];\n"
      "  }\n"
      "}\n";
  refused(fgemv, "#pragma npu schedule(gemv, v)\n"
                 "#pragma npu split(i, 8, core, ri)\n"
                 "#pragma npu cache_read(A, vu_vm, core, A_vm)\n"
                 "#pragma npu cache_read(x, vu_vm, core, x_vm)\n"
                 "#pragma npu cache_write(y, vu_vm, core, y_vm)\n"
                 "#pragma npu tensorize(ri, npu_vu_reduce_dot_f32)\n",
          "k.c:13:27: error: tensorize: the nest under ri does not match npu_vu_reduce_dot_f32: x_vm has 1 dimension "
          "where the intrinsic's b has 2, and b's index r follows loop ri, which x_vm's indices do not use (one "
          "element for every ri: a stride of 0): 'x_vm[k]' in s2 (line 5) against the intrinsic's 'b[r][c]' (line 18)");
}
