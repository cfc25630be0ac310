/* Layouts across calls (docs/programs.md): a program's schedule gives an
 * array that calls take one layout, for producer and consumer alike; use()
 * takes a variant that takes the array in that layout (compared with
 * isl), and the call passes it as it is; a mismatch is refused naming
 * both variants and both layouts; the padding a consumer assumes is
 * written before it; a variant that assumes its input's padding says so
 * in its header. Every accepted program is JIT-run against the program
 * as written. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/tcc_unit.h"
#include "npugen.h"
#include "tests/test_sched_util.h"

/* p writes T, c reads it (lines 1-28); variants in several layouts. */
static const char *chain =
    "#include <stdint.h>\n"
    "#define N 8\n"
    "void p(const int32_t A[N][N], int32_t Y[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Y[i][j] = A[i][j] * 3;\n"
    "}\n"
    "#pragma npu schedule(p, p_t)\n"
    "#pragma npu transform_layout(Y, (i, j), (j, i))\n"
    "#pragma npu schedule(p, p_b)\n"
    "#pragma npu transform_layout(Y, (i, j), (j / 4, i, j % 4))\n"
    "#pragma npu schedule(p, p_in)\n"
    "#pragma npu transform_layout(A, (i, j), (j, i))\n"
    "void c(const int32_t X[N][N], int32_t Z[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Z[i][j] = X[i][j] + i;\n"
    "}\n"
    "#pragma npu schedule(c, c_t)\n"
    "#pragma npu transform_layout(X, (a, b), (b, a))\n"
    "#pragma npu schedule(c, c_b)\n"
    "#pragma npu buffer_split(X, 1, 4)\n"
    "#pragma npu buffer_reorder(X, 1, 0, 2)\n"
    "#pragma npu schedule(c, c_rev)\n"
    "#pragma npu transform_layout(X, (a, b), (7 - a, b))\n"
    "void net(const int32_t A[N][N], int32_t B[N][N]) {\n"
    "  int32_t T[N][N];\n"
    "  s1: p(A, T);\n"
    "  s2: c(T, B);\n"
    "}\n";

/* The text of function `name` in c: from its definition to its closing brace. */
static char *function_text(const char *c, const char *name) {
  char head[128];
  snprintf(head, sizeof head, "\nvoid %s(", name);
  const char *at = strstr(c, head);
  cr_assert_not_null(at, "no function %s in:\n%s", name, c);
  const char *end = strstr(at, "\n}\n");
  cr_assert_not_null(end);
  return strndup(at, (size_t)(end - at + 3));
}

Test(program_layouts, an_intermediate_passes_between_variants_of_one_layout_as_it_is) {
  /* the program writes T's layout as one map; c_b's is a split then a reorder: isl finds them equal */
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_b)\n"
                                 "#pragma npu transform_layout(T, (i, j), (j / 4, i, j % 4))\n"
                                 "#pragma npu use(s1, p_b)\n#pragma npu use(s2, c_b)\n");
  const char *c = npg_emit_source(s, checked(s, "net_b"));
  char *f = function_text(c, "net_b");
  cr_assert_str_eq(f, "\nvoid net_b(const int32_t A[N][N], int32_t B[N][N]) {\n"
                      "  int32_t T[2][8][4];\n"
                      "  p_b(A, T); /* s1, line 28 */\n"
                      "  c_b((const int32_t (*)[8][4])T, B); /* s2, line 29 */\n"
                      "}\n");
  free(f);
  has(c, "static void c_b(const int32_t X[2][8][4], int32_t Z[N][N]) {");
  lacks(c, "pack_T");
  npg_close(s);
}

/* Between the layout step and use(), the calls run the kernels as written
 * over T's new layout; set_scope plans them again over it. */
Test(program_layouts, set_scope_between_the_layout_and_use_plans_the_calls_again) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_vm)\n"
                                 "#pragma npu transform_layout(T, (i, j), (j / 4, i, j % 4))\n"
                                 "#pragma npu set_scope(T, vu_vm)\n"
                                 "#pragma npu use(s1, p_b)\n#pragma npu use(s2, c_b)\n");
  const char *c = npg_emit_source(s, checked(s, "net_vm"));
  has(c, "  p_b_s1(A, T); /* s1, line 28 */\n");
  has(c, "  c_b_s2((const int32_t (*)[8][4])T, B); /* s2, line 29 */\n");
  npg_close(s);
}

