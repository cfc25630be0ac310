/* compute_inline and reverse_compute_inline: the IR and C they produce,
 * the differential check of each variant, and refusals with their exact
 * messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

static const char *chain =
    "#include <stdint.h>\n"
    "#define N 16\n"
    "void chain(const int32_t A[N], int32_t B[N]) {\n"
    "  int32_t T[N];\n"
    "  for (int i = 0; i < N; i++)\n"
    "    prod: T[i] = A[i] * 2;\n"
    "  for (int j = 0; j < N; j++)\n"
    "    cons: B[j] = T[j] + 1;\n"
    "}\n";

/* ---------------- compute_inline ---------------- */

Test(sched_inline, elementwise_chain) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(chain, v)\n#pragma npu compute_inline(prod)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int32_t[16] input, B: int32_t[16] output)\n"
                   "  for j in 0 .. < N step 1:  # line 7\n"
                   "    cons: B[j] = A[j] * 2 + 1  # line 8\n");
  has(npg_emit_source(s, v), "    B[j] = A[j] * 2 + 1; /* cons */\n");
  lacks(npg_emit_source(s, v), "T[");
  npg_close(s);
}

/* T is int8_t: the store truncated A[i] * 20, so the inlined value must too. */
Test(sched_inline, narrowing_store_becomes_an_explicit_cast) {
  const char *k = "#include <stdint.h>\n"
                  "#define N 64\n"
                  "void narrow(const int8_t A[N], int32_t B[N]) {\n"
                  "  int8_t T[N];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    prod: T[i] = A[i] * 20;\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    cons: B[i] = T[i] + 1;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(narrow, v)\n#pragma npu compute_inline(prod)\n"
                             "#pragma npu schedule(narrow, r)\n#pragma npu reverse_compute_inline(cons)\n");
  int v = checked(s, "v"), r = checked(s, "r");
  has(npg_emit_source(s, v), "    B[i] = (int8_t)(A[i] * 20) + 1; /* cons */\n");
  has(npg_emit_source(s, r), "    B[i] = (int8_t)(A[i] * 20) + 1; /* cons */\n");
  npg_close(s);
}

Test(sched_inline, local_scalar_temporaries) {
  const char *k = "#define N 16\n"
                  "void temps(const float x[N], float y[N], float z[N]) {\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    float t = x[i] * 3.0f;\n"
                  "    use: y[i] = t + t;\n"
                  "    float u;\n"
                  "    setu: u = x[i] - 1.0f;\n"
                  "    z[i] = u * u;\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(temps, v)\n#pragma npu compute_inline(s1)\n"
                             "#pragma npu compute_inline(setu)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(x: float[16] input, y: float[16] output, z: float[16] output)\n"
                   "  for i in 0 .. < N step 1:  # line 3\n"
                   "    use: y[i] = x[i] * 3.0f + x[i] * 3.0f  # line 5\n"
                   "    s2: z[i] = (x[i] - 1.0f) * (x[i] - 1.0f)  # line 8\n");
  npg_close(s);
}

Test(sched_inline, several_consumers_with_their_own_indices) {
  const char *k = "#define N 8\n"
                  "void many(const float A[N][N], float B[N][N], float C[N]) {\n"
                  "  float T[N][N];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < N; j++)\n"
                  "      prod: T[i][j] = A[j][i] * 0.5 + i;\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < N; j++)\n"
                  "      c1: B[i][j] = T[j][i] - T[i][j];\n"
                  "  for (int i = 1; i < N; i++)\n"
                  "    c2: C[i] = T[i - 1][N - 1] * 2.0f;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(many, v)\n#pragma npu compute_inline(prod)\n");
  int v = checked(s, "v");
  const char *ir = npg_dump_ir(s, v);
  /* the double value is stored as float: the conversion stays */
  has(ir, "c1: B[i][j] = (float)(A[i][j] * 0.5 + j) - (float)(A[j][i] * 0.5 + i)  # line 9\n");
  has(ir, "c2: C[i] = (float)(A[N - 1][i - 1] * 0.5 + (i - 1)) * 2.0f  # line 11\n");
  lacks(ir, "prod");
  lacks(ir, "local T");
  npg_close(s);
}

/* The read T[j][i] sits in the producer's own loops: i and j are swapped
 * at once, not one after the other. */
