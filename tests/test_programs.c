/* Programs of kernels (docs/programs.md): a kernel calls kernels defined
 * before it; the program as written is the reference; use(call, variant)
 * picks what a call runs, inline(call) opens it to the other steps, and a
 * step that would change what a marked call runs is refused. Every
 * accepted program variant is JIT-run against the program as written. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* scale, relu and a program calling them (lines 1-24). */
static const char *net =
    "#include <stdint.h>\n"
    "#define N 8\n"
    "void scale(const int32_t X[N][N], int32_t Y[N][N], int k) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      mul: Y[i][j] = X[i][j] * k;\n"
    "}\n"
    "#pragma npu schedule(scale, scale_t)\n"
    "#pragma npu split(i, 4, io, ii)\n"
    "#pragma npu reorder(io, j, ii)\n"
    "#pragma npu schedule(scale, scale_p)\n"
    "#pragma npu parallel(i)\n"
    "void relu(const int32_t X[N][N], int32_t Y[N][N]) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      Y[i][j] = X[i][j] > 0 ? X[i][j] : 0;\n"
    "}\n"
    "void net(const int32_t A[N][N], int32_t B[N][N], int k) {\n"
    "  int32_t T[N][N];\n"
    "  int32_t U[N][N];\n"
    "  s1: scale(A, T, k + 1);\n"
    "  s2: scale(T, U, k);\n"
    "  relu(U, B);\n"
    "}\n";

static int count(const char *text, const char *part) {
  int n = 0;
  for (const char *p = strstr(text, part); p; p = strstr(p + 1, part)) n++;
  return n;
}

Test(programs, a_call_runs_as_a_call_of_the_kernel_as_written_and_checks) {
  NpgSession *s = open_ok(net, "");
  const char *c = npg_emit_source(s, checked(s, "net"));
  has(c, "static void scale(const int32_t X[N][N], int32_t Y[N][N], int k) {");
  has(c, "static void relu(");
  has(c, "  scale(A, T, k + 1); /* s1, line 21 */\n");
  has(c, "  scale((const int32_t (*)[8])T, U, k); /* s2, line 22 */\n");
  has(c, "  relu((const int32_t (*)[8])U, B); /* relu, line 23 */\n");
  cr_assert_eq(count(c, "static void scale("), 1, "one function per callee:\n%s", c);
  lacks(npg_emit_header(s, npg_variant_index(s, "net")), "scale");
  npg_close(s);
}

Test(programs, two_calls_of_one_callee_use_different_variants) {
  NpgSession *s = open_ok(net, "#pragma npu schedule(net, net_fast)\n#pragma npu use(s1, scale_t)\n"
                               "#pragma npu use(s2, scale_p)\n");
  const char *c = npg_emit_source(s, checked(s, "net_fast"));
  has(c, "static void scale_t(");
  has(c, "static void scale_p(");
  lacks(c, "static void scale(");
  has(c, "  scale_t(A, T, k + 1); /* s1, line 21 */\n");
  has(c, "  scale_p((const int32_t (*)[8])T, U, k); /* s2, line 22 */\n");
  has(c, " *   split(i, 4, io, ii)\n");
  npg_close(s);
}

Test(programs, two_callers_of_one_callee_use_different_variants) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", net,
           "void twice(const int32_t A[N][N], int32_t B[N][N]) {\n"
           "  scale(A, B, 2);\n"
           "}\n");
  NpgSession *s = open_ok(src, "#pragma npu schedule(net, net_t)\n#pragma npu use(s1, scale_t)\n"
                               "#pragma npu use(s2, scale_t)\n"
                               "#pragma npu schedule(twice, twice_p)\n#pragma npu use(scale, scale_p)\n");
  has(npg_emit_source(s, checked(s, "net_t")), "scale_t((const int32_t (*)[8])T, U, k);");
  const char *c = npg_emit_source(s, checked(s, "twice_p"));
  has(c, "  scale_p(A, B, 2); /* scale, line 26 */\n");
  lacks(c, "scale_t");
  npg_close(s);
}

Test(programs, a_callee_called_twice_without_labels_gets_numbered_call_names) {
  NpgSession *s = open_ok("void f(float X[4]) {\n  for (int i = 0; i < 4; i++) X[i] = X[i] * 2;\n}\n"
                          "void g(float X[4], float Y[4]) {\n  f(X);\n  f(Y);\n}\n",
                          "#pragma npu schedule(g, g2)\n#pragma npu inline(f_2)\n");
  const char *c = npg_emit_source(s, checked(s, "g2"));
  has(c, "  f(X); /* f_1, line 5 */\n");
  has(c, "Y[i] = Y[i] * 2;");
  npg_close(s);
}

Test(programs, recursion_is_refused_naming_the_cycle) {
  refused("void a(float X[4]) {\n  for (int i = 0; i < 4; i++) X[i] = X[i] + 1;\n  a(X);\n}\n", "",
          "k.c:3:3: error: recursive call: a -> a; a kernel may not call itself, directly or through other kernels");
  refused("void a(float X[4]) {\n  b(X);\n}\nvoid b(float X[4]) {\n  c(X);\n}\nvoid c(float X[4]) {\n  a(X);\n}\n", "",
          "k.c:2:3: error: recursive call: a -> b -> c -> a; a kernel may not call itself, directly or through other "
          "kernels");
  refused("void a(float X[4]) {\n  b(X);\n}\nvoid b(float X[4]) {\n  X[0] = 1;\n}\n", "",
          "k.c:2:3: error: kernel 'b' is defined after 'a' (line 4); define a kernel before the kernels that call it");
}

