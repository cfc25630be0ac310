/* Malformed kernels: each is refused with exactly this first message line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"

typedef struct {
  const char *src;
  const char *message; /* the first line of npg_errors() */
} BadCase;

static const BadCase cases[] = {
    {"void f(float *a) { a[0] = 1; }",
     "bad.c:1:14: error: pointer parameters are not supported; declare an array, e.g. 'float A[64][64]', or 'float "
     "A[n][m]' after 'int n, int m'"},
    {"void f(float a[4]) { int i = 0; while (i < 4) { a[i] = 0; i++; } }",
     "bad.c:1:33: error: 'while' loops are not supported in kernels; use a for loop with affine bounds"},
    {"void f(float a[4]) { goto end; end: a[0] = 1; }",
     "bad.c:1:22: error: 'goto' is not supported in kernels"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) a[i] = foo(a[i]); }",
     "bad.c:1:57: error: call to 'foo' is not supported: kernels may call <math.h> functions, abs, and kernels defined earlier in the file"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) a[i] = b[i]; }",
     "bad.c:1:57: error: 'b' is not declared"},
    {"void f(float a[4][4]) { for (int i = 0; i < 4; i++) a[i] = 0; }",
     "bad.c:1:53: error: wrong number of indices for 'a': it has 2 dimensions, 1 given"},
    {"void f(const float a[4]) { for (int i = 0; i < 4; i++) a[i] = 0; }",
     "bad.c:1:56: error: cannot write to 'a': it is declared const"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) { a[i] = 0; i = i + 1; } }",
     "bad.c:1:62: error: cannot write to loop counter 'i' inside its loop"},
    {"void f(float a[4]) { for (int i = 0; i <= 4; i++) a[i] = 0; }",
     "bad.c:1:53: error: index 'i' is out of bounds: it ranges over [0, 4] but dimension 1 of 'a' has extent 4"},
    {"void f(float a[8], const float b[8]) { for (int i = 0; i < 8; i++) a[i] = b[i - 1]; }",
     "bad.c:1:77: error: index 'i - 1' is out of bounds: it ranges over [-1, 6] but dimension 1 of 'b' has extent 8"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) a[i] = ; }",
     "bad.c:1:55: error: syntax error at '='"},
    {"void f(float a[16], int s) { for (int i = 0; i < 16; i += s) a[i] = 0; }",
     "bad.c:1:59: error: the loop step must be an integer constant expression"},
    {"void f(float a[4], float b[1]) { int i; for (i = 0; i < 4; i++) a[i] = 0; b[0] = i; }",
     "bad.c:1:82: error: loop counter 'i' is used after its loop (line 1); its final value is not kept"},
    {"int f(float a[4]) { a[0] = 0; return 0; }", "bad.c:1:1: error: kernels must return void"},
    {"void f(float a[]) { a[0] = 0; }",
     "bad.c:1:14: error: array parameter 'a' needs an extent in every dimension (a constant, or sizes: 'float "
     "A[n][m]')"},
    {"void f(float a[16], const int idx[4], float o[4]) { for (int i = 0; i < 4; i++) o[i] = a[idx[i]]; }",
     "bad.c:1:90: error: cannot prove that index 'idx[i]' stays within dimension 1 of 'a' (extent 16): its value can range over [-2147483648, 2147483647]; clamp it, e.g. with '% 16' or a mask"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i--) a[i] = 0; }",
     "bad.c:1:38: error: the loop condition never becomes false: the counter moves down but the condition bounds it from above"},
    {"void f(int a[4]) { for (int i = 0; i < 4; i++) a[i] = a[i] / 0; }",
     "bad.c:1:60: error: division by zero"},
    {"void f(int a[4]) { for (int i = 0; i < 4; i++) a[i] = a[i] << 40; }",
     "bad.c:1:60: error: shift by 40 is undefined for type 'int'"},
    {"float g[4];\nvoid f(float a[4]) { a[0] = g[0]; }",
     "bad.c:1:1: error: global variables are not supported in kernels; pass arrays as parameters"},
    {"struct s { int x; };\nvoid f(float a[4]) { a[0] = 0; }",
     "bad.c:1:1: error: structs, unions and enums are not supported in kernels"},
    {"void f(float a[16]) { for (int i = 0; i < 4; i++) for (int j = 0; j < i * i; j++) a[j] = 0; }",
     "bad.c:1:71: error: loop bound is not affine: bounds must be affine in enclosing loop counters, integer "
     "parameters and constants"},
    {"#define SQ(x) ((x)*(x))\nvoid f(float a[4]) { a[0] = SQ(2, 3); }",
     "bad.c:2:29: error: macro 'SQ' takes 1 argument, but is given 2"},
    {"#define N 2 + 2\nvoid f(float a[8]) { a[0] = N; }",
     "bad.c:1:11: error: macro 'N' must be a single constant or be parenthesized, so that its uses keep C's meaning"},
    {"#include \"foo.h\"\nvoid f(float a[4]) { a[0] = 0; }",
     "bad.c:1:10: error: only standard headers can be included (#include <...>), not \"foo.h\""},
    {"void f(float a[4]) { s: a[0] = 0; s: a[1] = 0; }",
     "bad.c:1:38: error: duplicate label 's' (first used on line 1)"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) { if (i > 2) break; a[i] = 0; } }",
     "bad.c:1:63: error: 'break' is not supported in kernels"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) { return; } }",
     "bad.c:1:52: error: 'return' is only allowed as the last statement of a kernel"},
    {"#if 0\nvoid f(float a[4]) { a[0] = 0; }\n#else\nvoid f(float a[4]) { a[0] = zz; }\n#endif",
     "bad.c:4:29: error: 'zz' is not declared"},
    {"", "bad.c:1:1: error: no kernel found: expected at least one void function"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i++) a[i] = a[i] + a; }",
     "bad.c:1:64: error: array 'a' used without an index"},
    {"void f(float a[4]) { float x = 1; x % 2; }",
     "bad.c:1:37: error: operand of '%' must be an integer, not 'float'"},
    {"void f(float a[4]) { for (int i = 0, j = 0; i < 4; i++) a[i] = 0; }",
     "bad.c:1:27: error: a kernel loop declares exactly one counter"},
    {"#define N 4\nvoid f(float a[N]) { for (int i = 0; i < N; i++) a[i + N] = 0; }",
     "bad.c:2:52: error: index 'i + N' is out of bounds: it ranges over [4, 7] but dimension 1 of 'a' has extent 4"},
    {"void f(float a[4]) { for (unsigned i = 3; i >= 0; i--) a[i] = 0; }",
     "bad.c:1:43: error: the loop condition never becomes false: unsigned counter 'i' is always >= 0"},
    {"void f(float a[4]) { for (int i = 0; i < 4; i += 0) a[i] = 0; }",
     "bad.c:1:45: error: the loop step must not be zero"},
    {"void f(float a[4]) { for (int i = 0; i != 4; i++) a[i] = 0; }",
     "bad.c:1:38: error: the loop condition must use <, <=, > or >= ('!=' is not supported)"},
    {"typedef float *fp;\nvoid f(float a[4]) { a[0] = 0; }",
     "bad.c:1:15: error: only scalar typedefs are supported in kernel files (typedef float real;), not a pointer, array or function type"},
    {"typedef const float cf;\nvoid f(cf a[4], float b[4]) { b[0] = a[0]; }",
     "bad.c:1:9: error: 'const' in a typedef is not supported; typedef the plain scalar type"},
    {"#define T void\nvoid f(float a[4]) { a[0] = 0; }", "bad.c:1:1: error: macro 'T' names 'void', which is not a kernel type"},
    {"typedef float real;\ntypedef double real;\nvoid f(real a[4]) { a[0] = 0; }",
     "bad.c:2:16: error: redefinition of 'real'"},
    {"void f(real a[4]) { a[0] = 0; }\ntypedef float real;", "bad.c:1:8: error: unknown type 'real'"},
    /* accepted, then an internal error in tcc (issue 39); caf\xc3\xa9 itself is fine */
    {"void f(float a[4]) {\n  float caf\\u00e9 = 2;\n  a[0] = caf\\u00e9;\n}",
     "bad.c:2:9: error: identifier 'caf\\u00e9' is spelled with a universal character name, which tcc (the check's "
     "compiler) does not read; write the character itself (UTF-8) or another name"},
    {"void f(float a[4]) { a[0] = 1; }\n#pragma npu schedule(f, v)\n#pragma npu annotate(\\u00e9, k, 1)",
     "bad.c:3:22: error: identifier '\\u00e9' is spelled with a universal character name, which tcc (the check's "
     "compiler) does not read; write the character itself (UTF-8) or another name"},
};

