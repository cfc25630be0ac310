/* Standing marks (schedule/marks.c): parallel, vectorize and bind are proven
 * when set and again after every later step. A step that breaks a mark is
 * refused at that step, naming the step that set it; legal neighbours of
 * each refused schedule still run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* The diagonal recurrence: i and j together carry it, neither alone at the
 * inner level. */
static const char *diag =
    "void k(float A[64][64]) {\n"
    "  for (int i = 1; i < 64; i++)\n"
    "    for (int j = 1; j < 64; j++)\n"
    "      s: A[i][j] = A[i - 1][j - 1] + 1;\n"
    "}\n";

static const char *mm =
    "void mm(const float A[64][32], const float B[32][48], float C[64][48]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 48; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 32; k++)\n"
    "        update: C[i][j] += A[i][k] * B[k][j];\n"
    "    }\n"
    "}\n";

/* ---------------- a later loop step ---------------- */

Test(marks, reorder_after_parallel_is_refused_naming_the_mark) {
  refused(diag, "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu reorder(j, i)\n",
          "k.c:8:13: error: reorder: illegal: loop j is parallel (parallel(j), line 7), and after this step it would "
          "carry the flow dependence on A from s (line 4) to s (line 4), distance (1, 1)");
}

Test(marks, reorder_after_vectorize_is_refused_naming_the_mark) {
  refused(diag, "#pragma npu schedule(k, v)\n#pragma npu vectorize(j)\n#pragma npu reorder(j, i)\n",
          "k.c:8:13: error: reorder: illegal: loop j is vectorized (vectorize(j), line 7), and after this step it "
          "would carry the flow dependence on A from s (line 4) to s (line 4), distance (1, 1)");
}

Test(marks, a_split_inner_loop_moved_out_is_refused) {
  refused(diag, "#pragma npu schedule(k, v)\n#pragma npu split(j, 8, jo, ji)\n#pragma npu parallel(ji)\n"
                "#pragma npu reorder(jo, ji, i)\n",
          "k.c:9:13: error: reorder: illegal: loop ji is parallel (parallel(ji), line 8), and after this step it "
          "would carry the flow dependence on A from s (line 4) to s (line 4), distance (1, 1)");
}

Test(marks, merge_of_two_parallel_loops_is_refused) {
  refused("void k(float A[64], float B[64]) {\n"
          "  for (int i = 1; i < 64; i++)\n"
          "    s1: A[i] = B[i] + 1;\n"
          "  for (int i = 1; i < 64; i++)\n"
          "    s2: B[i] = A[i - 1] * 2;\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu parallel(i_1)\n#pragma npu parallel(i_2)\n"
          "#pragma npu merge(i_1, i_2)\n",
          "k.c:10:13: error: merge: illegal: loop i_1 is parallel (parallel(i_1), line 8), and after this step it "
          "would carry the flow dependence on A from s1 (line 3) to s2 (line 5)");
}

Test(marks, bind_then_reorder_is_refused_naming_bind) {
  refused("void k(float A[64][5]) {\n"
          "  for (int i = 1; i < 64; i++)\n"
          "    for (int c = 0; c < 4; c++)\n"
          "      s: A[i][c + 1] = A[i - 1][c] + 1;\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(c, vu)\n#pragma npu reorder(c, i)\n",
          "k.c:8:13: error: reorder: illegal: loop c is bound to the VU cores (bind(c, vu), line 7), and after this "
          "step it would carry the flow dependence on A from s (line 4) to s (line 4), distance (1, 1)");
}

/* ---------------- a later buffer step ---------------- */

Test(marks, cache_at_a_parallel_loop_is_refused) {
  refused(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(i, 16, io, ii)\n#pragma npu parallel(io)\n"
              "#pragma npu cache_read(A, dm, io, A_dm)\n",
          "k.c:12:13: error: cache_read: loop io is parallel (parallel(io), line 11), and after this step its "
          "iterations would share on-chip buffer A_dm (dm, declared in its body)");
}

Test(marks, cache_at_a_vectorized_loop_is_refused) {
  refused(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(j, 16, jo, ji)\n#pragma npu vectorize(jo)\n"
              "#pragma npu cache_read(B, dm, jo, B_dm)\n",
          "k.c:12:13: error: cache_read: loop jo is vectorized (vectorize(jo), line 11), and after this step its "
          "iterations would share on-chip buffer B_dm (dm, declared in its body)");
}

Test(marks, cache_then_double_buffer_in_a_parallel_loop_is_refused) {
  refused(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(j, 16, jo, ji)\n#pragma npu parallel(jo)\n"
              "#pragma npu cache_read(B, dm, jo, B_dm)\n#pragma npu double_buffer(B_dm)\n",
          "k.c:12:13: error: cache_read: loop jo is parallel (parallel(jo), line 11), and after this step its "
          "iterations would share on-chip buffer B_dm (dm, declared in its body)");
}

/* After cache_read/cache_write of a parameter only the pairs with a copy
 * are proven again (schedule/marks.c): here the copies race. */