static const char *copy =
    "void f(const float X[4][4], float Y[4][4]) {\n"
    "  for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) Y[i][j] = X[i][j];\n"
    "}\n";

static void refused_call(const char *caller, const char *want) {
  char src[2048];
  snprintf(src, sizeof src, "%s%s", copy, caller);
  refused(src, "", want);
}

Test(programs, an_argument_that_does_not_match_its_parameter_is_refused_naming_both) {
  refused_call("void g(const float A[4][8], float B[4][4]) {\n  f(A, B);\n}\n",
               "k.c:5:5: error: argument 1 of 'f': array 'A' is const float [4][8], but parameter 'X' of 'f' (line 1) "
               "is const float [4][4]");
  refused_call("#include <stdint.h>\nvoid g(const int32_t A[4][4], float B[4][4]) {\n  f(A, B);\n}\n",
               "k.c:6:5: error: argument 1 of 'f': array 'A' is const int32_t [4][4], but parameter 'X' of 'f' (line "
               "1) is const float [4][4]");
  refused_call("void g(const float A[4][4], float B[4][4]) {\n  f(B, A);\n}\n",
               "k.c:5:8: error: argument 2 of 'f': array 'A' is const, but parameter 'Y' of 'f' (line 1) is not: 'f' "
               "may write it");
  refused_call("void g(const float A[4][4], float B[4][4]) {\n  f(A, B, 1);\n}\n",
               "k.c:5:4: error: 'f' (line 1) takes 2 arguments, got 3");
  refused_call("void g(float A[4][4], float B[4][4]) {\n  f(A, A);\n}\n",
               "k.c:5:4: error: array 'A' is passed to 'f' as both 'X' and 'Y', and 'f' may write one of them; pass "
               "distinct arrays (the callee's variants assume its arrays do not overlap)");
  refused_call("void g(float A[4][4], float B[4][4]) {\n  f(A + 1, B);\n}\n",
               "k.c:5:5: error: argument 1 of 'f' must be a whole array for parameter 'X' (const float [4][4]), not "
               "'A + 1'");
  refused("void f(float X[2], int n) {\n  X[0] = n;\n}\nvoid g(float X[2]) {\n  f(X, X);\n}\n", "",
          "k.c:5:8: error: argument 2 of 'f' must be a scalar for parameter 'n' (int), not the array 'X'");
  refused_call("void g(const float A[4][4], float B[4][4]) {\n  float f[4][4];\n  f(A, f);\n  B[0][0] = f[0][0];\n}\n",
               "k.c:6:3: error: 'f' names an array of 'g' here (line 5), which hides the kernel 'f'; rename one of them");
  refused_call("void g(float A[4][4], float B[4][4]) {\n  float x = 0;\n  x = f(A, B);\n}\n",
               "k.c:6:7: error: 'f' is a kernel: it returns nothing; call it as a statement, 'f(...);'");
}

/* A scalar argument is bound to a local of its own, as C passes it by
 * value: the callee's parameter k is never the caller's k. */
Test(programs, a_scalar_argument_is_passed_by_value) {
  NpgSession *s = open_ok(net, "");
  const char *ir = npg_dump_ir(s, npg_variant_index(s, "net"));
  has(ir, "s1_k: local scale_k: int = k + 1");
  has(ir, "s1_mul: T[i][j] = A[i][j] * scale_k");
  npg_close(s);
}

Test(programs, a_step_on_a_loop_inside_a_marked_call_is_refused) {
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu split(s1_i, 4, a, b)\n",
          "k.c:26:19: error: split: loop s1_i is inside call s1 (line 21), which is emitted as a call of scale: a step "
          "may not change what a call runs; inline(s1) first");
}

Test(programs, a_step_that_changes_what_a_marked_call_runs_is_refused) {
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu transform_layout(T, (i, j), (j, i))\n",
          "k.c:26:41: error: transform_layout: call s1 (line 21) runs scale (the kernel as written), which takes Y in "
          "the logical layout, but v now gives it T in T[i][j] -> T[j][i] of [8][8]; a call passes its arrays as they "
          "are: use(s1, VARIANT) after this step, with a variant of scale that takes Y in this layout, or inline(s1)");
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu cache_read(A, dm, root, A_dm)\n",
          "k.c:26:13: error: cache_read: this step changes what call s1 (line 21) runs, which is emitted as a call of "
          "scale: the emitted C would not run the scheduled IR; inline(s1) first");
}

