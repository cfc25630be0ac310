/* ir/arith.c: range-aware simplification of index expressions. Exact text of
 * the rules' results, then a seeded brute-force check: random expressions
 * over small ranges (negative ones included) keep their C value, type and
 * implicit conversions for every assignment, and never grow. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "ir/arith.h"
#include "ir/ir.h"
#include "jit/session.h"
#include "tests/test_sched_util.h"

typedef __int128 i128;

/* ---------------- building expressions ---------------- */

static Arena ar;

static void ar_setup(void) { arena_init(&ar, 0); }
static void ar_teardown(void) { arena_free(&ar); }

static Var *mkvar(const char *name, const Type *t) {
  static int id;
  Var *v = ARENA_NEW(&ar, Var);
  v->name = name;
  v->type = t;
  v->kind = VAR_LOOP;
  v->id = id++;
  return v;
}

static Expr *V(Var *v) { return ir_var(&ar, v, (SrcLoc){0}); }
static Expr *I(int64_t v) { return ir_int(&ar, v, &ty_int, (SrcLoc){0}); }

/* l op r with C's usual arithmetic conversions as implicit casts. */
static Expr *bin(Op op, Expr *l, Expr *r) {
  const Type *t = type_common(l->type, r->type);
  return ir_binary(&ar, op, ir_cast(&ar, l, t, true), ir_cast(&ar, r, t, true), t, (SrcLoc){0});
}
static Expr *add(Expr *l, Expr *r) { return bin(OP_ADD, l, r); }
static Expr *sub(Expr *l, Expr *r) { return bin(OP_SUB, l, r); }
static Expr *mul(Expr *l, Expr *r) { return bin(OP_MUL, l, r); }
static Expr *dv(Expr *l, Expr *r) { return bin(OP_DIV, l, r); }
static Expr *md(Expr *l, Expr *r) { return bin(OP_MOD, l, r); }
static Expr *neg(Expr *x) {
  Expr *e = ARENA_NEW(&ar, Expr);
  e->kind = EX_UNARY;
  e->op = OP_NEG;
  e->type = type_promote(x->type);
  e->a = ir_cast(&ar, x, e->type, true);
  return e;
}

static char textbuf[4096];
static const char *text(const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, e);
  snprintf(textbuf, sizeof textbuf, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
  return textbuf;
}

static const Expr *skip(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit) e = e->a;
  return e;
}

/* The IR's conversion invariant: the C compiler, re-inserting the usual
 * arithmetic conversions on the printed text, gets exactly the IR's types. */
static bool consistent(const Expr *e, int depth) {
  if (!e || depth > 100000) return true;
  if (e->kind == EX_BINARY && e->op >= OP_ADD && e->op <= OP_MOD) {
    if (e->a->type->kind != e->type->kind || e->b->type->kind != e->type->kind) return false;
    if (type_common(skip(e->a)->type, skip(e->b)->type)->kind != e->type->kind) return false;
  }
  if (e->kind == EX_UNARY && (e->a->type->kind != e->type->kind || type_promote(skip(e->a)->type)->kind != e->type->kind))
    return false;
  return consistent(e->a, depth + 1) && consistent(e->b, depth + 1) && consistent(e->c, depth + 1);
}

/* ---------------- evaluating with C semantics ---------------- */

typedef struct {
  Var *v[4];
  i128 val[4];
  int n;
} Env;

static i128 wrap(i128 v, const Type *t) {
  int bits = t->size * 8;
  i128 m = (i128)1 << bits;
  v %= m;
  if (v < 0) v += m;
  if (t->is_signed && v >= m / 2) v -= m;
  return v;
}

static bool fits(i128 v, const Type *t) { return wrap(v, t) == v; }

