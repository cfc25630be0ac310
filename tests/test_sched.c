/* Loop schedules: each primitive's IR, emitted C and differential check;
 * refusals with their exact messages; the schedule language and the C API. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* matmul: tests/test_sched_util.h */
static const char *const matmul = test_matmul;

/* ---------------- each primitive ---------------- */

Test(sched, split_divisible_makes_plain_loops) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 16, io, ii)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for io in 0 .. < 4 step 1:  # line 4\n    for ii in 0 .. < 16 step 1:  # line 4\n");
  has(npg_emit_source(s, v), "        C[io * 16 + ii][j] = 0; /* init */\n");
  has(npg_emit_source(s, v), " * Schedule v:\n *   split(i, 16, io, ii)\n");
  cr_assert_null(strstr(npg_emit_source(s, v), "if ("));
  npg_close(s);
}

Test(sched, split_with_tail_is_guarded_and_partition_removes_the_guard) {
  NpgSession *s = open_ok(matmul,
                          "#pragma npu schedule(matmul, guarded)\n#pragma npu split(j, 10, jo, ji)\n"
                          "#pragma npu schedule(matmul, peeled)\n#pragma npu split(j, 10, jo, ji)\n"
                          "#pragma npu loop_partition(jo, 4)\n");
  int g = checked(s, "guarded"), p = checked(s, "peeled");
  has(npg_dump_ir(s, g), "for jo in 0 .. < 5 step 1:");
  has(npg_emit_source(s, g), "if (jo * 10 + ji < 48) {");
  /* main tiles: no guard; in the last tile (one iteration of jo) the
   * guard 4 * 10 + ji < 48 becomes the bound of ji */
  has(npg_dump_ir(s, p), "    for jo in 0 .. < 4 step 1:  # line 5\n      for ji in 0 .. < 10 step 1:  # line 5\n        init:");
  has(npg_dump_ir(s, p), "    for jo_1 (counter jo) in 4 .. < 5 step 1:  # line 5\n      for ji_1 (counter ji) in 0 .. < 8 step 1:  # line 5\n        init:");
  lacks(npg_dump_ir(s, p), "if jo * 10 + ji < 48");
  npg_close(s);
}

/* After tile(), the row tail's guard sits under the column loop; in the
 * peeled tail tile it still becomes the row loop's bound. */
Test(sched, partition_of_a_tiled_tail_bounds_its_row_loop) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu tile(i, j, 24, 16, io, jo, ii, ji)\n"
                                  "#pragma npu loop_partition(io, 2)\n");
  const char *ir = npg_dump_ir(s, checked(s, "v"));
  has(ir, "      for ii_1 (counter ii) in 0 .. < 16 step 1:  # line 4\n"
          "        for ji_1 (counter ji) in 0 .. < 16 step 1:  # line 5\n          init:");
  lacks(ir, "if io * 24 + ii < M");
  npg_close(s);
}

/* fission cuts through a split's guard: each part keeps a copy of it. */
Test(sched, fission_through_a_tail_guard) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(j, 10, jo, ji)\n"
                                  "#pragma npu fission(ji, init)\n");
  const char *ir = npg_dump_ir(s, checked(s, "v"));
  has(ir, "      for ji in 0 .. < 10 step 1:  # line 5\n        if jo * 10 + ji < 48:\n          init:");
  has(ir, "      for ji_1 (counter ji) in 0 .. < 10 step 1:  # line 5\n        if jo * 10 + ji < 48:\n          for k");
  npg_close(s);
}

/* An unsigned counter's tail guard is modeled (it compares in long long);
 * it was an internal error. */
Test(sched, split_with_tail_of_an_unsigned_counter) {
  NpgSession *s = open_ok("void k(const float X[64], float Y[64]) {\n"
                          "  for (unsigned j = 0; j < 64; j++) Y[j] = X[j] + 1.0f;\n}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu split(j, 40, jo, ji)\n");
  has(npg_emit_source(s, checked(s, "v")), "if (jo * 40u + ji < 64) {");
  npg_close(s);
}

/* A guard in unsigned arithmetic may wrap: never taken for a loop bound
 * (it gave loop_partition an internal error). */
