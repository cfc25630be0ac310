/* compute_at and reverse_compute_at: the producer (consumer) nest inside the
 * other nest's loop with narrowed bounds, checked by execution; recomputed
 * halos; refusals with their exact messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *elementwise =
    "#define H 8\n"
    "#define W 10\n"
    "void ew(const float A[H][W], float B[H][W]) {\n"
    "  float T[H][W];\n"
    "  prod: for (int y = 0; y < H; y++)\n"
    "    for (int x = 0; x < W; x++)\n"
    "      T[y][x] = A[y][x] * 2.0f;\n"
    "  for (int i = 0; i < H; i++)\n"
    "    for (int j = 0; j < W; j++)\n"
    "      B[i][j] = T[i][j] + 1.0f;\n"
    "}\n";

Test(sched_compute_at, elementwise_producer_into_consumer_rows) {
  NpgSession *s = open_ok(elementwise, "#pragma npu schedule(ew, rows)\n#pragma npu compute_at(prod, i)\n"
                                       "#pragma npu schedule(ew, elems)\n#pragma npu compute_at(prod, j)\n");
  int r = checked(s, "rows"), e = checked(s, "elems");
  has(npg_dump_ir(s, r), "  local T: float[8][10]  # line 4\n"
                         "  for i in 0 .. < H step 1:  # line 8\n"
                         "    for prod (counter y) in i .. < i + 1 step 1:  # line 5\n"
                         "      for x in 0 .. < W step 1:  # line 6\n"
                         "        s1: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "    for j in 0 .. < W step 1:  # line 9\n"
                         "      s2: B[i][j] = T[i][j] + 1.0f  # line 10\n");
  has(npg_dump_ir(s, e), "    for j in 0 .. < W step 1:  # line 9\n"
                         "      for prod (counter y) in i .. < i + 1 step 1:  # line 5\n"
                         "        for x in j .. < j + 1 step 1:  # line 6\n"
                         "          s1: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "      s2: B[i][j] = T[i][j] + 1.0f  # line 10\n");
  has(npg_emit_source(s, e), "      for (int y = i; y < i + 1; y++) {\n        for (int x = j; x < j + 1; x++) {\n");
  npg_close(s);
}

static const char *blur =
    "#define H 8\n"
    "#define W 10\n"
    "void blur(const float A[H][W], float B[H][W - 2]) {\n"
    "  float T[H][W];\n"
    "  for (int y = 0; y < H; y++)\n"
    "    for (int x = 0; x < W; x++)\n"
    "      prod: T[y][x] = A[y][x] * 2.0f;\n"
    "  for (int i = 0; i < H; i++)\n"
    "    for (int j = 1; j < W - 1; j++)\n"
    "      B[i][j - 1] = T[i][j - 1] + T[i][j] + T[i][j + 1];\n"
    "}\n";

Test(sched_compute_at, blur_3tap_recomputes_the_halo) {
  NpgSession *s = open_ok(blur, "#pragma npu schedule(blur, rows)\n#pragma npu compute_at(prod, i)\n"
                                "#pragma npu schedule(blur, cols)\n#pragma npu compute_at(prod, j)\n");
  int r = checked(s, "rows"), c = checked(s, "cols");
  /* a row needs the whole row of T: x keeps its range */
  has(npg_dump_ir(s, r), "  for i in 0 .. < H step 1:  # line 8\n"
                         "    for y in i .. < i + 1 step 1:  # line 5\n"
                         "      for x in 0 .. < W step 1:  # line 6\n"
                         "        prod: T[y][x] = A[y][x] * 2.0f  # line 7\n");
  /* each output needs 3 values; neighbours share 2 of them, recomputed */
  has(npg_dump_ir(s, c), "    for j in 1 .. < W - 1 step 1:  # line 9\n"
                         "      for y in i .. < i + 1 step 1:  # line 5\n"
                         "        for x in j - 1 .. < j + 2 step 1:  # line 6\n"
                         "          prod: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "      s1: B[i][j - 1] = T[i][j - 1] + T[i][j] + T[i][j + 1]  # line 10\n");
  npg_close(s);
}

Test(sched_compute_at, vertical_blur_clamps_the_halo_at_the_borders) {
  const char *k = "#define H 8\n"
                  "#define W 10\n"
                  "void vblur(const float A[H][W], float B[H][W]) {\n"
                  "  float T[H][W];\n"
                  "  for (int y = 0; y < H; y++)\n"
                  "    for (int x = 0; x < W; x++)\n"
                  "      prod: T[y][x] = A[y][x] * 2.0f;\n"
                  "  for (int i = 0; i < H; i++)\n"
                  "    for (int j = 0; j < W; j++)\n"
                  "      B[i][j] = (i > 0 ? T[i - 1][j] : 0.0f) + T[i][j] + (i < H - 1 ? T[i + 1][j] : 0.0f);\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(vblur, rows)\n#pragma npu compute_at(prod, i)\n");
  int r = checked(s, "rows");
  /* rows max(0, i - 1) .. min(H - 1, i + 1): the clamps become a guard */
  has(npg_dump_ir(s, r), "  for i in 0 .. < H step 1:  # line 8\n"
                         "    for y in i - 1 .. < i + 2 step 1:  # line 5\n"
                         "      if y >= 0 && y < H:\n"
                         "        for x in 0 .. < W step 1:  # line 6\n"
                         "          prod: T[y][x] = A[y][x] * 2.0f  # line 7\n");
  npg_close(s);
}

