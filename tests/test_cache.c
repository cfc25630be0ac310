/* cache_read and cache_write (schedule/cache.c), the static placement of
 * on-chip buffers (schedule/placement.c) and the DMA the emitter makes of
 * copy nests (emit/emit_dma.c). Every accepted variant is checked by
 * execution, in the simulator, with its hazard checks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char matmul[] =
    "#include <stdint.h>\n"
    "void mm(const int8_t A[128][256], const int8_t B[256][128], int32_t C[128][128]) {\n"
    "  for (int i = 0; i < 128; i++)\n"
    "    for (int j = 0; j < 128; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 256; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n";

/* The variant's simulated DMA traffic, after a passing check. */
/* checked (seeds 1 and 2), and the bytes its DMAs moved (the count does
 * not depend on the data) */
static int checked_bytes(NpgSession *s, const char *variant, uint64_t *bytes) {
  NpgCheckResult r;
  int v = checked_result(s, variant, &r);
  *bytes = r.dma_bytes;
  return v;
}

Test(cache, matmul_tiles_staged_in_the_nu_buffers) {
  NpgSession *s = open_ok(matmul,
                          "#pragma npu schedule(mm, v)\n"
                          "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                          "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                          "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                          "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n");
  uint64_t v_bytes;
  int v = checked_bytes(s, "v", &v_bytes);
  const char *c = npg_emit_source(s, v);
  has(c, "#include \"npu_intrinsics.h\"");
  has(c, "int8_t (*A_ib)[256] = (int8_t (*)[256])(void *)((char *)npu_scope_base(NPU_NU_IB, 0)); /* nu_ib, bytes [0, 8192): 8192 bytes */");
  has(c, "npu_dma_wait(npu_dma_1d(0, &A_ib[0][0], &A[io * 32][0], 8192));");
  has(c, "npu_dma_wait(npu_dma_2d(0, &B_wb[0][0], 32, &B[0][jo * 32], 128, 32, 256));");
  has(c, "C_ob[ii][ji] += (int32_t)A_ib[ii][k] * (int32_t)B_wb[k][ji]; /* update */");
  has(c, "npu_dma_wait(npu_dma_2d(0, &C[io * 32][jo * 32], 512, &C_ob[0][0], 128, 128, 32));");
  /* A once per io (4 x 8 KiB), B per (io, jo) (16 x 8 KiB), C out per (io,
   * jo) (16 x 4 KiB): every byte the DMA moves, counted. C is not copied
   * in: each element's init runs before the updates read it. */
  lacks(c, "C_ob_load");
  cr_expect_eq(v_bytes, 4 * 8192 + 16 * 8192 + 16 * 4096);
  has(npg_dump_ir(s, v), "nu_ib A_ib @0: int8_t[32][256]");
  npg_close(s);
}

/* A pure output whose every element is written before it is read in the
 * iteration: cache_write copies it out only. */
Test(cache, a_fully_written_box_is_not_copied_in) {
  NpgSession *s = open_ok("void k(const float X[64][64], float Y[64][64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = 0; j < 64; j++) Y[i][j] = 2.0f * X[j][i];\n}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 16, io, ii)\n"
                          "#pragma npu cache_write(Y, dm, io, Y_dm)\n");
  uint64_t v_bytes;
  int v = checked_bytes(s, "v", &v_bytes);
  const char *c = npg_emit_source(s, v);
  lacks(c, "Y_dm_load");
  has(c, "npu_dma_wait(npu_dma_1d(0, &Y[io * 16][0], &Y_dm[0][0], 4096));");
  cr_expect_eq(v_bytes, 64 * 64 * 4);
  npg_close(s);
}

/* An iteration of j_2 reads t's element before it writes it: the cache of
 * t_dm there must copy it in. t_dm is declared in loop i, so its elements
 * carry i in the model (one copy per iteration); and the cache of the
 * local t that made it kept the model with t's accesses out of date: both
 * must be looked through, or the copy in is left out. */
Test(cache, a_read_before_the_write_in_an_iteration_is_copied_in_after_a_local_cache) {
  NpgSession *s = open_ok("void k(const float X[8][16], float Y[8][16]) {\n"
                          "  float t[8][16];\n"
                          "  for (int i = 0; i < 8; i++) {\n"
                          "    for (int j = 0; j < 16; j++)\n"
                          "      a: t[i][j] = X[i][j] * 3;\n"
                          "    for (int j = 0; j < 16; j++) {\n"
                          "      b: Y[i][j] = t[i][j] + 1;\n"
                          "      c: t[i][j] = Y[i][j] * 2;\n"
                          "    }\n"
                          "  }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_write(t, dm, i, t_dm)\n"
                          "#pragma npu cache_write(t_dm, vu_vm, j_2, t_vm)\n");
  has(npg_emit_source(s, checked(s, "v")), "t_vm_load");
  npg_close(s);
}

/* A column: strided on the DDR side, one element a row; a 3-D box. */
static const char planes[] = "#include <stdint.h>\nvoid k(const int16_t T[8][16][32], int16_t Y[8][16][32]) {\n"
                             "  for (int a = 0; a < 8; a++)\n"
                             "    for (int b = 0; b < 16; b++)\n"
                             "      for (int c = 0; c < 32; c++) Y[a][b][c] = T[a][b][c] + 1;\n}\n";

Test(cache, strided_and_three_dimensional_regions) {
  NpgSession *s = open_ok("void k(const float X[64][64], const float T[8][16][16], float Y[64][16]) {\n"
                          "  for (int j = 0; j < 16; j++)\n"
                          "    for (int i = 0; i < 64; i++)\n"
                          "      Y[i][j] = X[i][4 * j] + T[i % 8][j][j];\n}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(X, vu_vm, j, X_vm)\n"
                          "#pragma npu cache_read(T, dm, j, T_dm)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_dma_wait(npu_dma_2d(0, &X_vm[0][0], 4, &X[0][j * 4], 256, 4, 64));");
  /* the box's size-1 dimensions are no DMA dimensions */
  has(c, "npu_dma_wait(npu_dma_2d(0, &T_dm[0][0][0], 4, &T[0][j][j], 1024, 4, 8));");
  npg_close(s);
  s = open_ok(planes,
              "#pragma npu schedule(k, v)\n"
              "#pragma npu split(a, 2, ao, ai)\n"
              "#pragma npu split(c, 8, co, ci)\n"
              "#pragma npu reorder(ao, co, ai, b, ci)\n"
              "#pragma npu cache_read(T, dm, co, T_dm)\n");
  v = checked(s, "v");
  /* planes that continue the rows on both sides are more rows: 2 x 16 rows
   * of 16 bytes, 64 bytes apart in T, are 32 rows */
  has(npg_emit_source(s, v), "npu_dma_wait(npu_dma_2d(0, &T_dm[0][0][0], 16, &T[ao * 2][0][co * 8], 64, 16, 32));");
  npg_close(s);
  /* a box that is not whole along b: its planes do not continue the rows in
   * T, a 3-D copy */
  s = open_ok(planes,
              "#pragma npu schedule(k, v)\n"
              "#pragma npu split(a, 2, ao, ai)\n"
              "#pragma npu split(b, 4, bo, bi)\n"
              "#pragma npu split(c, 8, co, ci)\n"
              "#pragma npu reorder(ao, bo, co, ai, bi, ci)\n"
              "#pragma npu cache_read(T, dm, co, T_dm)\n");
  v = checked(s, "v");
  has(npg_emit_source(s, v),
      "npu_dma_wait(npu_dma_3d(0, &T_dm[0][0][0], 16, 64, &T[ao * 2][bo * 4][co * 8], 64, 1024, 16, 4, 2));");
  npg_close(s);
}

/* Buffers in sibling loops share bytes; nested ones do not. */
Test(cache, placement_reuses_memory_across_sibling_loops) {
  NpgSession *s = open_ok("void k(const float X[256][256], float Y[256][256], float Z[256][256]) {\n"
                          "  for (int i = 0; i < 256; i++)\n"
                          "    for (int j = 0; j < 256; j++) Y[i][j] = X[i][j] + 1.0f;\n"
                          "  for (int p = 0; p < 256; p++)\n"
                          "    for (int q = 0; q < 256; q++) Z[p][q] = X[p][q] * 2.0f;\n}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu split(i, 128, io, ii)\n"
                          "#pragma npu split(p, 128, po, pi)\n"
                          "#pragma npu cache_read(X, dm, io, X1)\n"
                          "#pragma npu cache_write(Y, dm, io, Y1)\n"
                          "#pragma npu cache_read(X, dm, po, X2)\n");
  int v = checked(s, "v");
  const char *ir = npg_dump_ir(s, v);
  has(ir, "dm X1 @0: float[128][256]");
  has(ir, "dm Y1 @131072: float[128][256]");
  has(ir, "dm X2 @0: float[128][256]");
  npg_close(s);
}

Test(cache, a_scope_that_overflows_shows_its_usage) {
  const char *k = "void k(const float X[256][512], const float W[256][512], float Y[256][512]) {\n"
                  "  for (int i = 0; i < 256; i++)\n"
                  "    for (int j = 0; j < 512; j++) Y[i][j] = X[i][j] + W[i][j];\n}\n";
  const char *steps = "#pragma npu schedule(k, v)\n#pragma npu split(i, 32, io, ii)\n"
                      "#pragma npu cache_read(X, vu_vm, io, X_vm)\n#pragma npu cache_read(W, vu_vm, io, W_vm)\n"
                      "#pragma npu cache_write(Y, vu_vm, io, Y_vm)\n";
  refused(k, steps, "k.c:9:13: error: cache_write: the on-chip buffers do not fit: Y_vm (65536 bytes) needs "
                    "196608 bytes of vu_vm, which holds 131072 on target 'default'; usage (buffers live at once share no bytes):");
  char src[2048];
  snprintf(src, sizeof src, "%s%s", k, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "\n  vu_vm, 131072 bytes:\n"
                     "    X_vm                  65536 bytes  live in loop io (line 2), at offset 0\n"
                     "    W_vm                  65536 bytes  live in loop io (line 2), at offset 65536\n"
                     "    Y_vm                  65536 bytes  live in loop io (line 2), does not fit\n");
  npg_close(s);
}

/* parallel and vectorize refuse a loop whose iterations would share an
 * on-chip buffer (in C a local in the body is private; NPU memory is not) */
Test(cache, iterations_do_not_share_an_onchip_buffer) {
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(A, dm, i, A_dm)\n#pragma npu parallel(i)\n",
          "k.c:12:13: error: parallel: the iterations of loop i would share on-chip buffer A_dm (dm, declared in its body)");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(B, dm, j, B_dm)\n#pragma npu vectorize(j)\n",
          "k.c:12:13: error: vectorize: the iterations of loop j would share on-chip buffer B_dm (dm, declared in its body)");
}