/* Value of e; *ub set on undefined behavior (signed overflow, / 0). */
static i128 eval(const Expr *e, const Env *env, bool *ub) {
  i128 x, y, r;
  switch (e->kind) {
  case EX_INT:
    return wrap(e->ival, e->type);
  case EX_VAR:
    for (int i = 0; i < env->n; i++)
      if (env->v[i] == e->var) return env->val[i];
    cr_assert_fail("unbound variable %s", e->var->name);
    return 0;
  case EX_CAST:
    return wrap(eval(e->a, env, ub), e->type);
  case EX_UNARY:
    x = eval(e->a, env, ub);
    r = e->op == OP_NEG ? -x : x;
    break;
  case EX_BINARY:
    x = eval(e->a, env, ub);
    y = eval(e->b, env, ub);
    switch (e->op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL:
      if (__builtin_mul_overflow(x, y, &r)) { /* only unsigned long operands get here */
        if (e->type->is_signed) {
          *ub = true;
          return 0;
        }
        r = (i128)(((unsigned __int128)x * (unsigned __int128)y) & (((unsigned __int128)1 << 64) - 1));
      }
      break;
    case OP_DIV:
    case OP_MOD:
      if (y == 0) {
        *ub = true;
        return 0;
      }
      r = e->op == OP_DIV ? x / y : x % y;
      break;
    default:
      cr_assert_fail("unexpected operator");
      return 0;
    }
    break;
  default:
    cr_assert_fail("unexpected expression kind");
    return 0;
  }
  if (e->type->is_signed && !fits(r, e->type)) *ub = true;
  return wrap(r, e->type);
}

static int size(const Expr *e) {
  if (!e) return 0;
  if (e->kind == EX_CAST && e->implicit) return size(e->a);
  return 1 + size(e->a) + size(e->b) + size(e->c);
}

/* ---------------- exact results ---------------- */

static Var *x_, *y_, *i_, *j_, *io, *ii, *L_;

static void vars(void) {
  x_ = mkvar("x", &ty_int);
  y_ = mkvar("y", &ty_int);
  i_ = mkvar("i", &ty_int);
  j_ = mkvar("j", &ty_int);
  io = mkvar("io", &ty_int);
  ii = mkvar("ii", &ty_int);
  L_ = mkvar("l", &ty_long);
}

static void expect(Expr *e, const VarRange *r, int n, const char *want) {
  char before[4096];
  snprintf(before, sizeof before, "%s", text(e));
  Expr *s = arith_simplify(&ar, e, r, n);
  cr_assert(!strcmp(text(s), want), "simplifying %s: got %s, want %s", before, text(s), want);
  cr_assert_eq(s->type->kind, e->type->kind, "type changed: %s", before);
  cr_assert(consistent(s, 0), "inconsistent conversions in %s", text(s));
  cr_assert_str_eq(text(e), before, "the input was modified");
  if (!strcmp(want, before)) cr_assert_eq(s, e, "unchanged text but a new node: %s", before);
}

TestSuite(arith, .init = ar_setup, .fini = ar_teardown);

Test(arith, split_of_a_layout_index) {
  vars();
  VarRange r[] = {{io, 0, 15}, {ii, 0, 3}};
  Expr *v = add(mul(V(io), I(4)), V(ii));
  expect(dv(v, I(4)), r, 2, "io");
  expect(md(add(mul(V(io), I(4)), V(ii)), I(4)), r, 2, "ii");
  /* ii unbounded (or possibly negative): no rule applies */
  expect(dv(add(mul(V(io), I(4)), V(ii)), I(4)), r, 1, "(io * 4 + ii) / 4");
  VarRange neg[] = {{io, 0, 15}, {ii, -1, 3}};
  expect(md(add(mul(V(io), I(4)), V(ii)), I(4)), neg, 2, "(io * 4 + ii) % 4");
  /* a larger inner range keeps a smaller division */
  VarRange wide[] = {{io, 0, 15}, {ii, 0, 7}};
  expect(dv(add(mul(V(io), I(4)), V(ii)), I(4)), wide, 2, "io + ii / 4");
  expect(md(add(mul(V(io), I(4)), V(ii)), I(4)), wide, 2, "ii % 4");
  /* constant offsets split by floor */
  expect(dv(add(add(mul(V(io), I(4)), V(ii)), I(8)), I(4)), r, 2, "io + 2");
  /* io + (ii + 1) / 4 + 2 would not be shorter */
  expect(dv(add(add(mul(V(io), I(4)), V(ii)), I(9)), I(4)), r, 2, "(io * 4 + ii + 9) / 4");
}

