/* The instrumented reference (docs/check.md, lower/ref_body.c): a kernel
 * whose run is undefined in C fails the check of every variant, with the
 * operation's place in the kernel source and the seed. Before it, the
 * reference and the variants wrapped the same way under tcc, and these
 * kernels passed bit-exact. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static void passes(const char *src) {
  NpgSession *s = open_ok(src, "");
  for (int v = 0; v < npg_variant_count(s); v++) {
    NpgCheckResult r;
    cr_expect(npg_check(s, v, 1, &r), "%s: %s", npg_variant_name(s, v), r.message);
  }
  npg_close(s);
}

/* Negative cycles on the default inputs (-8..8) double the distances each
 * round: past INT_MAX long before the end. */
Test(check_ub, all_pairs_shortest_paths_overflows) {
  check_fails("#define N 16\n"
        "void apsp(int d[N][N]) {\n"
        "  for (int k = 0; k < N; k++)\n"
        "    for (int i = 0; i < N; i++)\n"
        "      for (int j = 0; j < N; j++)\n"
        "        d[i][j] = d[i][k] + d[k][j] < d[i][j] ? d[i][k] + d[k][j] : d[i][j];\n"
        "}\n"
        "#pragma npu schedule(apsp, apsp_tiled)\n"
        "#pragma npu split(j, 4, jo, ji)\n",
        "k.c:6:19: error: signed overflow in 'd[i][k] + d[k][j]' (int) with inputs of seed 1; if apsp is defined for fewer inputs, give it its domain: #pragma npu inputs(apsp, PARAM, LO, HI)");
}

/* The unrolled accumulation of the reference reads its bounds as C
 * computes them: a folded bound (16 + 0) is checked as the literal is. */