/* A copy between an on-chip buffer and a local array stays a loop: the
 * local lives in the control unit's memory, which no DMA reaches (the
 * random schedule tester found the DMA, a simulator error). A cache's copy
 * marked parallel is a host loop too, and still right. */
Test(cache, a_local_array_is_not_a_dma_end) {
  static const char avg[] = "void avg(const float x[64], float y[60]) {\n"
                            "  float win[5];\n"
                            "  for (int i = 0; i < 60; i++) {\n"
                            "    for (int k = 0; k < 5; k++) win[k] = x[i + k];\n"
                            "    float s = 0.0f;\n"
                            "    for (int k = 0; k < 5; k++) s += win[k];\n"
                            "    y[i] = s * 0.2f;\n"
                            "  }\n}\n";
  NpgSession *s = open_ok(avg, "#pragma npu schedule(avg, v)\n#pragma npu cache_read(x, nu_ib, i, x_ib)\n"
                               "#pragma npu schedule(avg, w)\n#pragma npu cache_read(x, nu_ib, i, x_ib)\n"
                               "#pragma npu parallel(x_ib_0)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "win[k] = x_ib[k];");
  lacks(npg_emit_source(s, v), "&win[0]");
  checked(s, "w");
  npg_close(s);
}

/* A cache at a loop whose iterations past a tail's end touch nothing: the
 * box starts past the array's end there, and the copy issues no DMA
 * (B's column 149 when jo * 25 + ji passes 127). */
Test(cache, a_box_past_the_end_copies_nothing) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 29, 25, io, jo, ii, ji)\n"
                                  "#pragma npu cache_read(B, nu_wb, ji, B_wb)\n");
  uint64_t v_bytes;
  int v = checked_bytes(s, "v", &v_bytes);
  has(npg_emit_source(s, v), "if (128 - (jo * 25 + ji) > 0) npu_dma_wait(npu_dma_2d(0, &B_wb[0][0], ");
  /* a column of B per row i < 128 (the copy sits under the row guard,
   * which reorder leaves right under ii: before, it sank under ji, and
   * the 17 rows past 128 of the last row tile copied too, 145 x 128 x
   * 256) and j < 128, none past */
  cr_expect_eq(v_bytes, 128 * 128 * 256);
  npg_close(s);
}

Test(cache, refusals) {
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(C, nu_ob, i, C_ob)\n",
          "k.c:11:24: error: cache_read: init (line 5) writes C under loop i: a read cache would go stale; use cache_write");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(A, l2, i, A_l2)\n",
          "k.c:11:27: error: cache_read: unknown scope 'l2'; the on-chip scopes are dm, nu_ib, nu_wb, nu_ob and vu_vm");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_write(A, dm, i, A_dm)\n",
          "k.c:11:25: error: cache_write: A is const: nothing to write back");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu parallel(i)\n#pragma npu cache_read(B, dm, j, B_dm)\n",
          "k.c:12:13: error: cache_read: loop i is parallel (parallel(i), line 11), and after this step its "
          "iterations would share on-chip buffer B_dm (dm, declared in its body)");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(A, dm, i, B)\n",
          "k.c:11:34: error: cache_read: the name 'B' is already used in v; new loops and buffers need fresh names");
  refused("void k(const float X[16], const unsigned char P[16], float Y[16]) {\n"
          "  for (int i = 0; i < 16; i++) Y[i] = X[P[i] & 15];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_read(X, dm, i, X_dm)\n",
          "k.c:5:24: error: cache_read: index 'P[i] & 15' of X (line 2) is not affine: the region to copy is unknown");
  refused("void k(float Y[16]) {\n  float t[16];\n  for (int p = 0; p < 16; p++) t[p] = 1.0f;\n"
          "  for (int q = 0; q < 16; q++) Y[q] = t[q];\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_read(t, dm, q, t_dm)\n",
          "k.c:7:24: error: cache_read: t is a local array; stage it with cache_write, which replaces it");
}