Test(program_layouts, a_call_inlined_after_the_layout_step_indexes_the_array_through_it) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_inl)\n"
                                 "#pragma npu transform_layout(T, (i, j), (j / 4, i, j % 4))\n"
                                 "#pragma npu use(s1, p_b)\n#pragma npu inline(s2)\n");
  const char *c = npg_emit_source(s, checked(s, "net_inl"));
  has(c, "B[i][j] = T[j / 4][i][j % 4] + i;");
  npg_close(s);
}

Test(program_layouts, a_program_parameter_in_a_layout_passes_to_a_variant_of_that_layout) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(net, net_in)\n"
                                 "#pragma npu transform_layout(A, (i, j), (j, i))\n"
                                 "#pragma npu use(s1, p_in)\n");
  int v = checked(s, "net_in");
  const char *c = npg_emit_source(s, v);
  has(c, "void net_in(const int32_t A[8][8], int32_t B[N][N]) {\n  int32_t T[N][N];\n  p_in(A, T); /* s1, line 28 */\n");
  has(npg_emit_header(s, v), "void net_in_pack_A(const int32_t logical[8][8], int32_t physical[8][8]);");
  npg_close(s);
}

Test(program_layouts, use_before_the_layout_step_is_refused_saying_which_order_to_write) {
  refused(chain, "#pragma npu schedule(net, v)\n#pragma npu use(s1, p_t)\n"
                 "#pragma npu transform_layout(T, (i, j), (j, i))\n",
          "k.c:32:21: error: use: p_t takes Y in Y[i][j] -> Y[j][i] of [8][8], but v passes T to call s1 (line 28) in "
          "the logical layout at this step; a call passes its arrays as they are: give T that layout first (p_t's "
          "layout steps: transform_layout(Y, (i, j), (j, i))), then use(s1, p_t)");
}

Test(program_layouts, a_map_that_differs_is_refused_naming_both_variants_and_layouts) {
  refused(chain, "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n"
                 "#pragma npu use(s1, p_t)\n#pragma npu use(s2, c_rev)\n",
          "k.c:34:21: error: use: the layouts do not match: c_rev takes X in X[a][b] -> X[7 - a][b] of [8][8], but v "
          "passes T to call s2 (line 29) in T[i][j] -> T[j][i] of [8][8] (T is written by call s1, line 28, which "
          "runs variant p_t): their index maps differ; a call passes its arrays as they are: give both the same "
          "layout");
  refused(chain, "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n"
                 "#pragma npu use(s1, p_t)\n#pragma npu use(s2, c_b)\n",
          "k.c:34:21: error: use: the layouts do not match: c_b takes X in X[i0][i1] -> X[i1 / 4][i0][i1 % 4] of "
          "[2][8][4], but v passes T to call s2 (line 29) in T[i][j] -> T[j][i] of [8][8] (T is written by call s1, "
          "line 28, which runs variant p_t): their physical shapes differ; a call passes its arrays as they are: "
          "give both the same layout");
}