Test(marks, a_cache_whose_copies_race_under_bind_is_refused) {
  refused("void k(float A[140], const float X[64]) {\n"
          "  for (int j = 0; j < 4; j++)\n"
          "    for (int r = 0; r < 16; r++) {\n"
          "      s1: A[32 * j + 2 * r] = X[r];\n"
          "      s2: A[32 * j + 2 * r + 3] = X[r] + 1;\n"
          "    }\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu bind(j, vu)\n#pragma npu cache_write(A, vu_vm, j, A_vm)\n",
          "k.c:10:13: error: cache_write: illegal: loop j is bound to the VU cores (bind(j, vu), line 9), and after "
          "this step it would carry the flow dependence on A from A_vm_store (line 10) to A_vm_load (line 10)");
}

/* A local array's cache may be shared by iterations that each had their
 * own copy: every pair is proven again (a proof of the copies' pairs only
 * would accept this). */
Test(marks, a_local_arrays_cache_shared_by_parallel_iterations_is_refused) {
  refused("void k(const float X[8][16], float Y[8][16]) {\n"
          "  for (int i = 0; i < 8; i++)\n"
          "    for (int j = 0; j < 16; j++) {\n"
          "      float t[4];\n"
          "      a: t[0] = X[i][j];\n"
          "      b: Y[i][j] = t[0] * 2;\n"
          "    }\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu cache_write(t, dm, i, t_dm)\n",
          "k.c:11:13: error: cache_write: illegal: loop j is parallel (parallel(j), line 10), and after this step "
          "it would carry the flow dependence on t_dm from a (line 5) to b (line 6)");
}

Test(marks, set_scope_of_a_local_in_a_parallel_loop_is_refused) {
  refused("void k(const float X[64][16], float Y[64][16]) {\n"
          "  for (int i = 0; i < 64; i++) {\n"
          "    float t[16];\n"
          "    for (int j = 0; j < 16; j++)\n"
          "      fill: t[j] = X[i][j] * 2;\n"
          "    for (int j = 0; j < 16; j++)\n"
          "      out: Y[i][j] = t[15 - j];\n"
          "  }\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu parallel(i)\n#pragma npu set_scope(t, dm)\n",
          "k.c:12:13: error: set_scope: loop i is parallel (parallel(i), line 11), and after this step its iterations "
          "would share on-chip buffer t (dm, declared in its body)");
}

/* ---------------- legal neighbours run ---------------- */

Test(marks, legal_neighbours_run) {
  NpgSession *s = open_ok(diag, "#pragma npu schedule(k, par)\n#pragma npu parallel(j)\n"
                                "#pragma npu schedule(k, swapped)\n#pragma npu reorder(j, i)\n"
                                "#pragma npu schedule(k, inner)\n#pragma npu split(j, 8, jo, ji)\n"
                                "#pragma npu parallel(ji)\n#pragma npu reorder(i, ji, jo)\n"
                                "#pragma npu schedule(k, unrolled)\n#pragma npu parallel(j)\n"
                                "#pragma npu split(i, 8, io, ii)\n#pragma npu unroll(ii)\n");
  checked(s, "par");
  checked(s, "swapped");
  checked(s, "inner");
  has(npg_emit_source(s, checked(s, "unrolled")), "#pragma omp parallel for");
  npg_close(s);
  s = open_ok(mm, "#pragma npu schedule(mm, v)\n#pragma npu split(i, 16, io, ii)\n#pragma npu split(j, 16, jo, ji)\n"
                  "#pragma npu reorder(io, jo, ii, ji)\n#pragma npu cache_read(A, dm, io, A_dm)\n"
                  "#pragma npu parallel(jo)\n");
  has(npg_emit_source(s, checked(s, "v")), "#pragma omp parallel for");
  npg_close(s);
}

/* reorder keeps the proofs of marks outside its chain, not of a loop in
 * the chain whose own header stayed: j keeps its place between k and i,
 * but now runs inside k instead of i. */
Test(marks, a_reorder_around_a_marked_middle_loop_is_refused) {
  refused("void k(float A[16][16][16]) {\n"
          "  for (int i = 1; i < 16; i++)\n"
          "    for (int j = 1; j < 16; j++)\n"
          "      for (int k = 0; k < 16; k++)\n"
          "        s: A[i][j][k] = A[i - 1][j - 1][k] + 1;\n"
          "}\n",
          "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu reorder(k, i)\n",
          "k.c:9:13: error: reorder: illegal: loop j is parallel (parallel(j), line 8), and after this step it would "
          "carry the flow dependence on A from s (line 5) to s (line 5), distance (1, 1, 0)");
}

/* A local array declared outside the cache's loop had one copy for all
 * the iterations its cache splits it into: the pairs that were there keep
 * their proof, and the mark inside stands. */
Test(marks, a_cache_of_a_local_declared_outside_its_loop_keeps_the_mark) {
  NpgSession *s = open_ok("void k(const float X[8][16], float Y[8][16]) {\n"
                          "  float t[8][16];\n"
                          "  for (int i = 0; i < 8; i++)\n"
                          "    for (int j = 0; j < 16; j++) {\n"
                          "      a: t[i][j] = X[i][j] * 3;\n"
                          "      b: Y[i][j] = t[i][j] + 1;\n"
                          "    }\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu cache_write(t, dm, i, t_dm)\n");
  has(npg_emit_source(s, checked(s, "v")), "#pragma omp parallel for");
  npg_close(s);
}