Test(sched, loop_partition_keeps_an_unsigned_guard) {
  NpgSession *s = open_ok("void k(float A[10][16]) {\n  for (int i = 0; i < 10; i++)\n"
                          "    for (unsigned j = 0; j < 16; j++)\n      if (j - 3 < 8) A[i][j] = 1.0f;\n}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu loop_partition(i, 1)\n");
  has(npg_dump_ir(s, checked(s, "v")), "for j in 0 .. < 16 step 1:");
  npg_close(s);
}

Test(sched, reorder_after_decompose_reduction) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(init, i)\n"
                                  "#pragma npu reorder(k, j)\n#pragma npu reorder(i, k)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for i_1 (counter i) in 0 .. < M step 1:  # line 4\n    for j_1 (counter j) in 0 .. < 48 step 1:  # line 5\n      init:");
  has(npg_dump_ir(s, v), "  for i in 0 .. < M step 1:  # line 4\n    for k in 0 .. < 32 step 1:  # line 7\n      for j in 0 .. < 48 step 1:");
  npg_close(s);
}

Test(sched, fission_cuts_every_level_down_to_the_statement) {
  NpgSession *s = open_ok(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu fission(i, init)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for i in 0 .. < M step 1:  # line 4\n    for j in 0 .. < 48 step 1:  # line 5\n      init:");
  has(npg_dump_ir(s, v), "  for i_1 (counter i) in 0 .. < M step 1:  # line 4\n    for j_1 (counter j) in 0 .. < 48 step 1:  # line 5\n      for k in");
  npg_close(s);
}

Test(sched, tile_unroll_vectorize_parallel_annotate) {
  NpgSession *s = open_ok(matmul,
                          "#pragma npu schedule(matmul, v)\n#pragma npu fission(j, init)\n"
                          "#pragma npu tile(j_1, k, 16, 8, jo, ko, ji, ki)\n"
                          "#pragma npu unroll(ki, 4)\n#pragma npu parallel(i)\n#pragma npu vectorize(j)\n"
                          "#pragma npu annotate(jo, \"tile\", (16, 8))\n#pragma npu annotate(init, prio, 3)\n");
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n  for (int i = 0; i < M; i++) {\n");
  has(c, "#if defined(_OPENMP) || defined(__clang__)\n#pragma omp simd\n#elif defined(__GNUC__) && !defined(__TINYC__)\n#pragma GCC ivdep\n#endif\n    for (int j = 0; j < 48; j++) {\n");
  has(c, "    /* @tile = (16, 8) */\n    for (int jo = 0; jo < 3; jo++) {\n");
  has(c, "for (int ki = 0; ki < 8; ki += 4) {\n");
  has(c, "/* @prio = 3 */\n");
  /* the unrolled copies' index, printed twice in each, is held by a local (lower/tidy.c) */
  has(c, "const int update_val3 = ko * 8 + (ki + 3);\n");
  has(c, "(int32_t)A[i][update_val3] * (int32_t)B[update_val3][jo * 16 + ji]; /* update */");
  npg_close(s);
}

Test(sched, unroll_fully_and_fuse) {
  const char *k = "void add(const float A[4][6], float B[4][6]) {\n"
                  "  for (int i = 0; i < 4; i++)\n"
                  "    for (int j = 0; j < 6; j++)\n"
                  "      B[i][j] = A[i][j] + 1.0f;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(add, fused)\n#pragma npu fuse(i, j, ij)\n"
                             "#pragma npu schedule(add, unrolled)\n#pragma npu unroll(i)\n");
  int f = checked(s, "fused"), u = checked(s, "unrolled");
  has(npg_emit_source(s, f), "  for (int ij = 0; ij < 24; ij++) {\n    B[ij / 6][ij % 6] = A[ij / 6][ij % 6] + 1.0f;\n");
  has(npg_emit_source(s, u), "    B[3][j] = A[3][j] + 1.0f;\n");
  has(npg_dump_ir(s, u), "for j_3 (counter j) in 0 .. < 6 step 1:");
  npg_close(s);
}

/* Inner bounds that follow the outer counter with a constant trip count
 * fuse too (the outer counter in them becomes its value); a trip count
 * that varies (a triangle) is refused, saying what is needed. */
Test(sched, fuse_with_inner_bounds_that_follow_the_outer_counter) {
  NpgSession *s = open_ok("void band(const float x[72], float y[64][8]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = i; j < i + 8; j++)\n"
                          "      y[i][j - i] = x[j] * 2.0f;\n"
                          "}\n",
                          "#pragma npu schedule(band, f)\n#pragma npu fuse(i, j, ij)\n");
  has(npg_emit_source(s, checked(s, "f")), "  for (int ij = 0; ij < 512; ij++) {\n    y[ij / 8][ij % 8] = x[ij / 8 + ij % 8] * 2.0f;\n");
  npg_close(s);
  refused("void tri(float A[8][8]) {\n"
          "  for (int i = 0; i < 8; i++)\n"
          "    for (int j = 0; j <= i; j++)\n"
          "      A[i][j] = A[i][j] * 2.0f;\n"
          "}\n",
          "#pragma npu schedule(tri, f)\n#pragma npu fuse(i, j, ij)\n",
          "k.c:7:21: error: fuse: loop j needs a constant trip count to be fused (its bounds may follow loop i when "
          "their difference is a constant)");
}

Test(sched, merge_sibling_loops) {
  const char *k = "void two(const int A[16], int B[16], int C[16]) {\n"
                  "  for (int i = 0; i < 16; i++)\n"
                  "    B[i] = A[i] * 2;\n"
                  "  for (int i = 0; i < 16; i++)\n"
                  "    C[i] = B[i] + 1;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(two, v)\n#pragma npu merge(i_1, i_2)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "  for (int i = 0; i < 16; i++) {\n    B[i] = A[i] * 2;\n    C[i] = B[i] + 1;\n  }\n");
  npg_close(s);
}

Test(sched, schedule_file_and_c_api) {
  NpgSession *s = open_ok(matmul, "");
  const char *sf = "// tiles\n#pragma npu schedule(matmul, from_file)\n#pragma npu split(i, 8, io, ii)\n";
  cr_assert(npg_add_schedule_string(s, "s.sched", sf, strlen(sf)), "%s", npg_errors(s));
  checked(s, "from_file");
  NpgSched *h = npg_sched_begin(s, "matmul", "from_api");
  cr_assert(npg_sched_decompose_reduction(h, "init", "i"));
  const char *order[] = {"i", "k", "j"};
  cr_assert(npg_sched_reorder(h, order, 3));
  cr_assert(npg_sched_vectorize(h, "j"));
  int v = npg_sched_end(h);
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  cr_assert_str_eq(npg_variant_name(s, v), "from_api");
  has(npg_variant_schedule(s, v), "decompose_reduction(init, i)\nreorder(i, k, j)\nvectorize(j)\n");
  checked(s, "from_api");
  h = npg_sched_begin(s, "matmul", "bad_api");
  cr_assert_not(npg_sched_split(h, "i", 0, "a", "b"));
  cr_assert_not(npg_sched_split(h, "i", 4, "a", "b")); /* after a refusal nothing applies */
  cr_assert_eq(npg_sched_end(h), -1);
  has(npg_errors(s), "k.c: error: split: the split factor must be positive, got 0");
  npg_close(s);
}

Test(sched, reused_counter_names_get_suffixes) {
  const char *k = "void two(const int A[8], int B[8], int C[8]) {\n"
                  "  for (int i = 0; i < 8; i++) B[i] = A[i];\n"
                  "  for (int i = 0; i < 8; i++) C[i] = B[i];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "");
  has(npg_dump_ir(s, 0), "  for i_1 (counter i) in 0 .. < 8 step 1:  # line 2\n");
  has(npg_dump_ir(s, 0), "  for i_2 (counter i) in 0 .. < 8 step 1:  # line 3\n");
  npg_close(s);
  refused(k, "#pragma npu schedule(two, v)\n#pragma npu split(i, 2, a, b)\n",
          "k.c:6:19: error: split: 'i' is ambiguous: it names 2 loops: i_1 (line 2), i_2 (line 3)");
}

/* ---------------- refusals ---------------- */

Test(sched, interchanging_an_in_place_stencil_is_refused) {
  const char *k = "#define N 12\n"
                  "void seidel(double A[N][N]) {\n"
                  "  for (int t = 0; t < 3; t++)\n"
                  "    for (int i = 1; i < N - 1; i++)\n"
                  "      for (int j = 1; j < N - 1; j++)\n"
                  "        sweep: A[i][j] = (A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 6.0;\n"
                  "}\n";
  refused(k, "#pragma npu schedule(seidel, v)\n#pragma npu reorder(i, t)\n",
          "k.c:9:13: error: reorder: illegal: it reverses the flow dependence on A from sweep (line 6) to sweep (line 6), distance (1, -1, 0)");
  refused(k, "#pragma npu schedule(seidel, v)\n#pragma npu reorder(j, i)\n",
          "k.c:9:13: error: reorder: illegal: it reverses the flow dependence on A from sweep (line 6) to sweep (line 6), distance (0, 1, -1)");
  /* the note shows both instances */
  char src[4096];
  snprintf(src, sizeof src, "%s%s", k, "#pragma npu schedule(seidel, v)\n#pragma npu reorder(j, i)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "note: sweep (line 6) at t=0, i=1, j=2 writes A[1][2], then sweep (line 6) at t=0, i=2, j=1 reads it");
  npg_close(s);
}

Test(sched, moving_floyd_warshall_k_inward_is_refused) {
  const char *k = "#define N 10\n"
                  "void fw(int D[N][N]) {\n"
                  "  for (int k = 0; k < N; k++)\n"
                  "    for (int i = 0; i < N; i++)\n"
                  "      for (int j = 0; j < N; j++)\n"
                  "        relax: D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];\n"
                  "}\n";
  refused(k, "#pragma npu schedule(fw, v)\n#pragma npu reorder(i, k)\n",
          "k.c:9:13: error: reorder: illegal: it reverses the flow dependence on D from relax (line 6) to relax (line 6), distance (1, -1, 0)");
  /* splitting it, or interchanging i and j, is fine */
  NpgSession *s = open_ok(k, "#pragma npu schedule(fw, ok)\n#pragma npu reorder(j, i)\n#pragma npu split(i, 4, io, ii)\n");
  checked(s, "ok");
  npg_close(s);
}

Test(sched, merging_across_a_reversed_dependence_is_refused) {
  const char *k = "void shift(const int A[16], int B[17], int C[16]) {\n"
                  "  for (int i = 0; i < 16; i++)\n"
                  "    prod: B[i + 1] = A[i];\n"
                  "  for (int i = 0; i < 16; i++)\n"
                  "    cons: C[i] = B[16 - i];\n"
                  "}\n";
  refused(k, "#pragma npu schedule(shift, v)\n#pragma npu merge(i_1, i_2)\n",
          "k.c:8:13: error: merge: illegal: it reverses the flow dependence on B from prod (line 3) to cons (line 5)");
}

Test(sched, parallel_on_a_reduction_is_refused) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu parallel(k)\n",
          "k.c:12:13: error: parallel: illegal: loop k would run its iterations in any order, but it carries the flow dependence on C from update (line 8) to update (line 8), distance (0, 0, 1)");
}

