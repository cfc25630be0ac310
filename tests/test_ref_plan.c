/* The reference's plan (lower/ref_plan.c, docs/check.md "Speed"): an
 * innermost accumulation runs unrolled, as one expression, and its adds are
 * left unchecked only where the declared types and the trip count prove
 * they cannot overflow. Each kernel here would pass, wrongly, if the plan
 * dropped a check on the check's drawn inputs, ignored the initial value
 * or the trip count; or differ from the variant if the unrolled adds were
 * reordered or rounded otherwise. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* Every variant passes bit for bit. */
static void exact(const char *src) {
  NpgSession *s = open_ok(src, "");
  for (int v = 0; v < npg_variant_count(s); v++) {
    NpgCheckResult r;
    cr_expect(npg_check(s, v, 1, &r), "%s: %s", npg_variant_name(s, v), r.message);
    cr_expect(r.exact, "%s: max error %g", npg_variant_name(s, v), r.max_error);
  }
  npg_close(s);
}

#define MATMUL(T, INIT)                                                        \
  "#include <stdint.h>\n"                                                      \
  "#define N 64\n"                                                             \
  "void k(const " T " A[N][N], const " T " B[N][N], int32_t C[N][N]) {\n"      \
  "  for (int i = 0; i < N; i++)\n"                                            \
  "    for (int j = 0; j < N; j++) {\n"                                        \
  "      C[i][j] = " INIT ";\n"                                                \
  "      for (int k = 0; k < N; k++)\n"                                        \
  "        C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"                  \
  "    }\n"                                                                    \
  "}\n"

#define OVERFLOW \
  "k.c:8:9: error: signed overflow in 'C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)"

/* int16 products reach 2^30: the type does not bound 64 of them, so the
 * adds stay checked (the check's drawn inputs would, and are not used). */
Test(check_plan, int16_accumulation_stays_checked) {
  check_fails(MATMUL("int16_t", "0") "#pragma npu inputs(k, A, 32767, 32767)\n#pragma npu inputs(k, B, 32767, 32767)\n"
                               "#pragma npu schedule(k, k_split)\n#pragma npu split(k, 4, ko, ki)\n",
        OVERFLOW);
}

/* int8 products (16384 at most) over 64 terms fit, but not from this
 * initial value: the proof counts it. */
Test(check_plan, initial_value_counts) {
  check_fails(MATMUL("int8_t", "2147483000") "#pragma npu inputs(k, A, -128, -128)\n#pragma npu inputs(k, B, -128, -128)\n",
        OVERFLOW);
}

/* int8 products over 140000 terms (2.3e9 at most): the trip count counts. */
Test(check_plan, trip_count_counts) {
  check_fails("#include <stdint.h>\n"
        "void k(const int8_t A[140000], const int8_t B[140000], int32_t C[1]) {\n"
        "  C[0] = 0;\n"
        "  for (int k = 0; k < 140000; k++)\n"
        "    C[0] += (int32_t)A[k] * (int32_t)B[k];\n"
        "}\n"
        "#pragma npu inputs(k, A, 127, 127)\n#pragma npu inputs(k, B, 127, 127)\n",
        "k.c:5:5: error: signed overflow in 'C[0] += (int32_t)A[k] * (int32_t)B[k]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

/* At the ends of int8 the proven accumulation is exact. */
Test(check_plan, int8_ends_proven) {
  exact(MATMUL("int8_t", "0") "#pragma npu inputs(k, A, -128, -128)\n#pragma npu inputs(k, B, -128, -128)\n"
                              "#pragma npu schedule(k, k_tiled)\n#pragma npu tile(i, j, 16, 16, io, jo, ii, ji)\n");
}

/* Float sums unrolled keep C's order and rounding: the variants' (the
 * kernel as written, a split reduction) match bit for bit; 1003 is not a
 * multiple of the unroll, so the rest runs one at a time. A float sum into
 * a double converts each term as `+=` does. */
Test(check_plan, float_sums_bit_exact) {
  exact("#define N 1003\n"
        "void k(const float A[8][N], const float B[N], float C[8], double D[8]) {\n"
        "  for (int i = 0; i < 8; i++) {\n"
        "    C[i] = 0.5f;\n"
        "    for (int k = 0; k < N; k++)\n"
        "      C[i] += A[i][k] * B[k];\n"
        "    D[i] = 0;\n"
        "    for (int k = 0; k <= N - 1; k++)\n"
        "      D[i] += A[i][k] * B[k];\n"
        "  }\n"
        "}\n"
        "#pragma npu inputs(k, A, -1000, 1000)\n"
        "#pragma npu schedule(k, k_split)\n"
        "#pragma npu split(i, 2, io, ii)\n");
}

/* The unrolled reference steps a pointer along the counter's dimension:
 * here the middle one of three (stride 5) and the first of two (stride
 * 8), with a remainder; a wrong stride would read other elements and
 * differ from the variants. */
Test(check_plan, stepped_accesses_in_any_dimension) {
  exact("#include <stdint.h>\n"
        "void k(const int16_t X[3][21][5], const int16_t W[21][8], int32_t E[5][8]) {\n"
        "  for (int i = 0; i < 5; i++)\n"
        "    for (int j = 0; j < 8; j++) {\n"
        "      E[i][j] = 1;\n"
        "      for (int k = 0; k < 21; k++)\n"
        "        E[i][j] += (int32_t)X[2][k][i] * (int32_t)W[k][j];\n"
        "    }\n"
        "}\n"
        "#pragma npu schedule(k, k_split)\n"
        "#pragma npu split(k, 4, ko, ki)\n");
}
