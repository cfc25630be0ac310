/* The expression walkers (ir/expr_walk.c, issue 45): the visitor's order,
 * depth, skip and stop; ir_walk_expr on top of it; ir_map_expr's
 * bottom-up rebuild, which shares what it keeps and never writes its
 * input. No JIT: each test takes a few ms. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static Var var_i = {.name = "i", .type = &ty_int, .kind = VAR_LOOP};
static Var var_j = {.name = "j", .type = &ty_int, .kind = VAR_LOOP};
static Buffer buf_a = {.name = "A", .elem = &ty_int, .ndim = 2, .shape = {8, 8}};

static SrcLoc here = {1, 1};

/* A[i + 1][j] + (i ? -j : abs(i)) */
static Expr *sample(Arena *a) {
  Expr **idx = ARENA_ARRAY(a, Expr *, 2);
  idx[0] = ir_binary(a, OP_ADD, ir_var(a, &var_i, here), ir_int(a, 1, &ty_int, here), &ty_int, here);
  idx[1] = ir_var(a, &var_j, here);
  Expr *neg = ARENA_NEW(a, Expr);
  *neg = (Expr){.kind = EX_UNARY, .op = OP_NEG, .type = &ty_int, .a = ir_var(a, &var_j, here)};
  Expr *call = ARENA_NEW(a, Expr);
  *call = (Expr){.kind = EX_CALL, .text = "abs", .type = &ty_int, .nargs = 1, .args = ARENA_ARRAY(a, Expr *, 1)};
  call->args[0] = ir_var(a, &var_i, here);
  Expr *cond = ARENA_NEW(a, Expr);
  *cond = (Expr){.kind = EX_COND, .type = &ty_int, .a = ir_var(a, &var_i, here), .b = neg, .c = call};
  return ir_binary(a, OP_ADD, ir_load(a, &buf_a, idx), cond, &ty_int, here);
}

static char *text(const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, e);
  return sb_take(&sb);
}

/* One letter a node: its kind, or its variable's name; and its depth. */
typedef struct {
  char seen[64], depths[64];
  int n;
  char skip, stop; /* the node letter to skip under or stop at */
} Trace;

static char letter(const Expr *e) {
  static const char kinds[] = {[EX_INT] = '1', [EX_FLOAT] = 'f', [EX_VAR] = '?', [EX_LOAD] = 'L', [EX_UNARY] = 'u',
                               [EX_BINARY] = '+', [EX_COND] = 'c', [EX_CAST] = 't', [EX_CALL] = 'F'};
  return e->kind == EX_VAR ? e->var->name[0] : kinds[e->kind];
}

static IrVisit trace(const Expr *e, int depth, void *ctx) {
  Trace *t = ctx;
  char l = letter(e);
  t->seen[t->n] = l;
  t->depths[t->n++] = (char)('0' + depth);
  if (l == t->stop) return IR_VISIT_STOP;
  return l == t->skip ? IR_VISIT_SKIP : IR_VISIT_ON;
}

static bool not_call(const Expr *e, void *ctx) {
  ++*(int *)ctx;
  return e->kind != EX_CALL;
}

/* Pre-order with depths; a skipped load leaves out its indices and the
 * walk goes on; a stop ends it and the walk says so; ir_walk_expr stops
 * at its visitor's first false. */
Test(expr_walk, visits_pre_order_skips_and_stops) {
  Arena a;
  arena_init(&a, 0);
  Expr *e = sample(&a);
  Trace all = {0}, skip = {.skip = 'L'}, stop = {.stop = 'u'};
  cr_expect(ir_visit_expr(e, trace, &all));
  /* the sum, the load, its indices (i + 1, j), the ?: (i, -j, abs(i)) */
  cr_expect_str_eq(all.seen, "+L+i1jciujFi");
  cr_expect_str_eq(all.depths, "012332122323");
  cr_expect(ir_visit_expr(e, trace, &skip));
  cr_expect_str_eq(skip.seen, "+LciujFi");
  cr_expect_not(ir_visit_expr(e, trace, &stop));
  cr_expect_str_eq(stop.seen, "+L+i1jciu");
  int visited = 0;
  cr_expect_not(ir_walk_expr(e, not_call, &visited));
  cr_expect_eq(visited, 11); /* abs(i) is the 11th node */
  visited = 0;
  cr_expect(ir_walk_expr(ir_var(&a, &var_j, here), not_call, &visited));
  cr_expect_eq(visited, 1);
  arena_free(&a);
}