/* A mark moves with its loop and is proven where it lands: j carries
 * nothing, so it may run outermost and stays parallel there. */
Test(marks, a_mark_moves_with_its_loop) {
  NpgSession *s = open_ok("void k(float A[64][64]) {\n"
                          "  for (int i = 1; i < 64; i++)\n"
                          "    for (int j = 0; j < 64; j++)\n"
                          "      s: A[i][j] = A[i - 1][j] + 1;\n"
                          "}\n",
                          "#pragma npu schedule(k, v)\n#pragma npu parallel(j)\n#pragma npu reorder(j, i)\n");
  has(npg_emit_source(s, checked(s, "v")), "#pragma omp parallel for\n#endif\n  for (int j = 0; j < 64; j++) {\n");
  npg_close(s);
}

/* After a step that rebuilds the model (a cache), an unrolled statement's
 * copies stay one statement: the refusal speaks of its instances in the
 * kernel's own loops (i, j), not of one copy in the split loops. */
Test(marks, copies_stay_one_statement_after_a_rebuild) {
  const char *k = "void k(const float X[64][16], float Y[64]) {\n"
                  "  for (int i = 0; i < 64; i++) {\n"
                  "    init: Y[i] = 0;\n"
                  "    for (int j = 0; j < 16; j++)\n"
                  "      acc: Y[i] += X[i][j];\n"
                  "  }\n"
                  "}\n";
  const char *steps = "#pragma npu schedule(k, v)\n#pragma npu split(j, 4, jo, ji)\n#pragma npu unroll(ji)\n"
                      "#pragma npu split(i, 16, io, ii)\n#pragma npu cache_read(X, dm, io, X_dm)\n";
  refused(k, steps_then(steps, "#pragma npu parallel(jo)\n"),
          "k.c:13:13: error: parallel: illegal: loop jo would run its iterations in any order, but it carries the "
          "flow dependence on Y from acc (line 5) to acc (line 5), distance (0, 4)");
  char src[4096];
  snprintf(src, sizeof src, "%s%s#pragma npu parallel(ii)\n", k, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  has(npg_emit_source(s, checked(s, "v")), "#pragma omp parallel for");
  npg_close(s);
}

/* unroll and loop_partition copy the loops in what they copy: a copy of a
 * marked loop inherits the loop's proof (it runs a subset of the pairs),
 * keeps the mark, and is proven again when a later step moves it. */
Test(marks, a_copy_of_a_marked_loop_keeps_the_mark_and_is_proven_where_it_moves) {
  const char *k = "void k(float A[2][16][16]) {\n"
                  "  for (int t = 0; t < 2; t++)\n"
                  "    for (int i = 1; i < 16; i++)\n"
                  "      for (int j = 1; j < 16; j++)\n"
                  "        s: A[t][i][j] = A[t][i - 1][j - 1] + 1;\n"
                  "}\n";
  const char *steps = "#pragma npu schedule(k, v)\n#pragma npu split(j, 5, jo, ji)\n#pragma npu parallel(ji)\n"
                      "#pragma npu unroll(t)\n";
  /* the loops inside an unrolled loop are copied only at the end */
  refused(k, steps_then(steps, "#pragma npu reorder(jo, ji, i)\n"),
          "k.c:11:13: error: reorder: illegal: loop ji is parallel (parallel(ji), line 9), and after this step it "
          "would carry the flow dependence on A from s (line 5) to s (line 5), distance (0, 1, 1)");
  refused(k, steps_then("#pragma npu schedule(k, v)\n#pragma npu split(j, 5, jo, ji)\n#pragma npu parallel(ji)\n"
                        "#pragma npu loop_partition(i, 8)\n", "#pragma npu reorder(jo_1, ji_1, i_1)\n"),
          "k.c:11:13: error: reorder: illegal: loop ji_1 is parallel (parallel(ji), line 9), and after this step it "
          "would carry the flow dependence on A from s (line 5) to s (line 5), distance (0, 1, 1)");
  char src[4096];
  snprintf(src, sizeof src, "%s%s#pragma npu schedule(k, p)\n#pragma npu split(j, 5, jo, ji)\n#pragma npu parallel(ji)\n"
           "#pragma npu loop_partition(i, 8)\n", k, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  const char *c = npg_emit_source(s, checked(s, "v"));
  cr_assert(strstr(c, "#pragma omp parallel for") && strstr(strstr(c, "#pragma omp parallel for") + 1, "#pragma omp parallel for"),
            "both copies of ji stay parallel:\n%s", c);
  c = npg_emit_source(s, checked(s, "p"));
  cr_assert(strstr(c, "#pragma omp parallel for") && strstr(strstr(c, "#pragma omp parallel for") + 1, "#pragma omp parallel for"),
            "both pieces' ji stay parallel:\n%s", c);
  npg_close(s);
}
