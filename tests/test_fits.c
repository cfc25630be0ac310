/* What npugen writes fits its type (issue 39 section 2, issue 42): fused
 * counters wide enough for their product, split tails and tile counts
 * that cannot overflow, sized loops split with no assumption, and the
 * verifier (ir/fits.c) that refuses a form that can. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "ir/fits.h"
#include "ir/ir.h"
#include "tests/test_sched_util.h"

/* ---------------- the steps' forms, run ---------------- */

/* 16 x 16 uint8_t counters: the fused counter runs to 256, which uint8_t
 * does not hold (the old `uint8_t ij < 256` never ended, and folding 16 *
 * 16 in uint8_t gave `ij < 0`). */
Test(fits, fuse_of_uint8_counters_counts_in_int) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void f(const int A[16][16], int C[16][16]) {\n"
                          "  for (uint8_t i = 0; i < 16; i++)\n"
                          "    for (uint8_t j = 0; j < 16; j++)\n"
                          "      C[i][j] = A[i][j] + i - j;\n"
                          "}\n",
                          "#pragma npu schedule(f, f_fused)\n#pragma npu fuse(i, j, ij)\n");
  int v = checked(s, "f_fused");
  has(npg_emit_source(s, v), "for (int ij = 0; ij < 256; ij++) {");
  npg_close(s);
}

/* int16_t counters, 300 x 200: 60000 passes int16_t (the old counter
 * wrapped at 32767 and never ended); int holds it. */
Test(fits, fuse_of_int16_counters_counts_in_int) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void f(const int A[300][200], int C[300][200]) {\n"
                          "  for (int16_t i = 0; i < 300; i++)\n"
                          "    for (int16_t j = 0; j < 200; j++)\n"
                          "      C[i][j] = A[i][j] + i - j;\n"
                          "}\n",
                          "#pragma npu schedule(f, f_fused)\n#pragma npu fuse(i, j, ij)\n");
  int v = checked(s, "f_fused");
  has(npg_emit_source(s, v), "for (int ij = 0; ij < 60000; ij++) {");
  npg_close(s);
}

/* int counters over 32768 x 65536: 2^31 iterations pass int, so the fused
 * counter is a long long (a long is 32 bits on ILP32 and LLP64 machines,
 * where `long ij < 2147483648l` never ends) and the parts are converted
 * back to int. Emitted, not
 * run (2^31 iterations); the verifier proved the new loop's bound and
 * counter after the step. */
Test(fits, fuse_past_int_max_counts_in_long_long) {
  NpgSession *s = open_ok("void h(long c[1]) {\n  c[0] = 0;\n"
                          "  for (int i = 0; i < 32768; i++)\n"
                          "    for (int j = 0; j < 65536; j++)\n"
                          "      c[0] += (i ^ j) & 1;\n}\n",
                          "#pragma npu schedule(h, h_fused)\n#pragma npu fuse(i, j, ij)\n");
  const char *c = npg_emit_source(s, 1);
  has(c, "for (long long ij = 0ll; ij < 2147483648ll; ij++) {");
  has(c, "c[0] += ((int)(ij / 65536ll) ^ (int)(ij % 65536ll)) & 1;");
  npg_close(s);
}

/* A loop that ends near INT_MAX, split by 100: `2147483000 + io * 100 +
 * ii < 2147483647` overflowed in the last tile (FAIL c[0]: expected 649,
 * got 701); the guard measures the distance to the end instead. */
Test(fits, split_near_int_max_guards_its_tail_without_overflow) {
  NpgSession *s = open_ok("void g(int c[1]) {\n  c[0] = 0;\n"
                          "  for (int i = 2147483000; i < 2147483647; i++)\n"
                          "    c[0] += i & 3;\n}\n",
                          "#pragma npu schedule(g, g_split)\n#pragma npu split(i, 100, io, ii)\n");
  int v = checked(s, "g_split");
  has(npg_emit_source(s, v), "if (ii < 2147483647 - (2147483000 + io * 100)) {");
  npg_close(s);
}

/* A split by 10^9 of i < INT_MAX: the old guard io * 1000000000 + ii <
 * 2147483647 overflowed (gcc ran 2,999,999,999 iterations). Emitted, not
 * run (2^31 iterations). */