static const char *conv =
    "#define H 6\n"
    "#define W 7\n"
    "void conv(const float in[H][W], const float w[3][3], float out[H][W]) {\n"
    "  float P[H + 2][W + 2];\n"
    "  pad: for (int y = 0; y < H + 2; y++)\n"
    "    for (int x = 0; x < W + 2; x++)\n"
    "      P[y][x] = (y >= 1 && y <= H && x >= 1 && x <= W) ? in[y - 1][x - 1] : 0.0f;\n"
    "  for (int i = 0; i < H; i++)\n"
    "    for (int j = 0; j < W; j++) {\n"
    "      init: out[i][j] = 0.0f;\n"
    "      for (int ky = 0; ky < 3; ky++)\n"
    "        for (int kx = 0; kx < 3; kx++)\n"
    "          acc: out[i][j] += P[i + ky][j + kx] * w[ky][kx];\n"
    "    }\n"
    "}\n";

Test(sched_compute_at, conv_with_a_padding_producer) {
  NpgSession *s = open_ok(conv, "#pragma npu schedule(conv, rows)\n#pragma npu compute_at(pad, i)\n"
                                "#pragma npu schedule(conv, pix)\n#pragma npu compute_at(pad, j)\n"
                                "#pragma npu schedule(conv, taps)\n#pragma npu compute_at(pad, ky)\n");
  int r = checked(s, "rows"), p = checked(s, "pix"), t = checked(s, "taps");
  has(npg_dump_ir(s, r), "  for i in 0 .. < H step 1:  # line 8\n"
                         "    for pad (counter y) in i .. < i + 3 step 1:  # line 5\n"
                         "      for x in 0 .. < W + 2 step 1:  # line 6\n");
  has(npg_dump_ir(s, p), "    for j in 0 .. < W step 1:  # line 9\n"
                         "      for pad (counter y) in i .. < i + 3 step 1:  # line 5\n"
                         "        for x in j .. < j + 3 step 1:  # line 6\n");
  has(npg_dump_ir(s, t), "      for ky in 0 .. < 3 step 1:  # line 11\n"
                         "        for pad (counter y) in i + ky .. < i + ky + 1 step 1:  # line 5\n"
                         "          for x in j .. < j + 3 step 1:  # line 6\n");
  npg_close(s);
}

Test(sched_compute_at, matmul_with_a_padding_producer) {
  const char *k = "#include <stdint.h>\n"
                  "void mm(const int8_t A[16][10], const int8_t B[12][8], int32_t C[16][8]) {\n"
                  "  int8_t Ap[16][12];\n"
                  "  pad: for (int i = 0; i < 16; i++)\n"
                  "    for (int k = 0; k < 12; k++)\n"
                  "      Ap[i][k] = k < 10 ? A[i][k] : 0;\n"
                  "  for (int i = 0; i < 16; i++)\n"
                  "    for (int j = 0; j < 8; j++) {\n"
                  "      init: C[i][j] = 0;\n"
                  "      for (int k = 0; k < 12; k++)\n"
                  "        update: C[i][j] += (int32_t)Ap[i][k] * (int32_t)B[k][j];\n"
                  "    }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(mm, v)\n#pragma npu compute_at(pad, i)\n");
  int v = checked(s, "v");
  /* the producer's counter i would hide the consumer's: it becomes i_1 */
  has(npg_dump_ir(s, v), "  for i in 0 .. < 16 step 1:  # line 7\n"
                         "    for pad (counter i_1) in i .. < i + 1 step 1:  # line 4\n"
                         "      for k_1 (counter k) in 0 .. < 12 step 1:  # line 5\n"
                         "        s1: Ap[i_1][k] = k < 10 ? A[i_1][k] : 0  # line 6\n"
                         "    for j in 0 .. < 8 step 1:  # line 8\n");
  has(npg_emit_source(s, v), "    for (int i_1 = i; i_1 < i + 1; i_1++) {\n");
  npg_close(s);
}

