/* Element-wise kernels that update an array in place (`a = a * s`, a ReLU
 * in place, `x += y`) at their DDR bound: the array is staged as a read
 * cache for its loads and a write cache for its stores, each with two
 * copies, so that the next pass's fill and the last pass's drain overlap
 * this pass's compute. Before, cache_read refused an array the loop writes
 * ("a read cache would go stale"), and the one cache that copies in and out
 * could not be double-buffered ("both filled and drained by DMA"). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* Eight passes of 4 cores x 4 rows: the two caches of a, double-buffered. */
static const char scale_src[] = "void scale(float a[128][256], float s) {\n"
                                "  for (int i = 0; i < 128; i++)\n"
                                "    for (int j = 0; j < 256; j++)\n"
                                "      a[i][j] = a[i][j] * s;\n"
                                "}\n";
static const char split_steps[] = "#pragma npu schedule(scale, v)\n"
                                  "#pragma npu split(i, 16, io, ir)\n"
                                  "#pragma npu split(ir, 4, core, ii)\n"
                                  "#pragma npu bind(core, vu)\n"
                                  "#pragma npu cache_read(a, vu_vm, core, a_in)\n"
                                  "#pragma npu cache_write(a, vu_vm, core, a_vm)\n"
                                  "#pragma npu double_buffer(a_in)\n"
                                  "#pragma npu double_buffer(a_vm)\n"
                                  "#pragma npu vectorize(j)\n";

Test(vu_inplace, an_updated_array_is_read_and_written_through_two_double_buffered_caches) {
  NpgSession *s = open_ok(scale_src, split_steps);
  int v = npg_variant_index(s, "v");
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect(r.exact, "%s", r.summary);
  const char *roof = strstr(r.summary, "roofline ");
  cr_assert(roof, "%s", r.summary);
  cr_expect(strtod(roof + 9, NULL) >= 80.0, "%s", r.summary);
  cr_assert(npg_check(s, v, 2, &r), "%s", r.message);
  const char *c = npg_emit_source(s, v);
  /* the read cache: the compute reads it, the write cache takes the result */
  has(c, "npu_vu_muls_f32(&a_vm[ii][0], &a_in[ii][0], /*n=*/256, s);");
  /* the next pass's fill is issued ahead, into the other copy */
  has(c, "a_in_tok[(io + 1) % 2][core] = npu_dma_1d(");
  /* the copy out is not waited for where it is issued (it was: a fill of
   * the array it writes stood in the same body) */
  lacks(c, "npu_dma_wait(npu_dma_1d(");
  npg_close(s);
}

/* `x += y` is `x = x' + y` with x' read from the read cache; a ReLU in
 * place reads its element three times, all before its write. */
Test(vu_inplace, an_update_and_a_relu_in_place) {
  NpgSession *s = open_ok("void addv(float x[32][64], const float y[32][64]) {\n"
                          "  for (int i = 0; i < 32; i++)\n"
                          "    for (int j = 0; j < 64; j++)\n"
                          "      x[i][j] += y[i][j];\n"
                          "}\n",
                          "#pragma npu schedule(addv, v)\n"
                          "#pragma npu split(i, 8, io, ir)\n"
                          "#pragma npu split(ir, 2, core, ii)\n"
                          "#pragma npu bind(core, vu)\n"
                          "#pragma npu cache_read(y, vu_vm, core, y_vm)\n"
                          "#pragma npu cache_read(x, vu_vm, core, x_in)\n"
                          "#pragma npu cache_write(x, vu_vm, core, x_vm)\n"
                          "#pragma npu double_buffer(x_in)\n"
                          "#pragma npu double_buffer(x_vm)\n"
                          "#pragma npu double_buffer(y_vm)\n"
                          "#pragma npu vectorize(j)\n");
  has(npg_emit_source(s, checked_once(s, "v")), "npu_vu_add_f32(&x_vm[ii][0], &x_in[ii][0], &y_vm[ii][0], /*n=*/64);");
  npg_close(s);
  s = open_ok("void relu(float a[32][64]) {\n"
              "  for (int i = 0; i < 32; i++)\n"
              "    for (int j = 0; j < 64; j++)\n"
              "      a[i][j] = a[i][j] > 0.0f ? a[i][j] : 0.0f;\n"
              "}\n",
              "#pragma npu schedule(relu, v)\n"
              "#pragma npu split(i, 8, io, ir)\n"
              "#pragma npu split(ir, 2, core, ii)\n"
              "#pragma npu bind(core, vu)\n"
              "#pragma npu cache_read(a, vu_vm, core, a_in)\n"
              "#pragma npu cache_write(a, vu_vm, core, a_vm)\n"
              "#pragma npu double_buffer(a_in)\n"
              "#pragma npu double_buffer(a_vm)\n"
              "#pragma npu vectorize(j)\n");
  lacks(npg_emit_source(s, checked_once(s, "v")), "npu_dma_wait(npu_dma_1d(");
  npg_close(s);
}

/* A read that sees a write of its own iteration keeps the refusal; an
 * update C computes in a promoted type (int8 += int8 is done in int) has
 * no `x = x' op y` in x's type, and says so. */
Test(vu_inplace, a_read_cache_that_would_go_stale_is_refused) {
  refused("void sh(float a[16][64]) {\n"
          "  for (int i = 0; i < 16; i++)\n"
          "    for (int j = 1; j < 64; j++)\n"
          "      a[i][j] = a[i][j - 1] + 1.0f;\n"
          "}\n",
          "#pragma npu schedule(sh, v)\n#pragma npu cache_read(a, vu_vm, i, a_in)\n",
          "k.c:7:24: error: cache_read: s1 (line 4) writes a under loop i: a read cache would go stale; use cache_write");
  refused("#include <stdint.h>\n"
          "void acc(int8_t x[16][64], const int8_t y[16][64]) {\n"
          "  for (int i = 0; i < 16; i++)\n"
          "    for (int j = 0; j < 64; j++)\n"
          "      x[i][j] += y[i][j];\n"
          "}\n",
          "#pragma npu schedule(acc, v)\n#pragma npu cache_read(x, vu_vm, i, x_in)\n",
          "k.c:8:24: error: cache_read: s1 (line 5) updates x with a compound assignment that C computes in a promoted "
          "type: a read cache cannot take its read apart from its write; use cache_write");
}