Test(arith, split_and_fuse_compose_to_the_variable) {
  vars();
  expect(add(mul(dv(V(i_), I(4)), I(4)), md(V(i_), I(4))), NULL, 0, "i");
  expect(add(md(V(i_), I(4)), mul(dv(V(i_), I(4)), I(4))), NULL, 0, "i");
  expect(add(add(md(V(i_), I(4)), V(j_)), mul(dv(V(i_), I(4)), I(4))), NULL, 0, "i + j");
  expect(add(mul(dv(V(i_), I(4)), I(8)), mul(md(V(i_), I(4)), I(2))), NULL, 0, "i * 2");
  expect(add(mul(I(4), dv(V(i_), I(4))), md(V(i_), I(4))), NULL, 0, "i");
  /* twice: ((i / 4 / 4) * 4 + (i / 4) % 4) * 4 + i % 4 */
  Expr *hi = add(mul(dv(dv(V(i_), I(4)), I(4)), I(4)), md(dv(V(i_), I(4)), I(4)));
  expect(add(mul(hi, I(4)), md(V(i_), I(4))), NULL, 0, "i");
  /* mismatched factors stay */
  expect(add(mul(dv(V(i_), I(4)), I(2)), md(V(i_), I(4))), NULL, 0, "i / 4 * 2 + i % 4");
}

Test(arith, folding_and_identities) {
  vars();
  expect(mul(V(x_), I(1)), NULL, 0, "x");
  expect(add(V(x_), I(0)), NULL, 0, "x");
  expect(mul(I(0), V(x_)), NULL, 0, "0");
  expect(add(mul(I(2), I(3)), I(1)), NULL, 0, "7");
  expect(sub(add(V(x_), V(y_)), V(x_)), NULL, 0, "y");
  expect(add(sub(V(x_), I(5)), I(5)), NULL, 0, "x");
  /* reordering must not overflow where the input does not: x + y would */
  VarRange top[] = {{x_, INT32_MAX - 3, INT32_MAX}, {y_, 0, 5}};
  expect(add(sub(V(x_), I(5)), mul(V(y_), I(1))), top, 2, "x - 5 + y");
  VarRange low[] = {{x_, INT32_MAX - 3, INT32_MAX}, {y_, -5, 0}};
  expect(add(add(sub(V(x_), I(5)), mul(V(y_), I(1))), I(2)), low, 2, "x + y - 3");
  expect(add(add(sub(V(x_), I(5)), mul(V(y_), I(1))), I(2)), top, 2, "x - 5 + y + 2");
  /* never uglier: distributing would grow the text */
  expect(mul(add(V(x_), V(y_)), I(3)), NULL, 0, "(x + y) * 3");
  expect(mul(I(4), V(x_)), NULL, 0, "4 * x");
  expect(V(x_), NULL, 0, "x");
}

/* A #define'd constant as a factor: oco * OB is linear in oco, so it cancels
 * against oco * 4 (the index cache_write left in the resnet example), and
 * stays named where nothing cancels. */
static Expr *named(const char *macro, int64_t v) {
  Expr *e = I(v);
  e->macro = macro;
  return e;
}

Test(arith, a_named_constant_factor_cancels) {
  vars();
  expect(add(sub(mul(V(x_), I(12544)), mul(V(y_), I(4))), mul(V(y_), named("OB", 4))), NULL, 0, "x * 12544");
  expect(add(sub(V(i_), mul(V(y_), I(4))), mul(named("OB", 4), V(y_))), NULL, 0, "i");
  expect(mul(V(y_), named("OB", 4)), NULL, 0, "y * OB");
  expect(add(mul(V(y_), named("OB", 4)), V(i_)), NULL, 0, "y * OB + i");
  expect(mul(named("H", 56), named("W", 56)), NULL, 0, "H * W");
}

