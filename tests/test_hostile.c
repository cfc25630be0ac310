/* Hostile input and safe output (issue 22): constant arithmetic that
 * overflows, reserved names, sizes past the limits, endless or binary input
 * files, the empty file, and what `emit -o DIR` does to DIR. Each refusal is
 * pinned by its exact first message line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "npugen.h"
#include "tests/test_cli_util.h"

/* The first line of the errors of src (len bytes, opened as "k.c"), in a
 * static buffer. */
static const char *first_error_n(const char *src, size_t len) {
  static char line[1024];
  NpgSession *s = npg_open_string("k.c", src, len);
  cr_assert(s);
  const char *errs = npg_errors(s);
  size_t n = strcspn(errs, "\n");
  if (n >= sizeof line) n = sizeof line - 1;
  memcpy(line, errs, n);
  line[n] = 0;
  npg_close(s);
  return line;
}

static const char *first_error(const char *src) { return first_error_n(src, strlen(src)); }

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
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu split(i, -9223372036854775808, io, ii)\n",
          "k.c:5:22: error: integer constant '9223372036854775808' is too large");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu loop_partition(i, 1 << 40)\n",
          "k.c:5:33: error: shift by 40 is undefined for type 'int'");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu unroll(i, 1 ? 3 : 65536 * 65536)\n",
          "k.c:5:37: error: the product '65536 * 65536' overflows its type int: its value 4294967296 is outside "
          "[-2147483648, 2147483647]");
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
  refused("void k(long A[4]) {\n  A[0] = (-9223372036854775807L - 1) % -1;\n}\n",
          "k.c:2:38: error: the remainder '(-9223372036854775807L - 1) % -1' is undefined in C: its quotient "
          "9223372036854775808 overflows its type long");
  refused("void k(int A[4]) {\n  int t[2147483647 + 1];\n  A[0] = 0;\n}\n",
          "k.c:2:20: error: the sum '2147483647 + 1' overflows its type int: its value 2147483648 is outside "
          "[-2147483648, 2147483647]");
  /* C defines unsigned wrap-around and conversions: a kernel keeps them */
  accepted("#define MASK (0u - 1)\nvoid k(unsigned A[4]) {\n  A[0] = MASK & (65536u * 65536u + 3u);\n  A[1] = -1u;\n"
           "  A[2] = (int8_t)300;\n}\n");
  accepted("void k(long A[4]) {\n  A[0] = 65536L * 65536 + 8;\n}\n");
}

/* ---------------- 2. reserved names ---------------- */