Test(programs, use_refuses_another_kernels_variant_and_unknown_names) {
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu use(s1, relu)\n",
          "k.c:26:21: error: use: variant relu schedules kernel relu, but call s1 calls scale (variants of scale: "
          "scale, scale_t, scale_p)");
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu use(s1, scale_x)\n",
          "k.c:26:21: error: use: no variant named 'scale_x' (variants of scale: scale, scale_t, scale_p); did you "
          "mean 'scale_t'?");
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu use(s3, scale_t)\n",
          "k.c:26:17: error: use: no call named 's3' in v (calls: s1, s2, relu); a call is named by its label, or by "
          "the kernel it calls when that kernel is called once; did you mean 's1'?");
  refused(net, "#pragma npu schedule(net, v)\n#pragma npu use(s1, later)\n#pragma npu schedule(scale, later)\n"
               "#pragma npu split(j, 4, jo, ji)\n",
          "k.c:26:21: error: use: variant later of scale (line 27) is not built: its schedule must come before this "
          "one, and apply without errors");
  refused(net, "#pragma npu schedule(scale, scale_l)\n#pragma npu transform_layout(Y, (i, j), (j, i))\n"
               "#pragma npu schedule(net, v)\n#pragma npu use(s1, scale_l)\n",
          "k.c:28:21: error: use: scale_l takes Y in Y[i][j] -> Y[j][i] of [8][8], but v passes T to call s1 (line 21) "
          "in the logical layout at this step; a call passes its arrays as they are: give T that layout first "
          "(scale_l's layout steps: transform_layout(Y, (i, j), (j, i))), then use(s1, scale_l)");
}

/* After inline, the callee's loops are the caller's, named after the
 * call: merge fuses relu into the second scale across the former
 * boundary, and the other call stays a call of the variant picked. */
Test(programs, inline_then_merge_across_the_former_boundary_checks) {
  NpgSession *s = open_ok(net, "#pragma npu schedule(net, fused)\n#pragma npu use(s1, scale_t)\n"
                               "#pragma npu inline(s2)\n#pragma npu inline(relu)\n"
                               "#pragma npu merge(s2_i, relu_i)\n#pragma npu merge(s2_j, relu_j)\n");
  const char *c = npg_emit_source(s, checked(s, "fused"));
  has(c, "  scale_t(A, T, k + 1); /* s1, line 21 */\n");
  has(c, "  int s2_k = k;\n");
  has(c, "      U[i][j] = T[i][j] * s2_k; /* s2_mul */\n      B[i][j] = U[i][j] > 0 ? U[i][j] : 0;\n");
  lacks(c, "relu(");
  cr_assert_eq(count(c, "for (int i ="), 1, "one fused nest:\n%s", c);
  npg_close(s);
}

Test(programs, inline_names_a_call_inside_the_inlined_one) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", net,
           "void top(const int32_t A[N][N], int32_t B[N][N]) {\n"
           "  inner: net(A, B, 3);\n"
           "}\n");
  refused(src, "#pragma npu schedule(top, v)\n#pragma npu use(inner_s1, scale_t)\n",
          "k.c:29:17: error: use: call inner_s1 is inside call inner (line 26), which is emitted as a call of net; "
          "inline(inner) first");
  NpgSession *s = open_ok(src, "#pragma npu schedule(top, v)\n#pragma npu inline(inner)\n"
                               "#pragma npu use(inner_s1, scale_t)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  scale_t(A, T, inner_k + 1); /* inner_s1, line 21 */\n");
  npg_close(s);
}

/* The callee's variant runs on the NPU: its function's DMAs reach the
 * program's local array, which the check declares to the simulator. */
Test(programs, a_call_uses_an_npu_variant_of_its_callee) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = 0; j < 64; j++) {\n"
                          "      init: C[i][j] = 0;\n"
                          "      for (int k = 0; k < 64; k++)\n"
                          "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
                          "    }\n"
                          "}\n"
                          "#pragma npu schedule(mm, mm_nu)\n"
                          "#pragma npu cache_read(A, nu_ib, root, A_ib)\n"
                          "#pragma npu cache_read(B, nu_wb, root, B_wb)\n"
                          "#pragma npu cache_write(C, nu_ob, root, C_ob)\n"
                          "#pragma npu tensorize(i, npu_nu_matmul_i8)\n"
                          "void layer(const int8_t A[64][64], const int8_t W[64][64], int32_t Y[64][64]) {\n"
                          "  int32_t acc[64][64];\n"
                          "  mm(A, W, acc);\n"
                          "  for (int i = 0; i < 64; i++)\n"
                          "    for (int j = 0; j < 64; j++)\n"
                          "      Y[i][j] = acc[i][j] > 0 ? acc[i][j] : 0;\n"
                          "}\n",
                          "#pragma npu schedule(layer, layer_nu)\n#pragma npu use(mm, mm_nu)\n");
  int i = checked(s, "layer_nu");
  NpgCheckResult r;
  cr_assert(npg_check(s, i, 1, &r));
  cr_assert_gt(r.sim_cycles, 0, "the NU ran: %s", r.summary);
  has(npg_emit_source(s, i), "  mm_nu(A, W, acc); /* mm, line 17 */\n");
  npg_close(s);
}

/* The C API's steps reach the same primitives: `inline` too, though C
 * parses it as a keyword. */
Test(programs, the_c_api_uses_and_inlines_calls) {
  NpgSession *s = open_ok(net, "");
  NpgSched *h = npg_sched_begin(s, "net", "api");
  cr_assert(npg_sched_step(h, "use(s1, scale_p)"), "%s", npg_errors(s));
  cr_assert(npg_sched_step(h, "inline(relu)"), "%s", npg_errors(s));
  cr_assert_geq(npg_sched_end(h), 0, "%s", npg_errors(s));
  const char *c = npg_emit_source(s, checked(s, "api"));
  has(c, "  scale_p(A, T, k + 1); /* s1, line 21 */\n");
  has(c, "B[i][j] = U[i][j] > 0 ? U[i][j] : 0;");
  npg_close(s);
}