Test(arith, divisions) {
  vars();
  expect(dv(dv(V(x_), I(2)), I(3)), NULL, 0, "x / 6");
  expect(md(md(V(x_), I(16)), I(4)), NULL, 0, "x % 4");
  expect(md(md(V(x_), I(6)), I(4)), NULL, 0, "x % 6 % 4");
  VarRange small[] = {{i_, -3, 3}};
  expect(dv(V(i_), I(4)), small, 1, "0");
  expect(md(V(i_), I(4)), small, 1, "i");
  expect(dv(V(i_), I(1)), NULL, 0, "i");
  expect(md(V(i_), I(1)), NULL, 0, "0");
  /* negative multiples: truncation differs from floor, no rule */
  VarRange mixed[] = {{i_, -8, 7}, {j_, 0, 3}};
  expect(dv(add(mul(V(i_), I(4)), V(j_)), I(4)), mixed, 2, "(i * 4 + j) / 4");
  /* both parts non-positive: truncation splits too */
  VarRange nonpos[] = {{i_, -8, 0}, {j_, -3, 0}};
  expect(dv(add(mul(V(i_), I(4)), V(j_)), I(4)), nonpos, 2, "i");
  expect(md(add(mul(V(i_), I(4)), V(j_)), I(4)), nonpos, 2, "j");
  /* a negative divisor */
  VarRange pos[] = {{io, 0, 15}, {ii, 0, 3}};
  expect(dv(add(mul(V(io), I(4)), V(ii)), I(-4)), pos, 2, "-io");
}

Test(arith, types_and_conversions) {
  vars();
  /* a long counter with int literals: (long) conversions are implicit */
  VarRange r[] = {{L_, 0, 100}, {ii, 0, 3}};
  Expr *e = dv(add(mul(V(L_), I(4)), V(ii)), I(4));
  cr_assert_eq(e->type->kind, TY_LONG);
  expect(e, r, 2, "l");
  Expr *m = md(add(mul(V(L_), I(4)), V(ii)), I(4));
  /* the expression keeps its printed type (it might be an operand) */
  expect(m, r, 2, "(long)ii");
  /* an index may print as int */
  Expr *s = arith_simplify_index(&ar, m, r, 2);
  cr_assert_str_eq(text(s), "ii");
  cr_assert_eq(s->type->kind, TY_LONG);
  cr_assert_eq(skip(s)->type->kind, TY_INT); /* printed as int, as C converts it */
  /* an int expression converted to long at the root keeps its printed type */
  Expr *root = ir_cast(&ar, add(V(x_), I(0)), &ty_long, true);
  s = arith_simplify(&ar, root, NULL, 0);
  cr_assert_str_eq(text(s), "x");
  cr_assert_eq(s->type->kind, TY_LONG);
  cr_assert_eq(skip(s)->type->kind, TY_INT);
  /* unsigned arithmetic that may wrap is left alone (u - 1 + 1 is u in C
   * for every u, but the model does not follow wrap-around) */
  Var *u = mkvar("u", &ty_uint);
  VarRange ur[] = {{u, 0, 10}};
  expect(add(sub(V(u), I(1)), I(1)), ur, 1, "u - 1 + 1");
  VarRange upos[] = {{u, 1, 10}};
  expect(add(sub(V(u), I(1)), I(1)), upos, 1, "u");
  expect(dv(sub(V(u), I(1)), I(4)), ur, 1, "(u - 1) / 4");
  VarRange ur1[] = {{u, 1, 10}};
  expect(dv(add(mul(V(u), I(4)), I(3)), I(4)), ur1, 1, "u");
  /* explicit narrowing casts are opaque unless the values fit */
  Expr *nar = ir_cast(&ar, add(V(L_), I(0)), &ty_int, false);
  expect(nar, r, 2, "(int)l");
  Expr *wide = ir_cast(&ar, add(V(L_), I(0)), &ty_short, false);
  expect(wide, r, 2, "(short)l");
  VarRange big[] = {{L_, 0, 100000}};
  expect(ir_cast(&ar, dv(mul(V(L_), I(2)), I(2)), &ty_short, false), big, 1, "(short)l");
  /* short operands are promoted: results stay int */
  Var *sh = mkvar("s", &ty_short);
  VarRange sr[] = {{sh, 0, 7}};
  s = arith_simplify(&ar, dv(add(mul(V(sh), I(4)), I(1)), I(4)), sr, 1);
  cr_assert_str_eq(text(s), "s");
  cr_assert_eq(s->type->kind, TY_INT);
}