Test(hostile, reserved_names_are_refused_everywhere) {
  refused("#include <math.h>\nvoid sqrtf(const float A[4], float B[4]) {\n  for (int i = 0; i < 4; i++) B[i] = A[i];\n}\n",
          "k.c:2:6: error: the kernel name 'sqrtf' is reserved: <math.h> declares it");
  refused("void main(float A[4]) {\n  A[0] = 1;\n}\n", "k.c:1:6: error: the kernel name 'main' is reserved: it is the C program's entry point");
  refused("void k(const float npu_scope_base_at[4], float B[4]) {\n  for (int i = 0; i < 4; i++) B[i] = npu_scope_base_at[i];\n}\n",
          "k.c:1:20: error: the parameter name 'npu_scope_base_at' is reserved: the prefixes npu_ and NPU_ belong to the NPU "
          "intrinsics (npu_intrinsics.h)");
  refused("void k(float A[4], int memcpy) {\n  A[0] = memcpy;\n}\n",
          "k.c:1:24: error: the parameter name 'memcpy' is reserved: <string.h> declares it");
  refused("#define NPU_DM 7\n" KERNEL,
          "k.c:1:9: error: the macro name 'NPU_DM' is reserved: the prefixes npu_ and NPU_ belong to the NPU intrinsics "
          "(npu_intrinsics.h)");
  refused("#define INT_MAX 7\n" KERNEL, "k.c:1:9: error: the macro name 'INT_MAX' is reserved: <limits.h> declares it");
  /* one message: its uses add none */
  NpgSession *s = npg_open_string("k.c", "#define memcpy 3\nvoid k(float A[4]) {\n  A[0] = memcpy;\n}\n", 52);
  cr_expect_eq(npg_error_count(s), 1, "%s", npg_errors(s));
  npg_close(s);
  refused("#define __N 7\n" KERNEL,
          "k.c:1:9: error: the macro name '__N' is reserved: C reserves names that begin with __ or with _ and a capital letter");
  refused("void k(float B[64]) {\n  for (int i = 0; i < 64; i++) {\n    free: B[i] = 1;\n  }\n}\n",
          "k.c:3:5: error: the label name 'free' is reserved: <stdlib.h> declares it");
  refused("void k(float B[64]) {\n  for (int isnan = 0; isnan < 64; isnan++) B[isnan] = 1;\n}\n",
          "k.c:2:12: error: the loop counter name 'isnan' is reserved: <math.h> declares it");
  refused("void k(float B[64]) {\n  float NAN = 0.0f;\n  B[0] = NAN;\n}\n",
          "k.c:2:9: error: the local variable name 'NAN' is reserved: <math.h> declares it");
  refused("void k(float B[64]) {\n  float uint24_t[4];\n  uint24_t[0] = 1;\n  B[0] = uint24_t[0];\n}\n",
          "k.c:2:9: error: the local array name 'uint24_t' is reserved: C reserves names that begin with int or uint and "
          "end with _t for <stdint.h>");
  refused("void k(float B[64]) {\n  float npg_args = 0.0f;\n  B[0] = npg_args;\n}\n",
          "k.c:2:9: error: the local variable name 'npg_args' is reserved: the prefix npg_ belongs to npugen's API and the "
          "code its check compiles");
  /* variants, new loops and layout indices */
  const struct {
    const char *pragma, *want;
  } sched[] = {
      {"schedule(k, main)", "k.c:4:25: error: schedule: the variant name 'main' is reserved: it is the C program's entry point"},
      {"schedule(k, memcpy)", "k.c:4:25: error: schedule: the variant name 'memcpy' is reserved: <string.h> declares it"},
      {"schedule(k, expf)", "k.c:4:25: error: schedule: the variant name 'expf' is reserved: <math.h> declares it"},
      {"schedule(k, npu_dma_wait_at)",
       "k.c:4:25: error: schedule: the variant name 'npu_dma_wait_at' is reserved: the prefixes npu_ and NPU_ belong to "
       "the NPU intrinsics (npu_intrinsics.h)"},
      {"schedule(k, NPUGEN_V_H)",
       "k.c:4:25: error: schedule: the variant name 'NPUGEN_V_H' is reserved: the prefix NPUGEN_ belongs to the guards of "
       "the headers npugen emits"},
      {"schedule(k, v)\n#pragma npu split(i, 4, NPU_DM, ii)",
       "k.c:5:25: error: split: the new name 'NPU_DM' is reserved: the prefixes npu_ and NPU_ belong to the NPU "
       "intrinsics (npu_intrinsics.h)"},
      {"schedule(k, v)\n#pragma npu split(i, 4, io, sqrtf)",
       "k.c:5:29: error: split: the new name 'sqrtf' is reserved: <math.h> declares it"},
      {"schedule(k, v)\n#pragma npu transform_layout(A, (expf), (expf / 8, expf % 8))",
       "k.c:5:34: error: transform_layout: the index name 'expf' is reserved: <math.h> declares it"},
  };
  for (size_t i = 0; i < sizeof sched / sizeof sched[0]; i++) {
    char src[1024];
    snprintf(src, sizeof src, KERNEL "#pragma npu %s\n", sched[i].pragma);
    refused(src, sched[i].want);
  }
}

Test(hostile, variant_names_do_not_clash_with_pack_helpers) {
  /* emit_file.c prints v_pack_A and v_unpack_A beside variant v */
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu transform_layout(A, (i), (i / 8, i % 8))\n"
                 "#pragma npu schedule(k, v_pack_A)\n",
          "k.c:6:25: error: schedule: 'v_pack_A' is the name of the pack helper of variant 'v'; the variant needs another name");
  refused(KERNEL "#pragma npu schedule(k, v_unpack_A)\n#pragma npu schedule(k, v)\n"
                 "#pragma npu transform_layout(A, (i), (i / 8, i % 8))\n",
          "k.c:5:25: error: schedule: variant 'v' would emit the helper 'v_unpack_A', which is already the name of a variant");
}

Test(hostile, names_that_differ_only_in_case_are_refused) {
  /* lower_header_guard is NPUGEN_<FILE>_<NAME IN CAPITALS>_H */
  refused(KERNEL "#pragma npu schedule(k, K)\n",
          "k.c:4:25: error: schedule: the variant name 'K' differs from variant 'k' only in case: their headers' guards "
          "would be the same, and so would their files on a case-insensitive file system");
  refused(KERNEL "void K(float A[4]) {\n  A[0] = 1;\n}\n",
          "k.c:4:6: error: the kernel name 'K' differs from kernel 'k' only in case: their headers' guards would be the "
          "same, and so would their files on a case-insensitive file system");
}