Test(frontend_errors, exact_messages) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    NpgSession *s = npg_open_string("bad.c", cases[i].src, strlen(cases[i].src));
    cr_expect(npg_error_count(s) > 0, "case %zu was accepted: %s", i, cases[i].src);
    const char *all = npg_errors(s);
    const char *nl = strchr(all, '\n');
    size_t len = nl ? (size_t)(nl - all) : strlen(all);
    cr_expect(len == strlen(cases[i].message) && !strncmp(all, cases[i].message, len),
              "case %zu\n  source:   %s\n  expected: %s\n  got:      %.*s", i, cases[i].src,
              cases[i].message, (int)len, all);
    npg_close(s);
  }
}

Test(frontend_errors, caret_under_the_column) {
  const char *src = "void f(float a[4]) {\n  a[5] = 0;\n}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_str_eq(npg_errors(s),
                   "k.c:2:5: error: index '5' is out of bounds: it ranges over [5, 5] but dimension 1 of 'a' has extent 4\n"
                   "    2 |   a[5] = 0;\n"
                   "      |     ^\n");
  npg_close(s);
}

Test(frontend_errors, hostile_inputs_never_crash) {
  /* Binary garbage, a NUL byte, 20,000-deep parentheses and blocks. */
  static char buf[200000];
  unsigned x = 12345;
  for (size_t i = 0; i < 5000; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (char)(x >> 16);
  }
  NpgSession *s = npg_open_string("g.c", buf, 5000);
  cr_expect(npg_error_count(s) > 0);
  npg_close(s);

  size_t n = 0;
  n += (size_t)sprintf(buf, "void f(int a[1]) { a[0] = ");
  for (int i = 0; i < 20000; i++) buf[n++] = '(';
  buf[n++] = '1';
  for (int i = 0; i < 20000; i++) buf[n++] = ')';
  n += (size_t)sprintf(buf + n, "; }");
  s = npg_open_string("deep.c", buf, n);
  cr_expect(strstr(npg_errors(s), "nesting too deep (the limit is 200 levels)") != NULL, "%s", npg_errors(s));
  npg_close(s);

  n = (size_t)sprintf(buf, "void f(int a[1]) { ");
  for (int i = 0; i < 20000; i++) buf[n++] = '{';
  n += (size_t)sprintf(buf + n, "a[0] = 1;");
  for (int i = 0; i < 20000; i++) buf[n++] = '}';
  n += (size_t)sprintf(buf + n, " }");
  s = npg_open_string("deep.c", buf, n);
  cr_expect(strstr(npg_errors(s), "nesting too deep") != NULL, "%s", npg_errors(s));
  npg_close(s);

  /* Every prefix of a valid kernel: refused or accepted, never a crash. */
  const char *k = "#define N 8\nvoid f(const float a[N], float b[N]) { for (int i = 0; i < N; i++) b[i] = a[i] * 2.0f; }";
  for (size_t len = 0; len <= strlen(k); len++) {
    s = npg_open_string("p.c", k, len);
    (void)npg_errors(s);
    npg_close(s);
  }
}