Test(sched_compute_at, reduction_producer_is_recomputed_from_its_init) {
  const char *k = "#define H 6\n"
                  "#define W 8\n"
                  "void rowsum(const float A[H][W][5], float B[H][W - 2]) {\n"
                  "  float T[H][W];\n"
                  "  sums: for (int y = 0; y < H; y++)\n"
                  "    for (int x = 0; x < W; x++) {\n"
                  "      T[y][x] = 0.0f;\n"
                  "      for (int k = 0; k < 5; k++)\n"
                  "        T[y][x] += A[y][x][k];\n"
                  "    }\n"
                  "  for (int i = 0; i < H; i++)\n"
                  "    for (int j = 1; j < W - 1; j++)\n"
                  "      B[i][j - 1] = T[i][j - 1] + T[i][j] + T[i][j + 1];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(rowsum, v)\n#pragma npu compute_at(sums, j)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "    for j in 1 .. < W - 1 step 1:  # line 12\n"
                         "      for sums (counter y) in i .. < i + 1 step 1:  # line 5\n"
                         "        for x in j - 1 .. < j + 2 step 1:  # line 6\n"
                         "          s1: T[y][x] = 0.0f  # line 7\n"
                         "          for k in 0 .. < 5 step 1:  # line 8\n");
  npg_close(s);
}

Test(sched_compute_at, inside_a_shared_outer_loop) {
  const char *k = "void batch(const float A[3][8], float B[3][6]) {\n"
                  "  for (int b = 0; b < 3; b++) {\n"
                  "    float T[8];\n"
                  "    for (int x = 0; x < 8; x++)\n"
                  "      mk: T[x] = A[b][x] + 1.0f;\n"
                  "    for (int j = 1; j < 7; j++)\n"
                  "      B[b][j - 1] = T[j - 1] * T[j + 1];\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(batch, v)\n#pragma npu compute_at(mk, j)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for b in 0 .. < 3 step 1:  # line 2\n"
                         "    local T: float[8]  # line 3\n"
                         "    for j in 1 .. < 7 step 1:  # line 6\n"
                         "      for x in j - 1 .. < j + 2 step 1:  # line 4\n"
                         "        mk: T[x] = A[b][x] + 1.0f  # line 5\n");
  npg_close(s);
}

Test(sched_compute_at, then_split_the_consumer_and_through_the_c_api) {
  NpgSession *s = open_ok(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(prod, j)\n"
                                "#pragma npu split(i, 4, io, ii)\n");
  checked(s, "v");
  NpgSched *h = npg_sched_begin(s, "blur", "api");
  cr_assert(npg_sched_compute_at(h, "prod", "i"), "%s", npg_errors(s));
  int v = npg_sched_end(h);
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  has(npg_variant_schedule(s, v), "compute_at(prod, i)\n");
  checked(s, "api");
  npg_close(s);
}

/* ---------------- reverse_compute_at ---------------- */

static const char *rblur =
    "#define H 8\n"
    "#define W 10\n"
    "void rblur(const float A[H][W], float B[H - 2][W]) {\n"
    "  float T[H][W];\n"
    "  for (int y = 0; y < H; y++)\n"
    "    for (int x = 0; x < W; x++)\n"
    "      prod: T[y][x] = A[y][x] * 2.0f;\n"
    "  for (int i = 1; i < H - 1; i++)\n"
    "    for (int j = 0; j < W; j++)\n"
    "      cons: B[i - 1][j] = T[i - 1][j] + T[i][j] + T[i + 1][j];\n"
    "}\n";

Test(sched_compute_at, reverse_compute_at_runs_each_row_once_its_inputs_are_done) {
  NpgSession *s = open_ok(rblur, "#pragma npu schedule(rblur, rows)\n#pragma npu reverse_compute_at(cons, y)\n"
                                 "#pragma npu schedule(rblur, elems)\n#pragma npu reverse_compute_at(cons, x)\n");
  int r = checked(s, "rows"), e = checked(s, "elems");
  /* output row i needs T rows up to i + 1: it runs after producer row y = i + 1 */
  has(npg_dump_ir(s, r), "  for y in 0 .. < H step 1:  # line 5\n"
                         "    for x in 0 .. < W step 1:  # line 6\n"
                         "      prod: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "    if y >= 2:\n"
                         "      for i in y - 1 .. < y step 1:  # line 8\n"
                         "        for j in 0 .. < W step 1:  # line 9\n"
                         "          cons: B[i - 1][j] = T[i - 1][j] + T[i][j] + T[i + 1][j]  # line 10\n");
  has(npg_dump_ir(s, e), "      prod: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "      if y >= 2:\n"
                         "        for i in y - 1 .. < y step 1:  # line 8\n"
                         "          for j in x .. < x + 1 step 1:  # line 9\n");
  npg_close(s);
}

Test(sched_compute_at, reverse_compute_at_elementwise) {
  NpgSession *s = open_ok(elementwise, "#pragma npu schedule(ew, v)\n#pragma npu reverse_compute_at(j, x)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for prod (counter y) in 0 .. < H step 1:  # line 5\n"
                         "    for x in 0 .. < W step 1:  # line 6\n"
                         "      s1: T[y][x] = A[y][x] * 2.0f  # line 7\n"
                         "      for i in y .. < y + 1 step 1:  # line 8\n"
                         "        for j in x .. < x + 1 step 1:  # line 9\n"
                         "          s2: B[i][j] = T[i][j] + 1.0f  # line 10\n");
  npg_close(s);
}

/* ---------------- refusals ---------------- */