Test(sched, bad_arguments) {
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(x, 4, a, b)\n",
          "k.c:12:19: error: split: no loop named 'x' in v (loops: i, j, k)");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 4, a)\n",
          "k.c:12:13: error: split: takes 4 arguments, split(loop, factor, outer, inner); got 3");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 0, a, b)\n",
          "k.c:12:22: error: split: the split factor must be positive, got 0");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, -4, a, b)\n",
          "k.c:12:22: error: split: the split factor must be positive, got -4");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 4, j, b)\n",
          "k.c:12:25: error: split: the name 'j' is already used in v; new loops and buffers need fresh names");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu unroll(i, 0)\n",
          "k.c:12:23: error: unroll: the unroll factor must be positive, got 0");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu reorder(k, i)\n",
          "k.c:12:21: error: reorder: loop j is not perfectly nested: its body holds init (line 6) before the next loop; use fission or decompose_reduction first");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu frobnicate(i)\n",
          "k.c:12:13: error: unknown schedule primitive 'frobnicate'");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(nothere, i)\n",
          "k.c:12:33: error: decompose_reduction: no statement named 'nothere' in v (statements: init, update)");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu loop_partition(j, 60)\n",
          "k.c:12:31: error: loop_partition: point 60 must satisfy 0 < point < 48 (loop j runs 0 .. < 48) and follow the previous point");
}