Test(program_layouts, a_logical_callee_given_a_transformed_array_is_refused) {
  /* the kernel as written, by use */
  refused(chain, "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n"
                 "#pragma npu use(s1, p_t)\n#pragma npu use(s2, c)\n",
          "k.c:34:21: error: use: c (the kernel as written) takes X in the logical layout, but v passes T to call s2 "
          "(line 29) in T[i][j] -> T[j][i] of [8][8] (T is written by call s1, line 28, which runs variant p_t); a "
          "call passes its arrays as they are: use a variant of c that takes X in that layout");
  /* a variant that keeps X logical */
  refused(chain, "#pragma npu schedule(c, c_keep)\n#pragma npu split(i, 4, io, ii)\n"
                 "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n"
                 "#pragma npu use(s1, p_t)\n#pragma npu use(s2, c_keep)\n",
          "k.c:36:21: error: use: c_keep takes X in the logical layout, but v passes T to call s2 (line 29) in "
          "T[i][j] -> T[j][i] of [8][8] (T is written by call s1, line 28, which runs variant p_t); a call passes "
          "its arrays as they are: use a variant of c that takes X in that layout");
  /* no later use() gives the call a variant */
  refused(chain, "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n"
                 "#pragma npu use(s1, p_t)\n",
          "k.c:32:41: error: transform_layout: call s2 (line 29) runs c (the kernel as written), which takes X in the "
          "logical layout, but v now gives it T in T[i][j] -> T[j][i] of [8][8]; a call passes its arrays as they "
          "are: use(s2, VARIANT) after this step, with a variant of c that takes X in this layout, or inline(s2)");
}

/* The hand-chained padded pair, as a program (lines 1-25): k1_pad
 * writes T padded and computes into its padding (2 * 0 + 1 = 1 there:
 * its guards are gone, A's padding reads 0); k2_pad sums T's rows over
 * the padding too, assuming it holds 0. */
static const char *pair =
    "#define N 6\n"
    "void k1(const float A[N][N], float Y[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      w1: Y[i][j] = A[i][j] * 2.0f + 1.0f;\n"
    "}\n"
    "#pragma npu schedule(k1, k1_pad)\n"
    "#pragma npu buffer_split(Y, 1, 4, 0)\n"
    "#pragma npu buffer_split(A, 1, 4, 0)\n"
    "#pragma npu split(j, 4, jo, ji)\n"
    "void k2(const float X[N][N], float Z[N]) {\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    s: Z[i] = 0.0f;\n"
    "    for (int j = 0; j < N; j++)\n"
    "      acc: Z[i] += X[i][j];\n"
    "  }\n"
    "}\n"
    "#pragma npu schedule(k2, k2_pad)\n"
    "#pragma npu buffer_split(X, 1, 4, 0)\n"
    "#pragma npu split(j, 4, jo, ji)\n"
    "void net(const float A[N][N], float B[N]) {\n"
    "  float T[N][N];\n"
    "  s1: k1(A, T);\n"
    "  s2: k2(T, B);\n"
    "}\n";

static const char *pair_steps = "#pragma npu schedule(net, net_pad)\n"
                                "#pragma npu buffer_split(A, 1, 4, 0)\n"
                                "#pragma npu buffer_split(T, 1, 4, 0)\n"
                                "#pragma npu use(s1, k1_pad)\n"
                                "#pragma npu use(s2, k2_pad)\n";

/* Runs net_pad from C source c on A[i][j] = i + j / 8 (packed by the
 * emitted net_pad_pack_A when the program takes A padded): B. */
static void run_pair(const char *c, bool packed, float B[6]) {
  char err[4096];
  TccUnit *u = tcc_unit_compile(c, "net_pad.c", err, sizeof err);
  cr_assert_not_null(u, "%s\n%s", err, c);
  void (*pack)(const float *, float *) = (void (*)(const float *, float *))tcc_unit_symbol(u, "net_pad_pack_A");
  void (*net)(const float *, float *) = (void (*)(const float *, float *))tcc_unit_symbol(u, "net_pad");
  cr_assert(net && (pack || !packed));
  float A[36], Ap[48];
  for (int e = 0; e < 36; e++) A[e] = (float)(e / 6) + (float)(e % 6) / 8.0f;
  if (packed) pack(A, Ap);
  net(packed ? Ap : A, B);
  tcc_unit_free(u);
}

/* The emitted program's C without its #include of its own .h (malloc'ed). */
static char *program_alone(const char *c) {
  const char *line = "#include \"net_pad.h\"\n";
  char *src = strdup(c), *at = strstr(src, line);
  cr_assert_not_null(at);
  memmove(at, at + strlen(line), strlen(at + strlen(line)) + 1);
  return src;
}