/* ---------------- tensorize ---------------- */

static const char staged[] = "#pragma npu schedule(mm, v)\n"
                             "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                             "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                             "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                             "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n";

Test(tensorize, matmul_tiles_run_on_the_nu) {
  NpgSession *s = open_ok(matmul, steps_then(staged, "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"));
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "      npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/32, /*k=*/256, /*lda=*/256, /*ldb=*/32, /*ldc=*/32, /*accumulate=*/0);\n"
         "      /* C_ob_store: C <- C_ob */");
  lacks(c, "for (int ii");
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect_gt(r.nu_utilization, 0.0);
  npg_close(s);
}

/* Without the init in the nest the intrinsic accumulates (accumulate = 1),
 * and the C tile is copied in first: the updates read what came before. */
Test(tensorize, an_update_only_nest_accumulates) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(mm, v)\n"
                                  "#pragma npu decompose_reduction(init, i)\n"
                                  "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                                  "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                                  "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                                  "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
                                  "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], /*m=*/32, /*n=*/32, /*k=*/256, /*lda=*/256, /*ldb=*/32, /*ldc=*/32, /*accumulate=*/1);");
  has(npg_emit_source(s, v), "/* C_ob_load: C_ob <- C */");
  npg_close(s);
}

Test(tensorize, fp32_and_offsets_into_a_larger_buffer) {
  NpgSession *s = open_ok("void mm(const float A[64][64], const float B[64][64], float C[64][64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = 0; j < 64; j++)\n"
                          "      for (int k = 0; k < 64; k++) C[i][j] += A[i][k] * B[k][j];\n}\n",
                          "#pragma npu schedule(mm, v)\n"
                          "#pragma npu tile(i, j, 16, 16, io, jo, ii, ji)\n"
                          "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                          "#pragma npu cache_read(B, nu_wb, io, B_wb)\n"
                          "#pragma npu cache_write(C, nu_ob, io, C_ob)\n"
                          "#pragma npu tensorize(ii, npu_nu_matmul_f32)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_nu_matmul_f32(&C_ob[0][jo * 16], &A_ib[0][0], &B_wb[0][jo * 16], /*m=*/16, /*n=*/16, /*k=*/64, /*lda=*/64, /*ldb=*/64, /*ldc=*/64, /*accumulate=*/1);");
  npg_close(s);
}

Test(tensorize, a_nest_that_does_not_match_says_where) {
  refused(matmul, steps_then(staged, "#pragma npu reorder(ji, ii)\n#pragma npu tensorize(ji, npu_nu_matmul_i8)\n"),
          "k.c:16:27: error: tensorize: the nest under ji does not match npu_nu_matmul_i8: an index differs: "
          "'ii' in init (line 5) against the intrinsic's 'i' (line 19)");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                  "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n",
          "k.c:12:27: error: tensorize: the nest under ii does not match npu_nu_matmul_i8: its operand C would be C, "
          "which is in DDR; it must be in nu_ob (stage it there with cache_read or cache_write)");
  refused(matmul, steps_then(staged, "#pragma npu tensorize(ii, npu_nu_matmul_f32)\n"),
          "k.c:15:27: error: tensorize: the nest under ii does not match npu_nu_matmul_f32: the types differ: "
          "'C_ob[ii][ji]' in init (line 5) against the intrinsic's 'C[i][j]' (line 19)");
  refused(matmul, steps_then(staged, "#pragma npu tensorize(ii, npu_frobnicate)\n"),
          "k.c:15:27: error: tensorize: unknown intrinsic 'npu_frobnicate' (npu_intrinsics/ has no semantics kernel "
          "npu_frobnicate.c; `npugen intrinsics` lists them)");
}

/* A later step that changes the nest: the loops are emitted, with a note. */
Test(tensorize, a_later_step_falls_back_to_the_loops) {
  NpgSession *s = open_ok(matmul, steps_then(staged, "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n#pragma npu unroll(ji, 2)\n"));
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "/* tensorize(ii, npu_nu_matmul_i8) no longer matches: ");
  npg_close(s);
}

/* Element-wise VU ops: operands staged in the vector memory. */
Test(tensorize, elementwise_ops_run_on_a_vu) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const int32_t X[16][256], const int32_t Y[16][256], int32_t Z[16][256]) {\n"
                          "  for (int r = 0; r < 16; r++)\n"
                          "    for (int c = 0; c < 256; c++) Z[r][c] = X[r][c] + Y[r][c];\n}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                          "#pragma npu cache_read(Y, vu_vm, r, Y_vm)\n"
                          "#pragma npu cache_write(Z, vu_vm, r, Z_vm)\n"
                          "#pragma npu tensorize(c, npu_vu_add_i32)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_vu_add_i32(&Z_vm[0][0], &X_vm[0][0], &Y_vm[0][0], /*n=*/256);");
  npg_close(s);
}

/* conv2d: a padded, possibly strided convolution in channels-last tiles,
 * inside a batch loop b of one (the loop the caches are staged at). The
 * guard binds the image size and the padding, the input index the stride
 * and dilation; the output size follows from them. The format takes the
 * stride, the bound of the row guard and the weights' window indices. */
static const char conv_fmt[] =
    "#include <stdint.h>\n"
    "#define S %d\n"
    "void cv(const int8_t in[12][12][16], const int8_t wt[3][3][16][8], int32_t out[12 / S][12 / S][8]) {\n"
    "  for (int b = 0; b < 1; b++)\n"
    "    for (int y = 0; y < 12 / S; y++)\n"
    "      for (int x = 0; x < 12 / S; x++)\n"
    "        for (int o = 0; o < 8; o++) {\n"
    "          out[y][x][o] = 0;\n"
    "          for (int r = 0; r < 3; r++)\n"
    "            for (int q = 0; q < 3; q++)\n"
    "              for (int c = 0; c < 16; c++)\n"
    "                if (S * y + r - 1 >= 0 && S * y + r - 1 < %d && S * x + q >= 1 && S * x + q - 1 < 12)\n"
    "                  out[y][x][o] += (int32_t)in[S * y + r - 1][S * x + q - 1][c] * (int32_t)wt%s[c][o];\n"
    "        }\n"
    "}\n";

static const char *conv_src(int stride, int rows, const char *window) {
  static char buf[2048];
  snprintf(buf, sizeof buf, conv_fmt, stride, rows, window);
  return buf;
}

static const char conv_staged[] =
    "#pragma npu schedule(cv, v)\n"
    "#pragma npu cache_read(in, nu_ib, b, in_ib)\n"
    "#pragma npu cache_read(wt, nu_wb, b, wt_wb)\n"
    "#pragma npu cache_write(out, nu_ob, b, out_ob)\n"
    "#pragma npu tensorize(y, npu_nu_conv2d_i8)\n";

