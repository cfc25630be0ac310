/* Function-like macros and conditional groups (frontend/macros.c, pp_if.c):
 * a kernel file reads as the C preprocessor hands it to the compiler. Each
 * kernel is checked against its reference, which tcc preprocesses itself:
 * an expansion that differed from cpp's would compute something else. */
#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* The first line of the file's errors is exactly want. */
static void first_error(const char *src, const char *want) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  const char *all = npg_errors(s);
  const char *nl = strchr(all, '\n');
  size_t len = nl ? (size_t)(nl - all) : strlen(all);
  cr_expect(len == strlen(want) && !strncmp(all, want, len), "expected: %s\ngot:      %s", want, all);
  npg_close(s);
}

/* Arguments are substituted as tokens, so the body's operators bind as
 * written: SQ(x + 1) is x + 1 * x + 1, and 2 * ADD(a, b) is 2 * a + b. */
Test(macros, expansion_keeps_cpp_precedence) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "#define SQ(x) x * x\n"
                          "#define ADD(a, b) a + b\n"
                          "#define max_score(a, b) ((a >= b) ? a : b)\n"
                          "void f(const int32_t a[64], const int32_t b[64], int32_t c[64], int32_t d[64]) {\n"
                          "  for (int i = 0; i < 64; i++) {\n"
                          "    c[i] = 2 * ADD(a[i] % 9, b[i] % 9) + SQ(a[i] % 5 + 1);\n"
                          "    d[i] = max_score(a[i] % 7 + 1, b[i] % 7);\n"
                          "  }\n"
                          "}\n",
                          "");
  int v = checked(s, "f");
  const char *c = npg_emit_source(s, v);
  has(c, "c[i] = 2 * a[i] % 9 + b[i] % 9 + a[i] % 5 + 1 * a[i] % 5 + 1;");
  has(c, "d[i] = a[i] % 7 + 1 >= b[i] % 7 ? a[i] % 7 + 1 : b[i] % 7;");
  npg_close(s);
}

/* Nested uses, a macro passed as an argument and rescanned, commas inside
 * an argument's parentheses, a macro of no parameters, and a use whose '('
 * follows the expansion of another. */
Test(macros, nesting_and_rescanning) {
  NpgSession *s = open_ok("#define INC(x) ((x) + 1)\n"
                          "#define TWICE(f, x) f(f(x))\n"
                          "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
                          "#define PICK(a, b) b\n"
                          "#define ZERO() 0\n"
                          "#define ID(x) x\n"
                          "#define ABS(x) ID(fabsf)(x)\n"
                          "void f(const float a[32], float o[32]) {\n"
                          "  for (int i = 0; i < 32; i++)\n"
                          "    o[i] = TWICE(INC, MAX(MAX(a[i], 0.5f), PICK(1, a[i] * 2))) + ZERO() + ABS(a[i]);\n"
                          "}\n"
                          "#pragma npu schedule(f, f_split)\n"
                          "#pragma npu split(i, 8, io, ii)\n",
                          "");
  checked(s, "f");
  int v = checked(s, "f_split");
  has(npg_emit_source(s, v), "fabsf(a[io * 8 + ii])");
  npg_close(s);
}

/* An object-like macro whose body uses a function-like one: expanded where
 * it is defined, so that it is a constant, and re-emitted so. */
Test(macros, a_constant_defined_by_a_function_like_macro) {
  NpgSession *s = open_ok("#define SQ(x) ((x) * (x))\n"
                          "#define N SQ(4)\n"
                          "void f(const float a[N], float o[N]) {\n"
                          "  for (int i = 0; i < N; i++) o[i] = a[i] * 2;\n"
                          "}\n",
                          "");
  NpgCheckResult r;
  cr_assert(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.compared, 16);
  has(npg_emit_source(s, 0), "#define N ((4) * (4))\n");
  npg_close(s);
  first_error("#define SQ(x) ((x) * (x))\n#define N SQ(zz)\nvoid f(float a[4]) { a[0] = N; }\n",
              "k.c:2:11: error: 'zz' is not declared");
}

/* A token the user wrote in an argument reports its own place; a token of
 * the body reports the macro's use. */
