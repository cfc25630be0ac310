/* What tune's sketches read of a kernel (tune/kernel_shape.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "jit/session_ir.h"
#include "tests/test_sched_util.h"
#include "tune/tune.h"

/* An array parameter the kernel only reads is read only to the sketches
 * whether or not it is declared const: the VU sketch stages it with a
 * read cache, which double-buffers (trial 41b, B: `w[i] = a * p[i] + b *
 * q[i]` with p and q not const had every candidate illegal, "p_vm is
 * both filled and drained by DMA", and two GEMVs whose vector an earlier
 * nest writes stayed on the CU: 70,187 cycles against 5,958 now). */
Test(tune_shape, an_array_only_read_is_read_only_whatever_its_declaration) {
  NpgSession *s = open_ok("#define N 64\n"
                          "void k(float p[N], const float q[N], float w[N], float a) {\n"
                          "  for (int i = 0; i < N; i++) w[i] = a * p[i] + q[i];\n}\n",
                          "");
  const Kernel *k = module_kernel(session_module(s), "k");
  cr_assert(k);
  TuneShape sh;
  tune_shape(k, &sh);
  cr_assert_eq(sh.narr, 3);
  cr_expect(sh.arr[0].is_const, "p, never written, is read only");
  cr_expect(sh.arr[1].is_const, "q, const");
  cr_expect(!sh.arr[2].is_const, "w is written");
  npg_close(s);
}

/* A matrix-vector product written as PolyBench writes atax, mvt and
 * gemver, `y[i] = y[i] + A[i][j] * x[j]`, is the contraction `y[i] +=
 * A[i][j] * x[j]` C defines it to be (trial 41b, D: "is not one update
 * `y[..] += A[..] * B[..]`", and the kernel was tuned on the host; its
 * three-nest form reaches the NU now, 5,958 cycles). */
Test(tune_shape, a_sum_written_out_is_a_contraction) {
  NpgSession *s = open_ok("#define N 64\n"
                          "void k(const float A[N][N], const float x[N], float y[N]) {\n"
                          "  for (int i = 0; i < N; i++) {\n"
                          "    y[i] = 0.0f;\n"
                          "    for (int j = 0; j < N; j++)\n"
                          "      y[i] = y[i] + A[i][j] * x[j];\n"
                          "  }\n}\n",
                          "");
  const Kernel *k = module_kernel(session_module(s), "k");
  cr_assert(k);
  TuneShape sh;
  tune_shape(k, &sh);
  TuneContraction c;
  char why[400] = "";
  cr_assert(tune_contraction(&sh, &c, why, sizeof why), "%s", why);
  cr_expect(!strcmp(c.a, "A") && !strcmp(c.b, "x") && !strcmp(c.c, "y"), "%s %s %s", c.a, c.b, c.c);
  npg_close(s);
}