Test(hostile, intrinsic_semantics_kernels_keep_their_names) {
  /* npu_ names are the intrinsics': npugen's own semantics kernels have them */
  NpgSession *s = npg_open_file(NPG_INTRINSICS_INCLUDE_DIR "/npu_vu_add_f32.c");
  cr_expect_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  npg_close(s);
  /* the same text elsewhere does not */
  FILE *f = fopen(NPG_INTRINSICS_INCLUDE_DIR "/npu_vu_add_f32.c", "rb");
  cr_assert(f);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  s = npg_open_string("npu_vu_add_f32.c", text, n);
  cr_expect(strstr(npg_errors(s), "error: the kernel name 'npu_vu_add_f32' is reserved"), "%s", npg_errors(s));
  npg_close(s);
}

/* ---------------- 3. sizes past the limits ---------------- */

Test(hostile, sizes_past_2_31_are_refused_at_schedule_time) {
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu buffer_pad(A, (2147483648), 0)\n",
          "k.c:5:24: error: buffer_pad: the new layout of A has 2147483648 elements; at most 2147483647 (2^31 - 1) are "
          "supported");
  refused("void k(float A[64][64]) {\n  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++) A[i][j] = 1.0f;\n}\n"
          "#pragma npu schedule(k, v)\n#pragma npu buffer_pad(A, (4611686018427387904, 4611686018427387904), 0)\n",
          "k.c:6:24: error: buffer_pad: the new layout of A has more than 9223372036854775807 elements; at most 2147483647 "
          "(2^31 - 1) are supported");
  refused(KERNEL "#pragma npu schedule(k, v)\n#pragma npu transform_layout(A, (i), (i * 33554432 + 33554431), 0)\n",
          "k.c:5:38: error: transform_layout: the new layout of A has 2147483648 elements; at most 2147483647 (2^31 - 1) "
          "are supported");
  accepted(KERNEL "#pragma npu schedule(k, v)\n#pragma npu buffer_pad(A, (2147483647), 0)\n");
  /* the kernel's own arrays: the same limit */
  refused("void k(float A[2147483648]) {\n  A[0] = 1.0f;\n}\n",
          "k.c:1:8: error: array 'A' is too large (at most 2147483647 elements, 2^31 - 1)");
  refused("void k(float A[2][1073741824]) {\n  A[0][0] = 1.0f;\n}\n",
          "k.c:1:8: error: array 'A' is too large (at most 2147483647 elements, 2^31 - 1)");
}

Test(hostile, storage_align_takes_no_time_with_a_huge_factor) {
  /* solved, not 2^31 tries: 3 * e = 2147483646 (mod 2147483647) gives e = 715827882 */
  accepted("void k(float A[4][5][3]) {\n  for (int i = 0; i < 4; i++)\n    for (int j = 0; j < 5; j++)\n"
           "      for (int l = 0; l < 3; l++) A[i][j][l] = 1.0f;\n}\n"
           "#pragma npu schedule(k, v)\n#pragma npu storage_align(A, 0, 7, 2)\n");
  refused("void k(float A[4][5][3]) {\n  for (int i = 0; i < 4; i++)\n    for (int j = 0; j < 5; j++)\n"
          "      for (int l = 0; l < 3; l++) A[i][j][l] = 1.0f;\n}\n"
          "#pragma npu schedule(k, v)\n#pragma npu storage_align(A, 0, 2147483647, 2147483646)\n",
          "k.c:7:27: error: storage_align: the new layout of A has 8589934584 elements; at most 2147483647 (2^31 - 1) are "
          "supported");
  refused("void k(float A[4][5][2]) {\n  for (int i = 0; i < 4; i++)\n    for (int j = 0; j < 5; j++)\n"
          "      for (int l = 0; l < 2; l++) A[i][j][l] = 1.0f;\n}\n"
          "#pragma npu schedule(k, v)\n#pragma npu storage_align(A, 0, 2147483646, 3)\n",
          "k.c:7:45: error: storage_align: no extent of axis 1 gives a stride of 2147483646 * k + 3 (the axes after it hold 2 "
          "elements)");
}

/* ---------------- 4. input caps, 6. the empty file ---------------- */