static Expr *keep(Arena *a, Expr *e, void *ctx) {
  (void)a;
  (void)ctx;
  return e;
}

/* Replaces i by 5, recording the order nodes come in. */
typedef struct {
  char seen[64];
  int n;
} Mapped;

static Expr *i_to_5(Arena *a, Expr *e, void *ctx) {
  Mapped *m = ctx;
  m->seen[m->n++] = letter(e);
  return e->kind == EX_VAR && e->var == &var_i ? ir_int(a, 5, &ty_int, e->loc) : e;
}

Test(expr_walk, map_rebuilds_bottom_up_and_shares_what_it_keeps) {
  Arena a;
  arena_init(&a, 0);
  Expr *e = sample(&a);
  char *before = text(e);
  Expr *load = e->a, *neg = e->b->b, *j_index = load->idx[1];
  Mapped m = {0};
  Expr *r = ir_map_expr(&a, e, i_to_5, &m);
  char *after = text(r), *unchanged = text(e);
  cr_expect_str_eq(after, "A[5 + 1][j] + (5 ? -j : abs(5))");
  cr_expect_str_eq(unchanged, before, "the input was written: %s", unchanged);
  cr_expect_str_eq(m.seen, "i1+jLijuiFc+"); /* operands before their node */
  cr_expect_neq(r, e);
  cr_expect_neq(r->a, load);          /* a changed index: a fresh load */
  cr_expect_neq(r->a->idx, load->idx); /* with an index array of its own */
  cr_expect_eq(r->a->idx[1], j_index); /* sharing the index it kept */
  cr_expect_eq(r->b->b, neg);          /* and -j, which holds no i */
  cr_expect_eq(ir_map_expr(&a, e, keep, NULL), e); /* a map that keeps everything: e itself */
  cr_expect_null(ir_map_expr(&a, NULL, keep, NULL));
  free(before);
  free(after);
  free(unchanged);
  arena_free(&a);
}

/* The verifier (ir/verify.c) walks every operand with ir_visit_expr: a
 * missing operand deep in a call's argument, and an index that is not an
 * integer, are each found once. */
Test(expr_walk, verifier_reaches_every_operand) {
  Arena a;
  arena_init(&a, 0);
  Expr *e = sample(&a);
  Stmt *st = ir_stmt(&a, ST_ASSIGN, here);
  st->name = "s";
  st->lhs = ir_var(&a, &var_j, here);
  st->rhs = e;
  Kernel k = {.name = "k", .body = ir_stmt(&a, ST_BLOCK, here)};
  k.body->body = st;
  DiagList d;
  diag_init(&d);
  cr_expect(ir_verify_kernel(&k, &d, "t.c"));
  e->b->c->args[0] = ir_binary(&a, OP_ADD, ir_var(&a, &var_i, here), NULL, &ty_int, here);
  e->a->idx[1] = ARENA_NEW(&a, Expr);
  *e->a->idx[1] = (Expr){.kind = EX_FLOAT, .type = &ty_float, .fval = 1.0};
  cr_expect_not(ir_verify_kernel(&k, &d, "t.c"));
  cr_expect_eq(d.errors, 2);
  char *text = diag_render(&d);
  cr_expect(strstr(text, "missing operand") && strstr(text, "non-integer index"), "%s", text);
  free(text);
  diag_free(&d);
  arena_free(&a);
}
