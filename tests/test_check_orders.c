/* The check in permuted orders (docs/check.md, jit/check_orders.c): every
 * loop marked parallel, vectorize or bound to the VU cores also runs
 * reversed and odd iterations first, and the check passes only if every
 * order matches the kernel as written.
 *
 * The marks a schedule proves are sound, so a loop here is marked without
 * proof by a test-only hook: its IR's loop_kind is set after the session
 * parsed the kernel and before anything is emitted (the reference, emitted
 * from the same IR, runs every loop in source order whatever its mark). */
#include <criterion/criterion.h>
#include <string.h>

#include "jit/c_text.h"
#include "jit/check.h"
#include "jit/guard.h"
#include "jit/session.h"
#include "lower/lower.h"
#include "npugen.h"
#include "tests/test_sched_util.h"

typedef struct {
  const char *name;
  Stmt *found;
} LoopByName;

static bool find_loop(Stmt *s, int depth, void *ctx) {
  (void)depth;
  LoopByName *f = ctx;
  if (s->kind == ST_FOR && !f->found && !strcmp(s->name, f->name)) f->found = s;
  return !f->found;
}

/* The test-only hook: marks loop `name` of variant v as `kind`, unproven. */
static void mark_without_proof(NpgSession *s, int v, const char *name, LoopKind kind) {
  LoopByName f = {name, NULL};
  ir_walk_stmts(((Kernel *)s->v[v].ir)->body, find_loop, &f);
  cr_assert_not_null(f.found, "no loop %s", name);
  f.found->loop_kind = kind;
  /* the variant's lowering was made when it was added: make it again */
  s->v[v].low = lower_kernel(&s->m->arena, s->v[v].ir, &s->target);
}

/* Row i reads row i - 1: the dependence is carried by i. */
static const char *diagonal =
    "void k(int A[64][64]) {\n"
    "  for (int i = 1; i < 64; i++)\n"
    "    for (int j = 1; j < 64; j++)\n"
    "      s: A[i][j] = A[i - 1][j - 1] + 1;\n"
    "}\n";

Test(check_orders, reversed_order_fails_a_carried_dependence) {
  NpgSession *s = open_ok(diagonal, "");
  mark_without_proof(s, 0, "i", LOOP_PARALLEL);
  NpgCheckResult r;
  cr_expect(npg_check_orders(s, 0, 1, NPG_ORDER_SOURCE, &r), "the source order passes: %s", r.message);
  cr_expect(!npg_check_orders(s, 0, 1, NPG_ORDER_REVERSED, &r));
  cr_expect_eq(r.order, NPG_ORDER_REVERSED);
  cr_expect_str_eq(r.message, "in reversed order of the marked loops (parallel, vectorize, bind): A[2][2]: expected 4, got -3");
  /* npg_check runs every order by default, and says the source order passed */
  cr_expect(!npg_check(s, 0, 1, &r));
  cr_expect_eq(r.order, NPG_ORDER_REVERSED);
  cr_expect_str_eq(r.message, "in reversed order of the marked loops (parallel, vectorize, bind): A[2][2]: expected 4, "
                              "got -3; the source order passes, so a marked loop's iterations are not independent");
  npg_close(s);
}

Test(check_orders, odd_even_order_fails_a_carried_dependence) {
  NpgSession *s = open_ok(diagonal, "");
  mark_without_proof(s, 0, "i", LOOP_VECTORIZE);
  NpgCheckResult r;
  cr_expect(!npg_check_orders(s, 0, 1, NPG_ORDER_ODD_EVEN, &r));
  cr_expect_eq(r.order, NPG_ORDER_ODD_EVEN);
  cr_expect_str_eq(r.message, "in odd-even order of the marked loops (parallel, vectorize, bind): A[2][2]: expected 4, got -3");
  npg_close(s);
}

/* With the orders set to the source order alone, npg_check is today's. */
Test(check_orders, set_check_orders) {
  NpgSession *s = open_ok(diagonal, "");
  mark_without_proof(s, 0, "i", LOOP_PARALLEL);
  NpgCheckResult r;
  npg_set_check_orders(s, NPG_ORDER_SOURCE);
  cr_expect(npg_check(s, 0, 1, &r), "%s", r.message);
  cr_expect_eq(r.order, NPG_ORDER_SOURCE);
  npg_set_check_orders(s, 0); /* back to the default: all */
  cr_expect(!npg_check(s, 0, 1, &r));
  npg_close(s);
}

/* A loop bound to the VU cores whose iterations depend on each other. */
Test(check_orders, bound_loop_fails_a_carried_dependence) {
  NpgSession *s = open_ok("void k(int A[5]) {\n"
                          "  for (int c = 0; c < 4; c++)\n"
                          "    s: A[c + 1] = A[c] + 1;\n"
                          "}\n",
                          "");
  mark_without_proof(s, 0, "c", LOOP_VU);
  NpgCheckResult r;
  cr_expect(npg_check_orders(s, 0, 1, NPG_ORDER_SOURCE, &r), "%s", r.message);
  cr_expect(!npg_check_orders(s, 0, 1, NPG_ORDER_REVERSED, &r));
  cr_expect_str_eq(r.message, "in reversed order of the marked loops (parallel, vectorize, bind): A[2]: expected 4, got 8");
  npg_close(s);
}