Test(arith, opaque_subtrees_and_depth) {
  vars();
  /* a non-linear product is an atom; its own parts are simplified */
  Expr *p = mul(add(V(x_), I(0)), V(y_));
  expect(p, NULL, 0, "x * y");
  expect(sub(add(mul(V(x_), V(y_)), V(i_)), mul(V(x_), V(y_))), NULL, 0, "i");
  /* a deep chain: bounded recursion, same value */
  Expr *e = V(x_);
  for (int k = 0; k < 3000; k++) e = add(e, I(k % 3 - 1));
  Expr *s = arith_simplify(&ar, e, NULL, 0);
  Env env = {{x_}, {5}, 1};
  bool ub = false;
  cr_assert(eval(s, &env, &ub) == eval(e, &env, &ub));
  cr_assert(!ub);
}

/* ---------------- random expressions ---------------- */

static uint64_t rng;
static uint32_t rnd(uint32_t n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng >> 33) % n;
}

static Var *rv[3];

static Expr *gen(int depth) {
  if (depth <= 0 || rnd(8) == 0) {
    if (rnd(4) == 0) return I((int64_t)rnd(12) - 4);
    return V(rv[rnd(3)]);
  }
  Expr *a = gen(depth - 1);
  int c = (int)rnd(7) + 1;
  switch (rnd(16)) {
  case 0: return add(a, gen(depth - 1));
  case 1: return sub(a, gen(depth - 1));
  case 2: return mul(a, I((int64_t)rnd(7) - 2));
  case 3: return mul(I(c), a);
  case 4: return dv(a, I(rnd(5) == 0 ? -c : c));
  case 5: return md(a, I(rnd(5) == 0 ? -c : c));
  case 6: return dv(add(mul(a, I(c)), gen(depth - 1)), I(c));
  case 7: return md(add(gen(depth - 1), mul(I(c), a)), I(c));
  case 8: { /* (a / c) * c + a % c, terms shuffled, maybe with more */
    Expr *q = mul(dv(a, I(c)), I(c)), *r = md(ir_clone_expr(&ar, a, &(CloneMap){0}), I(c));
    Expr *s = rnd(2) ? add(q, r) : add(r, q);
    return rnd(2) ? add(s, gen(depth - 1)) : s;
  }
  case 9: return dv(dv(a, I(c)), I((int64_t)rnd(4) + 1));
  case 10: return md(md(a, I(c * ((int)rnd(3) + 1))), I(c));
  case 11: return neg(a);
  case 12: {
    static const Type *const ts[] = {&ty_int, &ty_long, &ty_uint, &ty_short, &ty_uchar, &ty_ulong};
    return ir_cast(&ar, a, ts[rnd(6)], false);
  }
  case 13: return add(a, I((int64_t)rnd(9) - 4));
  case 14: return rnd(2) ? mul(a, gen(depth - 1)) : add(a, mul(gen(depth - 1), I(1)));
  default: return dv(add(mul(a, I(c)), I((int64_t)rnd(2 * c))), I(c));
  }
}