/* A called function places its on-chip buffers from each scope's start:
 * the caller's buffer live around the call in that scope would be
 * overwritten (the check saw C wrong before this was refused). */
static const char *live =
    "void cp(const float X[16], float Y[16]) {\n"
    "  for (int i = 0; i < 16; i++) Y[i] = X[i] * 2.0f;\n"
    "}\n"
    "#pragma npu schedule(cp, cp_dm)\n"
    "#pragma npu cache_read(X, dm, root, X_dm)\n"
    "void prog(const float A[16], const float B[16], float C[16], float D[16]) {\n"
    "  float T[16];\n"
    "  p: cp(A, T);\n"
    "  q: cp(B, D);\n"
    "  r: cp(T, C);\n"
    "}\n"
    "#pragma npu schedule(prog, v)\n"
    "#pragma npu inline(p)\n"
    "#pragma npu inline(r)\n";

Test(programs, a_call_whose_function_uses_a_scope_live_around_it_is_refused) {
  refused(live, "#pragma npu set_scope(T, dm)\n#pragma npu use(q, cp_dm)\n",
          "k.c:16:13: error: use: call q (line 9) runs cp_dm, whose X_dm is in dm, while T (dm, line 7) is live around "
          "the call: the called function places its on-chip buffers on its own; inline(q) to place them together, "
          "or set_scope the arrays the call takes on chip first, which places its function with the caller's buffers");
  NpgSession *s = open_ok(live, "#pragma npu use(q, cp_dm)\n#pragma npu set_scope(T, vu_vm)\n");
  has(npg_emit_source(s, checked(s, "v")), "  cp_dm(B, D); /* q, line 9 */\n");
  npg_close(s);
}

/* Found by review. A call inside a used variant kept the fingerprint it
 * was given over the variant's own arrays, so inline of the outer call
 * was refused as "changing" the inner one. */
Test(programs, use_then_inline_of_a_callee_that_calls) {
  NpgSession *s = open_ok("void leaf(const float X[16], float Y[16]) {\n"
                          "  for (int i = 0; i < 16; i++) Y[i] = X[i] * 2.0f;\n}\n"
                          "void mid(const float P[16], float Q[16], float R[16]) {\n"
                          "  for (int j = 0; j < 16; j++) Q[j] = P[j] + 1.0f;\n  l: leaf(Q, R);\n}\n"
                          "#pragma npu schedule(mid, mid_v)\n#pragma npu split(j, 4, jo, ji)\n"
                          "void top(const float A[16], float B[16], float C[16]) {\n  m: mid(A, B, C);\n}\n",
                          "#pragma npu schedule(top, v)\n#pragma npu use(m, mid_v)\n#pragma npu inline(m)\n");
  checked(s, "v");
  npg_close(s);
}

/* A later step may not take the name of a function a marked call runs:
 * the emitted C called a local array (it did not compile). */
Test(programs, a_later_name_may_not_hide_a_called_function) {
  refused("void cp(const float X[16], float Y[16]) {\n  for (int i = 0; i < 16; i++) Y[i] = X[i] * 2.0f;\n}\n"
          "#pragma npu schedule(cp, cp_s)\n#pragma npu split(i, 4, io, ii)\n"
          "void prog(const float A[16], const float B[16], float C[16], float D[16]) {\n"
          "  for (int j = 0; j < 16; j++) C[j] = A[j] + 1.0f;\n  q: cp(B, D);\n}\n",
          "#pragma npu schedule(prog, v)\n#pragma npu use(q, cp_s)\n#pragma npu cache_read(A, dm, root, cp_s)\n",
          "k.c:12:37: error: cache_read: the name 'cp_s' is already used in v; new loops and buffers need fresh names");
}

/* A marked call is emitted as a call: the names inside the callee are
 * its own function's, so a callee local named like a caller array does
 * not block use() (it was refused as "would capture a name"). */
Test(programs, use_of_a_callee_whose_local_is_named_like_a_caller_array) {
  NpgSession *s = open_ok("void cp(const float X[16], float Y[16]) {\n  float T[16];\n"
                          "  for (int i = 0; i < 16; i++) T[i] = X[i] * 2.0f;\n"
                          "  for (int i = 0; i < 16; i++) Y[i] = T[i] + 1.0f;\n}\n"
                          "#pragma npu schedule(cp, cp_s)\n#pragma npu split(i_1, 4, io, ii)\n"
                          "void prog(const float T[16], float C[16]) {\n  p: cp(T, C);\n}\n",
                          "#pragma npu schedule(prog, v)\n#pragma npu use(p, cp_s)\n");
  checked(s, "v");
  npg_close(s);
}

/* A local array declared in a loop and passed to a call whose variant
 * copies it by DMA: the check declares it to the simulator where it is
 * declared, at any depth (before, only at the top level, and the check
 * failed a correct variant: "outside every declared DDR array"). */
