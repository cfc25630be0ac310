/* Finite outputs and input ranges (docs/check.md): a reference output that
 * ends NaN or infinite fails the check unless the kernel allows it
 * (`#pragma npu allow_nonfinite`), and `#pragma npu inputs` gives a
 * parameter meaningful values: a range, or symmetric positive definite
 * matrices. Before, NaN compared equal to NaN and a Cholesky factorisation
 * of the default inputs passed with half its outputs NaN. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "frontend/frontend.h"
#include "jit/check.h"
#include "jit/session.h"
#include "npugen.h"

static const char *cholesky =
    "#include <math.h>\n"
    "#define N 16\n"
    "void cholesky(float A[N][N]) {\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    for (int j = 0; j < i; j++) {\n"
    "      for (int k = 0; k < j; k++)\n"
    "        A[i][j] -= A[i][k] * A[j][k];\n"
    "      A[i][j] /= A[j][j];\n"
    "    }\n"
    "    for (int k = 0; k < i; k++)\n"
    "      A[i][i] -= A[i][k] * A[i][k];\n"
    "    A[i][i] = sqrtf(A[i][i]);\n"
    "  }\n"
    "}\n"
    "#pragma npu schedule(cholesky, cholesky_split)\n"
    "#pragma npu split(i, 4, io, ii)\n";

static NpgSession *open_with(const char *kernel, const char *pragmas) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", kernel, pragmas);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  cr_assert_eq(npg_variant_count(s), 2);
  return s;
}

Test(check_finite, cholesky_of_default_inputs_fails) {
  NpgSession *s = open_with(cholesky, "");
  for (int v = 0; v < 2; v++) {
    NpgCheckResult r;
    cr_expect(!npg_check(s, v, 1, &r), "%s passed", npg_variant_name(s, v));
    cr_expect_str_eq(r.message,
                     "k.c:3:21: error: output 'A' of 'cholesky' ends with 136 NaN and 0 infinite of its 256 elements "
                     "with inputs of seed 1 (which hold none); give the kernel meaningful inputs (#pragma npu "
                     "inputs(cholesky, A, ...)) or accept them (#pragma npu allow_nonfinite(cholesky, A))");
  }
  npg_close(s);
}

Test(check_finite, cholesky_of_spd_inputs_passes) {
  NpgSession *s = open_with(cholesky, "#pragma npu inputs(cholesky, A, spd)\n");
  for (int v = 0; v < 2; v++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      NpgCheckResult r;
      cr_expect(npg_check(s, v, seed, &r), "%s: %s", npg_variant_name(s, v), r.message);
      cr_expect_eq(r.compared, 256);
      cr_expect_eq(r.nonfinite, 0);
    }
  npg_close(s);
}

/* Negative cycles on the default inputs drive every distance to -inf. */
Test(check_finite, float_all_pairs_ends_infinite) {
  const char *src = "#define N 64\n"
                    "void floyd(float d[N][N]) {\n"
                    "  for (int k = 0; k < N; k++)\n"
                    "    for (int i = 0; i < N; i++)\n"
                    "      for (int j = 0; j < N; j++)\n"
                    "        if (d[i][k] + d[k][j] < d[i][j])\n"
                    "          d[i][j] = d[i][k] + d[k][j];\n"
                    "}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  NpgCheckResult r;
  cr_expect(!npg_check(s, 0, 1, &r));
  cr_expect_str_eq(r.message, "k.c:2:18: error: output 'd' of 'floyd' ends with 0 NaN and 4096 infinite of its 4096 "
                              "elements with inputs of seed 1 (which hold none); give the kernel meaningful inputs "
                              "(#pragma npu inputs(floyd, d, ...)) or accept them (#pragma npu allow_nonfinite(floyd, d))");
  npg_close(s);
}

/* Allowed, the NaNs are counted, not hidden. */
Test(check_finite, allowed_nonfinite_outputs_are_counted) {
  NpgSession *s = open_with(cholesky, "#pragma npu allow_nonfinite(cholesky, A)\n");
  NpgCheckResult r;
  cr_expect(npg_check(s, 1, 1, &r), "%s", r.message);
  cr_expect_eq(r.nonfinite, 136);
  npg_close(s);
  s = open_with(cholesky, "#pragma npu allow_nonfinite(cholesky)\n");
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.nonfinite, 136);
  npg_close(s);
}