Test(arith, random_expressions_keep_their_values) {
  static const Type *const vt[] = {&ty_int, &ty_int, &ty_int, &ty_long, &ty_uint, &ty_short, &ty_uchar};
  static const char *const names[] = {"a", "b", "c"};
  rng = 12345;
  int simplified = 0, compared = 0, total = getenv("ARITH_N") ? atoi(getenv("ARITH_N")) : 6000;
  if (getenv("ARITH_SEED")) rng = strtoull(getenv("ARITH_SEED"), NULL, 10);
  for (int n = 0; n < total; n++) {
    Env env = {.n = 3};
    int64_t lo[3], hi[3];
    VarRange r[3];
    int nr = 0;
    bool nonneg = rnd(3) == 0;
    for (int k = 0; k < 3; k++) {
      const Type *t = vt[rnd(7)];
      rv[k] = mkvar(names[k], t);
      lo[k] = nonneg || !t->is_signed ? rnd(5) : (int64_t)rnd(13) - 8;
      hi[k] = lo[k] + rnd(7);
      if (rnd(4) == 0) { /* near the type's limits: overflow and wrap-around */
        int64_t tlo;
        uint64_t thi;
        type_int_range(t, &tlo, &thi);
        if (thi > INT64_MAX) thi = INT64_MAX;
        if (rnd(2)) lo[k] = (int64_t)thi - (int64_t)rnd(7), hi[k] = (int64_t)thi;
        else lo[k] = tlo, hi[k] = tlo + rnd(7);
      }
      env.v[k] = rv[k];
      if (rnd(5)) r[nr++] = (VarRange){rv[k], lo[k], hi[k]};
    }
    Expr *e = gen(1 + (int)rnd(4));
    /* a conversion the context applies, e.g. to an argument */
    if (rnd(8) == 0 && type_promote(e->type)->kind == TY_INT) e = ir_cast(&ar, e, &ty_long, true);
    cr_assert(consistent(e, 0));
    char before[4096];
    snprintf(before, sizeof before, "%s", text(e));
    Expr *s = arith_simplify(&ar, e, r, nr);
    cr_assert_str_eq(text(e), before, "the input was modified");
    cr_assert_eq(s->type->kind, e->type->kind, "%s: type changed", before);
    cr_assert_eq(type_promote(skip(s)->type)->kind, type_promote(skip(e)->type)->kind, "%s: printed type changed", before);
    cr_assert(consistent(s, 0), "%s -> %s: inconsistent conversions", before, text(s));
    cr_assert_leq(size(s), size(e), "%s grew into %s", before, text(s));
    if (s != e) simplified++;
    for (i128 a = lo[0]; a <= hi[0]; a++)
      for (i128 b = lo[1]; b <= hi[1]; b++)
        for (i128 c = lo[2]; c <= hi[2]; c++) {
          env.val[0] = a;
          env.val[1] = b;
          env.val[2] = c;
          bool ub0 = false, ub1 = false;
          i128 v0 = eval(e, &env, &ub0);
          if (ub0) continue;
          i128 v1 = eval(s, &env, &ub1);
          cr_assert(!ub1, "case %d: %s -> %s: undefined at a=%d b=%d c=%d", n, before, text(s), (int)a, (int)b, (int)c);
          cr_assert(v0 == v1, "case %d: %s -> %s: %lld != %lld at a=%d b=%d c=%d (ranges [%lld,%lld] [%lld,%lld] [%lld,%lld], %d given)",
                    n, before, text(s), (long long)v0, (long long)v1, (int)a, (int)b, (int)c, (long long)lo[0],
                    (long long)hi[0], (long long)lo[1], (long long)hi[1], (long long)lo[2], (long long)hi[2], nr);
          compared++;
        }
  }
  if (getenv("ARITH_N")) printf("%d of %d simplified, %d compared\n", simplified, total, compared);
  cr_assert_gt(simplified, total / 4, "only %d of %d simplified", simplified, total);
  cr_assert_gt(compared, 100000);
}

/* ---------------- kernels ---------------- */

static char *kernel_text(const char *src, bool simplify) {
  DiagList d;
  diag_init(&d);
  Module *m = frontend_parse("k.c", src, strlen(src), &d);
  char *errs = diag_render(&d);
  cr_assert_not_null(m, "%s", errs);
  free(errs);
  diag_free(&d);
  if (simplify) arith_simplify_kernel(&m->arena, m->kernels);
  StrBuf sb;
  sb_init(&sb);
  ir_print_kernel(&sb, m->kernels);
  DiagList v;
  diag_init(&v);
  cr_assert(ir_verify_kernel(m->kernels, &v, "k.c"));
  diag_free(&v);
  module_free(m);
  return sb_take(&sb);
}