Test(tensorize, conv2d_with_padding_and_stride_runs_on_the_nu) {
  NpgSession *s = open_ok(conv_src(1, 12, "[r][q]"), conv_staged);
  int v = checked(s, "v");
  has(npg_emit_source(s, v),
      "npu_nu_conv2d_i8(&out_ob[0][0][0], &in_ib[0][0][0], &wt_wb[0][0][0][0], /*h=*/12, /*w=*/12, /*c=*/16, /*oc=*/8, /*kh=*/3, /*kw=*/3, /*stride_h=*/1, /*stride_w=*/1, /*pad_h=*/1, /*pad_w=*/1, /*dil_h=*/1, /*dil_w=*/1, /*accumulate=*/0);");
  npg_close(s);
  /* stride 2: 6 x 6 outputs from the same padded 12 x 12 image */
  s = open_ok(conv_src(2, 12, "[r][q]"), conv_staged);
  v = checked(s, "v");
  has(npg_emit_source(s, v),
      "npu_nu_conv2d_i8(&out_ob[0][0][0], &in_ib[0][0][0], &wt_wb[0][0][0][0], /*h=*/12, /*w=*/12, /*c=*/16, /*oc=*/8, /*kh=*/3, /*kw=*/3, /*stride_h=*/2, /*stride_w=*/2, /*pad_h=*/1, /*pad_w=*/1, /*dil_h=*/1, /*dil_w=*/1, /*accumulate=*/0);");
  npg_close(s);
}

Test(tensorize, a_conv2d_that_differs_from_the_intrinsic_is_refused) {
  /* the guard cuts the last row: the intrinsic's padding is symmetric */
  refused(conv_src(1, 11, "[r][q]"), conv_staged,
          "k.c:20:26: error: tensorize: the nest under y does not match npu_nu_conv2d_i8: the nest has OH = 12 where "
          "the intrinsic computes OH = ((H + 2 * PH - DH * (KH - 1) - 1) / SH + 1) = 11 from the other sizes");
  /* the kernel window read transposed */
  refused(conv_src(1, 12, "[q][r]"), conv_staged,
          "k.c:20:26: error: tensorize: the nest under y does not match npu_nu_conv2d_i8: an index differs: "
          "'q' in s2 (line 13) against the intrinsic's 'r' (line 36)");
  /* the input still in DDR */
  refused(conv_src(1, 12, "[r][q]"),
          "#pragma npu schedule(cv, v)\n"
          "#pragma npu cache_read(wt, nu_wb, b, wt_wb)\n"
          "#pragma npu cache_write(out, nu_ob, b, out_ob)\n"
          "#pragma npu tensorize(y, npu_nu_conv2d_i8)\n",
          "k.c:19:26: error: tensorize: the nest under y does not match npu_nu_conv2d_i8: its operand in would be in, "
          "which is in DDR; it must be in nu_ib (stage it there with cache_read or cache_write)");
}

/* Output channels 8 in tiles of 5: the conv2d intrinsic takes no size at
 * run time (its OH follows from the others), and OC is an inner extent of
 * its operands, so the tail is peeled before the caches, each part with
 * caches of its own extent and a call of its own sizes. */
Test(tensorize, a_conv2d_tail_is_peeled_before_its_caches) {
  static const char tiles[] = "#pragma npu schedule(cv, v)\n#pragma npu split(o, 5, oo, oi)\n"
                              "#pragma npu reorder(oo, y, x, oi)\n";
  refused(conv_src(1, 12, "[r][q]"),
          steps_then(tiles, "#pragma npu cache_read(in, nu_ib, oo, in_ib)\n#pragma npu cache_read(wt, nu_wb, oo, wt_wb)\n"
                            "#pragma npu cache_write(out, nu_ob, oo, out_ob)\n#pragma npu tensorize(y, npu_nu_conv2d_i8)\n"),
          "k.c:22:26: error: tensorize: the nest under y does not match npu_nu_conv2d_i8: the guard on loop oi (a tail) "
          "would shorten OC at run time, but the intrinsic's OH derives from its sizes; peel the tail with "
          "loop_partition before cache_read and cache_write, so that the tail's caches have its extent");
  NpgSession *s = open_ok(conv_src(1, 12, "[r][q]"),
                          steps_then(tiles, "#pragma npu loop_partition(oo, 1)\n#pragma npu cache_read(in, nu_ib, b, in_ib)\n"
                                            "#pragma npu cache_read(wt, nu_wb, oo, wt_wb)\n"
                                            "#pragma npu cache_write(out, nu_ob, oo, out_ob)\n"
                                            "#pragma npu cache_read(wt, nu_wb, oo_1, wt_tail)\n"
                                            "#pragma npu cache_write(out, nu_ob, oo_1, out_tail)\n"
                                            "#pragma npu tensorize(y, npu_nu_conv2d_i8)\n"
                                            "#pragma npu tensorize(y_1, npu_nu_conv2d_i8)\n"));
  const char *c = npg_emit_source(s, checked(s, "v"));
  /* each of oo's and oo_1's one pass is its body (lower/tidy.c): oo = 0 and 1 */
  has(c, "npu_nu_conv2d_i8(&out_ob[0][0][0], &in_ib[0][0][0], &wt_wb[0][0][0][0], "
         "/*h=*/12, /*w=*/12, /*c=*/16, /*oc=*/5, /*kh=*/3, /*kw=*/3, /*stride_h=*/1, /*stride_w=*/1, /*pad_h=*/1, /*pad_w=*/1, /*dil_h=*/1, /*dil_w=*/1, /*accumulate=*/0);");
  has(c, "npu_nu_conv2d_i8(&out_tail[0][0][0], &in_ib[0][0][0], &wt_tail[0][0][0][0], "
         "/*h=*/12, /*w=*/12, /*c=*/16, /*oc=*/3, /*kh=*/3, /*kw=*/3, /*stride_h=*/1, /*stride_w=*/1, /*pad_h=*/1, /*pad_w=*/1, /*dil_h=*/1, /*dil_w=*/1, /*accumulate=*/0);");
  has(c, "npu_dma_wait(npu_dma_2d(0, &out[0][0][5], 32, &out_tail[0][0][0], 12, 12, 144));");
  npg_close(s);
}

/* A local array staged with cache_write: the cache replaces it when every
 * use is inside one iteration of the loop, so it never reaches DDR. */
static const char local_kernel[] =
    "#include <stdint.h>\n"
    "void k(const int32_t X[8][64], const int32_t b[64], int32_t Y[8][64]) {\n"
    "  int32_t t[8][64];\n"
    "  for (int r = 0; r < 8; r++) {\n"
    "    for (int c = 0; c < 64; c++) fill: t[r][c] = b[c];\n"
    "    for (int c = 0; c < 64; c++) add: Y[r][c] = t[r][c] + X[r][c];\n"
    "  }\n"
    "}\n";