Test(sched_inline, transposed_read_inside_the_producer_loops) {
  const char *k = "#define N 8\n"
                  "void sym(const int A[N][N], int B[N][N]) {\n"
                  "  int T[N][N];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < N; j++) {\n"
                  "      p: T[i][j] = A[i][j] * 2 + i;\n"
                  "      if (j <= i) q: B[i][j] = T[j][i] - T[i][j];\n"
                  "    }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(sym, v)\n#pragma npu compute_inline(p)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "      if j <= i:\n        q: B[i][j] = A[j][i] * 2 + j - (A[i][j] * 2 + i)  # line 7\n");
  npg_close(s);
}

/* A local array declared in loop i: i is shared by producer and readers. */
Test(sched_inline, local_array_declared_in_a_loop) {
  const char *k = "#include <stdint.h>\n"
                  "#define N 8\n"
                  "void rows(const int8_t A[N][N], int8_t B[N][N]) {\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    int8_t R[N];\n"
                  "    for (int j = 0; j < N; j++)\n"
                  "      pr: R[j] = A[i][j] * 3 + 100;\n"
                  "    for (int j = 0; j < N; j++)\n"
                  "      cr: B[i][j] = R[j] + R[N - 1 - j];\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(rows, v)\n#pragma npu compute_inline(pr)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int8_t[8][8] input, B: int8_t[8][8] output)\n"
                   "  for i in 0 .. < N step 1:  # line 4\n"
                   "    for j_2 (counter j) in 0 .. < N step 1:  # line 8\n"
                   "      cr: B[i][j] = (int8_t)(A[i][j] * 3 + 100) + (int8_t)(A[i][N - 1 - j] * 3 + 100)  # line 9\n");
  npg_close(s);
}

/* The producer runs under an if; a reader is an if condition. The loop
 * left empty goes away. */
Test(sched_inline, guarded_producer_and_read_in_a_condition) {
  const char *k = "#define N 10\n"
                  "void absd(const int A[N], int B[N]) {\n"
                  "  int T[N];\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    if (i < 7) pt: T[i] = A[i] - 3;\n"
                  "  }\n"
                  "  for (int i = 0; i < 7; i++) {\n"
                  "    if (T[i] > 0) B[i] = T[i]; else B[i] = -T[i];\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(absd, v)\n#pragma npu compute_inline(pt)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int[10] input, B: int[10] output)\n"
                   "  for i_2 (counter i) in 0 .. < 7 step 1:  # line 7\n"
                   "    if A[i] - 3 > 0:\n"
                   "      s1: B[i] = A[i] - 3  # line 8\n"
                   "    else:\n"
                   "      s2: B[i] = -(A[i] - 3)  # line 8\n");
  npg_close(s);
}

static const char *two_temps =
    "#define N 16\n"
    "void two(const int A[N], int B[N]) {\n"
    "  int T1[N], T2[N];\n"
    "  for (int i = 0; i < N; i++) p1: T1[i] = A[i] * 2;\n"
    "  for (int i = 0; i < N; i++) p2: T2[i] = T1[i] + 3;\n"
    "  for (int i = 0; i < N; i++) c: B[i] = T2[i] * T2[i];\n"
    "}\n";

/* Later steps see the rewritten IR: inline twice, then split the consumer. */
Test(sched_inline, steps_compose) {
  NpgSession *s = open_ok(two_temps, "#pragma npu schedule(two, v)\n#pragma npu compute_inline(p1)\n"
                                     "#pragma npu compute_inline(p2)\n#pragma npu split(i_3, 4, io, ii)\n"
                                     "#pragma npu schedule(two, r)\n#pragma npu reverse_compute_inline(p2)\n"
                                     "#pragma npu reverse_compute_inline(c)\n");
  int v = checked(s, "v"), r = checked(s, "r");
  has(npg_dump_ir(s, v), "      c: B[io * 4 + ii] = (A[io * 4 + ii] * 2 + 3) * (A[io * 4 + ii] * 2 + 3)  # line 6\n");
  cr_assert_str_eq(npg_dump_ir(s, r),
                   "kernel r(A: int[16] input, B: int[16] output)\n"
                   "  for i_1 (counter i) in 0 .. < N step 1:  # line 4\n"
                   "    c: B[i] = (A[i] * 2 + 3) * (A[i] * 2 + 3)  # line 6\n");
  npg_close(s);
}