Test(arith, kernel_indices_and_bounds) {
  const char *src =
      "void k(const int A[4][8][4], int B[16][8], int C[8]) {\n"
      "  for (int io = 0; io < 4; io++)\n"
      "    for (int j = 0; j < 8; j++)\n"
      "      for (int ii = 0; ii < 4; ii++)\n"
      "        B[io * 4 + ii][j] = A[(io * 4 + ii) / 4][j][(io * 4 + ii) % 4];\n"
      "  for (int i = 0; i < 16; i++)\n"
      "    B[(i / 4) * 4 + i % 4][(i + 0) % 8] = 1;\n"
      "  for (int i = -4; i < 4; i++)\n"
      "    C[(i * 4 + 3) / 4 + 3] = 2;\n"
      "  for (int t = 0; t < 2; t++)\n"
      "    for (int s = t * 4 / 4; s < (t * 4 + 7) / 4; s++)\n"
      "      C[s] = 3;\n"
      "}\n";
  char *before = kernel_text(src, false), *after = kernel_text(src, true);
  has(before, "A[(io * 4 + ii) / 4][j][(io * 4 + ii) % 4]");
  has(after, "B[io * 4 + ii][j] = A[io][j][ii]");
  has(after, "B[i][i % 8] = 1");
  has(after, "C[(i * 4 + 3) / 4 + 3] = 2"); /* i < 0: truncation, no rule */
  has(after, "for s in t .. < t + 1 step 1");
  free(before);
  free(after);
}

/* ---------------- end to end: emitted C, JIT-checked ---------------- */

/* Scheduled variants are already simplified by the driver after every step,
 * so simplifying again must change nothing. Each kernel as written (and every
 * variant of a test's own src) is simplified, added as "<name>_simp", and
 * must pass the differential check; a kernel file's kernel that simplifying
 * leaves as it was is the kernel as written, whose check is kernels::roundtrip's,
 * and is not run again. *checked counts the kernels proven either way. */
static NpgSession *check_simplified_n(const char *path, const char *src, int *checked_runs) {
  NpgSession *s = src ? npg_open_string(path, src, strlen(src)) : npg_open_file(path);
  cr_assert_eq(npg_error_count(s), 0, "%s", npg_errors(s));
  int nv = s->nv;
  for (int v = 0; v < nv; v++) {
    Kernel *k = ir_clone_kernel(&s->m->arena, s->v[v].ir);
    arith_simplify_kernel(&s->m->arena, k);
    DiagList d;
    diag_init(&d);
    cr_assert(ir_verify_kernel(k, &d, path));
    diag_free(&d);
    StrBuf before, after;
    sb_init(&before);
    sb_init(&after);
    ir_print_kernel(&before, s->v[v].ir);
    ir_print_kernel(&after, k);
    bool same = !strcmp(before.data, after.data);
    sb_free(&before);
    sb_free(&after);
    if (!src && s->v[v].schedule) {
      cr_assert(same, "%s %s: simplifying a scheduled variant again changed it", path, s->v[v].name);
      continue;
    }
    if (!src && same) { /* the same IR prints the same C */
      if (checked_runs) (*checked_runs)++;
      continue;
    }
    const char *name = arena_printf(&s->m->arena, "%s_simp", s->v[v].name);
    cr_assert(session_add_variant(s, s->v[v].kernel, k, name, NULL, NULL, s->m->file, s->m->src, k->loc), "%s %s: %s",
              path, name, npg_errors(s));
    int i = npg_variant_index(s, name);
    NpgCheckResult r;
    cr_assert(npg_check(s, i, 1, &r), "%s %s: %s\n%s", path, name, r.message, npg_emit_source(s, i));
    if (checked_runs) (*checked_runs)++;
  }
  return s;
}

static NpgSession *check_simplified(const char *path, const char *src) { return check_simplified_n(path, src, NULL); }

static const char *emitted(NpgSession *s, const char *variant) {
  int i = npg_variant_index(s, variant);
  cr_assert_geq(i, 0, "no variant %s", variant);
  return npg_emit_source(s, i);
}