/* A range that keeps the divisor off zero, for an array and a scalar. */
Test(check_finite, input_ranges) {
  const char *div = "void k(const int A[64], int B[64]) {\n"
                    "  for (int i = 0; i < 64; i++) B[i] = 1000 / A[i];\n"
                    "}\n";
  char src[512];
  NpgCheckResult r;
  NpgSession *s = npg_open_string("k.c", div, strlen(div));
  cr_expect(!npg_check(s, 0, 1, &r));
  cr_expect_str_eq(r.message, "k.c:2:39: error: division by zero in '1000 / A[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  npg_close(s);
  snprintf(src, sizeof src, "%s#pragma npu inputs(k, A, 1, 5)\n", div);
  s = npg_open_string("k.c", src, strlen(src));
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
  const char *shift = "void k(int n, const int A[4], int B[4]) {\n"
                      "  for (int i = 0; i < 4; i++) B[i] = A[i] >> n;\n"
                      "}\n"
                      "#pragma npu inputs(k, n, 32, 32)\n";
  s = npg_open_string("k.c", shift, strlen(shift));
  cr_expect(!npg_check(s, 0, 1, &r));
  cr_expect_str_eq(r.message, "k.c:2:38: error: shift count outside [0, 31] in 'A[i] >> n' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  npg_close(s);
}

/* The generator itself: ranges inclusive for integers, [lo, hi) for
 * floats; spd matrices symmetric and strictly diagonally dominant. */
Test(check_finite, generated_inputs) {
  const char *src = "void k(const int8_t A[64], const float X[64], const double S[3][5][5], float Y[64]) {\n"
                    "  for (int i = 0; i < 64; i++) Y[i] = X[i] + A[i] + (float)S[0][0][0];\n"
                    "}\n"
                    "#pragma npu inputs(k, A, -3, -2)\n"
                    "#pragma npu inputs(k, X, 10, 10.5f)\n"
                    "#pragma npu inputs(k, S, spd)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  Module *m = s->m;
  void **args = check_make_inputs(m->kernels, m->check_specs, 1, false);
  const int8_t *a = args[0];
  const float *x = args[1];
  const double(*sp)[5][5] = args[2];
  bool lo = false, hi = false;
  for (int i = 0; i < 64; i++) {
    cr_expect(a[i] == -3 || a[i] == -2, "A[%d] = %d", i, a[i]);
    lo |= a[i] == -3, hi |= a[i] == -2;
    cr_expect(x[i] >= 10.0f && x[i] <= 10.5f, "X[%d] = %g", i, x[i]);
  }
  cr_expect(lo && hi);
  for (int b = 0; b < 3; b++)
    for (int i = 0; i < 5; i++) {
      double off = 0;
      for (int j = 0; j < 5; j++) {
        cr_expect_eq(sp[b][i][j], sp[b][j][i]);
        if (j != i) off += fabs(sp[b][i][j]);
      }
      cr_expect_gt(sp[b][i][i], off, "row %d of matrix %d", i, b);
    }
  check_free_args(args, m->kernels->nparams);
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

/* Ranges as wide as the types (issue 39): -9e307 to 9e307 spans more
 * than DBL_MAX, and the generator gave infinities, which the check blamed
 * on the kernel; 18446744073709551615u was read as -1 and refused. */
Test(check_finite, ranges_as_wide_as_the_type) {
  const char *src = "#include <stdint.h>\n"
                    "void k(const double A[64], const uint64_t U[64], double B[64], uint64_t V[64]) {\n"
                    "  for (int i = 0; i < 64; i++) { B[i] = A[i] * 0.5; V[i] = U[i] / 2u; }\n"
                    "}\n"
                    "#pragma npu inputs(k, A, -9e307, 9e307)\n"
                    "#pragma npu inputs(k, U, 0, 18446744073709551615u)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  void **args = check_make_inputs(s->m->kernels, s->m->check_specs, 1, false);
  const double *a = args[0];
  const uint64_t *u = args[1];
  bool neg = false, pos = false, high = false;
  for (int i = 0; i < 64; i++) {
    cr_expect(a[i] >= -9e307 && a[i] <= 9e307, "A[%d] = %g", i, a[i]);
    neg |= a[i] < -1e307, pos |= a[i] > 1e307, high |= u[i] > UINT64_MAX / 2;
  }
  cr_expect(neg && pos && high, "the values span the ranges");
  check_free_args(args, s->m->kernels->nparams);
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

static void pragma_refused(const char *pragma, const char *want) {
  char src[1024];
  snprintf(src, sizeof src,
           "void k(const int A[4], const float X[4][3], float Y[4], int Z[4], int n) {\n"
           "  for (int i = 0; i < 4; i++) { Y[i] = X[i][0] + A[i]; Z[i] = n; }\n"
           "}\n"
           "%s\n",
           pragma);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  const char *e = npg_errors(s);
  const char *nl = strchr(e, '\n');
  char first[1024];
  snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - e) : (int)strlen(e), e);
  cr_expect_str_eq(first, want, "%s", e);
  npg_close(s);
}

Test(check_finite, pragma_errors) {
  pragma_refused("#pragma npu inputs(q, A, 0, 1)", "k.c:4:20: error: no kernel 'q' is defined above this pragma");
  pragma_refused("#pragma npu inputs(k, B, 0, 1)", "k.c:4:23: error: kernel 'k' has no parameter 'B'");
  pragma_refused("#pragma npu inputs(k, A, 2, 1)", "k.c:4:26: error: the range of 'A' is empty: LO is greater than HI");
  pragma_refused("#pragma npu inputs(k, A, 0, 1.5)", "k.c:4:29: error: the bounds of 'A' (int) must be integer constants");
  pragma_refused("#pragma npu inputs(k, A, 0, 3000000000)", "k.c:4:29: error: 3000000000 does not fit in 'A' (int)");
  pragma_refused("#pragma npu inputs(k, A, 0, 18446744073709551615u)",
                 "k.c:4:29: error: 18446744073709551615 does not fit in 'A' (int)");
  pragma_refused("#pragma npu inputs(k, A, -1, 4294967295u)", "k.c:4:30: error: 4294967295 does not fit in 'A' (int)");
  pragma_refused("#pragma npu inputs(k, X, spd)",
                 "k.c:4:26: error: spd needs an array of float or double whose last two extents are equal (square "
                 "matrices); 'X' is not one");
  pragma_refused("#pragma npu inputs(k, A)", "k.c:4:13: error: inputs takes (KERNEL, PARAM, LO, HI) or (KERNEL, PARAM, spd)");
  pragma_refused("#pragma npu inputs(k, n, 1, 2)\n#pragma npu inputs(k, n, 1, 3)",
                 "k.c:5:23: error: the inputs of 'n' are already given on line 4");
  pragma_refused("#pragma npu allow_nonfinite(k, Z)", "k.c:4:32: error: 'Z' is not an output array of float or double");
  pragma_refused("#pragma npu allow_nonfinite(k, X)", "k.c:4:32: error: 'X' is not an output array of float or double");
}

/* In a schedule file, where they would come after the variants were built. */
Test(check_finite, pragmas_belong_in_the_kernel_file) {
  const char *src = "void k(const int A[4], int B[4]) {\n  for (int i = 0; i < 4; i++) B[i] = A[i];\n}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  const char *sched = "#pragma npu inputs(k, A, 0, 1)\n";
  cr_expect(!npg_add_schedule_string(s, "s.sched", sched, strlen(sched)));
  const char *e = npg_errors(s);
  cr_expect(!strncmp(e, "s.sched:1:13: error: 'inputs' belongs in the kernel file, after the kernel", 73), "%s", e);
  npg_close(s);
}

/* The scalar-ends inputs (the check's last run of an NPU variant): integer
 * scalars without a range at their types' maximum, everything else as the
 * seed draws it. */
Test(check_inputs, scalar_ends) {
  const char *src = "#include <stdint.h>\n"
                    "void k(const int A[4], int B[4], int m, unsigned u, int8_t q, int r, float f) {\n"
                    "  for (int i = 0; i < 4; i++) B[i] = A[i] + m + (int)u + q + r + (int)f;\n"
                    "}\n"
                    "#pragma npu inputs(k, r, 3, 3)\n";
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse("k.c", src, strlen(src), &d);
  cr_assert_not_null(m);
  void **a = check_make_inputs(m->kernels, m->check_specs, 1, false);
  void **e = check_make_inputs(m->kernels, m->check_specs, 1, true);
  cr_assert_eq(memcmp(a[0], e[0], 4 * sizeof(int)), 0, "arrays as drawn");
  cr_assert_eq(*(int *)e[2], 2147483647);
  cr_assert_eq(*(unsigned *)e[3], 4294967295u);
  cr_assert_eq(*(int8_t *)e[4], 127);
  cr_assert_eq(*(int *)e[5], 3, "a scalar with a range keeps it");
  cr_assert_eq(*(float *)e[6], *(float *)a[6], "floats as drawn");
  cr_assert_leq(*(int *)a[2], 8);
  check_free_args(a, m->kernels->nparams);
  check_free_args(e, m->kernels->nparams);
  module_free(m);
  diag_free(&d);
}