Test(cache, a_local_array_lives_on_chip_only) {
  NpgSession *s = open_ok(local_kernel, "#pragma npu schedule(k, v)\n"
                                        "#pragma npu cache_write(t, vu_vm, r, t_vm)\n"
                                        "#pragma npu cache_read(X, vu_vm, r, X_vm)\n"
                                        "#pragma npu cache_write(Y, vu_vm, r, Y_vm)\n"
                                        "#pragma npu tensorize(c_2, npu_vu_add_i32)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  lacks(c, "int32_t t[8][64]"); /* no local left */
  /* the fill is a copy from DDR into the vector memory: a DMA */
  has(c, "/* fill: t_vm <- b */");
  has(c, "npu_dma_wait(npu_dma_1d(0, &t_vm[0][0], &b[0], 256));");
  has(c, "npu_vu_add_i32(&Y_vm[0][0], &t_vm[0][0], &X_vm[0][0], /*n=*/64);");
  npg_close(s);
  /* used outside the loop */
  refused(local_kernel, "#pragma npu schedule(k, v)\n#pragma npu cache_write(t, vu_vm, c_2, t_vm)\n",
          "k.c:10:25: error: cache_write: t is a local array used outside loop c_2 (fill, line 5); its cache can "
          "replace it only when every use is under the loop");
  /* read where the iteration has not written it yet: the mirrored column */
  refused("void k(const int X[8][64], int Y[8][64]) {\n"
          "  int t[8][64];\n"
          "  for (int r = 0; r < 8; r++)\n"
          "    for (int c = 0; c < 64; c++) {\n"
          "      t[r][c] = X[r][c];\n"
          "      Y[r][c] = t[r][63 - c];\n"
          "    }\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_write(t, vu_vm, r, t_vm)\n",
          "k.c:10:25: error: cache_write: local array t is read under loop r where an iteration has not written it "
          "first; its cache would have to keep values across iterations");
  refused(local_kernel, "#pragma npu schedule(k, v)\n#pragma npu cache_read(t, vu_vm, r, t_vm)\n",
          "k.c:10:24: error: cache_read: t is a local array; stage it with cache_write, which replaces it");
}

/* Scalar operands of an intrinsic bind to the nest's values; a cache of an
 * on-chip buffer copies between scopes. */
Test(tensorize, requantize_takes_the_kernels_scalars) {
  NpgSession *s = open_ok("#include <stdint.h>\n#include <math.h>\n"
                          "void k(const int32_t X[4][128], int8_t Y[4][128], int m, int sh, int zp) {\n"
                          "  for (int r = 0; r < 4; r++)\n"
                          "    for (int c = 0; c < 128; c++) {\n"
                          "      double q = floor(ldexp((double)X[r][c] * (double)m, -sh) + 0.5) + zp;\n"
                          "      Y[r][c] = (int8_t)(q > 127.0 ? 127.0 : q < -128.0 ? -128.0 : q);\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu compute_inline(s1)\n"
                          "#pragma npu split(c, 64, co, ci)\n"
                          "#pragma npu cache_read(X, dm, r, X_dm)\n"
                          "#pragma npu cache_read(X_dm, vu_vm, co, X_vm)\n"
                          "#pragma npu cache_write(Y, vu_vm, co, Y_vm)\n"
                          "#pragma npu tensorize(ci, npu_vu_requant_i8)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_dma_wait(npu_dma_1d(0, &X_vm[0][0], &X_dm[0][co * 64], 256));");
  has(c, "npu_vu_requant_i8(&Y_vm[0][0], &X_vm[0][0], /*n=*/64, m, sh, zp);");
  npg_close(s);
}

/* Review findings: a guard C compares in an unsigned type is always true
 * at 0 and is no padding guard; a copy nest that reads what it wrote is no
 * block copy. */
Test(tensorize, review_regressions) {
  refused("#include <stdint.h>\n"
          "void cv(const int8_t in[10][10][4], const int8_t wt[3][3][4][8], int32_t out[8][8][8]) {\n"
          "  for (int z = 0; z < 1; z++)\n"
          "    for (int y = 0; y < 8; y++)\n"
          "      for (int x = 0; x < 8; x++)\n"
          "        for (int o = 0; o < 8; o++) {\n"
          "          out[y][x][o] = 0;\n"
          "          for (int r = 0; r < 3; r++)\n"
          "            for (int q = 0; q < 3; q++)\n"
          "              for (int c = 0; c < 4; c++)\n"
          "                if (y + r - 1u >= 0 && y + r - 1 < 8 && x + q - 1 >= 0 && x + q - 1 < 8)\n"
          "                  out[y][x][o] += (int32_t)in[y + r][x + q][c] * (int32_t)wt[r][q][c][o];\n"
          "        }\n"
          "}\n",
          "#pragma npu schedule(cv, v)\n"
          "#pragma npu cache_read(in, nu_ib, z, in_ib)\n"
          "#pragma npu cache_read(wt, nu_wb, z, wt_wb)\n"
          "#pragma npu cache_write(out, nu_ob, z, out_ob)\n"
          "#pragma npu tensorize(y, npu_nu_conv2d_i8)\n",
          "k.c:19:26: error: tensorize: the nest under y does not match npu_nu_conv2d_i8: no term of the condition "
          "matches: 'y + r - 1u >= 0 && y + r - 1 < 8 && x + q - 1 >= 0 && x + q - 1 < 8' in the if (line 11) against the "
          "intrinsic's 'y * SH - PH + r * DH < H' (line 34)");
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void k(const int32_t x[2][64], int32_t out[2][65]) {\n"
                          "  for (int z = 0; z < 2; z++) {\n"
                          "    for (int i = 0; i < 64; i++) out[z][i] = x[z][i];\n"
                          "    out[z][64] = 0;\n"
                          "    for (int j = 0; j < 64; j++) shift: out[z][j + 1] = out[z][j];\n"
                          "  }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu cache_write(out, vu_vm, z, out_vm)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "out_vm[0][j + 1] = out_vm[0][j]; /* shift */");
  npg_close(s);
}

/* ---------------- double_buffer ---------------- */

static const char big[] =
    "#include <stdint.h>\n"
    "void mm(const int8_t A[256][512], const int8_t B[512][256], int32_t C[256][256]) {\n"
    "  for (int i = 0; i < 256; i++)\n"
    "    for (int j = 0; j < 256; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 512; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n";

static const char big_nu[] = "#pragma npu tile(i, j, 64, 64, io, jo, ii, ji)\n"
                             "#pragma npu cache_read(A, nu_ib, io, A_ib)\n"
                             "#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                             "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
                             "#pragma npu tensorize(ii, npu_nu_matmul_i8)\n";

/* The copies of the next tile overlap the NU's work on this one: same
 * bytes, fewer cycles, and no hazard in the simulator. */
Test(double_buffer, overlaps_dma_with_the_nu) {
  char src[4096];
  snprintf(src, sizeof src, "#pragma npu schedule(mm, sync)\n%s#pragma npu schedule(mm, db)\n%s"
           "#pragma npu double_buffer(A_ib)\n#pragma npu double_buffer(B_wb)\n#pragma npu double_buffer(C_ob)\n",
           big_nu, big_nu);
  NpgSession *s = open_ok(big, src);
  int sync = checked(s, "sync"), db = checked(s, "db");
  NpgCheckResult a, b;
  cr_assert(npg_check(s, sync, 1, &a) && npg_check(s, db, 1, &b));
  cr_expect_eq(a.dma_bytes, b.dma_bytes);
  cr_expect_lt(b.sim_cycles * 10, a.sim_cycles * 8, "double-buffered %llu cycles, synchronous %llu",
               (unsigned long long)b.sim_cycles, (unsigned long long)a.sim_cycles);
  cr_expect_gt(b.nu_utilization, 0.75);
  const char *c = npg_emit_source(s, db);
  has(c, "          npu_dma_wait(B_wb_tok);\n"
         "          if (jo + 1 < 4) { /* the next iteration's region, into the other copy */\n"
         "            int8_t (*B_wb_next)[64] = B_wb_db[(jo + 1) % 2];\n"
         "            B_wb_tok = npu_dma_2d(1, &B_wb_next[0][0], 64, &B[0][(jo + 1) * 64], 256, 64, 512);\n"
         "          }\n");
  has(c, "if (jo >= 2) npu_dma_wait(C_ob_tok[jo % 2]); /* its copy out two iterations ago */");
  has(c, "          C_ob_tok[jo % 2] = npu_dma_2d(2, &C[io * 64][jo * 64], 1024, &C_ob[0][0], 256, 256, 64);\n"
         "        }\n"
         "        npu_dma_wait(C_ob_tok[0]); /* the copy out of jo = 2, the iteration before the last */\n"
         "        npu_dma_wait(C_ob_tok[1]); /* the copy out of jo = 3, the last iteration */\n"
         "      }\n");
  /* two copies each: placement counts both */
  has(npg_dump_ir(s, db), "nu_wb B_wb @0: int8_t[512][64]");
  npg_close(s);
}

Test(double_buffer, refusals) {
  char src[4096];
  snprintf(src, sizeof src, "#pragma npu schedule(mm, v)\n%s#pragma npu double_buffer(A)\n", big_nu);
  refused(big, src, "k.c:16:27: error: double_buffer: A is not an on-chip buffer (make one with cache_read or cache_write)");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu decompose_reduction(init, i)\n"
                  "#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n#pragma npu cache_write(C, nu_ob, jo, C_ob)\n"
                  "#pragma npu double_buffer(C_ob)\n",
          "k.c:14:27: error: double_buffer: C_ob is both filled and drained by DMA (a cache_write that copies in); "
          "double-buffer a read cache or a write-only one");
  /* 2 x 96 KiB of A rows does not fit nu_ib (256 KiB) next to B (io runs
   * twice: a loop that runs once keeps one copy and warns instead) */
  refused(big, "#pragma npu schedule(mm, v)\n#pragma npu split(i, 192, io, ii)\n"
               "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_ib, io, B_ib)\n"
               "#pragma npu double_buffer(A_ib)\n",
          "k.c:14:13: error: double_buffer: the on-chip buffers do not fit: B_ib (131072 bytes) needs 327680 bytes "
          "of nu_ib, which holds 262144 on target 'default'; usage (buffers live at once share no bytes):");
}

/* Review findings (each was wrong code or a crash before the fix). */
Test(cache, review_regressions) {
  /* writes under a data-dependent if cover nothing: the box is copied in */
  int v;
  NpgSession *s = open_ok("#include <stdint.h>\nvoid k(const int32_t X[64], int32_t Y[64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n    if (X[i] > 0) Y[i] = X[i];\n}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu split(i, 16, io, ii)\n"
                          "#pragma npu cache_write(Y, dm, io, Y_dm)\n");
  v = checked(s, "v");
  has(npg_emit_source(s, v), "Y_dm_load");
  npg_close(s);
  /* a local array's initializer list reads the cached array too */
  s = open_ok("#include <stdint.h>\nvoid k(const int32_t X[64], int32_t Y[64], int32_t Z[64]) {\n"
              "  for (int i = 0; i < 64; i++) {\n    Y[i] = X[i] + 1;\n    int32_t t[2] = {Y[i], 3};\n"
              "    Z[i] = t[0] * t[1];\n  }\n}\n",
              "#pragma npu schedule(k, v)\n#pragma npu split(i, 16, io, ii)\n#pragma npu cache_write(Y, dm, io, Y_dm)\n");
  v = checked(s, "v");
  has(npg_emit_source(s, v), "int32_t t[2] = {Y_dm[ii], 3};");
  npg_close(s);
  /* NPU_* and INT*_MAX names are the header's */
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu cache_read(A, dm, i, NPU_DM)\n",
          "k.c:11:34: error: cache_read: the new name 'NPU_DM' is reserved: the prefixes npu_ and NPU_ belong to the NPU "
          "intrinsics (npu_intrinsics.h)");
  refused(matmul, "#pragma npu schedule(mm, v)\n#pragma npu vectorize(i)\n#pragma npu cache_read(B, dm, j, B_dm)\n",
          "k.c:12:13: error: cache_read: loop i is vectorized (vectorize(i), line 11), and after this step its "
          "iterations would share on-chip buffer B_dm (dm, declared in its body)");
}