/* Cuts the padding nest out of the program's C: from its comment to the call of k2_pad. */
static void drop_fill(char *src) {
  char *fill = strstr(src, "  /* @padding"), *call = strstr(src, "  k2_pad((const");
  cr_assert(fill && call && fill < call, "%s", src);
  memmove(fill, call, strlen(call) + 1);
}

static void pair_sums(float want[6]) {
  for (int i = 0; i < 6; i++) {
    want[i] = 0;
    for (int j = 0; j < 6; j++) want[i] += ((float)i + (float)j / 8.0f) * 2.0f + 1.0f;
  }
}

Test(program_layouts, the_padded_pair_works_because_the_program_fills_the_padding) {
  NpgSession *s = open_ok(pair, pair_steps);
  int v = checked(s, "net_pad");
  const char *c = npg_emit_source(s, v);
  has(c, "  k1_pad(A, T); /* s1, line 23 */\n"
         "  /* @padding = T's padding set to 0: s2 (k2_pad) assumes it */\n"
         "  /* loop nest T_pad0 (line 24): T_pad (line 24) */\n"
         "  for (int T_pad0 = 0; T_pad0 < 6; T_pad0++) {\n"
         "    for (int T_pad1 = 2; T_pad1 < 4; T_pad1++) {\n"
         "      T[T_pad0][1][T_pad1] = 0;\n"
         "    }\n"
         "  }\n"
         "  k2_pad((const float (*)[2][4])T, B); /* s2, line 24 */\n");
  /* the program as npugen emits it, and without the fill: only the fill makes B right */
  char *src = program_alone(c);
  float want[6], B[6];
  pair_sums(want);
  run_pair(src, true, B);
  for (int i = 0; i < 6; i++) cr_assert_eq(B[i], want[i], "B[%d] = %g, want %g", i, B[i], want[i]);
  drop_fill(src);
  run_pair(src, true, B);
  for (int i = 0; i < 6; i++) /* k1_pad left 1 in each of the row's two padding elements */
    cr_assert_eq(B[i], want[i] + 2.0f, "without the fill: B[%d] = %g, want %g", i, B[i], want[i] + 2.0f);
  free(src);
  npg_close(s);
}

/* The pair exactly: k1_pad keeps its guard and leaves T's padding
 * undefined (A is logical). T is poisoned with NaN before the calls: with
 * the fill B is right, without it NaN reaches B, as the issue saw. */
Test(program_layouts, the_pair_that_leaves_the_padding_undefined_gets_it_filled) {
  char src0[4096], *at;
  snprintf(src0, sizeof src0, "%s", pair);
  const char *split_a = "#pragma npu buffer_split(A, 1, 4, 0)\n";
  at = strstr(src0, split_a);
  cr_assert_not_null(at);
  memmove(at, at + strlen(split_a), strlen(at + strlen(split_a)) + 1);
  NpgSession *s = open_ok(src0, "#pragma npu schedule(net, net_pad)\n#pragma npu buffer_split(T, 1, 4, 0)\n"
                                "#pragma npu use(s1, k1_pad)\n#pragma npu use(s2, k2_pad)\n");
  const char *c = npg_emit_source(s, checked(s, "net_pad"));
  has(c, "        if (jo * 4 + ji < N) {\n"); /* k1_pad writes no padding */
  char *src = program_alone(c);
  const char *decl = "  float T[6][2][4];\n";
  at = strstr(src, decl);
  cr_assert_not_null(at, "%s", src);
  const char *poison = "  for (int e = 0; e < 48; e++) (&T[0][0][0])[e] = 0.0f / 0.0f;\n";
  char *poisoned = malloc(strlen(src) + strlen(poison) + 1);
  size_t head = (size_t)(at - src) + strlen(decl);
  snprintf(poisoned, strlen(src) + strlen(poison) + 1, "%.*s%s%s", (int)head, src, poison, src + head);
  float want[6], B[6];
  pair_sums(want);
  run_pair(poisoned, false, B);
  for (int i = 0; i < 6; i++) cr_assert_eq(B[i], want[i], "B[%d] = %g, want %g", i, B[i], want[i]);
  drop_fill(poisoned);
  run_pair(poisoned, false, B);
  for (int i = 0; i < 6; i++) cr_assert(B[i] != B[i], "without the fill: B[%d] = %g, want NaN", i, B[i]);
  free(poisoned);
  free(src);
  npg_close(s);
}