Test(sched_inline, c_api) {
  NpgSession *s = open_ok(two_temps, "");
  NpgSched *h = npg_sched_begin(s, "two", "api");
  cr_assert(npg_sched_compute_inline(h, "p1"), "%s", npg_errors(s));
  cr_assert(npg_sched_reverse_compute_inline(h, "c"), "%s", npg_errors(s));
  int v = npg_sched_end(h);
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  has(npg_variant_schedule(s, v), "compute_inline(p1)\nreverse_compute_inline(c)\n");
  has(npg_dump_ir(s, v), "    c: B[i] = (A[i] * 2 + 3) * (A[i] * 2 + 3)  # line 6\n");
  checked(s, "api");
  h = npg_sched_begin(s, "two", "bad");
  cr_assert_not(npg_sched_compute_inline(h, "c"));
  cr_assert_eq(npg_sched_end(h), -1);
  has(npg_errors(s), "k.c: error: compute_inline: cannot inline c (line 6): B is a kernel parameter, its values must be stored");
  npg_close(s);
}

/* ---------------- reverse_compute_inline ---------------- */

Test(sched_inline, reverse_elementwise_chain) {
  NpgSession *s = open_ok(chain, "#pragma npu schedule(chain, v)\n#pragma npu reverse_compute_inline(cons)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int32_t[16] input, B: int32_t[16] output)\n"
                   "  for i in 0 .. < N step 1:  # line 5\n"
                   "    cons: B[i] = A[i] * 2 + 1  # line 8\n");
  npg_close(s);
}

/* The consumer walks T in another order: its counters come from the
 * producer's index. */
Test(sched_inline, reverse_transposed_consumer) {
  const char *k = "#define N 8\n"
                  "void tr(const int A[N], int C[N][N]) {\n"
                  "  int W[N][N];\n"
                  "  for (int i = 0; i < N; i++)\n"
                  "    for (int j = 0; j < N; j++)\n"
                  "      pw: W[i][j] = A[i] - A[j];\n"
                  "  for (int j = 0; j < N; j++)\n"
                  "    for (int i = 0; i < N; i++)\n"
                  "      cw: C[i][j] = W[j][i] + 1;\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(tr, v)\n#pragma npu reverse_compute_inline(cw)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int[8] input, C: int[8][8] output)\n"
                   "  for i_1 (counter i) in 0 .. < N step 1:  # line 4\n"
                   "    for j_1 (counter j) in 0 .. < N step 1:  # line 5\n"
                   "      cw: C[j][i] = A[i] - A[j] + 1  # line 9\n");
  npg_close(s);
}

Test(sched_inline, reverse_into_scalar_declarations) {
  const char *k = "#include <stdint.h>\n"
                  "#define N 8\n"
                  "void sc(const int8_t A[N], int16_t D[N], float E[N]) {\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    int16_t t = A[i] * 300;\n"
                  "    ct: D[i] = t + 1;\n"
                  "    float f = D[i] * 0.25f;\n"
                  "    cf: E[i] = f * f;\n"
                  "  }\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(sc, v)\n#pragma npu reverse_compute_inline(ct)\n"
                             "#pragma npu reverse_compute_inline(cf)\n");
  int v = checked(s, "v");
  cr_assert_str_eq(npg_dump_ir(s, v),
                   "kernel v(A: int8_t[8] input, D: int16_t[8] inout, E: float[8] output)\n"
                   "  for i in 0 .. < N step 1:  # line 4\n"
                   "    ct: D[i] = (int16_t)(A[i] * 300) + 1  # line 6\n"
                   "    cf: E[i] = D[i] * 0.25f * (D[i] * 0.25f)  # line 8\n");
  npg_close(s);
}

/* Capturing X before it is overwritten: the consumer moves to the
 * producer, before the overwrite, and still reads the old X. */
Test(sched_inline, reverse_moves_the_consumer_before_an_overwrite) {
  const char *k = "#define N 8\n"
                  "void cap(int X[N], int B[N]) {\n"
                  "  int Y[N];\n"
                  "  for (int i = 0; i < N; i++) py: Y[i] = X[i];\n"
                  "  for (int i = 0; i < N; i++) px: X[i] = 5;\n"
                  "  for (int i = 0; i < N; i++) cy: B[i] = Y[i];\n"
                  "}\n";
  NpgSession *s = open_ok(k, "#pragma npu schedule(cap, v)\n#pragma npu reverse_compute_inline(cy)\n");
  int v = checked(s, "v");
  has(npg_dump_ir(s, v), "  for i_1 (counter i) in 0 .. < N step 1:  # line 4\n    cy: B[i] = X[i]  # line 6\n");
  /* the other way round the overwrite is in the way */
  refused(k, "#pragma npu schedule(cap, v)\n#pragma npu compute_inline(py)\n",
          "k.c:9:13: error: compute_inline: cannot inline py (line 4): px (line 5) overwrites X, which py reads, before cy (line 6) reads Y");
  npg_close(s);
}