static const char rows[] = "#include <stdint.h>\nvoid k(const int32_t X[64][16], int32_t Y[64][16]) {\n"
                           "  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 16; j++) Y[i][j] = X[i][j] + 1;\n}\n";

/* Steps after double_buffer that break what it relied on: the loops run with
 * synchronous copies (still correct), never a wrong pipeline. */
Test(double_buffer, later_steps_fall_back_to_synchronous_copies) {
  /* unroll of the loop would leave nothing to alternate over: refused */
  refused(rows, "#pragma npu schedule(k, unr)\n#pragma npu split(i, 8, io, ii)\n"
                "#pragma npu cache_read(X, dm, io, X_dm)\n#pragma npu double_buffer(X_dm)\n#pragma npu unroll(io, 5)\n",
          "k.c:10:20: error: unroll: X_dm is double-buffered over loop io: its copies alternate over the loop's "
          "iterations, which unroll would make straight-line code; unroll a loop inside or around io");
  NpgSession *s = open_ok(rows, "#pragma npu schedule(k, part)\n#pragma npu split(i, 8, io, ii)\n"
                                "#pragma npu cache_write(Y, dm, io, Y_dm)\n#pragma npu double_buffer(Y_dm)\n"
                                "#pragma npu loop_partition(io, 3)\n"
                                "#pragma npu schedule(k, second)\n#pragma npu split(i, 8, io, ii)\n"
                                "#pragma npu cache_read(X, vu_vm, io, X_vm)\n#pragma npu double_buffer(X_vm)\n"
                                "#pragma npu cache_read(X, dm, io, X_dm)\n");
  has(npg_emit_source(s, checked(s, "part")), "Y_dm_db");
  lacks(npg_emit_source(s, checked(s, "second")), "X_vm_db");
  npg_close(s);
  refused("#include <stdint.h>\nvoid k(const int32_t X[16], int32_t Y[17][16]) {\n"
          "  for (int i = 0; i < 16; i++)\n    for (int t = 0; t < 2; t++)\n"
          "      for (int j = 0; j < 16; j++) Y[i + t][j] = X[i] + t + j;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu cache_write(Y, dm, i, Y_dm)\n#pragma npu double_buffer(Y_dm)\n",
          "k.c:9:27: error: double_buffer: the regions of Y that consecutive iterations of i copy out may overlap, so the "
          "copies could not run at once");
}

/* set_scope(local, scope): a temporary lives on chip, with no copy (it
 * never was in DDR); host loops and intrinsics access it there. Refused:
 * an array passed in (cache_read or cache_write stage those), one already
 * on chip, an unknown scope, and a temporary that does not fit. */