Test(program_layouts, a_statement_before_the_consumer_is_not_taken_for_the_fill) {
  char src[4096];
  const char *at = strstr(pair, "  s2: k2(T, B);\n");
  snprintf(src, sizeof src, "%.*s  z: T[0][0] = 1.0f;\n%s", (int)(at - pair), pair, at);
  NpgSession *s = open_ok(src, pair_steps);
  has(npg_emit_source(s, checked(s, "net_pad")), "  T[0][0][0] = 1.0f; /* z */\n"
                                                  "  /* @padding = T's padding set to 0: s2 (k2_pad) assumes it */\n");
  npg_close(s);
}

/* A padding of two pieces (rows and columns past 6), and one of a split
 * on two axes, filled inside a loop before each run of the consumer. */
static const char *pieces =
    "#include <stdint.h>\n"
    "#define N 6\n"
    "void k1(const int16_t A[N][N], int16_t Y[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Y[i][j] = A[i][j] + 1;\n"
    "}\n"
    "#pragma npu schedule(k1, k1_p)\n"
    "#pragma npu buffer_pad(Y, (8, 8), -3)\n"
    "#pragma npu schedule(k1, k1_s)\n"
    "#pragma npu buffer_split(Y, 0, 4, 5)\n"
    "#pragma npu buffer_split(Y, 2, 4, 5)\n"
    "void k2(const int16_t X[N][N], int32_t Z[N]) {\n"
    "  for (int i = 0; i < N; i++) {\n"
    "    Z[i] = 0;\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Z[i] += X[i][j];\n"
    "  }\n"
    "}\n"
    "#pragma npu schedule(k2, k2_p)\n"
    "#pragma npu buffer_pad(X, (8, 8), -3)\n"
    "#pragma npu schedule(k2, k2_s)\n"
    "#pragma npu buffer_split(X, 0, 4, 5)\n"
    "#pragma npu buffer_split(X, 2, 4, 5)\n"
    "void net(const int16_t A[N][N], int32_t B[N]) {\n"
    "  int16_t T[N][N];\n"
    "  s1: k1(A, T);\n"
    "  for (int r = 0; r < 2; r++)\n"
    "    s2: k2(T, B);\n"
    "}\n";

Test(program_layouts, a_padding_of_several_pieces_is_filled_before_each_run_of_the_consumer) {
  NpgSession *s = open_ok(pieces, "#pragma npu schedule(net, net_p)\n#pragma npu buffer_pad(T, (8, 8), -3)\n"
                                  "#pragma npu use(s1, k1_p)\n#pragma npu use(s2, k2_p)\n"
                                  "#pragma npu schedule(net, net_s)\n#pragma npu buffer_split(T, 0, 4, 5)\n"
                                  "#pragma npu buffer_split(T, 2, 4, 5)\n#pragma npu use(s2, k2_s)\n"
                                  "#pragma npu use(s1, k1_s)\n");
  has(npg_emit_source(s, checked(s, "net_p")),
      "  for (int r = 0; r < 2; r++) {\n"
      "    /* @padding = T's padding set to -3: s2 (k2_p) assumes it */\n"
      "    for (int T_pad0 = 0; T_pad0 < 8; T_pad0++) {\n"
      "      if (T_pad0 >= 6) {\n"
      "        for (int T_pad1 = 0; T_pad1 < 8; T_pad1++) {\n"
      "          T[T_pad0][T_pad1] = -3;\n"
      "        }\n"
      "      } else {\n"
      "        for (int T_pad2 = 6; T_pad2 < 8; T_pad2++) {\n"
      "          T[T_pad0][T_pad2] = -3;\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    k2_p((const int16_t (*)[8])T, B); /* s2, line 29 */\n");
  const char *c = npg_emit_source(s, checked(s, "net_s"));
  has(c, "T_pad (line 29), T_pad_1 (line 29), T_pad_2 (line 29)"); /* one name each */
  has(c, "            T[1][T_pad1][0][T_pad2] = 5;\n");
  npg_close(s);
}