Test(sched_compute_at, into_a_loop_that_runs_before_the_values_are_complete_is_refused) {
  /* a running sum: T[j] needs T[j - 1], which the consumer, counting down,
   * has not computed yet */
  const char *scan = "#define N 16\n"
                     "void scan(const float A[N], float B[N]) {\n"
                     "  float T[N];\n"
                     "  for (int i = 0; i < N; i++)\n"
                     "    sum: T[i] = (i > 0 ? T[i - 1] : 0.0f) + A[i];\n"
                     "  for (int j = N - 1; j >= 0; j--)\n"
                     "    use: B[j] = T[j] * 2.0f;\n"
                     "}\n";
  refused(scan, "#pragma npu schedule(scan, v)\n#pragma npu compute_at(sum, j)\n",
          "k.c:10:13: error: compute_at: illegal: it reverses the flow dependence on T from sum (line 5) to sum (line 5), distance (1)");
  char src[4096];
  snprintf(src, sizeof src, "%s%s", scan, "#pragma npu schedule(scan, v)\n#pragma npu compute_at(sum, j)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "note: sum (line 5) at i=0 writes T[0], then sum (line 5) at i=1 reads it");
  npg_close(s);
  /* another statement reads T between the producer and the loop */
  const char *other = "#define N 16\n"
                      "void two(const float A[N], float B[N], float C[N]) {\n"
                      "  float T[N];\n"
                      "  for (int i = 0; i < N; i++)\n"
                      "    mk: T[i] = A[i] * 2.0f;\n"
                      "  for (int i = 0; i < N; i++)\n"
                      "    copy: C[i] = T[i];\n"
                      "  for (int j = 0; j < N; j++)\n"
                      "    use: B[j] = T[j] + C[j];\n"
                      "}\n";
  refused(other, "#pragma npu schedule(two, v)\n#pragma npu compute_at(mk, j)\n",
          "k.c:12:13: error: compute_at: illegal: it reverses the flow dependence on T from mk (line 5) to copy (line 7)");
}

Test(sched_compute_at, bad_targets_are_refused) {
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(prod, nope)\n",
          "k.c:13:30: error: compute_at: no loop named 'nope' in v (loops: y, x, i, j)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(nothing, i)\n",
          "k.c:13:24: error: compute_at: no loop or statement named 'nothing' in v (loops and statements: y, x, prod, i, j, s1)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(s1, y)\n",
          "k.c:13:24: error: compute_at: loop y (line 5) runs before s1 (line 10); compute_at moves a producer into a later consumer's loop (reverse_compute_at moves a consumer into an earlier producer's loop)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu reverse_compute_at(prod, j)\n",
          "k.c:13:32: error: reverse_compute_at: loop j (line 9) runs after prod (line 7); reverse_compute_at moves a consumer into an earlier producer's loop (compute_at moves a producer into a later consumer's loop)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(prod, x)\n",
          "k.c:13:24: error: compute_at: prod (line 7) is already inside loop x (line 6)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu compute_at(y, x)\n",
          "k.c:13:27: error: compute_at: loop x (line 6) is inside y (line 5)");
  refused(blur, "#pragma npu schedule(blur, v)\n#pragma npu parallel(i)\n#pragma npu compute_at(prod, i)\n",
          "k.c:14:30: error: compute_at: loop i (line 8) is parallel; move prod first, then mark the loop");
  refused(conv, "#pragma npu schedule(conv, v)\n#pragma npu compute_at(init, ky)\n",
          "k.c:17:24: error: compute_at: out is also written by acc (line 13); compute_at needs init to be its only writer");
}

Test(sched_compute_at, a_producer_written_twice_is_refused) {
  const char *k = "#define N 16\n"
                  "void twice(const float A[N], float B[N]) {\n"
                  "  float T[N];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    first: T[i] = A[i];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    second: T[i] = T[i] + 1.0f;\n"
                  "  for (int j = 0; j < N; j++)\n"
                  "    use: B[j] = T[j];\n"
                  "}\n";
  refused(k, "#pragma npu schedule(twice, v)\n#pragma npu compute_at(second, j)\n",
          "k.c:12:24: error: compute_at: T is also written by first (line 5); compute_at needs second to be its only writer");
  const char *two = "void two(const float A[8], float B[8], float C[8], float D[8]) {\n"
                    "  for (int i = 0; i < 8; i++) {\n"
                    "    b: B[i] = A[i];\n"
                    "    c: C[i] = A[i];\n"
                    "  }\n"
                    "  for (int j = 0; j < 8; j++)\n"
                    "    D[j] = B[j] + C[j];\n"
                    "}\n";
  refused(two, "#pragma npu schedule(two, v)\n#pragma npu compute_at(i, j)\n",
          "k.c:10:24: error: compute_at: i (line 2) writes B and also C (line 4); compute_at moves the producer of one array");
  refused(two, "#pragma npu schedule(two, v)\n#pragma npu compute_at(b, j)\n",
          "k.c:10:24: error: compute_at: b (line 3) shares loop i (line 2) with other statements, and i does not enclose loop j; split it off with fission first");
}