Test(macros, errors_point_at_the_source) {
  first_error("#define F(x) ((x) + 1)\nvoid f(float a[4]) {\n  for (int i = 0; i < 4; i++)\n    a[i] = F(a[i] + zz);\n}\n",
              "k.c:4:21: error: 'zz' is not declared");
  first_error("#define F(x) ((x) + zz)\nvoid f(float a[4]) {\n  for (int i = 0; i < 4; i++)\n    a[i] = F(a[i]);\n}\n",
              "k.c:4:12: error: 'zz' is not declared");
  first_error("#define G(x) ((x) + 1)\n#define F(x) G(x[9])\nvoid f(float a[4]) {\n  a[0] = F(a);\n}\n",
              "k.c:4:10: error: index '9' is out of bounds: it ranges over [9, 9] but dimension 1 of 'a' has extent 4");
  first_error("#define F(x, y) x\nvoid f(float a[4]) { a[0] = F(1); }\n",
              "k.c:2:29: error: macro 'F' takes 2 arguments, but is given 1");
  first_error("#define F(x) x\nvoid f(float a[4]) { a[0] = F(1; }\n", "k.c:2:29: error: unterminated use of macro 'F': no ')'");
  first_error("#define F(x) x\n#define F(x) x\nvoid f(float a[4]) { a[0] = 1; }\n",
              "k.c:2:9: error: macro 'F' is already defined (line 1)");
  /* its own name in its expansion is left alone, as a call */
  first_error("#define F(x) F(x + 1)\nvoid f(float a[4]) { a[0] = F(1); }\n",
              "k.c:2:29: error: call to 'F' is not supported: kernels may call <math.h> functions, abs, and kernels "
              "defined earlier in the file");
  first_error("#define F(x, ...) x\nvoid f(float a[4]) { a[0] = 1; }\n",
              "k.c:1:14: error: variadic macros ('...') are not supported in kernels");
}

Test(macros, stringizing_and_pasting_are_refused) {
  first_error("#define S(x) #x\nvoid f(float a[4]) { a[0] = 1; }\n",
              "k.c:1:14: error: '#' in macro 'S' is not supported in kernels: kernels have no stringizing");
  first_error("#define P(x, y) x ## y\nvoid f(float a[4]) { a[0] = 1; }\n",
              "k.c:1:19: error: '##' in macro 'P' is not supported in kernels: kernels have no token pasting");
}

/* An include guard around the whole file, as a header would have. */
Test(macros, include_guard) {
  NpgSession *s = open_ok("#ifndef SCALE_H\n"
                          "#define SCALE_H\n"
                          "#ifdef SCALE_H\n"
                          "void scale(float a[16]) {\n"
                          "  for (int i = 0; i < 16; i++) a[i] = a[i] * 2;\n"
                          "}\n"
                          "#endif\n"
                          "#endif\n",
                          "");
  checked(s, "scale");
  npg_close(s);
}

/* A size switch: #if, #elif, #else on the file's macros, defined, and a
 * function-like macro in the condition. Only the taken group's #define is
 * read (N = 48 counts 48 elements). */
Test(macros, size_switch) {
  const char *src = "#define SIZE 2\n"
                    "#define LARGE(n) ((n) > 1)\n"
                    "#if SIZE == 1\n"
                    "#define N 16\n"
                    "#elif LARGE(SIZE) && defined(SIZE) && !defined(NDEBUG)\n"
                    "#define N 48\n"
                    "#else\n"
                    "#define N 64\n"
                    "#endif\n"
                    "void f(const float a[N], float o[N]) {\n"
                    "  for (int i = 0; i < N; i++) {\n"
                    "#ifdef USE_SQUARE\n"
                    "    o[i] = a[i] * a[i];\n"
                    "#else\n"
                    "    o[i] = a[i] + 1;\n"
                    "#endif\n"
                    "  }\n"
                    "}\n";
  NpgSession *s = open_ok(src, "");
  NpgCheckResult r;
  cr_assert(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.compared, 48);
  has(npg_emit_source(s, 0), "o[i] = a[i] + 1;");
  npg_close(s);
  /* tree-sitter-c parses both branches: each must hold whole statements */
  first_error("void f(float a[4]) {\n#ifdef X\n  for (int i = 0; i < 4; i++) {\n#else\n  for (int i = 0; i < 2; i++) {\n"
              "#endif\n    a[i] = 1;\n  }\n}\n",
              "k.c:2:1: error: cannot read '#ifdef' here: each branch of a conditional group must hold whole statements, "
              "declarations or directives");
  first_error("#if 1 / 0\n#endif\nvoid f(float a[4]) { a[0] = 1; }\n", "k.c:1:5: error: division by zero in #if");
  first_error("#if 1.5\n#endif\nvoid f(float a[4]) { a[0] = 1; }\n",
              "k.c:1:5: error: '1.5' is not an integer constant that #if can use");
}