Test(programs, a_local_array_in_a_loop_passed_to_an_npu_callee) {
  NpgSession *s = open_ok("void cp(const float X[16], float Y[16]) {\n"
                          "  for (int i = 0; i < 16; i++) Y[i] = X[i] * 2.0f;\n}\n"
                          "#pragma npu schedule(cp, cp_dm)\n#pragma npu cache_read(X, dm, root, X_dm)\n"
                          "void prog(const float A[4][16], float C[4][16]) {\n  for (int r = 0; r < 4; r++) {\n"
                          "    float T[16];\n    float U[16];\n    for (int i = 0; i < 16; i++) T[i] = A[r][i];\n"
                          "    p: cp(T, U);\n    for (int i = 0; i < 16; i++) C[r][i] = U[i];\n  }\n}\n",
                          "#pragma npu schedule(prog, v)\n#pragma npu use(p, cp_dm)\n");
  checked(s, "v");
  npg_close(s);
}

/* ---- scopes across calls: a caller's on-chip intermediate passed to a
 * callee variant that stages the parameter (docs/programs.md) ---- */

/* scale, with variants that stage X in vu_vm and Y in nu_ob or vu_vm,
 * and a program passing T from one call to the next (lines 1-20). */
static const char *staged =
    "#include <stdint.h>\n"
    "#define N 16\n"
    "void scale(const int32_t X[N][N], int32_t Y[N][N], int k) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    for (int j = 0; j < N; j++)\n"
    "      mul: Y[i][j] = X[i][j] * k;\n"
    "}\n"
    "#pragma npu schedule(scale, scale_vm)\n"
    "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
    "#pragma npu schedule(scale, scale_ob)\n"
    "#pragma npu cache_write(Y, nu_ob, root, Y_ob)\n"
    "#pragma npu schedule(scale, scale_y)\n"
    "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
    "void net(const int32_t A[N][N], int32_t B[N][N], int k) {\n"
    "  int32_t T[N][N];\n"
    "  s1: scale(A, T, k + 1);\n"
    "  s2: scale(T, B, k);\n"
    "}\n";

/* The text of function `fn` in emitted C c (up to the next blank line). */
static char *function_text(const char *c, const char *fn) {
  char head[128];
  snprintf(head, sizeof head, "static void %s(", fn);
  const char *at = strstr(c, head);
  cr_assert(at, "no function %s in:\n%s", fn, c);
  const char *end = strstr(at, "\n}\n");
  cr_assert(end);
  return strndup(at, (size_t)(end - at) + 3);
}

Test(programs, where_scopes_agree_the_callee_works_on_the_callers_buffer_without_a_copy) {
  NpgSession *s = open_ok(staged, "#pragma npu schedule(net, v)\n#pragma npu set_scope(T, vu_vm)\n"
                                  "#pragma npu use(s2, scale_vm)\n");
  int i = checked(s, "v");
  const char *c = npg_emit_source(s, i);
  has(c, "  int32_t (*T)[16] = (int32_t (*)[16])(void *)((char *)npu_scope_base(NPU_VU_VM, 0)); /* vu_vm");
  has(c, "  scale_vm_s2((const int32_t (*)[16])T, B, k); /* s2, line 17 */\n");
  has(c, " *   X is the caller's T, in vu_vm, where scale_vm stages it (X_vm): no copy\n");
  char *f = function_text(c, "scale_vm_s2");
  lacks(f, "npu_dma");
  lacks(f, "X_vm");
  has(f, "      Y[i][j] = X[i][j] * k; /* mul */\n");
  free(f);
  NpgCheckResult r;
  cr_assert(npg_check(s, i, 1, &r) && r.exact, "%s", r.message);
  cr_assert_eq(r.dma_bytes, 0, "no copy of T: %s", r.summary);
  npg_close(s);
}

Test(programs, where_scopes_clash_the_copy_is_made_on_chip_and_said) {
  NpgSession *s = open_ok(staged, "#pragma npu schedule(net, v)\n#pragma npu use(s1, scale_ob)\n"
                                  "#pragma npu use(s2, scale_vm)\n#pragma npu set_scope(T, nu_ob)\n");
  int i = checked(s, "v");
  const char *c = npg_emit_source(s, i);
  has(c, " *   Y is the caller's T, in nu_ob, where scale_ob stages it (Y_ob): no copy\n");
  has(c, " *   X is the caller's T, in nu_ob; scale_vm stages it in vu_vm (X_vm): the scopes clash, so it is copied on "
         "chip, nu_ob -> vu_vm, no DDR round trip\n");
  char *f = function_text(c, "scale_vm_s2");
  has(f, "npu_dma_wait(npu_dma_1d(0, &X_vm[0][0], &X[0][0], 1024));");
  free(f);
  f = function_text(c, "scale_ob_s1");
  lacks(f, "npu_dma");
  free(f);
  NpgCheckResult r;
  cr_assert(npg_check(s, i, 1, &r) && r.exact, "%s", r.message);
  cr_assert_eq(r.dma_bytes, 1024, "one on-chip copy of T, no DDR round trip: %s", r.summary);
  npg_close(s);
}

/* The callee's own buffer in the caller's scope is placed clear of the
 * caller's array, not at the scope's start as its variant alone places it. */
Test(programs, a_callee_placed_with_its_caller_keeps_clear_of_the_callers_buffer) {
  NpgSession *s = open_ok(staged, "#pragma npu schedule(net, v)\n#pragma npu set_scope(T, vu_vm)\n"
                                  "#pragma npu use(s2, scale_y)\n");
  char *f = function_text(npg_emit_source(s, checked(s, "v")), "scale_y_s2");
  has(f, "npu_scope_base(NPU_VU_VM, 0) + 1024); /* vu_vm, bytes [1024, 2048): 1024 bytes */");
  free(f);
  has(npg_emit_source(s, npg_variant_index(s, "scale_y")), "npu_scope_base(NPU_VU_VM, 0));");
  npg_close(s);
}