Test(hostile, endless_and_binary_inputs_are_refused) {
  NpgSession *s = npg_open_file("/dev/zero");
  cr_expect_str_eq(npg_errors(s), "/dev/zero: error: file is too large (more than 16777216 bytes); the limit is 16 MiB "
                                  "(16777216 bytes)\n");
  npg_close(s);
  s = npg_open_file("/dev/urandom");
  cr_expect_eq(npg_error_count(s), 1);
  cr_expect(strstr(npg_errors(s), "/dev/urandom: error: file is too large"), "%s", npg_errors(s));
  npg_close(s);
  s = npg_open_file_for_target("examples/matmul.c", "/dev/zero");
  cr_expect_str_eq(npg_errors(s), "npugen: error: /dev/zero: cannot read target file: the file is larger than 16 MiB, the "
                                  "limit for a target file\n");
  npg_close(s);
  s = npg_open_string("k.c", KERNEL, strlen(KERNEL));
  cr_expect_not(npg_add_schedule_file(s, "/dev/zero"));
  cr_expect_str_eq(npg_errors(s), "/dev/zero: error: file is too large (more than 16777216 bytes); the limit is 16 MiB "
                                  "(16777216 bytes)\n");
  cr_expect_not(npg_add_schedule_file(s, "/"));
  cr_expect(strstr(npg_errors(s), "/: error: cannot read file: Is a directory"), "%s", npg_errors(s));
  cr_expect_not(npg_add_schedule_string(s, "s.sched", "#pragma npu schedule(k, v)\n\0\n", 30));
  cr_expect(strstr(npg_errors(s), "s.sched:2:1: error: file contains a NUL byte: not a C source file"), "%s", npg_errors(s));
  npg_close(s);
  static const char nul[] = "void k(float A[4]) {\n  A[0] = 1;  \0\n}\n";
  cr_expect_str_eq(first_error_n(nul, sizeof nul - 1), "k.c:2:14: error: file contains a NUL byte: not a C source file");
}

Test(hostile, the_empty_file_has_a_position) {
  refused("", "k.c:1:1: error: no kernel found: expected at least one void function");
  refused("/* nothing */\n#define N 4\n", "k.c:1:1: error: no kernel found: expected at least one void function");
}

/* ---------------- the command line ---------------- */

Test(hostile, endless_inputs_exit_1_at_once) {
  const struct {
    const char *args, *want;
  } cases[] = {
      {"check /dev/zero", "/dev/zero: error: file is too large (more than 16777216 bytes); the limit is 16 MiB (16777216 bytes)\n"},
      {"check /dev/urandom",
       "/dev/urandom: error: file is too large (more than 16777216 bytes); the limit is 16 MiB (16777216 bytes)\n"},
      {"emit /dev/zero", "/dev/zero: error: file is too large (more than 16777216 bytes); the limit is 16 MiB (16777216 bytes)\n"},
      {"check examples/matmul.c --schedule /dev/zero",
       "/dev/zero: error: file is too large (more than 16777216 bytes); the limit is 16 MiB (16777216 bytes)\n"},
      {"check examples/matmul.c --schedule /dev/urandom",
       "/dev/urandom: error: file is too large (more than 16777216 bytes); the limit is 16 MiB (16777216 bytes)\n"},
      {"check examples/matmul.c --target /dev/zero",
       "npugen: error: /dev/zero: cannot read target file: the file is larger than 16 MiB, the limit for a target file\n"},
      {"emit examples/matmul.c --target /dev/urandom",
       "npugen: error: /dev/urandom: cannot read target file: the file is larger than 16 MiB, the limit for a target file\n"},
      {"check examples/matmul.c --schedule /", "/: error: cannot read file: Is a directory\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char cmd[512], out[4096];
    double secs;
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", npugen(), cases[i].args);
    cr_expect_eq(run_timed(cmd, out, sizeof out, &secs), 1, "%s: %s", cases[i].args, out);
    cr_expect_str_eq(out, cases[i].want, "%s", cases[i].args);
    cr_expect_lt(secs, 5.0, "%s took %.1f s of CPU", cases[i].args, secs); /* about 0.1 s: it stops reading at 16 MiB */
  }
}

/* Runs a script in a fresh directory $d (the repository is $r); output and status. */
static int in_tmp(const char *script, char *out, size_t n) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "r=$PWD; n=%s; case $n in /*) ;; *) n=$r/$n;; esac; d=$(mktemp -d) && cd $d && { %s; } 2>&1; "
           "rc=$?; cd $r; rm -rf $d; exit $rc", npugen(), script);
  return run_timed(cmd, out, n, NULL);
}