Test(program_layouts, a_consumer_assuming_another_pad_value_is_refused) {
  refused(pair, "#pragma npu schedule(k2, k2_pad1)\n#pragma npu buffer_split(X, 1, 4, 1)\n"
               "#pragma npu schedule(net, v)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
               "#pragma npu buffer_split(T, 1, 4, 0)\n#pragma npu use(s1, k1_pad)\n#pragma npu use(s2, k2_pad1)\n",
          "k.c:32:21: error: use: the layouts do not match: k2_pad1 takes X in X[i0][i1] -> X[i0][i1 / 4][i1 % 4] of "
          "[6][2][4], padding 1, but v passes T to call s2 (line 24) in T[i0][i1] -> T[i0][i1 / 4][i1 % 4] of "
          "[6][2][4], padding 0 (T is written by call s1, line 23, which runs variant k1_pad): their padding holds 1 "
          "(X) and 0 (T); a call passes its arrays as they are: give both the same layout");
  /* -0.0 is not 0: a float sum over the padding could keep -0.0's sign */
  refused(pair, "#pragma npu schedule(k2, k2_nz)\n#pragma npu buffer_split(X, 1, 4, -0.0f)\n"
               "#pragma npu schedule(net, v)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
               "#pragma npu buffer_split(T, 1, 4, 0)\n#pragma npu use(s1, k1_pad)\n#pragma npu use(s2, k2_nz)\n",
          "k.c:32:21: error: use: the layouts do not match: k2_nz takes X in X[i0][i1] -> X[i0][i1 / 4][i1 % 4] of "
          "[6][2][4], padding -0.0f, but v passes T to call s2 (line 24) in T[i0][i1] -> T[i0][i1 / 4][i1 % 4] of "
          "[6][2][4], padding 0 (T is written by call s1, line 23, which runs variant k1_pad): their padding holds "
          "-0.0f (X) and 0 (T); a call passes its arrays as they are: give both the same layout");
}

/* Found by review: set_scope between the layout steps and use() plans the
 * calls again while both A and T are in layouts the function (k1 as
 * written) does not take; rewriting A's accesses met T's, still logical,
 * and read past their indices (a crash). */
Test(program_layouts, set_scope_before_use_with_two_arrays_in_layouts) {
  NpgSession *s = open_ok(pair, "#pragma npu schedule(net, v)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
                                "#pragma npu buffer_split(T, 1, 4, 0)\n#pragma npu set_scope(T, dm)\n"
                                "#pragma npu use(s1, k1_pad)\n#pragma npu use(s2, k2_pad)\n"
                                "#pragma npu schedule(net, w)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
                                "#pragma npu buffer_split(T, 1, 4, 0)\n#pragma npu set_scope(T, dm)\n"
                                "#pragma npu inline(s1)\n#pragma npu inline(s2)\n");
  checked(s, "v");
  checked(s, "w");
  npg_close(s);
}

/* A second use() of a call that assumes two arrays' padding finds both
 * fills before it (each among the other's) and adds none, and the fill's
 * comment names the variant the call runs now. */