Test(sched, bad_schedule_language) {
  refused(matmul, "#pragma npu split(i, 4, a, b)\n",
          "k.c:11:13: error: 'split' must follow '#pragma npu schedule(KERNEL, VARIANT)', which names the variant it belongs to");
  refused(matmul, "#pragma npu schedule(mm, v)\n",
          "k.c:11:22: error: schedule: no kernel named 'mm' (kernels: matmul)");
  refused(matmul, "#pragma npu schedule(matmul, matmul)\n",
          "k.c:11:30: error: schedule: a variant or kernel named 'matmul' already exists");
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 4, a, b\n",
          "k.c:12:29: error: expected ')'");
  refused(matmul, "#pragma npu schedule(matmul)\n",
          "k.c:11:13: error: schedule takes 2 or 3 arguments: schedule(KERNEL, VARIANT[, TARGET]): names, and "
          "TARGET a name or string (the only target the schedule is for, by its name in [target])");
  refused(matmul, "#pragma npu schedule(matmul, v, 4)\n",
          "k.c:11:13: error: schedule takes 2 or 3 arguments: schedule(KERNEL, VARIANT[, TARGET]): names, and "
          "TARGET a name or string (the only target the schedule is for, by its name in [target])");
  const char *inside = "void f(int A[4]) {\n#pragma npu split(i, 2, a, b)\n  for (int i = 0; i < 4; i++) A[i] = 0;\n}\n";
  refused(inside, "", "k.c:2:1: error: '#pragma npu' lines go at file level, after the kernel, not inside it");
}