#define EMIT_KERNEL                                                                                              \
  "printf '%s\\n' 'void k(const float A[64], float B[64]) {' '  for (int i = 0; i < 64; i++) B[i] = A[i];' '}' " \
  "'#pragma npu schedule(k, v1)' '#pragma npu split(i, 4, io, ii)' '#pragma npu schedule(k, v2)' "               \
  "'#pragma npu split(i, 8, io, ii)' > k.c"

/* A refused variant is no removed one: on any error emit -o changes
 * nothing in DIR (its files from the last good run stay, byte for byte). */
Test(hostile, emit_changes_nothing_when_a_variant_is_refused) {
  char out[8192];
  int rc = in_tmp(EMIT_KERNEL " && $n emit k.c -o out && ls out && cksum out/* > before && "
                  "sed -i -e 's/split(i, 8,/split(i, 0,/' -e 's/64/32/g' k.c && "
                  "echo '/* mine */' > out/mine.c && $n emit k.c -o out; echo rc=$?; ls out && rm out/mine.c && "
                  "cksum out/* | cmp - before && echo unchanged",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "k.c\nk.h\nv1.c\nv1.h\nv2.c\nv2.h\n"
                        "k.c:7:22: error: split: the split factor must be positive, got 0\n"
                        "    7 | #pragma npu split(i, 0, io, ii)\n"
                        "      |                      ^\n"
                        "npugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\nk.c\nk.h\nmine.c\nv1.c\nv1.h\nv2.c\nv2.h\nunchanged\n");
  /* --check reports the leftover instead */
  rc = in_tmp(EMIT_KERNEL " && $n emit k.c -o out && sed -i 's/v2)/v3)/' k.c && $n emit k.c -o out --check", out, sizeof out);
  cr_expect_eq(rc, 1, "%s", out);
  cr_expect_str_eq(out, "npugen: out/v3.c is stale: run: npugen emit k.c -o out\n"
                        "npugen: out/v3.h is stale: run: npugen emit k.c -o out\n"
                        "npugen: out/v2.c is stale: this run emits no variant of that name; run: npugen emit k.c -o out\n"
                        "npugen: out/v2.h is stale: this run emits no variant of that name; run: npugen emit k.c -o out\n");
  /* another kernel file's files, and another target's, stay */
  rc = in_tmp(EMIT_KERNEL " && sed -e 's/void k(/void o(/' -e 's/(k, v/(o, w/' k.c > other.c && $n emit other.c -o out && "
                  "$n emit k.c -o out && "
                  "$n emit $r/examples/softmax_npu.c --target $r/targets/small.ini -o out && "
                  "$n emit $r/examples/softmax_npu.c -o out && ls out | tr '\\n' ' '",
              out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "npugen: warning: kept out/softmax_vu_small.c: an earlier run emitted it from other inputs (target "
                        "small); --prune removes it\n"
                        "npugen: warning: kept out/softmax_vu_small.h: an earlier run emitted it from other inputs (target "
                        "small); --prune removes it\n"
                        "k.c k.h o.c o.h softmax.c softmax.h softmax_vu.c softmax_vu.h softmax_vu_small.c softmax_vu_small.h "
                        "v1.c v1.h v2.c v2.h w1.c w1.h w2.c w2.h ");
}

Test(hostile, emit_never_writes_through_a_link) {
  char out[8192];
  int rc = in_tmp(EMIT_KERNEL " && mkdir out && echo precious > outside.c && ln -s ../outside.c out/v1.c && "
                  "$n emit k.c -o out --check; echo rc=$?; $n emit k.c -o out; echo rc=$?; cat outside.c; "
                  "test -L out/v1.c || head -c 26 out/v1.c",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "npugen: out/v1.c is stale (a symbolic link, which emit replaces): run: npugen emit k.c -o out\n"),
            "%s", out);
  cr_expect(strstr(out, "rc=1\nnpugen: out/v1.c was a symbolic link: replaced by the file (the link's target is left "
                        "alone)\nrc=0\nprecious\n/* C99 generated by npugen"),
            "%s", out);
  /* a link to a generated file elsewhere is no leftover of this run's DIR: left alone */
  rc = in_tmp(EMIT_KERNEL " && $n emit k.c -o a && mkdir out && ln -s ../a/v2.c out/v9.c && $n emit k.c -o out && ls a out",
              out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, "a:\nk.c\nk.h\nv1.c\nv1.h\nv2.c\nv2.h\n\nout:\nk.c\nk.h\nv1.c\nv1.h\nv2.c\nv2.h\nv9.c\n");
}