Test(program_layouts, use_again_keeps_one_fill_per_array_and_names_the_new_variant) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", pair,
           "void k3(const float X[N][N], const float W[N][N], float Z[N]) {\n"
           "  for (int i = 0; i < N; i++) {\n"
           "    s: Z[i] = 0.0f;\n"
           "    for (int j = 0; j < N; j++)\n"
           "      acc: Z[i] += X[i][j] * W[i][j];\n"
           "  }\n"
           "}\n"
           "#pragma npu schedule(k3, k3_pad)\n#pragma npu buffer_split(X, 1, 4, 0)\n"
           "#pragma npu buffer_split(W, 1, 4, 0)\n#pragma npu split(j, 4, jo, ji)\n"
           "#pragma npu schedule(k3, k3_pad2)\n#pragma npu buffer_split(X, 1, 4, 0)\n"
           "#pragma npu buffer_split(W, 1, 4, 0)\n#pragma npu split(j, 4, jo, ji)\n"
           "void two(const float A[N][N], const float C[N][N], float B[N]) {\n"
           "  float T[N][N];\n  float U[N][N];\n"
           "  t1: k1(A, T);\n  t2: k1(C, U);\n  t3: k3(T, U, B);\n}\n");
  NpgSession *s = open_ok(src, "#pragma npu schedule(two, v)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
                               "#pragma npu buffer_split(C, 1, 4, 0)\n#pragma npu buffer_split(T, 1, 4, 0)\n"
                               "#pragma npu buffer_split(U, 1, 4, 0)\n#pragma npu use(t1, k1_pad)\n"
                               "#pragma npu use(t2, k1_pad)\n#pragma npu use(t3, k3_pad)\n"
                               "#pragma npu use(t3, k3_pad2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  const char *t = "/* @padding = T's padding set to 0: t3 (k3_pad2) assumes it */";
  const char *u = "/* @padding = U's padding set to 0: t3 (k3_pad2) assumes it */";
  has(c, t);
  has(c, u);
  cr_assert_null(strstr(strstr(c, t) + strlen(t), "@padding = T's"), "one fill of T:\n%s", c);
  cr_assert_null(strstr(strstr(c, u) + strlen(u), "@padding = U's"), "one fill of U:\n%s", c);
  lacks(c, "(k3_pad) assumes");
  npg_close(s);
}

Test(program_layouts, a_variant_that_assumes_its_inputs_padding_says_so) {
  NpgSession *s = open_ok(pair, "");
  int v = npg_variant_index(s, "k2_pad");
  const char *h = npg_emit_header(s, v);
  has(h, " * k2_pad assumes X's padding holds 0: pack it with k2_pad_pack_X, or fill it\n */\n");
  has(h, "/* assumes X's padding holds 0: pack it with k2_pad_pack_X, or fill it */\n"
         "void k2_pad(const float X[6][2][4], float Z[K2_PAD_N]);\n");
  has(npg_emit_source(s, v), " * k2_pad assumes X's padding holds 0: pack it with k2_pad_pack_X, or fill it\n */\n");
  /* an output's padding is not assumed: k1_pad assumes A's, not Y's */
  h = npg_emit_header(s, npg_variant_index(s, "k1_pad"));
  has(h, "assumes A's padding");
  lacks(h, "assumes Y's padding");
  npg_close(s);
}

/* A layout step after use() grows T's padding (rows 6 and 7); the use()
 * of variants over the new layout makes the fill anew over all of it (it
 * kept the fill of the old padding, rows 0..5 alone). */
Test(program_layouts, a_fill_follows_padding_grown_after_it_was_made) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", pair,
           "#pragma npu schedule(k1, k1_pad2)\n#pragma npu buffer_split(Y, 1, 4, 0)\n"
           "#pragma npu buffer_pad(Y, (8, 2, 4), 0)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
           "#pragma npu split(j, 4, jo, ji)\n"
           "#pragma npu schedule(k2, k2_pad2)\n#pragma npu buffer_split(X, 1, 4, 0)\n"
           "#pragma npu buffer_pad(X, (8, 2, 4), 0)\n#pragma npu split(j, 4, jo, ji)\n");
  NpgSession *s = open_ok(src, "#pragma npu schedule(net, v)\n#pragma npu buffer_split(A, 1, 4, 0)\n"
                               "#pragma npu buffer_split(T, 1, 4, 0)\n#pragma npu use(s1, k1_pad)\n"
                               "#pragma npu use(s2, k2_pad)\n#pragma npu buffer_pad(T, (8, 2, 4), 0)\n"
                               "#pragma npu use(s1, k1_pad2)\n#pragma npu use(s2, k2_pad2)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "/* @padding = T's padding set to 0: s2 (k2_pad2) assumes it */");
  has(c, "for (int T_pad0 = 0; T_pad0 < 8; T_pad0++) {");
  lacks(c, "T_pad0 < 6");
  cr_assert_null(strstr(strstr(c, "@padding = T's") + 1, "@padding = T's"), "one fill:\n%s", c);
  npg_close(s);
}