Test(fits, split_by_a_billion_guards_with_the_distance_to_the_end) {
  NpgSession *s = open_ok("void b(int c[1]) {\n  c[0] = 0;\n"
                          "  for (int i = 0; i < 2147483647; i++)\n    c[0] = i;\n}\n",
                          "#pragma npu schedule(b, b_split)\n#pragma npu split(i, 1000000000, io, ii)\n");
  const char *c = npg_emit_source(s, 1);
  has(c, "for (int io = 0; io < 3; io++) {");
  has(c, "if (ii < 2147483647 - io * 1000000000) {");
  npg_close(s);
}

/* A split far from the type's end keeps the plain guard. */
Test(fits, a_split_far_from_int_max_keeps_the_plain_guard) {
  NpgSession *s = open_ok("void g(const int a[100], int c[100]) {\n"
                          "  for (int i = 0; i < 100; i++)\n    c[i] = a[i] + 1;\n}\n",
                          "#pragma npu schedule(g, g_split)\n#pragma npu split(i, 32, io, ii)\n");
  int v = checked(s, "g_split");
  has(npg_emit_source(s, v), "if (io * 32 + ii < 100) {");
  npg_close(s);
}

/* A loop of more iterations than int holds (-2e9 to 2e9): outer * 1000
 * passes INT_MAX whatever the form (the old split wrote -2000000000 + io *
 * 1000 + ii, whose product overflowed); refused, saying so. */
Test(fits, a_split_of_more_iterations_than_the_counter_holds_is_refused) {
  refused("void g(int c[1]) {\n  c[0] = 0;\n  for (int i = -2000000000; i < 2000000000; i++)\n    c[0] = i;\n}\n",
          "#pragma npu schedule(g, g_split)\n#pragma npu split(i, 1000, io, ii)\n",
          "k.c:7:19: error: split: loop i runs more iterations (-2000000000 to 2000000000) than its counter type int "
          "holds: outer * 1000 would pass it; use a wider counter");
}

/* tile, split and vectorize(l, lanes) of loops bounded by sizes need no
 * assumption (the old `(m + 31) / 32` was refused as ranging past INT_MAX). */
Test(fits, tile_split_and_vectorize_of_sized_loops_need_no_assumption) {
  NpgSession *s = open_ok("void s(int m, int n, const float A[m][n], float B[m][n]) {\n"
                          "  for (int i = 0; i < m; i++)\n"
                          "    for (int j = 0; j < n; j++)\n"
                          "      B[i][j] = A[i][j] * 2.0f;\n}\n",
                          "#pragma npu schedule(s, s_tile)\n#pragma npu tile(i, j, 32, 32, io, jo, ii, ji)\n"
                          "#pragma npu schedule(s, s_split)\n#pragma npu split(j, 8, jo, ji)\n"
                          "#pragma npu schedule(s, s_vec)\n#pragma npu vectorize(j, 8)\n");
  const char *c = npg_emit_source(s, checked(s, "s_tile"));
  has(c, "for (int io = 0; io < m / 32 + (m % 32 > 0); io++) {");
  has(c, "if (ii < m - io * 32) {");
  checked(s, "s_split");
  has(npg_emit_source(s, checked(s, "s_vec")), "if (j_v < n - j * 8) {");
  npg_close(s);
}

/* A size at its type's minimum, where the loop runs 0 times: with the old
 * tile count (m + 7) / 8 the check estimated the run at 1.07e+11 steps and
 * refused it as past its budget; m / 8 + (m % 8 > 0) is no tile (issue 39
 * section 4). */
Test(fits, a_split_at_a_size_of_int_min_runs_no_tile) {
  NpgSession *s = open_ok("void k(int m, float c[1]) {\n  for (int i = 0; i < m; i++)\n    c[0] += 1.0f;\n}\n",
                          "#pragma npu assume(k, m <= 1000)\n#pragma npu sizes(k, m = -2147483648)\n"
                          "#pragma npu sizes(k, m = 13)\n#pragma npu schedule(k, k2)\n#pragma npu split(i, 8, io, ii)\n");
  checked(s, "k2");
  npg_close(s);
}

/* A statement's value is the kernel's own arithmetic: a cast that wraps
 * on purpose ((int8_t)(i * 3) past 127) is not blamed on the split that
 * rewrites i in it. */
Test(fits, a_value_that_wraps_on_purpose_is_the_kernels_own) {
  NpgSession *s = open_ok("#include <stdint.h>\nvoid g(int8_t c[100]) {\n  for (int i = 0; i < 100; i++)\n"
                          "    c[i] = (int8_t)(uint8_t)(i * 3);\n}\n",
                          "#pragma npu schedule(g, g_split)\n#pragma npu split(i, 32, io, ii)\n");
  checked(s, "g_split");
  npg_close(s);
}

