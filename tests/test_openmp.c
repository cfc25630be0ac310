/* OpenMP (issue 39): parallel and vectorize become `omp parallel for` and
 * `omp simd` in the emitted C, and those must nest as OpenMP allows. A
 * parallel loop inside a vectorized one is refused, by whichever step makes
 * the nest; and the examples that use both are built with gcc -fopenmp
 * -Werror and run on 4 threads against the kernel as written, built the
 * same way. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

static const char *first_error(const char *src) {
  static char line[1024];
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert(s);
  const char *errs = npg_errors(s);
  size_t n = strcspn(errs, "\n");
  if (n >= sizeof line) n = sizeof line - 1;
  memcpy(line, errs, n);
  line[n] = 0;
  npg_close(s);
  return line;
}

#define NEST                                            \
  "void k(const float A[64][64], float B[64][64]) {\n" \
  "  for (int i = 0; i < 64; i++)\n"                    \
  "    for (int j = 0; j < 64; j++)\n"                  \
  "      B[i][j] = A[i][j] * 2.0f;\n"                   \
  "}\n#pragma npu schedule(k, v)\n"

Test(openmp, a_parallel_loop_inside_a_vectorized_one_is_refused) {
  cr_expect_str_eq(first_error(NEST "#pragma npu vectorize(i)\n#pragma npu parallel(j)\n"),
                   "k.c:8:13: error: parallel: loop j is parallel (parallel(j), line 8) inside loop i, vectorized "
                   "(vectorize(i), line 7): OpenMP allows no 'parallel for' inside a 'simd' loop (gcc -fopenmp "
                   "refuses the file); parallelize the outer loop and vectorize the inner one");
  cr_expect_str_eq(first_error(NEST "#pragma npu parallel(j)\n#pragma npu vectorize(i)\n"),
                   "k.c:8:13: error: vectorize: loop j is parallel (parallel(j), line 7) inside loop i, vectorized "
                   "(vectorize(i), line 8): OpenMP allows no 'parallel for' inside a 'simd' loop (gcc -fopenmp "
                   "refuses the file); parallelize the outer loop and vectorize the inner one");
  /* a reorder that puts the marks the wrong way round */
  cr_expect(strstr(first_error(NEST "#pragma npu parallel(i)\n#pragma npu vectorize(j)\n#pragma npu reorder(j, i)\n"),
                   "k.c:9:13: error: reorder: loop i is parallel (parallel(i), line 7) inside loop j, vectorized"));
  /* the valid nest stays */
  cr_expect_str_eq(first_error(NEST "#pragma npu parallel(i)\n#pragma npu vectorize(j)\n"), "");
}

/* (A const array parameter takes a T (*)[n] only cast: C adds const
 * no deeper than one level.) Emits an example into $d, builds the kernel as written (ref) and its
 * variant (var) with gcc -fopenmp -Werror beside a main that fills the
 * inputs from one seed, and runs it on 4 threads: exit 0 when every output
 * is bit-identical (the nests are elementwise, so no sum is reassociated). */
static void built_and_run(const char *example, const char *ref, const char *var, const char *main_body) {
  char cmd[8192], out[8192];
  snprintf(cmd, sizeof cmd,
           "r=$PWD; n=%s; case $n in /*) ;; *) n=$r/$n;; esac; d=$(mktemp -d) && "
           "$n emit examples/%s.c -o $d && grep -q 'pragma omp parallel for' $d/%s.c && "
           "grep -q 'pragma omp simd' $d/%s.c && cd $d && "
           "printf '%%s\\n' '#include <stdio.h>' '#include <string.h>' '#include \"%s.h\"' '#include \"%s.h\"' "
           "'static unsigned seed = 1;' "
           "'static int next(void) { seed = seed * 1103515245u + 12345u; return (int)(seed >> 16 & 255) - 128; }' "
           "'#define FILL(a, T, scale) for (size_t e = 0; e < sizeof a / sizeof(T); e++) ((T *)a)[e] = (T)(next() * scale)' "
           "'int main(void) {' %s '}' > main.c && "
           "gcc -std=c99 -O2 -fopenmp -Wall -Wextra -pedantic -Werror main.c %s.c %s.c -o run && "
           "OMP_NUM_THREADS=4 ./run; rc=$?; cd $r; rm -rf $d; exit $rc",
           npugen(), example, var, var, ref, var, main_body, ref, var);
  int rc = run(cmd, out, sizeof out);
  cr_expect_eq(rc, 0, "%s: %s", var, out);
}

Test(openmp, matmul_tiled_builds_and_runs_on_four_threads) {
  built_and_run("matmul", "matmul", "matmul_tiled",
                "'#define M 256' " /* the example's sizes: its header defines no macro of the kernel's */
                "'static int8_t A[M][512], B[512][128]; static int32_t C1[M][128], C2[M][128];' "
                "'FILL(A, int8_t, 1); FILL(B, int8_t, 1);' "
                "'const int8_t (*a)[512] = (const int8_t (*)[512])A, (*b)[128] = (const int8_t (*)[128])B;' "
                "'matmul(a, b, C1); matmul_tiled(a, b, C2);' "
                "'return memcmp(C1, C2, sizeof C1) != 0;'");
}

Test(openmp, jacobi2d_strips_builds_and_runs_on_four_threads) {
  built_and_run("stencil", "jacobi2d", "jacobi2d_strips",
                "'#define N 64' "
                "'static float A1[N][N], B1[N][N], A2[N][N], B2[N][N];' "
                "'FILL(A1, float, 0.0625f); FILL(B1, float, 0.0625f);' "
                "'memcpy(A2, A1, sizeof A1); memcpy(B2, B1, sizeof B1);' "
                "'jacobi2d(A1, B1); jacobi2d_strips(A2, B2);' "
                "'return memcmp(A1, A2, sizeof A1) != 0 || memcmp(B1, B2, sizeof B1) != 0;'");
}

Test(openmp, conv2d_tiled_builds_and_runs_on_four_threads) {
  built_and_run("conv2d", "conv2d", "conv2d_tiled",
                "'#define C 16' '#define H 28' '#define W 28' '#define OC 32' "
                "'static int8_t in[C][H][W], wt[OC][C][3][3]; static int32_t bias[OC], o1[OC][H][W], o2[OC][H][W];' "
                "'FILL(in, int8_t, 1); FILL(wt, int8_t, 1); FILL(bias, int32_t, 64);' "
                "'const int8_t (*x)[H][W] = (const int8_t (*)[H][W])in, (*w)[C][3][3] = (const int8_t (*)[C][3][3])wt;' "
                "'conv2d(x, w, bias, o1); conv2d_tiled(x, w, bias, o2);' "
                "'return memcmp(o1, o2, sizeof o1) != 0;'");
}