/* A kernel written with a function-like macro, scheduled, passes the check. */
Test(macros, scheduled_kernel_with_a_macro) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "#define max_score(a, b) ((a >= b) ? a : b)\n"
                          "#define CLAMP(x, lo, hi) max_score(lo, (x) < (hi) ? (x) : (hi))\n"
                          "void relu(const int32_t x[64][48], int32_t y[64][48]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = 0; j < 48; j++)\n"
                          "      y[i][j] = CLAMP(x[i][j], 0, 1000);\n"
                          "}\n"
                          "#pragma npu schedule(relu, relu_tiled)\n"
                          "#pragma npu tile(i, j, 16, 16, io, jo, ii, ji)\n",
                          "");
  checked(s, "relu_tiled");
  npg_close(s);
}

/* The standard headers' constants, as kernels write them (INT32_MIN in a
 * requantisation, -INFINITY as a running max's start, FLT_MAX), are their
 * values in the types C gives them. The check's reference is built from
 * npugen's IR, so the kernel's results are compared here with the same
 * expressions compiled by this file's compiler and headers (LIMITS_I and
 * LIMITS_F, the kernel's text written twice): UINT32_MAX as an int or
 * UINT16_MAX as unsigned would give other values. An infinity prints as the
 * macro, with <math.h>. Before: "'INT32_MIN' is not declared". */
#define LIMITS_I(a)                                                                                            \
  ((int64_t)((a) == INT32_MIN ? INT32_MAX : (a)) + (int64_t)(((a) % 3 - 3) * UINT32_MAX) +                      \
   (int64_t)(((a) % 3 - 3) * UINT16_MAX) + (int64_t)(((a) % 3 - 3) * UINT8_MAX) + INT64_MIN / 4 +               \
   ((a) < INT_MIN + 1) + CHAR_BIT + (int64_t)(((a) % 5 - 5) * UINT_MAX) + ((a) % 2) * (INT64_MAX / 8) +         \
   (int64_t)(((a) % 3 - 3) * SHRT_MAX) + ((a) < 0) * LLONG_MIN / 8)
#define LIMITS_F(x) ((x) > 1.0f ? FLT_MAX : (x) < -1.0f ? -INFINITY : (x) > 0.5f ? HUGE_VALF : (x) * FLT_EPSILON)
static const char limits_kernel[] =
    "#include <stdint.h>\n"
    "#include <limits.h>\n"
    "#include <float.h>\n"
    "#include <math.h>\n"
    "void f(const int32_t a[64], const float x[64], int64_t c[64], float y[64]) {\n"
    "  for (int i = 0; i < 64; i++) {\n"
    "    c[i] = ((int64_t)(a[i] == INT32_MIN ? INT32_MAX : a[i]) + (int64_t)((a[i] % 3 - 3) * UINT32_MAX) +\n"
    "            (int64_t)((a[i] % 3 - 3) * UINT16_MAX) + (int64_t)((a[i] % 3 - 3) * UINT8_MAX) + INT64_MIN / 4 +\n"
    "            (a[i] < INT_MIN + 1) + CHAR_BIT + (int64_t)((a[i] % 5 - 5) * UINT_MAX) + (a[i] % 2) * (INT64_MAX / 8) +\n"
    "            (int64_t)((a[i] % 3 - 3) * SHRT_MAX) + (a[i] < 0) * LLONG_MIN / 8);\n"
    "    y[i] = x[i] > 1.0f ? FLT_MAX : x[i] < -1.0f ? -INFINITY : x[i] > 0.5f ? HUGE_VALF : x[i] * FLT_EPSILON;\n"
    "  }\n"
    "}\n";

