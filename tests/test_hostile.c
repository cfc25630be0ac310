/* Hostile input and safe output (issue 22): constant arithmetic that
 * overflows, reserved names, sizes past the limits, endless or binary input
 * files, the empty file, and what `emit -o DIR` does to DIR. Each refusal is
 * pinned by its exact first message line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"

/* The first line of the errors of src (opened as "k.c"), in a static buffer. */
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

static void refused(const char *src, const char *want) {
  const char *got = first_error(src);
  cr_expect_str_eq(got, want, "%s\ngot:  %s\nwant: %s", src, got, want);
}

static void accepted(const char *src) {
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_expect_eq(npg_error_count(s), 0, "%s\n%s", src, npg_errors(s));
  npg_close(s);
}

#define KERNEL "void k(float A[64]) {\n  for (int i = 0; i < 64; i++) A[i] = 1.0f;\n}\n"

/* ---------------- 1. one checked arithmetic for constants ---------------- */

Test(hostile, schedule_arguments_never_wrap) {
  refused("#define N 65536\n" KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, N * N * N * N * N + 3, io, ii)\n",
          "k.c:6:24: error: the product 'N * N' overflows its type int: its value 4294967296 is outside "
          "[-2147483648, 2147483647]");
  refused("#define N 65536\n" KERNEL "#pragma npu schedule(k, v)\n#pragma npu unroll(i, N*N*N*N + 2)\n",
          "k.c:6:24: error: the product 'N*N' overflows its type int: its value 4294967296 is outside "
          "[-2147483648, 2147483647]");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu loop_partition(i, 4294967296 * 4294967296 + 8)\n",
          "k.c:5:42: error: the product '4294967296 * 4294967296' overflows its type long: its value "
          "18446744073709551616 is outside [-9223372036854775808, 9223372036854775807]");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 2147483647 * 2147483647, io, ii)\n",
          "k.c:5:33: error: the product '2147483647 * 2147483647' overflows its type int: its value "
          "4611686014132420609 is outside [-2147483648, 2147483647]");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 2147483647 + 2147483647 + 5, io, ii)\n",
          "k.c:5:33: error: the sum '2147483647 + 2147483647' overflows its type int: its value 4294967294 is "
          "outside [-2147483648, 2147483647]");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, -(-2147483647 - 1), io, ii)\n",
          "k.c:5:22: error: the negation '-(-2147483647 - 1)' overflows its type int: its value 2147483648 is "
          "outside [-2147483648, 2147483647]");
  /* C defines these, but a schedule argument must be the exact value */
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 4294967295u + 5, io, ii)\n",
          "k.c:5:34: error: the sum '4294967295u + 5' wraps around in its type unsigned int: its value 4294967300 "
          "is outside [0, 4294967295]; a schedule argument must be exact");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, (int8_t)300, io, ii)\n",
          "k.c:5:22: error: converting 300 to int8_t changes its value; a schedule argument must be exact");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 0xFFFFFFFFFFFFFFFF, io, ii)\n",
          "k.c:5:22: error: '0xFFFFFFFFFFFFFFFF' is 18446744073709551615, too large for a schedule argument");
  refused("#define U 0xFFFFFFFFFFFFFFFFu\n" KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, U, io, ii)\n",
          "k.c:6:22: error: 'U' is 18446744073709551615, too large for a schedule argument");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 1 / 0, io, ii)\n",
          "k.c:5:24: error: division by zero");
  /* exact values pass, in wider types too */
  accepted(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, 4294967296 * 4 / 1073741824 / 1, io, ii)\n");
  accepted("#define N 4\n" KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, N * N - 8, io, ii)\n");
}

Test(hostile, kernel_constants_never_overflow) {
  /* a macro used as a bound, another in an index: refused at the #define */
  refused("#define N (65536 * 65536 + 8)\nvoid k(float A[16]) {\n  for (int i = 0; i < N; i++) A[i % 16] = 1;\n}\n",
          "k.c:1:18: error: the product '65536 * 65536' overflows its type int: its value 4294967296 is outside "
          "[-2147483648, 2147483647]");
  /* one message: the uses of a refused macro add none */
  NpgSession *s = npg_open_string("k.c", "#define OFF (65536*65536)\nvoid k(float A[64]) {\n"
                                  "  for (int i = 0; i < 64; i++) A[i + OFF - OFF] = 1.0f;\n}\n", 86);
  cr_expect_eq(npg_error_count(s), 1, "%s", npg_errors(s));
  npg_close(s);
  /* the same product inline: the same message */
  refused("void k(float A[16]) {\n  for (int i = 0; i < 65536 * 65536 + 8; i++) A[i % 16] = 1;\n}\n",
          "k.c:2:29: error: the product '65536 * 65536' overflows its type int: its value 4294967296 is outside "
          "[-2147483648, 2147483647]");
  refused("void k(int A[4]) {\n  A[0] = 1 << 31;\n}\n",
          "k.c:2:12: error: the left shift '1 << 31' overflows its type int: its value 2147483648 is outside "
          "[-2147483648, 2147483647]");
  refused("void k(int A[4]) {\n  A[0] = -1 << 2;\n}\n",
          "k.c:2:13: error: the left shift '-1 << 2' shifts a negative value, which is undefined in C");
  refused("void k(long A[4]) {\n  A[0] = (-9223372036854775807L - 1) / -1;\n}\n",
          "k.c:2:38: error: the quotient '(-9223372036854775807L - 1) / -1' overflows its type long: its value "
          "9223372036854775808 is outside [-9223372036854775808, 9223372036854775807]");
  refused("void k(int A[4]) {\n  int t[2147483647 + 1];\n  A[0] = 0;\n}\n",
          "k.c:2:20: error: the sum '2147483647 + 1' overflows its type int: its value 2147483648 is outside "
          "[-2147483648, 2147483647]");
  /* C defines unsigned wrap-around and conversions: a kernel keeps them */
  accepted("#define MASK (0u - 1)\nvoid k(unsigned A[4]) {\n  A[0] = MASK & (65536u * 65536u + 3u);\n  A[1] = -1u;\n"
           "  A[2] = (int8_t)300;\n}\n");
  accepted("void k(long A[4]) {\n  A[0] = 65536L * 65536 + 8;\n}\n");
}