Test(cache, set_scope_puts_a_temporary_on_chip) {
  static const char k[] = "#include <math.h>\n"
                          "void k(const float X[8][16], float Y[8][16]) {\n"
                          "  float mx[8], d[8][16];\n"
                          "  for (int r = 0; r < 8; r++) {\n"
                          "    mx[r] = X[r][0];\n"
                          "    for (int c = 1; c < 16; c++)\n"
                          "      rmax: mx[r] = X[r][c] > mx[r] ? X[r][c] : mx[r];\n"
                          "    for (int c = 0; c < 16; c++)\n"
                          "      shift: d[r][c] = X[r][c] - mx[r];\n"
                          "    for (int c = 0; c < 16; c++)\n"
                          "      ex: Y[r][c] = expf(d[r][c]);\n"
                          "  }\n}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(k, v)\n#pragma npu fission(r, rmax, shift)\n"
                             "#pragma npu set_scope(mx, vu_vm)\n#pragma npu set_scope(d, vu_vm)\n"
                             "#pragma npu cache_read(X, vu_vm, r, X_vm)\n#pragma npu cache_write(Y, vu_vm, r_2, Y_vm)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "float (*d)[16] = (float (*)[16])(void *)((char *)npu_scope_base(NPU_VU_VM, 0)");
  has(c, "float *mx = (float *)(void *)((char *)npu_scope_base(NPU_VU_VM, 0)");
  lacks(c, "float d[8][16];");
  npg_close(s);
  /* a stage between two temporaries in VM is one VU instruction */
  s = open_ok("#include <math.h>\nvoid k(const float X[8][16], float Y[8][16]) {\n  float a[8][16], b[8][16];\n"
              "  for (int r = 0; r < 8; r++)\n    for (int c = 0; c < 16; c++) a[r][c] = X[r][c] * 2.0f;\n"
              "  for (int r = 0; r < 8; r++)\n    for (int c = 0; c < 16; c++) b[r][c] = expf(a[r][c]);\n"
              "  for (int r = 0; r < 8; r++)\n    for (int c = 0; c < 16; c++) Y[r][c] = b[r][c];\n}\n",
              "#pragma npu schedule(k, v)\n#pragma npu set_scope(a, vu_vm)\n#pragma npu set_scope(b, vu_vm)\n"
              "#pragma npu vectorize(r_2)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_exp_f32(&b[0][0], &a[0][0], /*rows=*/8, /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  npg_close(s);
  refused(k, "#pragma npu schedule(k, v)\n#pragma npu set_scope(X, dm)\n",
          "k.c:15:23: error: set_scope: X is passed in, so it lives in DDR; stage it with cache_read or cache_write");
  refused(k, "#pragma npu schedule(k, v)\n#pragma npu set_scope(d, l2)\n",
          "k.c:15:26: error: set_scope: unknown scope 'l2'; the on-chip scopes are dm, nu_ib, nu_wb, nu_ob and vu_vm");
  refused(k, "#pragma npu schedule(k, v)\n#pragma npu set_scope(d, dm)\n#pragma npu set_scope(d, vu_vm)\n",
          "k.c:16:23: error: set_scope: d is already in dm");
  refused("void k(const float X[256][256], float Y[256][256]) {\n  float t[256][256];\n"
          "  for (int r = 0; r < 256; r++)\n    for (int c = 0; c < 256; c++) t[r][c] = X[r][c] * 2.0f;\n"
          "  for (int r = 0; r < 256; r++)\n    for (int c = 0; c < 256; c++) Y[r][c] = t[r][c] + 1.0f;\n}\n",
          "#pragma npu schedule(k, v)\n#pragma npu set_scope(t, vu_vm)\n",
          "k.c:9:13: error: set_scope: the on-chip buffers do not fit: t (262144 bytes) needs 262144 bytes of vu_vm, "
          "which holds 131072 on target 'default'; usage (buffers live at once share no bytes):");
}

/* Tiles that do not divide the extent: the buffer holds a whole tile, the
 * copies stop at the array's end (a count computed in the emitted code),
 * also when loaded ahead for the next tile. */
Test(cache, tail_tiles_copy_up_to_the_end) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 48, 40, io, jo, ii, ji)\n"
                                   "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                                   "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu double_buffer(B_wb)\n"
                                   "#pragma npu double_buffer(C_ob)\n"
                                   "#pragma npu schedule(mm, w)\n#pragma npu split(i, 48, io, ii)\n"
                                   "#pragma npu cache_read(A, dm, io, A_dm)\n");
  uint64_t v_bytes;
  int v = checked_bytes(s, "v", &v_bytes);
  const char *c = npg_emit_source(s, v);
  has(c, "int8_t (*A_ib)[256] = ");
  has(c, "/* nu_ib, bytes [0, 12288): 12288 bytes */"); /* a whole 48-row tile */
  has(c, "npu_dma_wait(npu_dma_1d(0, &A_ib[0][0], &A[io * 48][0], 256 * npu_clamp(128 - io * 48, 48)));");
  /* the first tile, loaded before the loop: its count is known */
  has(c, "B_wb_tok = npu_dma_2d(1, &B_wb[0][0], 40, &B[0][0], 128, 40, 256);");
  has(c, "B_wb_tok = npu_dma_2d(1, &B_wb_next[0][0], 40, &B[0][(jo + 1) * 40], 128, "
         "npu_clamp(128 - (jo + 1) * 40, 40), 256);");
  /* two tails: row bytes and rows */
  has(c, "C_ob_tok[jo % 2] = npu_dma_2d(2, &C[io * 48][jo * 40], 512, &C_ob[0][0], 160, "
         "4 * npu_clamp(128 - jo * 40, 40), npu_clamp(128 - io * 48, 48));");
  /* every byte once: A, B for each of the 3 row tiles, C */
  cr_expect_eq(v_bytes, 128 * 256 + 3 * 256 * 128 + 128 * 128 * 4);
  uint64_t w_bytes;
  checked_bytes(s, "w", &w_bytes);
  cr_expect_eq(w_bytes, 128 * 256);
  npg_close(s);
}

/* loop_partition peels the tail tile, whose loop then runs to the end
 * (no guard): it has its own caches and runs on the NU as a 72-row matmul. */
Test(cache, tail_tile_peeled_runs_on_the_nu) {
  static const char mm200[] =
      "#include <stdint.h>\n"
      "void mm(const int8_t A[200][64], const int8_t B[64][64], int32_t C[200][64]) {\n"
      "  for (int i = 0; i < 200; i++)\n"
      "    for (int j = 0; j < 64; j++) {\n"
      "      init: C[i][j] = 0;\n"
      "      for (int k = 0; k < 64; k++)\n"
      "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
      "    }\n"
      "}\n";
  NpgSession *s = open_ok(mm200, "#pragma npu schedule(mm, v)\n#pragma npu split(i, 128, io, ii)\n"
                                 "#pragma npu loop_partition(io, 1)\n"
                                 "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, io, B_wb)\n"
                                 "#pragma npu cache_write(C, nu_ob, io, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"
                                 "#pragma npu cache_read(A, nu_ib, io_1, A_t)\n#pragma npu cache_read(B, nu_wb, io_1, B_t)\n"
                                 "#pragma npu cache_write(C, nu_ob, io_1, C_t)\n"
                                 "#pragma npu tensorize(ii_1, npu_nu_matmul_i8)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_nu_matmul_i8(&C_t[0][0], &A_t[0][0], &B_t[0][0], /*m=*/72, /*n=*/64, /*k=*/64, /*lda=*/64, /*ldb=*/64, /*ldc=*/64, /*accumulate=*/0);"); /* io_1's one pass: io = 1 */
  has(c, "npu_dma_wait(npu_dma_1d(0, &A_t[0][0], &A[128][0], 4608));");
  has(npg_dump_ir(s, v), "for ii_1 (counter ii) in 0 .. < 72 step 1:");
  npg_close(s);
}

/* Guards the user wrote around a copy into an on-chip buffer are not tail
 * guards: the copy stays a loop (review regressions: an unsigned guard
 * lowered as signed, a guard on a one-iteration loop dropped, a negative
 * count). Each is checked against the kernel as written. */