Test(sched_compute_at, recomputing_needs_a_pure_producer_read_nowhere_else) {
  /* recomputing T[x] of a recurrence would need T[x - 1] of this iteration */
  const char *rec = "#define W 8\n"
                    "void recur(const float A[W], float B[W - 2]) {\n"
                    "  float T[W];\n"
                    "  rec: for (int x = 0; x < W; x++) {\n"
                    "    T[x] = A[x];\n"
                    "    if (x > 0) T[x] += T[x - 1] * 0.5f;\n"
                    "  }\n"
                    "  for (int j = 1; j < W - 1; j++)\n"
                    "    B[j - 1] = T[j - 1] + T[j + 1];\n"
                    "}\n";
  refused(rec, "#pragma npu schedule(recur, v)\n#pragma npu compute_at(rec, j)\n",
          "k.c:12:13: error: compute_at: iterations of loop j read overlapping parts of T, so rec would compute some elements more than once; that needs rec to be pure, but s2 (line 6) reads elements of T that it does not write itself");
  const char *elsewhere = "#define N 16\n"
                          "void ew2(const float A[N], float B[N - 2], float C[N]) {\n"
                          "  float T[N];\n"
                          "  for (int i = 0; i < N; i++)\n"
                          "    mk: T[i] = A[i] * 3.0f;\n"
                          "  for (int j = 1; j < N - 1; j++)\n"
                          "    use: B[j - 1] = T[j - 1] + T[j + 1];\n"
                          "  for (int j = 0; j < N; j++)\n"
                          "    late: C[j] = T[j];\n"
                          "}\n";
  refused(elsewhere, "#pragma npu schedule(ew2, v)\n#pragma npu compute_at(mk, j_1)\n",
          "k.c:12:13: error: compute_at: iterations of loop j_1 read overlapping parts of T, so mk would compute some elements more than once; that is only correct when nothing else reads T, but late (line 9) does");
  /* the producer reads what the consumer loop writes */
  const char *impure = "#define N 16\n"
                       "void imp(float A[N], float B[N - 2]) {\n"
                       "  float T[N];\n"
                       "  for (int i = 0; i < N; i++)\n"
                       "    mk: T[i] = A[i] * 3.0f;\n"
                       "  for (int j = 1; j < N - 1; j++) {\n"
                       "    use: B[j - 1] = T[j - 1] + T[j + 1];\n"
                       "    wr: A[j] = 0.0f;\n"
                       "  }\n"
                       "}\n";
  refused(impure, "#pragma npu schedule(imp, v)\n#pragma npu compute_at(mk, j)\n",
          "k.c:12:13: error: compute_at: iterations of loop j read overlapping parts of T, so mk would compute some elements more than once; that needs mk to be pure, but it reads A, which wr (line 8) writes after it");
  /* skipping elements of a parameter would leave them out of the result */
  const char *param = "void part(const float A[16], float T[16], float B[8]) {\n"
                      "  for (int i = 0; i < 16; i++)\n"
                      "    mk: T[i] = A[i] * 3.0f;\n"
                      "  for (int j = 0; j < 8; j++)\n"
                      "    use: B[j] = T[j];\n"
                      "}\n";
  refused(param, "#pragma npu schedule(part, v)\n#pragma npu compute_at(mk, j)\n",
          "k.c:8:13: error: compute_at: no iteration of loop j reads some elements of T, so mk would not compute them; T is a parameter of v, so every element mk writes must still be computed");
}

Test(sched_compute_at, a_declaration_used_outside_the_moved_nest_is_refused) {
  const char *k = "#include <math.h>\n"
                  "void rms(const float x[4][8], float y[4][8]) {\n"
                  "  for (int r = 0; r < 4; r++) {\n"
                  "    float ss = 0.0f;\n"
                  "    for (int i = 0; i < 8; i++)\n"
                  "      ss += x[r][i] * x[r][i];\n"
                  "    float scale = 1.0f / sqrtf(ss + 1e-6f);\n"
                  "    for (int i = 0; i < 8; i++)\n"
                  "      y[r][i] = x[r][i] * scale;\n"
                  "  }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(rms, v)\n#pragma npu reverse_compute_at(s3, i_1)\n",
          "k.c:13:32: error: reverse_compute_at: s3 (line 7) declares scale, which s4 (line 9) uses outside the moved nest");
}

Test(sched_compute_at, reverse_compute_at_waits_for_a_complete_reduction) {
  const char *k = "void l2(const float x[4][8], float y[4][8]) {\n"
                  "  for (int r = 0; r < 4; r++) {\n"
                  "    float ss = 0.0f;\n"
                  "    for (int i = 0; i < 8; i++)\n"
                  "      ss += x[r][i] * x[r][i];\n"
                  "    for (int i = 0; i < 8; i++)\n"
                  "      y[r][i] = x[r][i] * ss;\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(l2, v)\n#pragma npu reverse_compute_at(i_2, i_1)\n");
  int v = checked(s, "v");
  /* the sum is complete only after its last term: the consumer runs then */
  has(npg_dump_ir(s, v), "    for i_1 (counter i) in 0 .. < 8 step 1:  # line 4\n"
                         "      s2: ss += x[r][i] * x[r][i]  # line 5\n"
                         "      if i == 7:\n"
                         "        for i_2 (counter i_3) in 0 .. < 8 step 1:  # line 6\n"
                         "          s3: y[r][i_3] = x[r][i_3] * ss  # line 7\n");
  npg_close(s);
}