Test(sched, refused_variant_is_not_emitted_but_others_are) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", matmul,
           "#pragma npu schedule(matmul, good)\n#pragma npu split(i, 4, a, b)\n"
           "#pragma npu schedule(matmul, bad)\n#pragma npu parallel(k)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 1);
  cr_assert_eq(npg_variant_index(s, "bad"), -1);
  checked(s, "good");
  npg_close(s);
}

/* Regression: a dependence carried by a sibling loop at the same depth was
 * blamed on the loop being parallelized. */
Test(sched, parallel_checks_only_its_own_loop) {
  const char *k = "#define N 12\n"
                  "void lu(double A[N][N]) {\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    A[i][i] = A[i][i] + 2.0 * N;\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int j = i; j < N; j++)\n"
                  "      for (int k = 0; k < i; k++)\n"
                  "        A[i][j] -= A[i][k] * A[k][j];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(lu, v)\n#pragma npu parallel(i_1)\n#pragma npu parallel(j)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "#pragma omp parallel for\n#endif\n  for (int i = 0; i < N; i++) {\n    A[i][i] = A[i][i] + 2.0 * N;\n");
  npg_close(s);
  refused(k, "#pragma npu schedule(lu, v)\n#pragma npu parallel(i_2)\n",
          "k.c:11:13: error: parallel: illegal: loop i_2 would run its iterations in any order, but it carries the flow dependence on A from s2 (line 8) to s2 (line 8), distance (1, 0, 1)");
}

Test(sched, refusal_says_when_an_access_is_not_affine) {
  const char *k = "#include <stdint.h>\n"
                  "void hist(const uint8_t x[64], int H[16]) {\n"
                  "  for (int i = 0; i < 64; i++)\n"
                  "    bump: H[x[i] & 15] += 1;\n"
                  "}\n";
  char src[2048];
  snprintf(src, sizeof src, "%s%s", k, "#pragma npu schedule(hist, v)\n#pragma npu parallel(i)\n");
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "k.c:7:13: error: parallel: illegal: loop i would run its iterations in any order, but it carries the flow dependence on H from bump (line 4) to bump (line 4), distance (1)");
  has(npg_errors(s), "note: an index of H in bump (line 4) is not affine: npugen assumes it may touch the whole dimension");
  npg_close(s);
  /* splitting it is still fine: the order is kept */
  s = open_ok(k, "#pragma npu schedule(hist, ok)\n#pragma npu split(i, 8, io, ii)\n");
  checked(s, "ok");
  npg_close(s);
}