/* ---------------- refusals ---------------- */

/* rd reads W before pw writes it: under an if, or the kernel would be
 * refused at generation for reading W uninitialized (ir/uninit.c). */
static const char *bad =
    "#define N 8\n"
    "void k(const int A[N], int X[N], int B[N], int C[2 * N]) {\n"
    "  int T[N], U[N], V[2 * N], W[N], S[N];\n"
    "  int t;\n"
    "  for (int i = 0; i < N; i++) pa: B[i] = A[i] + 1;\n"
    "  for (int i = 0; i < N; i++) p1: T[i] = A[i] * 2;\n"
    "  for (int i = 0; i < N; i++) over: T[i] = T[i] + 1;\n"
    "  for (int i = 0; i < N; i++) B[i] += T[i];\n"
    "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) pij: V[i + j] = A[i];\n"
    "  for (int i = 0; i < N; i++) C[i] = V[i];\n"
    "  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) pk: U[i] = A[j];\n"
    "  for (int i = 0; i < N; i++) B[i] += U[i];\n"
    "  for (int i = 0; i < N; i++) { ts: t = A[i] * 3; B[i] += t; }\n"
    "  for (int i = 0; i < N; i++) { if (A[i] > 0) rd: B[i] = W[(i + 1) % N]; pw: W[i] = A[i]; }\n"
    "  for (int i = 0; i < N; i++) { int v = X[i]; ps: S[i] = v * 2; if (i > 0) B[i] += S[i - 1]; }\n"
    "  for (int i = 0; i < N; i++) cb: B[i] += A[i];\n"
    "}\n";

Test(sched_inline, refused_when_the_value_is_overwritten_later) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(p1)\n",
          "k.c:19:13: error: compute_inline: cannot inline p1 (line 6): T is also written by over (line 7)");
}

Test(sched_inline, refused_for_a_parameter) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(pa)\n",
          "k.c:19:13: error: compute_inline: cannot inline pa (line 5): B is a kernel parameter, its values must be stored");
}

Test(sched_inline, refused_when_the_index_cannot_be_inverted) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(pij)\n",
          "k.c:19:13: error: compute_inline: cannot inline pij (line 9): its index V[i + j] cannot be inverted: each index must be a different counter of the loops around pij");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(pk)\n",
          "k.c:19:13: error: compute_inline: cannot inline pk (line 11): loop j_2 (line 11) does not index U[i], so pk writes each element in every iteration of j_2");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(ts)\n",
          "k.c:19:13: error: compute_inline: cannot inline ts (line 13): t is declared outside loop i_9 (line 13), so ts writes it in every iteration of i_9");
}

Test(sched_inline, refused_when_a_read_comes_first) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(pw)\n",
          "k.c:19:13: error: compute_inline: cannot inline pw (line 14): rd (line 14) reads W[1], which pw does not write before it");
}

Test(sched_inline, refused_when_a_local_of_another_iteration_would_be_read) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(ps)\n",
          "k.c:19:13: error: compute_inline: cannot inline ps (line 15): its value reads v, declared inside loop i_11 (line 15), but s6 (line 15) reads S from another iteration of i_11");
}

Test(sched_inline, refused_statement_kinds_and_arguments) {
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(cb)\n",
          "k.c:19:13: error: compute_inline: cannot inline cb (line 16): cb is a compound assignment (+=); only a plain '=' can be inlined");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(p1, over)\n",
          "k.c:19:13: error: compute_inline: takes 1 argument, compute_inline(statement); got 2");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(nothere)\n",
          "k.c:19:28: error: compute_inline: no statement named 'nothere' in v (statements: pa, p1, over, s1, pij, s2, pk, s3, ts, s4, rd, pw, s5, ps, s6, cb)");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(p1, over)\n",
          "k.c:19:13: error: reverse_compute_inline: takes 1 argument, reverse_compute_inline(statement); got 2");
  refused(bad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(i)\n",
          "k.c:19:36: error: reverse_compute_inline: no statement named 'i' in v (statements: pa, p1, over, s1, pij, s2, pk, s3, ts, s4, rd, pw, s5, ps, s6, cb)");
}