/* ---------------- review fixes ---------------- */

Test(sched_compute_at, a_value_carried_across_the_shared_loop_is_not_recomputed) {
  /* T accumulates over b: a rerun in iteration b would add to T[x] again */
  const char *k = "void acc(const float A[3][8], float B[3][6]) {\n"
                  "  float T[8];\n"
                  "  for (int b = 0; b < 3; b++) {\n"
                  "    px: for (int x = 0; x < 8; x++) {\n"
                  "      if (b == 0)\n"
                  "        init: T[x] = A[b][x];\n"
                  "      else\n"
                  "        upd: T[x] += A[b][x];\n"
                  "    }\n"
                  "    for (int j = 1; j < 7; j++)\n"
                  "      use: B[b][j - 1] = T[j - 1] + T[j + 1];\n"
                  "  }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(acc, v)\n#pragma npu compute_at(px, j)\n",
          "k.c:15:13: error: compute_at: iterations of loop j read overlapping parts of T, so px would compute some elements more than once; that needs px to be pure, but values of T flow into a rerun from instances it does not run (such as upd, line 8)");
}

Test(sched_compute_at, a_running_sum_in_a_local_of_the_nest_is_not_recomputed) {
  /* s carries the prefix sum along x: a rerun from x = j - 1 restarts it */
  const char *k = "void pre(const float A[4][8], float B[4][6]) {\n"
                  "  float T[4][8];\n"
                  "  py: for (int y = 0; y < 4; y++) {\n"
                  "    float s = 0.0f;\n"
                  "    for (int x = 0; x < 8; x++) {\n"
                  "      s += A[y][x];\n"
                  "      T[y][x] = s;\n"
                  "    }\n"
                  "  }\n"
                  "  for (int i = 0; i < 4; i++)\n"
                  "    for (int j = 1; j < 7; j++)\n"
                  "      use: B[i][j - 1] = T[i][j - 1] + T[i][j + 1];\n"
                  "}\n";
  refused(k, "#pragma npu schedule(pre, v)\n#pragma npu compute_at(py, j)\n",
          "k.c:15:13: error: compute_at: iterations of loop j read overlapping parts of T, so py would compute some elements more than once; that needs py to be pure, but values of s flow into a rerun from instances it does not run (such as s2, line 6)");
  /* a temporary set before each use is fine: the rows are recomputed */
  const char *tmp = "void tmp(const float A[4][8], float B[4][6]) {\n"
                    "  float T[4][8];\n"
                    "  py: for (int y = 0; y < 4; y++)\n"
                    "    for (int x = 0; x < 8; x++) {\n"
                    "      float t = A[y][x] * 2.0f;\n"
                    "      T[y][x] = t + 1.0f;\n"
                    "    }\n"
                    "  for (int i = 0; i < 4; i++)\n"
                    "    for (int j = 1; j < 7; j++)\n"
                    "      use: B[i][j - 1] = T[i][j - 1] + T[i][j + 1];\n"
                    "}\n";
  NpgSession *s = open_ok(tmp, "#pragma npu schedule(tmp, v)\n#pragma npu compute_at(py, j)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "      for py (counter y) in i .. < i + 1 step 1:  # line 3\n"
                         "        for x in j - 1 .. < j + 2 step 1:  # line 4\n");
  npg_close(s);
}

Test(sched_compute_at, a_name_hidden_at_the_new_place_is_refused) {
  /* the inner c (line 9) would capture the producer's c (line 3) */
  const char *k = "void shadow2(const float A[8][10], float B[8][10]) {\n"
                  "  float c = 2.0f;\n"
                  "  float T[8][10];\n"
                  "  for (int y = 0; y < 8; y++)\n"
                  "    for (int x = 0; x < 10; x++)\n"
                  "      prod: T[y][x] = A[y][x] * c;\n"
                  "  for (int i = 0; i < 8; i++) {\n"
                  "    float c = 3.0f;\n"
                  "    for (int j = 0; j < 10; j++)\n"
                  "      use: B[i][j] = T[i][j] + c;\n"
                  "  }\n"
                  "}\n";
  refused(k, "#pragma npu schedule(shadow2, v)\n#pragma npu compute_at(prod, j)\n",
          "k.c:14:13: error: compute_at: refused: the emitted C would capture a name: 'c' at line 6 would refer to the "
          "declaration at line 8, not to the one at line 2; rename one of them in the kernel");
  /* the consumer loop's counter i hides the shared loop's counter i (left
   * to the name check after every step) */
  const char *k2 = "void shadow(const float A[4][8], float B[8]) {\n"
                   "  for (int i = 0; i < 4; i++) {\n"
                   "    float T[8];\n"
                   "    for (int x = 0; x < 8; x++)\n"
                   "      prod: T[x] = A[i][x] + 1.0f;\n"
                   "    for (int k = 0; k < 8; k++) {\n"
                   "      for (int i = 0; i < 1; i++)\n"
                   "        use: B[k] += T[k] * 0.5f;\n"
                   "    }\n"
                   "  }\n"
                   "}\n";
  refused(k2, "#pragma npu schedule(shadow, v)\n#pragma npu compute_at(prod, i_2)\n",
          "k.c:13:13: error: compute_at: refused: the emitted C would capture a name: 'i' at line 5 would refer to the "
          "declaration at line 7, not to the one at line 2; rename one of them in the kernel");
}