Test(arith, split_of_a_blocked_layout_emits_plain_indices) {
  NpgSession *s = check_simplified("k.c",
                                   "#include <stdint.h>\n"
                                   "void lay(const int32_t A[8][16][4], int32_t B[30][16]) {\n"
                                   "  for (int i = 0; i < 30; i++)\n"
                                   "    for (int j = 0; j < 16; j++)\n"
                                   "      B[i][j] = A[i / 4][j][i % 4] + 1;\n"
                                   "}\n"
                                   "#pragma npu schedule(lay, s)\n"
                                   "#pragma npu split(i, 4, io, ii)\n");
  /* the schedule driver simplifies after every step already */
  has(emitted(s, "s"), "B[io * 4 + ii][j] = A[io][j][ii] + 1;");
  has(emitted(s, "s_simp"), "B[io * 4 + ii][j] = A[io][j][ii] + 1;");
  npg_close(s);
}

Test(arith, layout_steps_then_loop_split) {
  NpgSession *s = check_simplified("k.c",
                                   "#include <stdint.h>\n"
                                   "void lay2(const int32_t A[32][16], int32_t B[32][16]) {\n"
                                   "  for (int i = 0; i < 32; i++)\n"
                                   "    for (int j = 0; j < 16; j++)\n"
                                   "      B[i][j] = A[i][j] * 3;\n"
                                   "}\n"
                                   "#pragma npu schedule(lay2, bs)\n"
                                   "#pragma npu buffer_split(A, 0, 4)\n"
                                   "#pragma npu split(i, 4, io, ii)\n"
                                   "#pragma npu schedule(lay2, bsf)\n"
                                   "#pragma npu buffer_split(B, 0, 4)\n"
                                   "#pragma npu buffer_fuse(B, 0, 1)\n");
  has(emitted(s, "bs_simp"), "B[io * 4 + ii][j] = A[io][ii][j] * 3;");
  has(emitted(s, "bsf_simp"), "B[i][j] = A[i][j] * 3;");
  npg_close(s);
}

Test(arith, fuse_of_a_split_axis_emits_the_variable) {
  NpgSession *s = check_simplified("k.c",
                                   "#include <stdint.h>\n"
                                   "void fz(const int32_t A[32], int32_t B[8][4]) {\n"
                                   "  for (int i = 0; i < 8; i++)\n"
                                   "    for (int j = 0; j < 4; j++)\n"
                                   "      B[i][j] = A[i * 4 + j] * 2;\n"
                                   "}\n"
                                   "#pragma npu schedule(fz, f)\n"
                                   "#pragma npu fuse(i, j, ij)\n");
  has(emitted(s, "f_simp"), "B[ij / 4][ij % 4] = A[ij] * 2;");
  npg_close(s);
}

/* Every kernel file's variants, simplified again: the same IR, and the
 * kernels as written that simplification changes still check. The normal
 * build's alone: it parses and schedules every file again, which the ASan
 * build does under the sanitizers in kernels::roundtrip (10 s of CPU
 * there, make test's budget), and the simplifier runs under them in this
 * suite's other tests. */
#if !defined(__SANITIZE_ADDRESS__)
Test(arith, every_kernel_file_checks_after_simplification) {
  static const char *const dirs[] = {"tests/kernels", "examples"};
  int files = 0, runs = 0;
  for (int d = 0; d < 2; d++) {
    DIR *dir = opendir(dirs[d]);
    cr_assert_not_null(dir, "cannot open %s (run from the project root)", dirs[d]);
    struct dirent *de;
    while ((de = readdir(dir))) {
      size_t l = strlen(de->d_name);
      if (l < 3 || strcmp(de->d_name + l - 2, ".c")) continue;
      char path[600];
      snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
      npg_close(check_simplified_n(path, NULL, &runs));
      files++;
    }
    closedir(dir);
  }
  cr_assert_gt(files, 10);
  cr_assert_geq(runs, files, "only %d kernels as written were proven in %d files", runs, files);
}
#endif