/* Sound marks pass in every order: a parallel outer loop, a vectorized
 * inner one. */
Test(check_orders, independent_iterations_pass_every_order) {
  NpgSession *s = open_ok("void k(const int X[16][16], int Y[16][16]) {\n"
                          "  for (int i = 0; i < 16; i++)\n"
                          "    for (int j = 0; j < 16; j++)\n"
                          "      s: Y[i][j] = X[i][j] * 3 + Y[i][j];\n"
                          "}\n",
                          "#pragma npu schedule(k, k_par)\n"
                          "#pragma npu split(i, 3, io, ii)\n"
                          "#pragma npu parallel(io)\n"
                          "#pragma npu vectorize(j)\n");
  int v = npg_variant_index(s, "k_par");
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  NpgCheckResult r;
  cr_expect(npg_check_orders(s, v, 7, NPG_ORDER_ALL, &r), "%s", r.message);
  cr_expect_eq(r.order, NPG_ORDER_SOURCE);
  npg_close(s);
}

/* The schedule the engine proved when parallel(j) was set, and reorder
 * then moved outside i, which carries the dependence: either a step is
 * refused, or the check fails it in a permuted order. */
Test(check_orders, broken_mark_is_refused_or_fails) {
  char src[512];
  snprintf(src, sizeof src, "%s#pragma npu schedule(k, k_rs)\n#pragma npu parallel(j)\n#pragma npu reorder(j, i)\n",
           diagonal);
  NpgSession *s = npg_open_string("k.c", src, strlen(src));
  int v = npg_variant_index(s, "k_rs");
  if (v < 0) {
    cr_expect_gt(npg_error_count(s), 0);
  } else {
    NpgCheckResult r;
    cr_expect(npg_check_orders(s, v, 1, NPG_ORDER_SOURCE, &r), "%s", r.message);
    cr_expect(!npg_check(s, v, 1, &r), "parallel(j); reorder(j, i) passed in every order");
    cr_expect_neq(r.order, NPG_ORDER_SOURCE);
  }
  npg_close(s);
}

/* ---------------- the permutations themselves ---------------- */

/* Bounds affine in the outer counter, an inclusive bound, steps of 3 up
 * and 2 down: every iteration runs once in each order (hits), and the
 * last one to run (last) shows the order. */
static const char *ranges =
    "void k(int B[8][32], int up[8], int down[8]) {\n"
    "  for (int i = 0; i < 8; i++) {\n"
    "    for (int j = i; j <= 3 * i + 5; j += 3) {\n"
    "      hit_up: B[i][j] += 1;\n"
    "      last_up: up[i] = j;\n"
    "    }\n"
    "    for (int d = 3 * i + 7; d > i; d -= 2) {\n"
    "      hit_down: B[i][d] += 10;\n"
    "      last_down: down[i] = d;\n"
    "    }\n"
    "  }\n"
    "}\n";

/* Runs variant 0 of s in order o on B, up and down (zeroed). */
static void run_in_order(NpgSession *s, EmitOrder o, int B[8][32], int up[8], int down[8]) {
  Arena a;
  arena_init(&a, 0);
  char why[600];
  LowerUnit u = {.m = s->m, .k = s->v[0].ir, .name = s->v[0].name, .target = &s->target, .order = o};
  u.lowered = lower_for_order(&a, u.k, s->v[0].low, u.target, o, why, sizeof why);
  cr_assert(!*why, "%s", why);
  char *text = jit_c_source(&u);
  arena_free(&a);
  char err[4096];
  TccUnit *unit = check_compile_variant(s->v[0].ir, text, "k", err, sizeof err);
  cr_assert_not_null(unit, "%s\n%s", err, text);
  ThunkFn fn = (ThunkFn)tcc_unit_symbol(unit, "npg_call_k");
  cr_assert_not_null(fn);
  memset(B, 0, sizeof(int) * 8 * 32);
  memset(up, 0, sizeof(int) * 8);
  memset(down, 0, sizeof(int) * 8);
  void *args[] = {B, up, down};
  cr_assert(guarded_call(fn, args, err, sizeof err), "%s", err);
  tcc_unit_free(unit);
  free(text);
}

/* The iteration at position `at` of n in order o (k in lower/order.c). */
static int64_t iteration_at(EmitOrder o, int64_t at, int64_t n) {
  if (o == EMIT_ORDER_SOURCE) return at;
  if (o == EMIT_ORDER_REVERSED) return n - 1 - at;
  return at < n / 2 ? 2 * at + 1 : 2 * (at - n / 2);
}

