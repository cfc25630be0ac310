/* The one trip count (ir/ir.c, issue 45): ir_trip_expr and ir_trips give
 * every loop's count as an expression, for any lo, step and comparison the
 * IR holds, and agree with ir_trip_count and with counting the iterations
 * one by one: constant bounds fold (0 for an empty loop), bounds in a size
 * are evaluated at many of its values (no JIT: a few ms). And lower/ takes
 * a copy loop's extent from its trip count, not from its bound: a copy
 * loop from 3 is one DMA (one small JIT run). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "ir/ir.h"
#include "tests/test_sched_util.h"

static Var size_n = {.name = "n", .type = &ty_int, .kind = VAR_PARAM, .is_size = true};

/* Iterations of `for (v = lo; v cmp hi; v += step)`, one by one. */
static int64_t counted(Op cmp, int64_t step, int64_t lo, int64_t hi) {
  int64_t n = 0;
  for (int64_t v = lo; cmp == OP_LT ? v < hi : cmp == OP_LE ? v <= hi : cmp == OP_GT ? v > hi : v >= hi; v += step) n++;
  return n;
}

/* e's value with the size n at value nv: the operations ir_trips builds
 * (int arithmetic, comparisons, conversions between integer types, ?:). */
static int64_t value(const Expr *e, int64_t nv) {
  switch (e->kind) {
  case EX_INT: return e->ival;
  case EX_VAR: return nv;
  case EX_CAST: return value(e->a, nv);
  case EX_COND: return value(e->a, nv) ? value(e->b, nv) : value(e->c, nv);
  case EX_BINARY: {
    int64_t a = value(e->a, nv), b = value(e->b, nv);
    switch (e->op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    default: break;
    }
  }
  /* fallthrough */
  default: cr_assert_fail("unexpected node in a trip count"); return 0;
  }
}

static Expr *num(Arena *a, int64_t v) { return ir_int(a, v, &ty_int, (SrcLoc){1, 1}); }

/* n + c */
static Expr *sized(Arena *a, int64_t c) {
  return ir_add(a, ir_var(a, &size_n, (SrcLoc){1, 1}), num(a, c), &ty_int);
}

static Stmt *loop(Arena *a, Expr *lo, Op cmp, Expr *hi, int64_t step) {
  static Var v = {.name = "v", .type = &ty_int, .kind = VAR_LOOP};
  Stmt *s = ir_stmt(a, ST_FOR, (SrcLoc){1, 1});
  s->var = &v;
  s->lo = lo;
  s->hi = hi;
  s->cmp = cmp;
  s->step = step;
  return s;
}

static const int64_t steps[] = {1, 2, 3, 7, -1, -2, -3};

static Op cmp_of(int64_t step, bool inclusive) {
  return step > 0 ? (inclusive ? OP_LE : OP_LT) : (inclusive ? OP_GE : OP_GT);
}

/* A count that is a bound as written keeps its spelling (a #define): the
 * pipelined loop's `oco + 1 < C / OB` stays as the user wrote it. */
static void keeps_its_spelling(void) {
  Arena a;
  arena_init(&a, 0);
  Expr *hi = num(&a, 16);
  hi->macro = "N";
  StrBuf from0, from1;
  sb_init(&from0);
  sb_init(&from1);
  ir_print_expr(&from0, ir_trip_expr(&a, loop(&a, num(&a, 0), OP_LT, hi, 1)));
  ir_print_expr(&from1, ir_trip_expr(&a, loop(&a, num(&a, 1), OP_LT, hi, 1)));
  cr_expect_str_eq(from0.data, "N");
  cr_expect_str_eq(from1.data, "15");
  sb_free(&from0);
  sb_free(&from1);
  arena_free(&a);
}

/* Constant bounds: ir_trip_count, the folded expression and counting agree
 * (lo != 0, steps up and down, inclusive or not, empty loops), and a
 * count that is a bound keeps its spelling. */