Test(sched_compute_at, into_a_loop_under_a_non_affine_if_is_refused) {
  const char *k = "void nonaff(const float A[8], const int flag[1], float B[8], float C[8]) {\n"
                  "  float T[8];\n"
                  "  for (int x = 0; x < 8; x++)\n"
                  "    prod: T[x] = A[x] * 2.0f;\n"
                  "  if (flag[0] == 7)\n"
                  "    for (int j = 0; j < 8; j++)\n"
                  "      use: B[j] = T[j];\n"
                  "  for (int k = 0; k < 8; k++)\n"
                  "    late: C[k] = T[k] + 1.0f;\n"
                  "}\n";
  refused(k, "#pragma npu schedule(nonaff, v)\n#pragma npu compute_at(prod, j)\n",
          "k.c:12:30: error: compute_at: loop j (line 6) is inside an if (line 5) whose condition is not affine; prod would run only when it holds, which cannot be checked");
  const char *k2 = "void nonaff2(const float A[8], const int flag[1], float B[8]) {\n"
                   "  float T[8];\n"
                   "  for (int x = 0; x < 8; x++)\n"
                   "    T[x] = A[x];\n"
                   "  if (flag[0] == 7)\n"
                   "    for (int y = 0; y < 8; y++)\n"
                   "      prod: T[y] = A[y] * 2.0f;\n"
                   "  for (int j = 0; j < 8; j++)\n"
                   "    cons: B[j] = T[j] + 1.0f;\n"
                   "}\n";
  refused(k2, "#pragma npu schedule(nonaff2, v)\n#pragma npu reverse_compute_at(cons, y)\n",
          "k.c:12:38: error: reverse_compute_at: loop y (line 6) is inside an if (line 5) whose condition is not affine; cons would run only when it holds, which cannot be checked");
  /* an affine condition is modelled: the producer runs where it holds */
  const char *k3 = "void aff(const float A[8][8], float B[8][8]) {\n"
                   "  float T[8][8];\n"
                   "  for (int y = 0; y < 8; y++)\n"
                   "    for (int x = 0; x < 8; x++)\n"
                   "      prod: T[y][x] = A[y][x] * 2.0f;\n"
                   "  for (int i = 0; i < 8; i++)\n"
                   "    if (i < 5)\n"
                   "      for (int j = 0; j < 8; j++)\n"
                   "        use: B[i][j] = T[i][j];\n"
                   "}\n";
  NpgSession *s = open_ok(k3, "#pragma npu schedule(aff, v)\n#pragma npu compute_at(prod, j)\n");
  checked(s, "v");
  npg_close(s);
}

Test(sched_compute_at, inputs_overwritten_only_after_the_consumer_loop) {
  /* clr writes A after loop j is done: no rerun of prod can see it */
  const char *k = "void later(float A[8][10], float B[8][8]) {\n"
                  "  float T[8][10];\n"
                  "  for (int y = 0; y < 8; y++)\n"
                  "    for (int x = 0; x < 10; x++)\n"
                  "      prod: T[y][x] = A[y][x] * 2.0f;\n"
                  "  for (int i = 0; i < 8; i++)\n"
                  "    for (int j = 1; j < 9; j++)\n"
                  "      use: B[i][j - 1] = T[i][j - 1] + T[i][j + 1];\n"
                  "  for (int k = 0; k < 8; k++)\n"
                  "    clr: A[k][0] = 0.0f;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(later, v)\n#pragma npu compute_at(prod, j)\n");
  checked(s, "v");
  npg_close(s);
  /* but a write after loop j inside the loop around it runs between reruns */
  const char *k2 = "void between(float A[8][10], float B[8][8]) {\n"
                   "  float T[8][10];\n"
                   "  for (int y = 0; y < 8; y++)\n"
                   "    for (int x = 0; x < 10; x++)\n"
                   "      prod: T[y][x] = A[y][x] * 2.0f;\n"
                   "  for (int i = 0; i < 8; i++) {\n"
                   "    for (int j = 1; j < 9; j++)\n"
                   "      use: B[i][j - 1] = T[i][j - 1] + T[i][j + 1];\n"
                   "    clr: A[(i + 1) % 8][3] = 0.0f;\n"
                   "  }\n"
                   "}\n";
  refused(k2, "#pragma npu schedule(between, v)\n#pragma npu compute_at(prod, j)\n",
          "k.c:13:13: error: compute_at: iterations of loop j read overlapping parts of T, so prod would compute some elements more than once; that needs prod to be pure, but it reads A, which clr (line 9) writes after it");
}