/* Regressions found by the random-schedule tester (fuzz/regressions/). */
Test(sched, random_schedule_regressions) {
  /* a loop nest without statements: tiled, parallel, vectorized */
  const char *k = "void f(const float A[8][8], float C[8][8]) {\n"
                  "  for (int i = 0; i < 8; i++)\n"
                  "    for (int j = 0; j < 8; j++)\n"
                  "      C[i][j] = A[i][j];\n"
                  "  for (int k = 0; k < 8; k++)\n"
                  "    for (int m = 0; m < 8; m++) {\n"
                  "    }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(f, v)\n#pragma npu tile(k, m, 4, 4, ko, mo, ki, mi)\n"
                             "#pragma npu parallel(ko)\n#pragma npu vectorize(mi)\n#pragma npu parallel(i)\n");
  checked(s, "v");
  npg_close(s);
  const char *r = "#define N 8\n"
                  "void f(const float A[N][N], float C[N][N]) {\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int k = 0; k < N; k++)\n"
                  "      for (int j = 0; j < N; j++)\n"
                  "        upd: C[i][j] += A[i][k];\n"
                  "}\n";
  refused(r, "#pragma npu schedule(f, v)\n#pragma npu decompose_reduction(upd, k)\n",
          "k.c:9:33: error: decompose_reduction: upd (line 6) is not a reduction's init: it must be a plain assignment (=)");
  refused(r, "#pragma npu schedule(f, v)\n#pragma npu split(i, 2147483648, a, b)\n",
          "k.c:9:22: error: split: the split factor 2147483648 is too large");
  refused(r, "#pragma npu schedule(f, v)\n#pragma npu split(i, 9, a, b)\n",
          "k.c:9:19: error: split: the factor 9 is larger than loop i's trip count 8");
  refused(r, "#pragma npu schedule(f, v)\n#pragma npu unroll(j, 16)\n",
          "k.c:9:23: error: unroll: the factor 16 is larger than loop j's trip count 8");
}

/* From a new user's trials: trailing comments on pragma lines, and names
 * in an unroll remainder (two sibling loops once got the same name). */
Test(sched, new_user_findings) {
  const char *k = "#define N 10\n"
                  "void atax(const float A[N][N], const float x[N], float y[N], float tmp[N]) {\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    tmp[i] = 0.0f;\n"
                  "    for (int j = 0; j < N; j++) tmp[i] += A[i][j] * x[j];\n"
                  "    for (int j = 0; j < N; j++) y[j] += A[i][j] * tmp[i];\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(atax, v) // unrolled rows\n"
                             "#pragma npu unroll(i, 4)  // 10 = 2 * 4 + 2\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "for i_1 (counter i) in 8 .. < 10 step 1:");
  has(npg_dump_ir(s, v), "  for j_9 (counter j) in 0 .. < N step 1:");
  has(npg_dump_ir(s, v), "  for j_10 (counter j) in 0 .. < N step 1:");
  npg_close(s);
  refused(matmul, "#pragma npu schedule(matmul, v)\n#pragma npu decompose_reduction(update, i)\n",
          "k.c:12:33: error: decompose_reduction: update (line 8) is not a reduction's init: it must be a plain assignment (=)");
}

/* A moved use must not be captured by a declaration of the same name where
 * it lands (found by review: the emitted C computed something else). */