/* ---------------- the verifier ---------------- */

static Module *parse(const char *src) {
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse("k.c", src, strlen(src), &d);
  char *errs = diag_render(&d);
  cr_assert_not_null(m, "%s", errs);
  free(errs);
  diag_free(&d);
  return m;
}

static Stmt *first_loop(Stmt *s) {
  for (; s; s = s->next) {
    if (s->kind == ST_FOR) return s;
    Stmt *in = s->kind == ST_BLOCK ? first_loop(s->body) : NULL;
    if (in) return in;
  }
  return NULL;
}

/* The old split's guard, built through the IR API: its sum passes INT_MAX
 * in the last tile, and the verifier says so; the kernel without it and
 * with the distance form both pass. */
Test(fits, the_verifier_refuses_a_guard_that_passes_int_max) {
  Module *m = parse("void g(int c[1]) {\n  c[0] = 0;\n  for (int io = 0; io < 7; io++)\n"
                    "    for (int ii = 0; ii < 100; ii++)\n      c[0] += ii;\n}\n");
  Kernel *k = m->kernels;
  Stmt *io = first_loop(k->body->body), *ii = first_loop(io->body->body);
  char why[600];
  cr_assert(ir_check_fits(k, NULL, why, sizeof why), "%s", why);
  Arena *a = &m->arena;
  SrcLoc at = ii->loc;
  Expr *base = ir_binary(a, OP_ADD, ir_int(a, 2147483000, &ty_int, at),
                         ir_binary(a, OP_MUL, ir_var(a, io->var, at), ir_int(a, 100, &ty_int, at), &ty_int, at),
                         &ty_int, at);
  Stmt *g = ir_stmt(a, ST_IF, at);
  g->then_s = ir_stmt(a, ST_BLOCK, at);
  g->then_s->body = ii->body->body;
  ii->body->body = g;
  g->cond = ir_binary(a, OP_LT, ir_binary(a, OP_ADD, base, ir_var(a, ii->var, at), &ty_int, at),
                      ir_int(a, 2147483647, &ty_int, at), &ty_int, at);
  cr_assert_not(ir_check_fits(k, NULL, why, sizeof why));
  cr_expect(strstr(why, "'2147483000 + io * 100 + ii' (int, in a condition) ranges over [2147483000, 2147483699], "
                        "outside its type [-2147483648, 2147483647]") != NULL, "%s", why);
  /* the kernel as written's own failures are not the steps' */
  char *known = ir_fits_failures(k);
  cr_expect(ir_check_fits(k, known, why, sizeof why), "%s", why);
  free(known);
  g->cond = ir_binary(a, OP_LT, ir_var(a, ii->var, at),
                      ir_binary(a, OP_SUB, ir_int(a, 2147483647, &ty_int, at), base, &ty_int, at), &ty_int, at);
  cr_expect(ir_check_fits(k, NULL, why, sizeof why), "%s", why);
  module_free(m);
}

/* A uint8_t counter that must reach 256 to end: the loop never ends. */
Test(fits, the_verifier_refuses_a_counter_that_cannot_end) {
  Module *m = parse("#include <stdint.h>\nvoid f(int c[256]) {\n  for (uint8_t ij = 0; ij < 255; ij++)\n"
                    "    c[ij] = 1;\n}\n");
  Kernel *k = m->kernels;
  Stmt *l = first_loop(k->body->body);
  char why[600];
  cr_assert(ir_check_fits(k, NULL, why, sizeof why), "%s", why);
  l->hi = ir_int(&m->arena, 256, &ty_int, l->loc);
  cr_assert_not(ir_check_fits(k, NULL, why, sizeof why));
  cr_expect(strstr(why, "loop ij's counter (uint8_t) would reach 256 after its last iteration, outside its type "
                        "[0, 255]") != NULL, "%s", why);
  module_free(m);
}

/* A size's tile count written `(n + 7) / 8` passes INT_MAX at n near it:
 * refused at every size the kernel allows, not only those the check runs. */