Test(check_ub, folded_bound_overflow_is_caught_as_the_literal_one) {
  for (int folded = 0; folded < 2; folded++) {
    char src[512];
    snprintf(src, sizeof src,
             "void k(const int p[16], int out[1]) {\n"
             "  out[0] = 0;\n"
             "  for (int h = %s; h < %s; h++)\n"
             "    out[0] += p[h] * 268435456;\n"
             "}\n",
             folded ? "3 - 3" : "0", folded ? "16 + 0" : "16");
    check_fails(src, "k.c:4:5: error: signed overflow in 'out[0] += p[h] * 268435456' (int) with inputs of seed 1; "
                     "if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  }
}

Test(check_ub, repeated_square_overflows) {
  check_fails("void k(const int A[4], int B[4]) {\n"
        "  int x = A[0] + 10;\n"
        "  for (int i = 0; i < 8; i++)\n"
        "    x = x * x;\n"
        "  B[0] = x;\n"
        "}\n",
        "k.c:4:9: error: signed overflow in 'x * x' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

/* s is written only where A[i] > 0: the static analysis cannot say the
 * read comes first, the run does (A[1] is -6 with seed 1). */
Test(check_ub, uninitialized_read_at_run_time) {
  check_fails("void k(const int A[16], int B[16]) {\n"
        "  for (int i = 0; i < 16; i++) {\n"
        "    int s;\n"
        "    if (A[i] > 0) s = A[i];\n"
        "    B[i] = s;\n"
        "  }\n"
        "}\n",
        "k.c:5:12: error: read of uninitialized 's' with inputs of seed 1");
}

Test(check_ub, uninitialized_array_element_at_run_time) {
  check_fails("void k(const int A[8], int B[8]) {\n"
        "  int t[8];\n"
        "  for (int i = 0; i < 8; i++)\n"
        "    if (A[i] > 0) t[i] = A[i];\n"
        "  for (int i = 0; i < 8; i++)\n"
        "    B[i] = t[i];\n"
        "}\n",
        "k.c:6:12: error: read of uninitialized 't[i]' with inputs of seed 1");
}

Test(check_ub, division) {
  check_fails("void k(const int A[8], const int D[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] / D[i];\n"
        "}\n"
        "#pragma npu inputs(k, D, 0, 1)\n",
        "k.c:2:38: error: division by zero in 'A[i] / D[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("void k(const int A[8], const int D[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] % D[i];\n"
        "}\n"
        "#pragma npu inputs(k, A, -2147483647 - 1, -2147483647 - 1)\n"
        "#pragma npu inputs(k, D, -1, -1)\n",
        "k.c:2:38: error: signed overflow in 'A[i] % D[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

Test(check_ub, shifts) {
  check_fails("void k(const int A[8], const int S[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] >> S[i];\n"
        "}\n"
        "#pragma npu inputs(k, S, 32, 40)\n",
        "k.c:2:38: error: shift count outside [0, 31] in 'A[i] >> S[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("void k(const int A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] << 3;\n"
        "}\n",
        "k.c:2:38: error: left shift of a negative value in 'A[i] << 3' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("void k(const int A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] << 30;\n"
        "}\n"
        "#pragma npu inputs(k, A, 2, 8)\n",
        "k.c:2:38: error: signed overflow in 'A[i] << 30' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

Test(check_ub, negation_and_abs_of_the_least_int) {
  check_fails("void k(const int A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = -A[i];\n"
        "}\n"
        "#pragma npu inputs(k, A, -2147483647 - 1, -2147483647 - 1)\n",
        "k.c:2:38: error: signed overflow in '-A[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("#include <stdlib.h>\n"
        "void k(const int A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = abs(A[i]);\n"
        "}\n"
        "#pragma npu inputs(k, A, -2147483647 - 1, -2147483647 - 1)\n",
        "k.c:3:38: error: signed overflow in 'abs(A[i])' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

Test(check_ub, sixty_four_bit_overflow) {
  check_fails("void k(const long long A[4], long long B[4]) {\n"
        "  for (int i = 0; i < 4; i++) B[i] = A[i] * 4611686018427387904LL;\n"
        "}\n",
        "k.c:2:38: error: signed overflow in 'A[i] * 4611686018427387904LL' (long long) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

Test(check_ub, float_to_int_out_of_range) {
  check_fails("void k(const float A[8], int8_t B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = A[i] * 300.0f;\n"
        "}\n",
        "k.c:2:38: error: out-of-range conversion of 'A[i] * 300.0f' (float) to 'int8_t' with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("#include <math.h>\n"
        "void k(const float A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) B[i] = (int)sqrtf(A[i]);\n"
        "}\n",
        "k.c:3:38: error: out-of-range conversion of 'sqrtf(A[i])' (float) to 'int' with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

/* A compound assignment is checked as the operation it does, and ++ as += 1. */
Test(check_ub, compound_assignments) {
  check_fails("void k(const float A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) {\n"
        "    int x = 1 << 20;\n"
        "    x *= A[i] * 5000.0f;\n"
        "    B[i] = x;\n"
        "  }\n"
        "}\n",
        "k.c:4:5: error: out-of-range conversion of 'x *= A[i] * 5000.0f' (float) to 'int' with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
  check_fails("void k(const int A[8], int B[8]) {\n"
        "  for (int i = 0; i < 8; i++) {\n"
        "    int x = A[i];\n"
        "    x++;\n"
        "    B[i] = x;\n"
        "  }\n"
        "}\n"
        "#pragma npu inputs(k, A, 2147483647, 2147483647)\n",
        "k.c:4:5: error: signed overflow in 'x += 1' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}

/* Defined arithmetic passes: unsigned wrap-around, narrowing stores,
 * shifts and divisions in range, int8 products. */
Test(check_ub, defined_arithmetic_passes) {
  passes("#include <stdlib.h>\n"
         "void k(const int8_t A[8], const uint8_t U[8], const float F[8], int B[8], uint32_t W[8], int8_t C[8]) {\n"
         "  for (int i = 0; i < 8; i++) {\n"
         "    unsigned int u = U[i];\n"
         "    W[i] = u - 100u;\n"
         "    B[i] = (U[i] << 2) + abs(A[i]) - (A[i] >> 1) + A[i] / 3 + A[i] % 5 + (int)(F[i] * 100.0f);\n"
         "    C[i] = (int8_t)(A[i] * 100);\n"
         "    int s = 0;\n"
         "    for (int j = 0; j <= i; j++) s += A[j] * A[j];\n"
         "    B[i] += s;\n"
         "  }\n"
         "}\n"
         "#pragma npu schedule(k, k_split)\n"
         "#pragma npu split(i, 3, io, ii)\n");
}

/* tcc converts a signed char to unsigned short as if to int (-6 stays -6,
 * where C gives 65530); the reference and the check's C mask the
 * conversion, so both compute C's value (fuzz_kernels seed 4294967539). */
Test(check_ub, signed_char_to_unsigned_short) {
  const char *src = "#include <stdint.h>\n#include <math.h>\n"
                    "void k(double w[4], const signed char Z[4], int q[4]) {\n"
                    "  for (int i = 0; i < 4; i++) {\n"
                    "    w[i] = (unsigned short)Z[i] - (uint16_t)fmin(fmax(w[i], 0.0), 65534.0);\n"
                    "    q[i] = (unsigned short)Z[i];\n"
                    "  }\n"
                    "}\n"
                    "#pragma npu inputs(k, Z, -8, -1)\n";
  passes(src);
  /* the C a user gets is C as written: gcc converts it right */
  NpgSession *s = open_ok(src, "");
  cr_expect(strstr(npg_emit_source(s, 0), "q[i] = (unsigned short)Z[i];"), "%s", npg_emit_source(s, 0));
  npg_close(s);
}

/* The reference runs in a thread of its own while the kernel as written,
 * emitted, runs beside it (jit/check_orders.c); here the emitted kernel
 * raises SIGFPE on the divisor 0 while the reference may still be running
 * up to its check. Both threads' signals are caught (jit/guard.c shares
 * the handlers between concurrent calls), and the result is the
 * reference's, as when it ran first. Several sessions, so the two overlap
 * in different ways. */
Test(check_ub, variant_crashes_beside_the_reference) {
  for (int round = 0; round < 8; round++)
    check_fails("#define N 4096\n"
          "void k(const int A[N], const int D[N], int B[N]) {\n"
          "  for (int i = 0; i < N; i++) B[i] = A[i] / D[i];\n"
          "}\n"
          "#pragma npu inputs(k, D, 0, 0)\n"
          "#pragma npu schedule(k, k_split)\n"
          "#pragma npu split(i, 64, io, ii)\n",
          "k.c:3:38: error: division by zero in 'A[i] / D[i]' (int) with inputs of seed 1; if k is defined for fewer inputs, give it its domain: #pragma npu inputs(k, PARAM, LO, HI)");
}