Test(hostile, emit_writes_atomically_and_keeps_unchanged_files) {
  char out[8192];
  /* no temporary file is left; an unchanged file keeps its time (make does not rebuild it) */
  int rc = in_tmp(EMIT_KERNEL " && $n emit k.c -o out && touch -d '2001-01-01' out/v1.c && $n emit k.c -o out && "
                  "ls -a out | tr '\\n' ' ' && date -r out/v1.c +%Y",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect_str_eq(out, ". .. .npugen-manifest k.c k.h v1.c v1.h v2.c v2.h 2001\n");
  /* a file that cannot be replaced: an error, and the rest is still written */
  rc = in_tmp(EMIT_KERNEL " && mkdir -p out/v1.c && $n emit k.c -o out; echo rc=$?; ls -a out | tr '\\n' ' '", out,
              sizeof out);
  cr_expect(strstr(out, "npugen: error: cannot write out/v1.c: Is a directory\nrc=1\n. .. .npugen-manifest k.c k.h v1.c v1.h v2.c v2.h "),
            "%s", out);
}

/* A file of the user's with a variant's name, in a DIR with no manifest
 * entry for it, is left as it is (it was overwritten without a word); a
 * file that opens with npugen's comment (emitted before manifests) is
 * replaced as before. */
Test(hostile, emit_never_overwrites_a_file_it_did_not_write) {
  char out[8192];
  int rc = in_tmp(EMIT_KERNEL " && mkdir out && echo 'void mine(void) {}' > out/v1.c && "
                  "printf '/* C99 generated by npugen 0.0.9 from k.c. Do not edit. */\n' > out/v2.c && "
                  "$n emit k.c -o out; echo rc=$?; cat out/v1.c; head -c 26 out/v2.c; echo; ls out | tr '\n' ' '",
                  out, sizeof out);
  cr_expect_eq(rc, 0, "%s", out);
  /* the error leaves the whole directory as it was: no other file written */
  cr_expect_str_eq(out, "npugen: error: out/v1.c exists, and npugen did not write it (.npugen-manifest does not name it, "
                        "and it does not open with npugen's comment): left as it is; move it away, or emit into another "
                        "directory\nnpugen: out left as it was: no file written or removed (the errors above)\n"
                        "rc=1\nvoid mine(void) {}\n/* C99 generated by npugen\nv1.c v2.c ",
                   "%s", out);
}

/* ---------------- 7. names by hash: the same answers ---------------- */

/* A scope past the size where it is indexed: redefinitions, shadowing and
 * the generated names behave as with a few names. */
Test(hostile, indexed_scopes_keep_c_scoping) {
  char src[8192];
  size_t n = (size_t)snprintf(src, sizeof src, "void k(float A[64], float B[64]) {\n");
  for (int i = 0; i < 20; i++) n += (size_t)snprintf(src + n, sizeof src - n, "  float t%d = A[%d];\n", i, i);
  n += (size_t)snprintf(src + n, sizeof src - n,
                        "  for (int i = 0; i < 64; i++) {\n    float t5 = A[i] * 2.0f;\n    L: B[i] = t5 + t19;\n  }\n"
                        "  for (int i = 0; i < 64; i++) B[i] += t5;\n");
  snprintf(src + n, sizeof src - n, "}\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *ir = npg_dump_ir(s, 0);
  cr_expect(strstr(ir, "i_1") && strstr(ir, "i_2"), "%s", ir); /* sibling loops renamed */
  NpgCheckResult r;
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  npg_close(s);
  /* a redefinition in the indexed scope, and a duplicate label among many */
  snprintf(src + n, sizeof src - n, "  float t17 = 0.0f;\n  B[0] = t17;\n}\n");
  refused(src, "k.c:27:9: error: redefinition of 't17'");
  n = (size_t)snprintf(src, sizeof src, "void k(float B[64]) {\n");
  for (int i = 0; i < 20; i++) n += (size_t)snprintf(src + n, sizeof src - n, "  L%d: B[%d] = 1;\n", i, i);
  snprintf(src + n, sizeof src - n, "  L7: B[63] = 2;\n}\n");
  refused(src, "k.c:22:7: error: duplicate label 'L7' (first used on line 9)");
}