Test(sched_compute_at, a_producer_loop_counting_down_is_narrowed) {
  const char *k = "#define H 8\n"
                  "#define W 10\n"
                  "void down(const float A[H][W], float B[H][W - 2]) {\n"
                  "  float T[H][W];\n"
                  "  prod: for (int y = H - 1; y >= 0; y--)\n"
                  "    for (int x = W - 1; x >= 0; x--)\n"
                  "      T[y][x] = A[y][x] * 2.0f;\n"
                  "  for (int i = 0; i < H; i++)\n"
                  "    for (int j = 1; j < W - 1; j++)\n"
                  "      B[i][j - 1] = (i > 0 ? T[i - 1][j] : 0.0f) + T[i][j - 1] + T[i][j + 1];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(down, rows)\n#pragma npu compute_at(prod, i)\n"
                             "#pragma npu schedule(down, cols)\n#pragma npu compute_at(prod, j)\n");
  int r = checked(s, "rows"), c = checked(s, "cols");
  /* rows max(0, i - 1) .. i, still from the top down; x keeps its range */
  has(npg_dump_ir(s, r), "    for prod (counter y) in i .. >= i - 1 step -1:  # line 5\n"
                         "      if y >= 0:\n"
                         "        for x in W - 1 .. >= 0 step -1:  # line 6\n");
  has(npg_emit_source(s, c), "for (int x = j + 1; x >= j - 1; x--)");
  npg_close(s);
}

Test(sched_compute_at, a_bound_isl_splits_into_pieces_is_one_affine_bound) {
  /* the needed range is j .. j + 2 everywhere; isl writes its upper end as
   * 7 at j = 5, 8 at j = 6 and j + 2 elsewhere */
  const char *k = "void pieces(const float A[9], float T[9], float B[7]) {\n"
                  "  px: for (int x = 0; x < 9; x++) {\n"
                  "    if (x < 7) lo: T[x] = A[x];\n"
                  "    if (x > 7) hi: T[x] = A[x] + 1.0f;\n"
                  "    if (x == 7) seven: T[x] = A[x] * 2.0f;\n"
                  "  }\n"
                  "  for (int j = 0; j < 7; j++)\n"
                  "    use: B[j] = T[j] + T[j + 2];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(pieces, v)\n#pragma npu compute_at(px, j)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for j in 0 .. < 7 step 1:  # line 7\n"
                         "    for px (counter x) in j .. < j + 3 step 1:  # line 2\n");
  npg_close(s);
}

/* An iteration that reads t[i] and t[N - 1 - i] needs the box from
 * min(i, N-1-i) to max(i, N-1-i): no single affine bound on either side.
 * The producer's loop runs over the hull of all the boxes, under a guard
 * that keeps each iteration's own. */
Test(sched_compute_at, a_region_with_min_and_max_bounds_is_computed_under_a_guard) {
  NpgSession *s = open_ok("#define N 64\n"
                          "void k(const float x[N], float y[N]) {\n"
                          "  float t[N];\n"
                          "  for (int i = 0; i < N; i++)\n"
                          "    prod: t[i] = x[i] * 2.0f;\n"
                          "  for (int i = 0; i < N; i++)\n"
                          "    cons: y[i] = t[i] + t[N - 1 - i];\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu compute_at(prod, i_2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "    for (int i_2 = 0; i_2 < 64; i_2++) {\n"
         "      if ((i_2 >= i || i_2 >= 63 - i) && (i_2 < i + 1 || i_2 < 64 - i)) {\n"
         "        t[i_2] = x[i_2] * 2.0f; /* prod */\n");
  npg_close(s);
}

/* Two tiles: isl keeps the range an iteration of io needs as two points,
 * {[0] -> [0]; [1] -> [32]}, and the step was refused ("is not a max/min
 * of affine expressions", issue 39), while three tiles worked. */
Test(sched_compute_at, reverse_compute_at_under_two_tiles) {
  const char *k = "void k(const float A[64], float B[64], float C[64]) {\n"
                  "  for (int i = 0; i < 64; i++)\n"
                  "    p: B[i] = A[i] * 2.0f;\n"
                  "  for (int i = 0; i < 64; i++)\n"
                  "    c: C[i] = B[i] + 1.0f;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(k, v)\n#pragma npu split(i_1, 32, io, ii)\n"
                             "#pragma npu reverse_compute_at(c, io)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_expect(strstr(c, "for (int i = io * 32; i < io * 32 + 32; i++) {\n      C[i] = B[i] + 1.0f;"), "%s", c);
  npg_close(s);
}