static const char *rbad =
    "#define N 8\n"
    "void k(const int A[N], int X[N], int B[N], int C[N], int D[N]) {\n"
    "  int T[N], U[N], V[N], W[N], Q[N], Z[N];\n"
    "  for (int i = 0; i < N; i++) pt: T[i] = A[i] + 1;\n"
    "  for (int i = 0; i < N; i++) xw: X[i] = 7;\n"
    "  for (int i = 0; i < N; i++) ct: B[i] = T[i] + X[i];\n"
    "  for (int i = 0; i < N; i++) pu: U[i] = A[i];\n"
    "  for (int i = 1; i < N; i++) cu: C[i] = U[i];\n"
    "  for (int i = 0; i < N; i++) pv: V[i] = A[i];\n"
    "  for (int i = 0; i < N; i++) cv: D[i] = V[i];\n"
    "  for (int i = 0; i < N; i++) cv2: D[i] += V[i];\n"
    "  for (int i = 0; i < N; i++) pw: W[i] = A[i];\n"
    "  for (int i = 0; i < N; i++) if (A[i] > 0) cw: C[i] = W[i];\n"
    "  for (int i = 0; i < N; i++) pq: Q[i] = A[i];\n"
    "  for (int i = 0; i < N; i++) cq: C[i] = Q[N - 1 - i];\n"
    "  for (int i = 0; i < N; i++) pz: Z[i] = A[i];\n"
    "  for (int i = 1; i < N; i++) cz: X[i] = Z[i] + Z[i - 1];\n"
    "}\n";

Test(sched_inline, reverse_refusals) {
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(ct)\n",
          "k.c:20:13: error: reverse_compute_inline: illegal: running ct (line 6) where pt (line 4) runs reverses the dependence on X from xw (line 5) to ct (line 6)");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(cu)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline cu (line 8) into pu (line 7): pu writes elements of U that cu does not read");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(cv)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline cv (line 10) into pv (line 9): V is also read by cv2 (line 11)");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(cw)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline cw (line 13) into pw (line 12): the if at line 13 around cw would be lost");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(cq)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline cq (line 15): its read Q[N - 1 - i] cannot be inverted: each index must be a different counter of the loops around cq");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(cz)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline cz (line 17): it reads Z at two indices (Z[i] and Z[i - 1])");
  refused(rbad, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(xw)\n",
          "k.c:20:13: error: reverse_compute_inline: cannot inline xw (line 5): it reads no local array or scalar that a single statement produces");
}

/* A value that uses a local declared beside the producer cannot move to
 * readers outside that local's scope (review: this rule had no test). */
Test(sched_inline, refuses_a_value_whose_locals_are_not_visible_at_the_reader) {
  static const char *k = "#define N 8\n"
                         "void k(const float X[N], float B[N]) {\n"
                         "  float T[N];\n"
                         "  for (int i = 0; i < N; i++) { float v = X[i]; p: T[i] = v * 2.0f; }\n"
                         "  for (int j = 0; j < N; j++) B[j] = T[j];\n"
                         "}\n";
  refused(k, "#pragma npu schedule(k, v)\n#pragma npu compute_inline(p)\n",
          "k.c:8:13: error: compute_inline: cannot inline p (line 4): its value uses v, which is not visible at s2 (line 5)");
  static const char *k2 = "#define N 8\n"
                          "void k(const float X[N], float B[N]) {\n"
                          "  for (int i = 0; i < N; i++) {\n"
                          "    float T[N];\n"
                          "    for (int j = 0; j < N; j++) p: T[j] = X[j];\n"
                          "    float w = X[i];\n"
                          "    w = w * 2.0f;\n"
                          "    for (int j = 0; j < N; j++) c: B[j] = T[j] * w;\n"
                          "  }\n"
                          "}\n";
  refused(k2, "#pragma npu schedule(k, v)\n#pragma npu reverse_compute_inline(c)\n",
          "k.c:12:13: error: reverse_compute_inline: cannot inline c (line 8) into p (line 5): c uses w, which is not visible at p (line 5)");
}