/* The character itself, as UTF-8, is read by tcc, gcc and clang: kept. */
Test(frontend_errors, utf8_identifiers_are_accepted_and_checked) {
  const char *src = "void f(const float a[4], float b[4]) {\n  float caf\xc3\xa9 = 2;\n"
                    "  for (int i = 0; i < 4; i++) b[i] = a[i] * caf\xc3\xa9;\n}\n";
  NpgSession *s = npg_open_string("ok.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
}

/* A schedule file has only npu pragmas: `#pragma npux` was ignored, and the
 * variant silently lost its step (issue 39). In a kernel file another
 * pragma stays C's. */
Test(frontend_errors, a_schedule_file_refuses_other_pragmas) {
  const char *src = "void f(const float a[4], float b[4]) {\n  for (int i = 0; i < 4; i++) b[i] = a[i];\n}\n"
                    "#pragma GCC diagnostic ignored \"-Wunused\"\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *sched = "#pragma npu schedule(f, v)\n#pragma npux split(i, 2, io, ii)\n";
  cr_expect_not(npg_add_schedule_string(s, "s.sched", sched, strlen(sched)));
  const char *e = npg_errors(s);
  cr_expect(!strncmp(e, "s.sched:2:9: error: a schedule file holds only '#pragma npu ...' lines; '#pragma npux' is not "
                        "one\n", strlen("s.sched:2:9: error: a schedule file holds only '#pragma npu ...' lines; "
                                        "'#pragma npux' is not one\n")), "%s", e);
  cr_expect_eq(npg_variant_index(s, "v"), -1, "no variant without its step");
  npg_close(s);
}

/* A callee refused for its own error: the call said "defined after"
 * (issue 39), though the callee is above. */
Test(frontend_errors, a_call_of_a_refused_kernel_says_so) {
  const char *src = "void g(const int A[4], int B[4]) {\n  for (int i = 0; i < 4; i++) B[i] = A[i] + q;\n}\n"
                    "void f(const int A[4], int B[4]) {\n  g(A, B);\n}\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  const char *e = npg_errors(s);
  cr_expect(strstr(e, "k.c:2:45: error: 'q' is not declared\n"), "%s", e);
  cr_expect(strstr(e, "k.c:5:3: error: kernel 'g' (line 1) was refused, see its error above; 'f' cannot call it\n"), "%s",
            e);
  cr_expect(!strstr(e, "defined after"), "%s", e);
  npg_close(s);
}

/* 201 parentheses around a schedule argument: the nesting limit, as in a
 * kernel, not "expected an integer constant" (issue 39). */
Test(frontend_errors, a_schedule_argument_nested_too_deeply_says_so) {
  char src[2048];
  int n = snprintf(src, sizeof src, "void f(const float a[8], float b[8]) {\n  for (int i = 0; i < 8; i++) b[i] = a[i];\n}\n"
                                    "#pragma npu schedule(f, v)\n#pragma npu split(i, ");
  for (int i = 0; i < 201; i++) src[n++] = '(';
  src[n++] = '2';
  for (int i = 0; i < 201; i++) src[n++] = ')';
  n += snprintf(src + n, sizeof src - (size_t)n, ", io, ii)\n");
  NpgSession *s = npg_open_string("k.c", src, (size_t)n);
  const char *e = npg_errors(s);
  cr_expect(!strncmp(e, "k.c:5:222: error: expression nested too deeply (the limit is 200 levels)\n", 73), "%s", e);
  npg_close(s);
}