Test(ir_trips, constant_bounds_fold_to_ir_trip_count) {
  Arena a;
  arena_init(&a, 0);
  for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
    for (int inclusive = 0; inclusive < 2; inclusive++)
      for (int64_t lo = -5; lo <= 5; lo++)
        for (int64_t hi = -5; hi <= 9; hi++) {
          Op cmp = cmp_of(steps[k], inclusive);
          Stmt *s = loop(&a, num(&a, lo), cmp, num(&a, hi), steps[k]);
          int64_t want = counted(cmp, steps[k], lo, hi), n = -1, folded = -1;
          cr_assert(ir_trip_count(s, &n));
          cr_expect_eq(n, want, "ir_trip_count of %lld %s %lld by %lld: %lld, want %lld", (long long)lo,
                       op_spelling(cmp), (long long)hi, (long long)steps[k], (long long)n, (long long)want);
          IrTrips t = ir_trips(&a, s);
          cr_expect_null(t.runs);
          cr_assert(ir_const_int(ir_trip_expr(&a, s), &folded));
          cr_expect_eq(folded, want, "ir_trip_expr of %lld %s %lld by %lld: %lld, want %lld", (long long)lo,
                       op_spelling(cmp), (long long)hi, (long long)steps[k], (long long)folded, (long long)want);
        }
  arena_free(&a);
  keeps_its_spelling();
}

/* A bound in a size (the other constant, or also in the size): the
 * expression, at each value of n, counts what the loop runs; where it
 * runs, count alone does; by a step of 1 or -1, count is <= 0 exactly
 * where it does not run (lower/pipeline.c's guards rely on it). */
Test(ir_trips, sized_bounds_evaluate_to_the_count) {
  Arena a;
  arena_init(&a, 0);
  for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
    for (int inclusive = 0; inclusive < 2; inclusive++)
      for (int64_t c = -3; c <= 3; c++)
        for (int form = 0; form < 3; form++) {
          Op cmp = cmp_of(steps[k], inclusive);
          /* form 0: lo = c, hi = n; 1: lo = n, hi = c; 2: lo = n, hi = n + c */
          Expr *lo = form == 0 ? num(&a, c) : sized(&a, 0), *hi = form == 1 ? num(&a, c) : sized(&a, form ? c : 0);
          Stmt *s = loop(&a, lo, cmp, hi, steps[k]);
          IrTrips t = ir_trips(&a, s);
          cr_assert_not_null(t.runs);
          cr_expect_eq(ir_trip_expr(&a, s)->kind, EX_COND);
          for (int64_t nv = -6; nv <= 12; nv++) {
            int64_t l = form == 0 ? c : nv, h = form == 1 ? c : nv + (form ? c : 0);
            int64_t want = counted(cmp, steps[k], l, h), runs = value(t.runs, nv);
            cr_expect_eq(value(t.trips, nv), want, "%lld %s %lld by %lld: %lld, want %lld", (long long)l,
                         op_spelling(cmp), (long long)h, (long long)steps[k], (long long)value(t.trips, nv),
                         (long long)want);
            cr_expect_eq(runs, want > 0);
            if (runs) cr_expect_eq(value(t.count, nv), want);
            if (steps[k] == 1 || steps[k] == -1) cr_expect_eq(value(t.count, nv) <= 0, want == 0);
          }
        }
  arena_free(&a);
}

/* loop_partition splits a copy nest at row 3: the rows from 3 on are one
 * DMA from row 3 (lower/dma_shape.c read the loop's bound as its extent
 * and took only copy loops from 0; the second part was a host loop of 5
 * one-row DMAs). */
Test(ir_trips, a_copy_loop_from_3_is_one_dma) {
  NpgSession *s = open_ok("void k(const float x[16][16], float y[16][16]) {\n"
                          "  for (int i = 0; i < 16; i++)\n"
                          "    for (int j = 0; j < 16; j++)\n"
                          "      y[i][j] = x[i][j] * 2.0f;\n"
                          "}\n",
                          "#pragma npu schedule(k, kv)\n"
                          "#pragma npu split(i, 8, io, ii)\n"
                          "#pragma npu cache_read(x, vu_vm, io, x_vm)\n"
                          "#pragma npu loop_partition(x_vm_0, 3)\n");
  int v = checked_once(s, "kv");
  has(npg_emit_source(s, v), "npu_dma_1d(0, &x_vm[3][0], &x[io * 8 + 3][0], 320)");
  npg_close(s);
}
