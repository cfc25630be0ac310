/* hoist_offset (schedule/hoist_offset.c): TFLite's `acc += filter *
 * (input + input_offset)` with the offset's term, input_offset *
 * sum(filter), computed once per output channel at the kernel's start, so
 * the reduction is a plain int8 product on the NU (npu_nu_matmul_i8_bt:
 * the filter as TFLite stores it). Every variant is JIT-run against the
 * kernel as written (bit-exact); where a sum could leave its type, or the
 * offset or the filter could change, the step is refused. Small sizes:
 * each check runs in milliseconds. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* TFLite's pointwise convolution's reduction, the offset of type T ("128"
 * for TFLite's usual -zero_point written as a constant). */
static const char *offset_kernel(const char *param, const char *offset) {
  static char src[1024];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "#define P 64\n"
           "#define IC 64\n"
           "#define OC 32\n"
           "void conv(const int8_t input[P][IC], const int8_t filter[OC][IC], int32_t out[P][OC]%s) {\n"
           "  for (int p = 0; p < P; p++)\n"
           "    for (int oc = 0; oc < OC; oc++) {\n"
           "      out[p][oc] = 0;\n"
           "      for (int ic = 0; ic < IC; ic++)\n"
           "        update: out[p][oc] += filter[oc][ic] * (input[p][ic] + %s);\n"
           "    }\n"
           "}\n",
           param, offset);
  return src;
}

/* the offset's term out, then the NU's matmul on the filter as stored and
 * the per-channel sums added after it */
static const char *on_the_nu(const char *offset) {
  static char steps[512];
  snprintf(steps, sizeof steps,
           "#pragma npu schedule(conv, nu)\n"
           "#pragma npu hoist_offset(update, %s, ofs)\n"
           "#pragma npu fission(oc, ic)\n"
           "#pragma npu fission(p, oc)\n"
           "#pragma npu cache_read(input, nu_ib, root, input_ib)\n"
           "#pragma npu cache_read(filter, nu_wb, root, filter_wb)\n"
           "#pragma npu cache_write(out, nu_ob, root, out_ob)\n"
           "#pragma npu tensorize(p, npu_nu_matmul_i8_bt)\n",
           offset);
  return steps;
}

Test(input_offset, tflites_offset_of_128_moves_out_of_the_reduction) {
  NpgSession *s = open_ok(offset_kernel("", "128"), on_the_nu("128"));
  const char *c = npg_emit_source(s, checked(s, "nu"));
  has(c, "int ofs[32];");
  has(c, "ofs[ofs_oc] += 128 * filter_wb[ofs_oc][ofs_ic];");
  has(c, "npu_nu_matmul_i8_bt(&out_ob[0][0], &input_ib[0][0], &filter_wb[0][0], /*m=*/64, /*n=*/32, /*k=*/64,");
  has(c, "out_ob[p][oc] += ofs[oc];");
  npg_close(s);
}

/* TFLite passes input_offset at run time: a scalar parameter whose type
 * bounds it (-zero_point of an int8 tensor is in [-127, 128]). */
Test(input_offset, a_scalar_parameter_offset) {
  NpgSession *s = open_ok(offset_kernel(", int16_t input_offset", "input_offset"), on_the_nu("input_offset"));
  const char *c = npg_emit_source(s, checked(s, "nu"));
  has(c, "ofs[ofs_oc] += input_offset * filter_wb[ofs_oc][ofs_ic];");
  has(c, "npu_nu_matmul_i8_bt(");
  npg_close(s);
}

/* The same step alone, on the host: the kernel's own local accumulator. */
Test(input_offset, a_local_accumulator_on_the_host) {
  const char *k = "#include <stdint.h>\n"
                  "void conv(const int8_t input[8][16], const int8_t filter[4][16], int32_t out[8][4], int8_t off) {\n"
                  "  for (int p = 0; p < 8; p++)\n"
                  "    for (int oc = 0; oc < 4; oc++) {\n"
                  "      int32_t acc = 0;\n"
                  "      for (int ic = 0; ic < 16; ic++)\n"
                  "        update: acc += (input[p][ic] + off) * filter[oc][ic];\n"
                  "      out[p][oc] = acc;\n"
                  "    }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, off, ofs)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "acc += input[p][ic] * filter[oc][ic];");
  has(c, "acc += ofs[oc];");
  npg_close(s);
}