/* An int8 matmul on the NU writing its accumulators into nu_ob, and a
 * ReLU staging its input and output in vu_vm (lines 1-23). */
static const char *nu_vm =
    "#include <stdint.h>\n"
    "void mm(const int8_t A[64][64], const int8_t B[64][64], int32_t C[64][64]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++) {\n"
    "      init: C[i][j] = 0;\n"
    "      for (int k = 0; k < 64; k++)\n"
    "        update: C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];\n"
    "    }\n"
    "}\n"
    "#pragma npu schedule(mm, mm_nu)\n"
    "#pragma npu cache_read(A, nu_ib, root, A_ib)\n"
    "#pragma npu cache_read(B, nu_wb, root, B_wb)\n"
    "#pragma npu cache_write(C, nu_ob, root, C_ob)\n"
    "#pragma npu tensorize(i, npu_nu_matmul_i8)\n"
    "void relu(const int32_t X[64][64], int32_t Y[64][64]) {\n"
    "  for (int i = 0; i < 64; i++)\n"
    "    for (int j = 0; j < 64; j++)\n"
    "      Y[i][j] = X[i][j] > 0 ? X[i][j] : 0;\n"
    "}\n"
    "#pragma npu schedule(relu, relu_vm)\n"
    "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
    "#pragma npu vectorize(j)\n"
    "void layer(const int8_t A[64][64], const int8_t W[64][64], int32_t Y[64][64]) {\n"
    "  int32_t acc[64][64];\n"
    "  mm(A, W, acc);\n"
    "  relu(acc, Y);\n"
    "}\n";

Test(programs, an_nu_callee_writes_the_intermediate_where_the_vu_callee_wants_it) {
  NpgSession *s = open_ok(nu_vm, "#pragma npu schedule(layer, ddr)\n#pragma npu use(mm, mm_nu)\n"
                                 "#pragma npu use(relu, relu_vm)\n"
                                 "#pragma npu schedule(layer, onchip)\n#pragma npu set_scope(acc, vu_vm)\n"
                                 "#pragma npu use(mm, mm_nu)\n#pragma npu use(relu, relu_vm)\n");
  NpgCheckResult ddr, onchip;
  cr_assert(npg_check(s, checked(s, "ddr"), 1, &ddr) && ddr.exact, "%s", ddr.message);
  int i = checked(s, "onchip");
  cr_assert(npg_check(s, i, 1, &onchip) && onchip.exact, "%s", onchip.message);
  const char *c = npg_emit_source(s, i);
  has(c, " *   C is the caller's acc, in vu_vm; mm_nu stages it in nu_ob (C_ob): the scopes clash, so it is copied on "
         "chip, nu_ob -> vu_vm, no DDR round trip\n");
  has(c, " *   X is the caller's acc, in vu_vm, where relu_vm stages it (X_vm): no copy\n");
  /* acc's 16384 bytes go out of nu_ob and come back into vu_vm through DDR in `ddr` */
  cr_assert_eq(ddr.dma_bytes - onchip.dma_bytes, 16384, "%s\n%s", ddr.summary, onchip.summary);
  npg_close(s);
}

/* 96 x 256 int32 is 96 KiB: T and the callee's Y_vm do not both fit in
 * the 128 KiB of vu_vm (lines 1-15). */
static const char *too_big =
    "#include <stdint.h>\n"
    "#define R 96\n"
    "#define C 256\n"
    "void cp(const int32_t X[R][C], int32_t Y[R][C]) {\n"
    "  for (int i = 0; i < R; i++)\n"
    "    for (int j = 0; j < C; j++)\n"
    "      Y[i][j] = X[i][j] + 1;\n"
    "}\n"
    "#pragma npu schedule(cp, cp_v)\n"
    "#pragma npu cache_read(X, nu_ob, root, X_ob)\n"
    "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
    "void net(const int32_t A[R][C], int32_t B[R][C]) {\n"
    "  int32_t T[R][C];\n"
    "  s1: cp(A, T);\n"
    "  s2: cp(T, B);\n"
    "}\n";

Test(programs, a_clash_that_cannot_be_planned_is_refused_naming_both_variants) {
  const char *why = "call s2 (line 15) cannot be planned: net_v passes it T (vu_vm) on chip, and cp_v's %s must be "
                    "placed beside net_v's buffers; the caller's array would need a DDR round trip, which npugen does "
                    "not add (give it another scope, or use another variant of cp): the on-chip buffers do not fit: "
                    "%s (98304 bytes) needs 196608 bytes of vu_vm, which holds 131072 on target 'default'; usage "
                    "(buffers live at once share no bytes):";
  char want[1024], tail[800];
  snprintf(tail, sizeof tail, why, "Y_vm", "Y_vm");
  snprintf(want, sizeof want, "k.c:19:13: error: use: %s", tail);
  refused(too_big, "#pragma npu schedule(net, net_v)\n#pragma npu set_scope(T, vu_vm)\n#pragma npu use(s2, cp_v)\n",
          want);
  snprintf(want, sizeof want, "k.c:19:13: error: set_scope: %s", tail);
  refused(too_big, "#pragma npu schedule(net, net_v)\n#pragma npu use(s2, cp_v)\n#pragma npu set_scope(T, vu_vm)\n",
          want);
  /* the usage table says where each buffer lives: the callee's in its call */
  const char *steps = "#pragma npu schedule(net, net_v)\n#pragma npu set_scope(T, vu_vm)\n#pragma npu use(s2, cp_v)\n";
  char src[4096];
  snprintf(src, sizeof src, "%s%s", too_big, steps);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "    T                     98304 bytes  live in the whole kernel, at offset 0\n");
  has(npg_errors(s), "    Y_vm                  98304 bytes  live in call s2 (line 15), does not fit");
  npg_close(s);
}