Test(cache, user_guards_around_copies_stay_loops) {
  static const char *const kernels[] = {
      "void k(const float X[64], float Y[64]) {\n  float t[64];\n"
      "  for (int j = 0; j < 64; j++) t[j] = 0.0f;\n"
      "  for (unsigned j = 0; j < 64; j++)\n    if (j - 3 < 40) t[j] = X[j];\n"
      "  for (int j = 0; j < 64; j++) Y[j] = t[j];\n}\n",
      "void k(const float X[4][1], float Y[4][1]) {\n  float t[4][1];\n"
      "  for (int i = 0; i < 4; i++) t[i][0] = 0.0f;\n"
      "  for (int i = 0; i < 4; i++)\n    for (int j = 0; j < 1; j++)\n      if (j + 50 < 40) t[i][j] = X[i][j];\n"
      "  for (int i = 0; i < 4; i++) Y[i][0] = t[i][0];\n}\n",
      "void k(const float X[64], float Y[64]) {\n  float t[64];\n"
      "  for (int j = 0; j < 64; j++) t[j] = 0.0f;\n"
      "  for (int j = 0; j < 64; j++)\n    if (j + 50 < 40) t[j] = X[j];\n"
      "  for (int j = 0; j < 64; j++) Y[j] = t[j];\n}\n",
  };
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    NpgSession *s = open_ok(kernels[i], "#pragma npu schedule(k, v)\n#pragma npu set_scope(t, dm)\n");
    lacks(npg_emit_source(s, checked(s, "v")), "&X[0]"); /* no DMA from X */
    npg_close(s);
  }
}

/* A double-buffered copy that is not one DMA (a tail along an outer
 * dimension of a 4-D box needs a host loop) leaves the loop synchronous, and
 * the emitted code says so. */
Test(cache, double_buffer_that_cannot_overlap_says_why) {
  NpgSession *s = open_ok("void k(const float T[6][4][8][16], float Y[6][4][8][16]) {\n"
                          "  for (int a = 0; a < 6; a++)\n    for (int b = 0; b < 4; b++)\n"
                          "      for (int c = 0; c < 8; c++)\n        for (int d = 0; d < 16; d++)\n"
                          "          Y[a][b][c][d] = T[a][b][c][d] + 1.0f;\n}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu split(d, 8, dd, di)\n#pragma npu split(c, 4, co, ci)\n"
                          "#pragma npu split(b, 2, bo, bi)\n#pragma npu split(a, 4, ao, ai)\n"
                          "#pragma npu reorder(dd, co, bo, ao, di, ci, bi, ai)\n"
                          "#pragma npu cache_read(T, dm, ao, T_dm)\n#pragma npu double_buffer(T_dm)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "/* double_buffer(T_dm) does nothing here: its copy is not one DMA (it needs host loops around the DMA call, "
         "or it is not a plain box copy), so the copies stay synchronous */\n");
  lacks(c, "T_dm_tok");
  npg_close(s);
}

/* Without peeling: the split's guard around the nest is a tail, and the
 * intrinsic takes that size at run time (rows and columns here). */
Test(cache, tail_tiles_run_on_the_nu_with_sizes_at_run_time) {
  static const char mm[] =
      "#include <stdint.h>\n"
      "void mm(const int8_t A[200][64], const int8_t B[64][100], int32_t C[200][100]) {\n"
      "  for (int i = 0; i < 200; i++)\n"
      "    for (int j = 0; j < 100; j++) {\n"
      "      init: C[i][j] = 0;\n"
      "      for (int k = 0; k < 64; k++)\n"
      "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
      "    }\n"
      "}\n";
  NpgSession *s = open_ok(mm, "#pragma npu schedule(mm, v)\n#pragma npu tile(i, j, 128, 64, io, jo, ii, ji)\n"
                              "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                              "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n"
                              "#pragma npu double_buffer(B_wb)\n#pragma npu double_buffer(C_ob)\n"
                              "#pragma npu schedule(mm, rows)\n#pragma npu split(i, 128, io, ii)\n"
                              "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, io, B_wb)\n"
                              "#pragma npu cache_write(C, nu_ob, io, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  uint64_t v_bytes;
  int v = checked_bytes(s, "v", &v_bytes);
  has(npg_emit_source(s, v), "const int io_count = npu_clamp(200 - io * 128, 128);");
  has(npg_emit_source(s, v), "const int jo_count = npu_clamp(100 - jo * 64, 64);");
  has(npg_emit_source(s, v), "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], "
                             "io_count, jo_count, /*k=*/64, /*lda=*/64, /*ldb=*/64, /*ldc=*/64, /*accumulate=*/0);");
  lacks(npg_emit_source(s, v), "for (int ii");
  /* A once per row tile, B once per tile, C once */
  cr_expect_eq(v_bytes, 200 * 64 + 2 * 64 * 100 + 200 * 100 * 4);
  int r = checked(s, "rows");
  has(npg_emit_source(s, r), "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], "
                             "io_count, /*n=*/100, /*k=*/64, /*lda=*/64, /*ldb=*/100, /*ldc=*/100, /*accumulate=*/0);");
  npg_close(s);
}

/* Review regressions: a guard that covers only part of its loop's body is
 * no tail (the init of rows past it would be skipped); a guard that holds
 * for no row of some outer iteration gives the intrinsic 0 rows, not a
 * negative count. */
Test(cache, tails_only_where_the_guard_is_the_whole_body) {
  refused("void rm(const float A[16][16], float S[16]) {\n  for (int o = 0; o < 1; o++)\n"
          "    for (int r = 0; r < 16; r++) {\n      init: S[r] = A[r][0];\n      for (int c = 1; c < 16; c++)\n"
          "        if (r < 10)\n          acc: S[r] = A[r][c] > S[r] ? A[r][c] : S[r];\n    }\n}\n",
          "#pragma npu schedule(rm, v)\n#pragma npu cache_read(A, vu_vm, o, A_vm)\n"
          "#pragma npu cache_write(S, vu_vm, o, S_vm)\n#pragma npu tensorize(r, npu_vu_reduce_max_f32)\n",
          "k.c:13:26: error: tensorize: the nest under r does not match npu_vu_reduce_max_f32: the statements differ: "
          "a statement (line 6) against the intrinsic's s2 (line 16)");
  NpgSession *s = open_ok("#include <math.h>\nvoid ex(const float A[32][16], float B[32][16]) {\n"
                          "  for (int o = 0; o < 4; o++)\n    for (int r = 0; r < 8; r++)\n      if (o * 8 + r < 12)\n"
                          "        for (int c = 0; c < 16; c++)\n          s: B[o * 8 + r][c] = expf(A[o * 8 + r][c]);\n}\n",
                          "#pragma npu schedule(ex, v)\n#pragma npu cache_read(A, vu_vm, o, A_vm)\n"
                          "#pragma npu cache_write(B, vu_vm, o, B_vm)\n#pragma npu tensorize(r, npu_vu_exp_f32)\n");
  has(npg_emit_source(s, checked(s, "v")), "npu_vu_exp_f32(&B_vm[0][0], &A_vm[0][0], "
                                           "npu_clamp(12 - o * 8, 8), /*cols=*/16, /*ldd=*/16, /*lda=*/16);");
  npg_close(s);
}