/* An int32_t offset is any int32_t: offset * sum(filter) could overflow. */
Test(input_offset, an_int32_offset_is_refused) {
  refused(offset_kernel(", int32_t input_offset", "input_offset"),
          "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, input_offset, ofs)\n",
          "k.c:14:26: error: hoist_offset: input_offset times a sum of 64 elements of filter could leave int (input_offset "
          "is any int32_t; a narrower type, or a constant, bounds it)");
}

Test(input_offset, a_sum_too_long_for_int32_is_refused) {
  const char *k = "#include <stdint.h>\n"
                  "void conv(const int8_t input[2][200000], const int8_t filter[2][200000], int32_t out[2][2]) {\n"
                  "  for (int p = 0; p < 2; p++)\n"
                  "    for (int oc = 0; oc < 2; oc++) {\n"
                  "      out[p][oc] = 0;\n"
                  "      for (int ic = 0; ic < 200000; ic++)\n"
                  "        update: out[p][oc] += filter[oc][ic] * (input[p][ic] + 1);\n"
                  "    }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, 1, ofs)\n",
          "k.c:11:26: error: hoist_offset: a sum of 200000 products filter * X could leave int");
}

Test(input_offset, an_offset_the_kernel_assigns_is_refused) {
  const char *k = "#include <stdint.h>\n"
                  "void conv(const int8_t input[8][16], const int8_t filter[4][16], int32_t out[8][4], int8_t off) {\n"
                  "  for (int p = 0; p < 8; p++)\n"
                  "    for (int oc = 0; oc < 4; oc++) {\n"
                  "      off = off + 1;\n"
                  "      out[p][oc] = 0;\n"
                  "      for (int ic = 0; ic < 16; ic++)\n"
                  "        update: out[p][oc] += filter[oc][ic] * (input[p][ic] + off);\n"
                  "    }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, off, ofs)\n",
          "k.c:12:34: error: hoist_offset: the kernel assigns off: its value at the start is not the one the update reads");
}

/* acc starting at the bias: its partial sums are not bounded by the types */
Test(input_offset, an_accumulator_not_zero_before_its_loop_is_refused) {
  const char *k = "#include <stdint.h>\n"
                  "void conv(const int8_t input[8][16], const int8_t filter[4][16], const int32_t bias[4], int32_t out[8][4]) {\n"
                  "  for (int p = 0; p < 8; p++)\n"
                  "    for (int oc = 0; oc < 4; oc++) {\n"
                  "      out[p][oc] = bias[oc];\n"
                  "      for (int ic = 0; ic < 16; ic++)\n"
                  "        update: out[p][oc] += filter[oc][ic] * (input[p][ic] + 128);\n"
                  "    }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, 128, ofs)\n",
          "k.c:11:26: error: hoist_offset: the accumulator of update (line 7) is not set to 0 right before loop ic");
}

/* 300,000 sums of 4 bytes: past a kernel's local arrays */
Test(input_offset, sums_past_the_local_array_limit_are_refused) {
  const char *k = "#include <stdint.h>\n"
                  "void conv(const int8_t input[2][4], const int8_t filter[300000][4], int32_t out[2][300000]) {\n"
                  "  for (int p = 0; p < 2; p++)\n"
                  "    for (int oc = 0; oc < 300000; oc++) {\n"
                  "      out[p][oc] = 0;\n"
                  "      for (int ic = 0; ic < 4; ic++)\n"
                  "        update: out[p][oc] += filter[oc][ic] * (input[p][ic] + 1);\n"
                  "    }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(conv, v)\n#pragma npu hoist_offset(update, 1, ofs)\n",
          "k.c:11:37: error: hoist_offset: the array ofs would take more than 1048576 bytes (the limit of a kernel's "
          "local arrays)");
}

/* A GEMV's vector as F: one sum for every row, ofs of one element. Before:
 * the nest of that sum lost its reduction loop (the init's link to it was
 * overwritten), so ofs stayed 0 and the check failed. */
Test(input_offset, a_vector_whose_sum_spans_no_loop) {
  const char *k = "#include <stdint.h>\n"
                  "void mv(const int8_t a[8][16], const int8_t x[16], int32_t y[8]) {\n"
                  "  for (int i = 0; i < 8; i++) {\n"
                  "    y[i] = 0;\n"
                  "    for (int k = 0; k < 16; k++)\n"
                  "      update: y[i] += x[k] * (a[i][k] + 128);\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(mv, v)\n#pragma npu hoist_offset(update, 128, ofs)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "ofs[0] += 128 * x[ofs_k];");
  has(c, "y[i] += ofs[0];");
  npg_close(s);
}