/* Found while building it: a call inside a callee that gets the caller's
 * on-chip array is planned for it too, not emitted as the shared
 * function (placed on its own, over the caller's array). */
Test(programs, a_call_inside_a_callee_is_planned_for_the_callers_onchip_array) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", staged,
           "void outer(const int32_t X[N][N], int32_t Y[N][N]) {\n"
           "  in: scale(X, Y, 3);\n"
           "}\n"
           "#pragma npu schedule(outer, outer_y)\n"
           "#pragma npu use(in, scale_y)\n"
           "void prog(const int32_t A[N][N], int32_t B[N][N]) {\n"
           "  int32_t T[N][N];\n"
           "  p: outer(A, T);\n"
           "  q: scale(T, B, 2);\n"
           "}\n");
  NpgSession *s = open_ok(src, "#pragma npu schedule(prog, v)\n#pragma npu use(p, outer_y)\n"
                               "#pragma npu set_scope(T, vu_vm)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  scale_y_p_in(X, Y, 3); /* p_in, line 20 */\n");
  has(c, " *   Y is the caller's T, in vu_vm, where scale_y stages it (Y_vm): no copy\n");
  lacks(c, "static void scale_y(");
  npg_close(s);
}

/* Copies of a call that passes an on-chip array run one function, so
 * they must be placed alike: here D_vm (2048 bytes, placed first) is live
 * around the second copy only, which would put its X_vm elsewhere. */
Test(programs, copies_of_a_call_placed_differently_are_refused) {
  refused("#include <stdint.h>\n"
          "#define N 16\n"
          "void scale(const int32_t X[N][N], int32_t Y[N][N], int k) {\n"
          "  for (int i = 0; i < N; i++)\n"
          "    for (int j = 0; j < N; j++)\n"
          "      Y[i][j] = X[i][j] * k;\n"
          "}\n"
          "#pragma npu schedule(scale, scale_vm)\n"
          "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
          "void rep(const int32_t A[N][N], int32_t D[4][512]) {\n"
          "  int32_t T[N][N];\n"
          "  for (int r = 0; r < 4; r++) {\n"
          "    s1: scale(A, T, r + 1);\n"
          "    for (int j = 0; j < 512; j++)\n"
          "      D[r][j] = T[r][j % N] + 1;\n"
          "  }\n"
          "}\n",
          "#pragma npu schedule(rep, v)\n#pragma npu use(s1, scale_vm)\n#pragma npu set_scope(T, vu_vm)\n"
          "#pragma npu loop_partition(r, 2)\n#pragma npu cache_write(D, vu_vm, r_1, D_vm)\n",
          "k.c:22:13: error: cache_write: copies of call s1 (line 13) run one function, scale_vm_s1, but their on-chip "
          "buffers are placed differently around them; inline(s1)");
}

/* set_scope after unroll plans every copy of the calls; the copies share
 * their function and its name. */
Test(programs, set_scope_after_unroll_plans_every_copy_of_the_call) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s", staged,
           "void rep(const int32_t A[N][N], int32_t B[N][N]) {\n"
           "  int32_t T[N][N];\n"
           "  for (int r = 0; r < 2; r++) {\n"
           "    p: scale(A, T, r + 1);\n"
           "    q: scale(T, B, r);\n"
           "  }\n"
           "}\n");
  NpgSession *s = open_ok(src, "#pragma npu schedule(rep, v)\n#pragma npu use(p, scale_y)\n"
                               "#pragma npu use(q, scale_vm)\n#pragma npu unroll(r)\n#pragma npu set_scope(T, vu_vm)\n");
  const char *c = npg_emit_source(s, checked(s, "v"));
  has(c, "  scale_y_p(A, T, 2); /* p, line 22 */\n");
  has(c, "  scale_vm_q((const int32_t (*)[16])T, B, 1); /* q, line 23 */\n");
  npg_close(s);
}

Test(programs, the_name_of_a_calls_own_function_may_not_be_taken) {
  refused(staged,
          "#pragma npu schedule(scale, scale_vm_s2)\n#pragma npu split(i, 4, io, ii)\n"
          "#pragma npu schedule(net, v)\n#pragma npu set_scope(T, vu_vm)\n#pragma npu use(s2, scale_vm)\n",
          "k.c:23:13: error: use: call s2 (line 17) passes an on-chip array, so it runs a function of its own, "
          "scale_vm_s2; that name is taken (a kernel, variant, parameter or local); rename it");
}

/* Two calls whose functions share a name must run the same function: net's
 * call a (T in nu_ob, staged) and mid_v's own call a (U in vu_vm, no copy)
 * were both scale_vm_a, and the program defined one of them, so the other
 * call ran a function planned for other arrays (the check failed on an
 * overlapping DMA). The plan is refused, naming both calls. */