Test(macros, the_standard_headers_constants_have_their_values_and_types) {
  NpgSession *s = open_ok(limits_kernel, "#pragma npu schedule(f, v)\n#pragma npu split(i, 16, io, ii)\n");
  int v = npg_variant_index(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "#include <math.h>");
  has(c, "-INFINITY");
  has(c, "== (-2147483647 - 1) ? 2147483647");
  static int32_t a[64];
  static float x[64];
  int64_t want_c[64], got_c[64];
  float want_y[64], got_y[64];
  const int32_t ends[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, -1, 0, 1, -7, 8};
  for (int i = 0; i < 64; i++) {
    a[i] = i < 8 ? ends[i] : (i % 2 ? -1 : 1) * (i * 7919 % 100000);
    x[i] = (float)(i - 32) / 16.0f;
    want_c[i] = LIMITS_I(a[i]);
    want_y[i] = LIMITS_F(x[i]);
  }
  for (int which = 0; which < 2; which++) { /* the IR's reference, then the variant */
    NpgJit *j = which ? npg_jit_variant(s, v) : npg_jit_reference(s, v);
    cr_assert_null(npg_jit_error(j), "%s", npg_jit_error(j));
    void *args[] = {a, x, got_c, got_y};
    cr_assert(npg_jit_run(j, args), "%s", npg_jit_error(j));
    for (int i = 0; i < 64; i++) {
      cr_expect_eq(got_c[i], want_c[i], "%s: c[%d] (a = %d) is %lld, not %lld", which ? "variant" : "reference", i,
                   a[i], (long long)got_c[i], (long long)want_c[i]);
      cr_expect(!memcmp(&got_y[i], &want_y[i], 4), "%s: y[%d] (x = %g) is %g, not %g", which ? "variant" : "reference",
                i, x[i], got_y[i], want_y[i]);
    }
    npg_jit_free(j);
  }
  npg_close(s);
  first_error("void f(const float x[4], float y[4]) {\n  y[0] = x[0] + INFINITY;\n}\n",
              "k.c:2:17: error: 'INFINITY' is defined by <math.h>, which the file does not include");
  first_error("#include <math.h>\nvoid f(const int x[4], int y[4]) {\n  y[0] = x[0] < INT32_MAX;\n}\n",
              "k.c:3:17: error: 'INT32_MAX' is defined by <stdint.h>, which the file does not include");
}

/* A local named like a <math.h> function hides it in its block, as in C
 * (`int remainder = x % 3;`): accepted, and the function's call where the
 * local hides it is refused. Before: "the local variable name 'remainder'
 * is reserved". The macros of <math.h> (NAN, isnan) stay reserved. */
Test(macros, a_local_may_hide_a_math_function) {
  NpgSession *s = open_ok("#include <math.h>\n"
                          "void f(const int a[64], const float x[64], int b[64], float y[64]) {\n"
                          "  for (int i = 0; i < 64; i++) {\n"
                          "    int remainder = a[i] % 3;\n"
                          "    b[i] = remainder;\n"
                          "    float exp = expf(x[i] / 8.0f);\n"
                          "    y[i] = exp + sqrtf(exp);\n"
                          "  }\n"
                          "  for (int round = 0; round < 4; round++) y[round] += 1.0f;\n"
                          "}\n",
                          "#pragma npu schedule(f, v)\n#pragma npu split(i, 16, io, ii)\n");
  has(npg_emit_source(s, checked(s, "v")), "int remainder = a[io * 16 + ii] % 3;");
  npg_close(s);
  first_error("#include <math.h>\nvoid f(const float x[4], float y[4]) {\n  float expf = x[0];\n  y[0] = expf(expf);\n}\n",
              "k.c:4:10: error: 'expf' is a local variable here (declared at line 3), which hides the <math.h> function; "
              "rename the local");
  first_error("void f(float y[4]) {\n  float NAN = 0.0f;\n  y[0] = NAN;\n}\n",
              "k.c:2:9: error: the local variable name 'NAN' is reserved: <math.h> declares it");
}