Test(sched, refuses_a_move_that_would_capture_a_name) {
  static const char *k = "#define N 8\n"
                         "void sh(const int A[N][N], int B[N][N]) {\n"
                         "  for (int i = 0; i < N; i++) {\n"
                         "    int T[N];\n"
                         "    for (int j = 0; j < N; j++)\n"
                         "      p: T[j] = A[i][j] * 2 + i;\n"
                         "    for (int i = 0; i < N; i++)\n"
                         "      c: B[0][i] = T[i];\n"
                         "  }\n"
                         "}\n";
  refused(k, "#pragma npu schedule(sh, v)\n#pragma npu compute_inline(p)\n",
          "k.c:12:13: error: compute_inline: refused: the emitted C would capture a name: 'i' at line 6 would refer to the "
          "declaration at line 7, not to the one at line 3; rename one of them in the kernel");
  static const char *k2 = "void shadow(const float A[4][8], float B[8]) {\n"
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

/* A step that does not parse drops its whole variant, never just the step
 * (a new user's trial found the variant emitted without it). */
Test(sched, schedule_file_step_with_a_syntax_error_drops_the_variant) {
  NpgSession *s = open_ok(matmul, "");
  static const char sched[] = "#pragma npu schedule(matmul, v)\n#pragma npu split(i, 16, io\n"
                              "#pragma npu split(j, 16, jo, ji)\n#pragma npu schedule(matmul, w)\n"
                              "#pragma npu split(j, 16, jo, ji)\n";
  cr_assert_not(npg_add_schedule_string(s, "s.sched", sched, strlen(sched)));
  cr_assert_eq(npg_variant_index(s, "v"), -1, "the variant was built without its broken step");
  checked(s, "w");
  has(npg_errors(s), "s.sched:2:");
  npg_close(s);
}

/* A guard that reads data must not sink into the loop under it: the loop's
 * body may change what it reads (found by review: reorder miscompiled this). */
Test(sched, reorder_keeps_a_data_guard_outside) {
  static const char *k = "void f(float A[8]) {\n"
                         "  for (int i = 0; i < 8; i++)\n"
                         "    if (A[0] < 100.0f)\n"
                         "      for (int j = 0; j < 8; j++)\n"
                         "        s: A[j] = A[j] + 1000.0f;\n"
                         "}\n";
  refused(k, "#pragma npu schedule(f, v)\n#pragma npu reorder(i, j)\n",
          "k.c:8:21: error: reorder: loop i is not perfectly nested: its body holds an if (line 3) before the next loop; use fission or decompose_reduction first");
}

/* A tile's two tail guards (no tile divides 10) sink together under the
 * loop reorder moves out, as one guard does: before, reorder refused the
 * second ("loop ji is not perfectly nested: its body holds an if"). */
Test(sched, reorder_sinks_a_tiles_two_tail_guards) {
  NpgSession *s = open_ok("void f(float A[10][10][8]) {\n"
                          "  for (int i = 0; i < 10; i++)\n"
                          "    for (int j = 0; j < 10; j++)\n"
                          "      for (int k = 0; k < 8; k++)\n"
                          "        A[i][j][k] = A[i][j][k] * 2.0f + (float)k;\n"
                          "}\n",
                          "#pragma npu schedule(f, v)\n#pragma npu tile(i, j, 4, 4, io, jo, ii, ji)\n"
                          "#pragma npu reorder(k, ii, ji)\n");
  checked(s, "v");
  npg_close(s);
}

/* decompose_reduction takes the ifs between its loop and the init along
 * (tests/kernels/sized_matmul_acc_i8.c runs the tile's tail guards), but
 * only a then branch whose condition reads counters and sizes alone: the
 * copy is evaluated before the loop, where other values may differ. */
Test(sched, decompose_reduction_takes_only_guards_of_counters) {
  static const char *k = "void f(float C[8], const float A[8][8]) {\n"
                         "  for (int i = 0; i < 8; i++) {\n"
                         "    if (A[i][0] > 0.0f)\n"
                         "      init: C[i] = 0.0f;\n"
                         "    for (int j = 0; j < 8; j++)\n"
                         "      C[i] += A[i][j];\n"
                         "  }\n"
                         "}\n";
  refused(k, "#pragma npu schedule(f, v)\n#pragma npu decompose_reduction(init, i)\n",
          "k.c:10:33: error: decompose_reduction: init must sit directly in loops up to loop i, or in the then branch "
          "of ifs of loop counters and sizes (the if at line 3 reads other values)");
  static const char *e = "void f(float C[8], const float A[8][8]) {\n"
                         "  for (int i = 0; i < 8; i++) {\n"
                         "    if (i < 4)\n"
                         "      C[i] = 1.0f;\n"
                         "    else\n"
                         "      init: C[i] = 0.0f;\n"
                         "    for (int j = 0; j < 8; j++)\n"
                         "      C[i] += A[i][j];\n"
                         "  }\n"
                         "}\n";
  refused(e, "#pragma npu schedule(f, v)\n#pragma npu decompose_reduction(init, i)\n",
          "k.c:12:33: error: decompose_reduction: init must sit directly in loops up to loop i, or in the then branch "
          "of ifs of loop counters and sizes (the if at line 3 holds it in its else branch)");
}

/* A reduction loop that runs to a size does not map onto the intrinsic's
 * loop: the message says so and what to do, where it once named another
 * alternative's miss ("the assignment operators differ: init against the
 * intrinsic's update", found by a new user's trial of issue 42). */
/* A sized nest that does not match for another reason says that reason,
 * found on the nest with its loop to a size bounded (it said "the loop's
 * bound is in the kernel's sizes: split the loop first", which splitting
 * would not mend). */
Test(sched, tensorize_of_a_sized_nest_names_the_real_difference) {
  refused("#include <stdint.h>\n"
          "void mm(int m, int k, const int8_t A[m][k], const int8_t B[k][128], int32_t C[m][128]) {\n"
          "  for (int i = 0; i < m; i++) for (int j = 0; j < 128; j++) {\n"
          "    init: C[i][j] = 0;\n"
          "    for (int p = 0; p < k; p++) update: C[i][j] += (int32_t)A[i][p] * (int32_t)B[p][j]; } }\n"
          "#pragma npu assume(mm, k <= 512, m <= 4096)\n",
          "#pragma npu schedule(mm, mm_nu)\n#pragma npu tile(i, j, 32, 128, io, jo, ii, ji)\n"
          "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
          "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_f32)\n",
          "k.c:12:27: error: tensorize: the nest under ii does not match npu_nu_matmul_f32: the types differ: "
          "'C_ob[ii][jo * 128 + ji]' in init (line 4) against the intrinsic's 'C[i][j]' (line 19)");
}

/* A reduction loop that runs to a size is matched whole: it runs to its
 * largest value under the assumptions, its body guarded, so the call's
 * length is k at run time and the NU's own init (accumulate = 0) zeroes
 * C's tile: no init loop on the CU, no copy of C in (it was refused, "split
 * the loop first", and a K-split zeroed each tile on the CU). */
Test(sched, tensorize_runs_a_reduction_to_a_size_whole) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void mm(int m, int k, const int8_t A[m][k], const int8_t B[k][128], int32_t C[m][128]) {\n"
                          "  for (int i = 0; i < m; i++) for (int j = 0; j < 128; j++) {\n"
                          "    init: C[i][j] = 0;\n"
                          "    for (int p = 0; p < k; p++) update: C[i][j] += (int32_t)A[i][p] * (int32_t)B[p][j]; } }\n"
                          "#pragma npu assume(mm, k <= 512, m <= 4096)\n"
                          "#pragma npu sizes(mm, m = 1, k = 1)\n#pragma npu sizes(mm, m = 40, k = 70)\n",
                          "#pragma npu schedule(mm, mm_nu)\n#pragma npu tile(i, j, 32, 128, io, jo, ii, ji)\n"
                          "#pragma npu cache_read(A, nu_ib, io, A_ib)\n#pragma npu cache_read(B, nu_wb, jo, B_wb)\n"
                          "#pragma npu cache_write(C, nu_ob, jo, C_ob)\n#pragma npu tensorize(ii, npu_nu_matmul_i8)\n");
  const char *c = npg_emit_source(s, checked_once(s, "mm_nu"));
  has(c, "npu_nu_matmul_i8(&C_ob[0][0], &A_ib[0][0], &B_wb[0][0], io_count, /*n=*/128, npu_clamp(k, 512), /*lda=*/512, "
         "/*ldb=*/128, /*ldc=*/128, /*accumulate=*/0);");
  lacks(c, "C_ob[ii][ji] = 0");
  lacks(c, "C_ob_load");
  npg_close(s);
}