Test(programs, two_calls_whose_functions_would_share_a_name_are_refused) {
  const char *src =
      "#define N 1024\n"
      "void scale(const float X[N], float Y[N]) {\n"
      "  for (int i = 0; i < N; i++)\n"
      "    mul: Y[i] = X[i] * 2.0f;\n"
      "}\n"
      "#pragma npu schedule(scale, scale_vm)\n"
      "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
      "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
      "#pragma npu vectorize(i)\n"
      "\n"
      "void mid(const float X[N], float Y[N]) {\n"
      "  float U[N];\n"
      "  a: scale(X, U);\n"
      "  b: scale(U, Y);\n"
      "}\n"
      "#pragma npu schedule(mid, mid_v)\n"
      "#pragma npu use(a, scale_vm)\n"
      "#pragma npu use(b, scale_vm)\n"
      "#pragma npu set_scope(U, vu_vm)\n"
      "\n"
      "void net(const float A[N], float B[N], float C[N]) {\n"
      "  float T[N];\n"
      "  a: scale(A, T);\n"
      "  m: mid(A, B);\n"
      "  for (int i = 0; i < N; i++) C[i] = T[i] + 1.0f;\n"
      "}\n"
      "#pragma npu schedule(net, net_x)\n"
      "#pragma npu use(a, scale_vm)\n"
      "#pragma npu use(m, mid_v)\n"
      "#pragma npu set_scope(T, nu_ob)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "error: set_scope: calls a (line 23) and a (line 13) would both run a function named scale_vm_a, "
                     "but not the same one (their arrays are placed differently); relabel one of them");
  npg_close(s);
}

/* An on-chip array passed in a loop bound to the VU cores: the call's
 * function would need each core's buffers, which it has no counter for
 * (its C did not compile). Refused, saying what to do. */
Test(programs, an_on_chip_call_in_a_bound_loop_is_refused) {
  const char *src =
      "#define N 256\n"
      "void scale(const float X[N], float Y[N]) {\n"
      "  for (int i = 0; i < N; i++)\n"
      "    mul: Y[i] = X[i] * 2.0f;\n"
      "}\n"
      "#pragma npu schedule(scale, scale_vm)\n"
      "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
      "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
      "#pragma npu vectorize(i)\n"
      "void net(const float A[N], float B[4][N]) {\n"
      "  for (int r = 0; r < 4; r++) {\n"
      "    float T[N];\n"
      "    float U[N];\n"
      "    for (int i = 0; i < N; i++) T[i] = A[i] + (float)r;\n"
      "    s1: scale(T, U);\n"
      "    for (int i = 0; i < N; i++) B[r][i] = U[i];\n"
      "  }\n"
      "}\n"
      "#pragma npu schedule(net, n_bind)\n"
      "#pragma npu use(s1, scale_vm)\n"
      "#pragma npu bind(r, vu)\n"
      "#pragma npu set_scope(T, vu_vm)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "error: set_scope: call s1 (line 15) passes an on-chip array inside loop r, which is bound to the "
                     "VU cores: a function of its own for each core's vector memory is not supported yet; keep the "
                     "array in DDR or inline(s1)");
  npg_close(s);
}

/* A clash inside a call placed with its caller names the call to inline:
 * the outermost (inline(m_c) of the call inside m is itself refused). */
Test(programs, a_clash_inside_a_call_suggests_inlining_the_outermost) {
  const char *src =
      "#define N 1024\n"
      "void scale(const float X[N], float Y[N]) {\n"
      "  for (int i = 0; i < N; i++)\n"
      "    mul: Y[i] = X[i] * 2.0f;\n"
      "}\n"
      "#pragma npu schedule(scale, scale_vm)\n"
      "#pragma npu cache_read(X, vu_vm, root, X_vm)\n"
      "#pragma npu cache_write(Y, vu_vm, root, Y_vm)\n"
      "#pragma npu vectorize(i)\n"
      "\n"
      "void mid(const float X[N], const float Z[N], float Y[N], float Y2[N]) {\n"
      "  a: scale(X, Y);\n"
      "  c: scale(Z, Y2);\n"
      "}\n"
      "#pragma npu schedule(mid, mid_v)\n"
      "#pragma npu use(a, scale_vm)\n"
      "#pragma npu use(c, scale_vm)\n"
      "\n"
      "void net(const float A[N], float B[N], float B2[N]) {\n"
      "  float T[N];\n"
      "  for (int i = 0; i < N; i++) T[i] = A[i] + 1.0f;\n"
      "  m: mid(T, A, B, B2);\n"
      "}\n"
      "#pragma npu schedule(net, n1)\n"
      "#pragma npu use(m, mid_v)\n"
      "#pragma npu set_scope(T, vu_vm)\n"
      "#pragma npu schedule(net, n2)\n"
      "#pragma npu set_scope(T, vu_vm)\n"
      "#pragma npu use(m, mid_v)\n";
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  has(npg_errors(s), "error: set_scope: call m_c (line 13) runs scale_vm, whose Y_vm is in vu_vm, while T (vu_vm, line "
                     "20) is live around the call: the called function places its on-chip buffers on its own; "
                     "inline(m) to place them together");
  npg_close(s);
}