Test(fits, the_verifier_refuses_a_tile_count_that_overflows_at_some_size) {
  Module *m = parse("void k(int n, float A[n]) {\n  for (int i = 0; i < n; i++)\n    A[i] = 1;\n}\n");
  Kernel *k = m->kernels;
  Stmt *l = first_loop(k->body->body);
  Arena *a = &m->arena;
  char why[600];
  cr_assert(ir_check_fits(k, NULL, why, sizeof why), "%s", why);
  l->hi = ir_binary(a, OP_DIV, ir_binary(a, OP_ADD, l->hi, ir_int(a, 7, &ty_int, l->loc), &ty_int, l->loc),
                    ir_int(a, 8, &ty_int, l->loc), &ty_int, l->loc);
  cr_assert_not(ir_check_fits(k, NULL, why, sizeof why));
  cr_expect(strstr(why, "'n + 7' (int, in the bounds of loop i) ranges over [8, 2147483654]") != NULL, "%s", why);
  module_free(m);
}

/* What the lowering writes is checked over the lowered IR: a DMA wait's
 * guard `io * 1000000000 > 0` passes INT_MAX at io = 3; the scheduled IR,
 * without it, passes. */
Test(fits, the_verifier_refuses_what_the_lowering_writes) {
  const char *src = "void g(int c[8]) {\n  for (int io = 0; io < 7; io++)\n    c[io] = io;\n}\n";
  Module *sched = parse(src), *low = parse(src);
  Stmt *io = first_loop(low->kernels->body->body);
  Arena *a = &low->arena;
  SrcLoc at = io->loc;
  Stmt *wait = ir_stmt(a, ST_BLOCK, at);
  wait->low = ARENA_NEW(a, Lowered);
  wait->low->kind = LOW_DMA_WAIT;
  wait->low->guard = ir_binary(a, OP_GT, ir_binary(a, OP_MUL, ir_var(a, io->var, at), ir_int(a, 1000000000, &ty_int, at),
                                                   &ty_int, at),
                               ir_int(a, 0, &ty_int, at), &ty_int, at);
  wait->next = io->body->body;
  io->body->body = wait;
  char why[600];
  cr_assert(ir_check_fits_lowered(sched->kernels, sched->kernels, why, sizeof why), "%s", why);
  cr_assert_not(ir_check_fits_lowered(sched->kernels, low->kernels, why, sizeof why));
  cr_expect(strstr(why, "'io * 1000000000' (int, in a DMA's operands) ranges over [0, 6000000000]") != NULL, "%s", why);
  module_free(sched);
  module_free(low);
}

/* The counter after an unrolled loop's last iteration is the last value its
 * step reaches from a constant start: an unroll by 5 of `int8_t i < 125`
 * ends at 125 (it was refused: "would reach 129", 124 + 5), and one by 7 of
 * `uint8_t i < 255` at 252 and 255 ("would reach 258"). Found by a new
 * user's trial. */
Test(fits, an_unrolled_narrow_counter_ends_where_its_step_does) {
  NpgSession *s = open_ok("#include <stdint.h>\n"
                          "void s(const int a[125], int b[125]) {\n"
                          "  for (int8_t i = 0; i < 125; i++)\n    b[i] = a[i] * 3;\n}\n"
                          "void t(const int a[255], int b[255]) {\n"
                          "  for (uint8_t i = 0; i < 255; i++)\n    b[i] = a[i] + 1;\n}\n",
                          "#pragma npu schedule(s, s_u)\n#pragma npu unroll(i, 5)\n"
                          "#pragma npu schedule(t, t_u7)\n#pragma npu unroll(i, 7)\n"
                          "#pragma npu schedule(t, t_u5)\n#pragma npu unroll(i, 5)\n");
  checked(s, "s_u");
  checked(s, "t_u7");
  checked(s, "t_u5");
  npg_close(s);
}

/* A range the proof could only bound is not claimed as the range the code
 * takes: a split of a loop that starts at a size (n + io * 100, io in
 * [0, 9] as it runs) is refused, and the message says what the proof knows
 * ("is known only to lie in"), not "ranges over" ([-2e11, 2e11] read as a
 * fact by a new user). When the sizes work ties the tile counter to the
 * size, this split passes and this test changes. */
Test(fits, a_bound_the_proof_only_approximates_is_not_claimed_as_the_range) {
  refused("void sv(int n, const int a[1], long long c[1]) {\n  c[0] = 0;\n"
          "  for (int i = n; i < n + 1000; i++) c[0] += i & 7;\n}\n",
          "#pragma npu assume(sv, n >= 0, n <= 1000000)\n#pragma npu schedule(sv, sv_s)\n"
          "#pragma npu split(i, 100, io, ii)\n",
          "k.c:7:13: error: split: refused: npugen cannot prove that the code it writes fits its types: 'n + io * 100' "
          "(int, in a condition) is known only to lie in [-214748364800, 214749364700], outside its type "
          "[-2147483648, 2147483647]");
}