Test(check_orders, every_iteration_once_in_its_order) {
  NpgSession *s = open_ok(ranges, "");
  mark_without_proof(s, 0, "j", LOOP_PARALLEL);
  mark_without_proof(s, 0, "d", LOOP_VECTORIZE);
  for (EmitOrder o = EMIT_ORDER_SOURCE; o < EMIT_ORDERS; o++) {
    int B[8][32], up[8], down[8];
    run_in_order(s, o, B, up, down);
    for (int i = 0; i < 8; i++) {
      int want[32] = {0};
      int64_t nup = (2 * i + 5) / 3 + 1, ndown = (2 * i + 7 + 1) / 2;
      for (int j = i; j <= 3 * i + 5; j += 3) want[j] += 1;
      for (int d = 3 * i + 7; d > i; d -= 2) want[d] += 10;
      for (int j = 0; j < 32; j++) cr_expect_eq(B[i][j], want[j], "%s: B[%d][%d] = %d, want %d", lower_order_name(o), i, j, B[i][j], want[j]);
      cr_expect_eq(up[i], i + 3 * iteration_at(o, nup - 1, nup), "%s: up[%d] = %d", lower_order_name(o), i, up[i]);
      cr_expect_eq(down[i], 3 * i + 7 - 2 * iteration_at(o, ndown - 1, ndown), "%s: down[%d] = %d", lower_order_name(o), i, down[i]);
    }
  }
  npg_close(s);
}

/* Steps of 1 and -1 with inclusive bounds (<=, >=): the trip count's
 * own branch (hi - lo + 1); the review found no test of it. */
static const char *unit_steps =
    "void k(int B[8][32], int up[8], int down[8]) {\n"
    "  for (int i = 0; i < 8; i++) {\n"
    "    for (int j = i; j <= 2 * i + 3; j++) {\n"
    "      hit_up: B[i][j] += 1;\n"
    "      last_up: up[i] = j;\n"
    "    }\n"
    "    for (int d = 3 * i + 6; d >= i + 1; d--) {\n"
    "      hit_down: B[i][d] += 10;\n"
    "      last_down: down[i] = d;\n"
    "    }\n"
    "  }\n"
    "}\n";

Test(check_orders, every_iteration_once_with_inclusive_unit_steps) {
  NpgSession *s = open_ok(unit_steps, "");
  mark_without_proof(s, 0, "j", LOOP_PARALLEL);
  mark_without_proof(s, 0, "d", LOOP_VECTORIZE);
  for (EmitOrder o = EMIT_ORDER_SOURCE; o < EMIT_ORDERS; o++) {
    int B[8][32], up[8], down[8];
    run_in_order(s, o, B, up, down);
    for (int i = 0; i < 8; i++) {
      int want[32] = {0};
      int64_t nup = i + 4, ndown = 2 * i + 6;
      for (int j = i; j <= 2 * i + 3; j++) want[j] += 1;
      for (int d = 3 * i + 6; d >= i + 1; d--) want[d] += 10;
      for (int j = 0; j < 32; j++) cr_expect_eq(B[i][j], want[j], "%s: B[%d][%d] = %d, want %d", lower_order_name(o), i, j, B[i][j], want[j]);
      cr_expect_eq(up[i], i + iteration_at(o, nup - 1, nup), "%s: up[%d] = %d", lower_order_name(o), i, up[i]);
      cr_expect_eq(down[i], 3 * i + 6 - iteration_at(o, ndown - 1, ndown), "%s: down[%d] = %d", lower_order_name(o), i, down[i]);
    }
  }
  npg_close(s);
}

/* The emitted C of npugen emit is the source order's, marks or not, and
 * a permuted one differs from it only where a marked loop is. */
Test(check_orders, only_the_check_sees_permuted_loops) {
  NpgSession *s = open_ok(ranges, "");
  mark_without_proof(s, 0, "j", LOOP_PARALLEL);
  LowerUnit u = {.m = s->m, .k = s->v[0].ir, .name = s->v[0].name, .target = &s->target, .order = EMIT_ORDER_SOURCE,
                .lowered = s->v[0].low, .own_header = true};
  char *source = jit_c_source(&u);
  cr_expect_str_eq(npg_emit_source(s, 0), source);
  Arena a;
  arena_init(&a, 0);
  char why[600];
  u.order = EMIT_ORDER_REVERSED;
  u.lowered = lower_for_order(&a, u.k, s->v[0].low, u.target, u.order, why, sizeof why);
  cr_assert(!*why, "%s", why);
  char *reversed = jit_c_source(&u);
  arena_free(&a);
  cr_expect(strstr(reversed, "{ /* loop j in reversed order (the check's) */"), "%s", reversed);
  cr_expect(!strstr(reversed, "loop d in"), "d is not marked: %s", reversed);
  cr_expect(!strstr(source, "npg_"), "%s", source);
  free(source);
  free(reversed);
  npg_close(s);
}
