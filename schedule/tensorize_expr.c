/* tensorize's matcher, part 2: an expression of the nest against one of
 * the semantics kernel's, with the forms C defines to be equal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "schedule/tensorize_match.h"

/* ---------------- conditions ---------------- */

/* Integer types of one width and signedness (long and long long on LP64):
 * a value computed in either is the same, wraps and overflows alike
 * (gemmlowp's `(1ll << 31)` against the semantics' `((int64_t)1 << 31)`). */
static bool same_width_int(const Type *a, const Type *b) {
  return type_same(a, b) || (type_is_integer(a) && type_is_integer(b) &&
                             a->size == b->size && a->is_signed == b->is_signed && a->size >= ty_int.size);
}

bool tensorize_match_expr(Match *m, const Expr *u, const Expr *s);

/* An integer comparison made in a signed type: one that C makes in an
 * unsigned type (oh + kh - 1u >= 0, always true) is not the linear one. */
static bool relational(const Expr *e) {
  return e->kind == EX_BINARY && (e->op == OP_LT || e->op == OP_LE || e->op == OP_GT || e->op == OP_GE) &&
         type_is_integer(e->a->type) && e->a->type->is_signed && type_is_integer(e->b->type) && e->b->type->is_signed;
}

/* a OP b as one expression that is >= 0 exactly when it holds (integers). */
static Expr *nonneg_form(Arena *a, const Expr *e) {
  Expr *x = e->a, *y = e->b, *one = ir_int(a, 1, &ty_int, e->loc);
  switch (e->op) {
  case OP_GE: return ir_binary(a, OP_SUB, x, y, &ty_long, e->loc);
  case OP_LE: return ir_binary(a, OP_SUB, y, x, &ty_long, e->loc);
  case OP_GT: return ir_binary(a, OP_SUB, ir_binary(a, OP_SUB, x, y, &ty_long, e->loc), one, &ty_long, e->loc);
  default: return ir_binary(a, OP_SUB, ir_binary(a, OP_SUB, y, x, &ty_long, e->loc), one, &ty_long, e->loc);
  }
}

static int conjuncts(const Expr *e, const Expr **out, int n, int max) {
  if (e->kind == EX_BINARY && e->op == OP_LAND) return conjuncts(e->b, out, conjuncts(e->a, out, n, max), max);
  if (n < max) out[n] = e;
  return n + 1;
}

/* Guards compare as linear inequalities (oh + kh >= 1 is y * SH - PH + r * DH
 * >= 0 when they agree for every counter), conjunct for conjunct in any
 * order; other conditions structurally. */
bool tensorize_match_cond(Match *m, const Expr *u, const Expr *s) {
  enum { MAX_CONJ = 16 };
  const Expr *uc[MAX_CONJ], *sc[MAX_CONJ];
  int nu = conjuncts(u, uc, 0, MAX_CONJ), ns = conjuncts(s, sc, 0, MAX_CONJ);
  if (nu != ns || nu > MAX_CONJ) return tensorize_differ(m, "the conditions have different numbers of terms", u, s);
  bool used[MAX_CONJ] = {false};
  Match *save = malloc(sizeof *save);
  for (int i = 0; i < ns; i++) {
    bool found = false;
    for (int j = 0; j < nu && !found; j++) {
      if (used[j]) continue;
      *save = *m;
      if (relational(sc[i]) && relational(uc[j]))
        found = tensorize_match_linear(m, nonneg_form(m->a, uc[j]), nonneg_form(m->a, sc[i]), NULL);
      else
        found = tensorize_match_expr(m, uc[j], sc[i]);
      if (found) used[j] = true;
      else *m = *save;
    }
    if (!found) {
      free(save);
      return tensorize_differ(m, "no term of the condition matches", u, sc[i]);
    }
  }
  free(save);
  return true;
}

/* A user array of higher rank than the semantics one: its leading indices
 * must not change inside the nest (a row of a matrix as a vector). */
static bool invariant(Match *m, const Expr *u) {
  for (int i = 0; i < m->nvars; i++)
    if (ir_expr_uses(u, m->uloop[i]->var, NULL)) return false;
  return true;
}

/* A semantics index that is 0 wherever the intrinsic runs (it uses only
 * counters of loops that run once, at 0). */
static bool index_zero(const Match *m, const Expr *s) {
  Form f = {0};
  int64_t k;
  return tensorize_sym_linear(m, s, 1, &f) && tensorize_form_const(&f, &k) && k == 0;
}

/* Which user dimension each semantics dimension of operand s is (dmap):
 * a user array of higher rank adds leading dimensions, fixed in the nest;
 * one of lower rank leaves out semantics dimensions whose index is always
 * 0, the first such ones (a loop of extent 1: y[i] as the matmul's C[i][0]).
 * check_sizes then gives a left-out inner dimension extent 1. */
/* Why u, of lower rank than s, cannot be it: a semantics index that varies
 * with a loop of the nest whose counter u's indices lack would read u alike
 * for every value of it (a stride of 0). */
static bool fewer_dims(Match *m, const Expr *u, const Expr *s) {
  char what[512];
  const char *un = u->buf->name, *sn = s->buf->name;
  int n = snprintf(what, sizeof what, "%s has %d dimension%s where the intrinsic's %s has %d", un, u->buf->ndim,
                   u->buf->ndim == 1 ? "" : "s", sn, s->buf->ndim);
  if (n < 0 || (size_t)n >= sizeof what) n = 0; /* names too long to say more */
  for (int d = 0; d < s->buf->ndim; d++) {
    Form f = {0};
    if (!tensorize_sym_linear(m, s->idx[d], 1, &f)) continue;
    for (int t = 0; t < f.n; t++) {
      const Var *uv = f.t[t].v ? tensorize_mapped(m, f.t[t].v) : NULL;
      bool used = false;
      for (int e = 0; uv && e < u->buf->ndim; e++) used = used || ir_expr_uses(u->idx[e], uv, NULL);
      if (uv && !used) {
        snprintf(what + n, sizeof what - (size_t)n, ", and %s's index %s follows loop %s, which %s's indices do not "
                 "use (one element for every %s: a stride of 0)", sn, f.t[t].v->name, uv->name, un, uv->name);
        return tensorize_differ(m, what, u, s);
      }
    }
  }
  snprintf(what + n, sizeof what - (size_t)n, "; only a dimension whose index is always 0 (its loop runs once) can "
           "be left out");
  return tensorize_differ(m, what, u, s);
}

static bool dim_map(Match *m, const Expr *u, const Expr *s, signed char *dmap) {
  int lead = u->buf->ndim - s->buf->ndim, drop = lead < 0 ? -lead : 0, next = lead > 0 ? lead : 0;
  for (int d = 0; d < s->buf->ndim; d++) {
    if (drop > 0 && index_zero(m, s->idx[d])) {
      dmap[d] = -1;
      drop--;
    } else dmap[d] = (signed char)next++;
  }
  return !drop || fewer_dims(m, u, s);
}

/* Every semantics counter of the nest so far is the whole index of one
 * dimension of s: distinct iterations touch distinct elements. */
static bool one_element_per_iteration(const Match *m, const Expr *s) {
  for (int i = 0; i < m->nvars; i++) {
    bool whole = false;
    for (int d = 0; d < s->buf->ndim && !whole; d++)
      whole = s->idx[d]->kind == EX_VAR && s->idx[d]->var == m->svar[i];
    if (!whole) return false;
  }
  return true;
}

/* The assignments in list, at any depth. */
static int leaves(const Stmt *list) {
  int n = 0;
  for (const Stmt *c = list; c; c = c->next)
    n += c->kind == ST_ASSIGN ? 1 : c->kind == ST_FOR || c->kind == ST_BLOCK ? leaves(c->body)
         : c->kind == ST_IF ? leaves(c->then_s) + leaves(c->else_s) : 0;
  return n;
}

/* Operand i, bound to u's array too, and the access s of another operand
 * may be one array when one is read and the other written in place: the
 * same element, at the same indices, in one iteration only (m[c] = x[c] >
 * m[c] ? x[c] : m[c] as npu_vu_max_f32 with dst and b one array). Two
 * operands the intrinsic only reads may be one array anyway (d[r][c] *
 * d[r][c] as a row dot product). */
static bool may_share(const Match *m, int i, const Expr *s, Expr **off, const signed char *dmap) {
  const Expr *t = m->sacc[i];
  if (s->buf->is_const && t->buf->is_const) return true;
  /* one statement in all: its reads come before its write */
  if (s->buf->is_const == t->buf->is_const || leaves(m->sem->body) != 1 || t->buf->ndim != s->buf->ndim ||
      memcmp(dmap, m->dmap[i], (size_t)s->buf->ndim) || !one_element_per_iteration(m, s))
    return false;
  for (int d = 0; d < s->buf->ndim; d++)
    if (!ir_expr_same(t->idx[d], s->idx[d])) return false;
  for (int d = 0; d < m->ubuf[i]->ndim; d++)
    if (!ir_expr_same(off[d], m->off[i][d])) return false;
  return true;
}

static bool match_load(Match *m, const Expr *u, const Expr *s) {
  int lead = u->buf->ndim - s->buf->ndim;
  for (int d = 0; d < lead; d++)
    if (!invariant(m, u->idx[d])) return tensorize_differ(m, "a leading index changes inside the nest", u, s);
  if (!type_same(u->buf->elem, s->buf->elem)) return tensorize_differ(m, "the element types differ", u, s);
  int bi = -1;
  for (int i = 0; i < m->nbufs; i++)
    if (m->sbuf[i] == s->buf) bi = i;
  if (bi >= 0 && m->ubuf[bi] != u->buf) return tensorize_differ(m, "one intrinsic operand would be two arrays", u, s);
  signed char dmap[IR_MAX_DIMS];
  if (!dim_map(m, u, s, dmap)) return false;
  Expr **off = ARENA_ARRAY(m->a, Expr *, u->buf->ndim);
  for (int d = 0; d < lead; d++) off[d] = u->idx[d];
  for (int d = 0; d < s->buf->ndim; d++)
    if (dmap[d] >= 0 && !tensorize_match_linear(m, u->idx[dmap[d]], s->idx[d], &off[dmap[d]])) return false;
  for (int i = 0; i < m->nbufs; i++)
    if (i != bi && m->ubuf[i] == u->buf && !may_share(m, i, s, off, dmap))
      return tensorize_differ(m, "one array would be two intrinsic operands", u, s);
  if (bi < 0) {
    if (m->nbufs == MAX_BIND) return tensorize_differ(m, "too many arrays", u, s);
    bi = m->nbufs++;
    m->sbuf[bi] = s->buf;
    m->sacc[bi] = s;
    m->ubuf[bi] = u->buf;
    m->off[bi] = off;
    memcpy(m->dmap[bi], dmap, sizeof dmap);
    return true;
  }
  if (memcmp(dmap, m->dmap[bi], (size_t)s->buf->ndim))
    return tensorize_differ(m, "two accesses of one operand leave out different dimensions", u, s);
  for (int d = 0; d < u->buf->ndim; d++)
    if (!ir_expr_same(off[d], m->off[bi][d])) return tensorize_differ(m, "two accesses of one operand start at different places", u, s);
  return true;
}

/* A scalar parameter of the semantics kernel (multiplier, shift): it binds
 * to the nest's value there, which must not change inside the nest. */
bool tensorize_is_param(const Match *m, const Var *v) {
  for (const Param *q = m->sem->params; q; q = q->next)
    if (q->var && q->var == v) return true;
  return false;
}

bool tensorize_bind_operand(Match *m, const Var *p, const Expr *u) {
  if (!invariant(m, u) || ir_expr_has_load(u)) return tensorize_differ(m, "a scalar operand of the intrinsic must not change inside the nest", u, NULL);
  for (int i = 0; i < m->nparams; i++)
    if (m->sparam[i] == p)
      return (m->sparam_expr[i] && ir_expr_same(m->sparam_expr[i], u)) ||
             tensorize_differ(m, "one scalar operand of the intrinsic would take two values", u, NULL);
  if (m->nparams == MAX_BIND) return tensorize_differ(m, "too many scalar operands", u, NULL);
  m->sparam[m->nparams] = p;
  m->sparam_expr[m->nparams++] = u;
  return true;
}

/* An integer constant the scalar parameter's integer type holds: passing
 * it converts nothing (a fill's value 0). Other values bind when their type
 * is the parameter's: a float constant, or an int constant C converts where
 * it stands (sum[r] / C is sum[r] / (float)C, and passing C to a float
 * parameter converts it the same way). */
static bool constant_fits(const Expr *u, const Type *t) {
  int64_t lo;
  uint64_t hi;
  if (u->kind != EX_INT || !type_is_integer(t)) return false;
  type_int_range(t, &lo, &hi);
  return u->ival >= lo && (u->ival < 0 || (uint64_t)u->ival <= hi);
}

/* s is a narrow integer parameter as C promotes it, `(int)s` (an int8
 * min's `a[i] < s ? a[i] : s`), and u a constant (96, -20) of the promoted
 * type that the parameter holds: passing u to the parameter and promoting
 * it gives u again (96 is (int)(int8_t)96; 300 is not (int)(int8_t)300). */
static bool promoted_constant(const Match *m, const Expr *u, const Expr *s) {
  int64_t k, lo;
  uint64_t hi;
  if (s->kind != EX_CAST || !s->implicit || s->a->kind != EX_VAR || !tensorize_is_param(m, s->a->var) ||
      !type_is_integer(s->a->type) || !type_is_integer(s->type) || !type_same(u->type, s->type) || !ir_const_int(u, &k))
    return false;
  type_int_range(s->a->type, &lo, &hi);
  return k >= lo && (k < 0 || (uint64_t)k <= hi);
}

static bool match_either_order(Match *m, const Expr *u, const Expr *s);

/* An integer constant C converts to the floating type of s where it
 * stands (S[r] = 0 for a float S), exactly, against that value: 0 is
 * 0.0f. */
static bool int_as_float(const Expr *u, const Expr *s) {
  if (s->kind != EX_FLOAT || u->kind != EX_CAST || !u->implicit || u->a->kind != EX_INT || !type_same(u->type, s->type))
    return false;
  int64_t v = u->a->ival;
  if (v < -(INT64_C(1) << 53) || v > (INT64_C(1) << 53)) return false;
  if (v == 0 && signbit(s->fval)) return false; /* 0 is not -0.0f */
  return s->type->kind == TY_FLOAT ? (float)v == (float)s->fval && (int64_t)(float)v == v : (double)v == s->fval;
}

/* Operators whose operands commute exactly, for every type the DSL has
 * (float + and * too: IEEE sums and products do not depend on the order of
 * their two operands). && and || do not: the second operand is evaluated
 * only sometimes. */
bool tensorize_commutative(Op op) {
  return op == OP_ADD || op == OP_MUL || op == OP_BAND || op == OP_BOR || op == OP_BXOR || op == OP_EQ || op == OP_NE;
}

/* The comparison that holds for (b, a) exactly when op holds for (a, b):
 * x > m is m < x (for floats too: with a NaN both are false). */
static Op mirrored(Op op) {
  return op == OP_LT ? OP_GT : op == OP_GT ? OP_LT : op == OP_LE ? OP_GE : op == OP_GE ? OP_LE : OP_NONE;
}

/* c is `X != 0` (or `0 != X`, or `X > 0` / `0 < X` for an unsigned X,
 * or `X == 1` for a bool X), the same test as X alone in a condition: X,
 * its promotion left out; NULL otherwise. A byte mask written `m[i] != 0
 * ? ...` is `m[i] ? ...`. */
static const Expr *truth_of(const Expr *c) {
  int64_t z;
  if (c->kind == EX_BINARY && c->op == OP_EQ) { /* a bool == 1 (true): its values are 0 and 1 */
    const Expr *x = ir_const_int(c->b, &z) && z == 1 ? c->a : ir_const_int(c->a, &z) && z == 1 ? c->b : NULL;
    while (x && x->kind == EX_CAST && x->implicit) x = x->a;
    return x && type_is_integer(x->type) && x->type->rank == 0 ? x : NULL;
  }
  if (c->kind != EX_BINARY || (c->op != OP_NE && c->op != OP_GT && c->op != OP_LT)) return NULL;
  bool zero_right = ir_const_int(c->b, &z) && z == 0, zero_left = ir_const_int(c->a, &z) && z == 0;
  const Expr *x = zero_right ? c->a : zero_left ? c->b : NULL;
  if (!x || (c->op == OP_GT && !zero_right) || (c->op == OP_LT && !zero_left)) return NULL;
  while (x->kind == EX_CAST && x->implicit) x = x->a;
  if (!type_is_integer(x->type) || (c->op != OP_NE && x->type->is_signed)) return NULL;
  return x;
}

/* The scalar operand P of a semantics `P + v` (an int sum, v a counter
 * the nest maps to *uv), or NULL. */
static const Var *lane_base(const Match *m, const Expr *s, const Var **uv) {
  if (s->kind != EX_BINARY || s->op != OP_ADD || !type_is_integer(s->type)) return NULL;
  for (int side = 0; side < 2; side++) {
    const Expr *p = side ? s->b : s->a, *v = side ? s->a : s->b;
    if (p->kind == EX_VAR && tensorize_is_param(m, p->var) && v->kind == EX_VAR && (*uv = tensorize_mapped(m, v->var))) return p->var;
  }
  return NULL;
}

/* An index as the semantics' `P + v` (a lane's index from the call's
 * start P): any signed int expression of the nest with coefficient 1 on
 * v's counter, P what it is at counter 0 (`i` alone: 0; `core * 256 + ii
 * * 16 + ii_v` after two splits: core * 256 + ii * 16). */
static bool lane_index(Match *m, const Expr *u, const Expr *s) {
  const Var *uv;
  const Var *p = lane_base(m, s, &uv);
  int64_t c;
  if (!p || !type_same(u->type, s->type) || !ir_signed_affine(u) || !ir_linear_coef(u, uv, &c) || c != 1) return false;
  Expr *start = ir_subst_expr(m->a, ir_expr_copy(m->a, u), uv, ir_int(m->a, 0, uv->type, u->loc));
  if (!tensorize_bind_operand(m, p, arith_simplify(m->a, start, NULL, 0))) return false;
  m->lane_param = p, m->lane_var = uv;
  return true;
}

/* `E & K`, K + 1 a power of two, for the semantics' `(P + v) % M`: it is
 * E % (K + 1) where E >= 0, so P, E's value at counter 0 (the counter
 * runs up from 0), must not be negative: a constant is checked, another
 * value tested at run time (check_nonneg). 0: not this form; -1: it is,
 * and does not match. */
static int index_and(Match *m, const Expr *u, const Expr *s) {
  int64_t k;
  const Var *uv, *p;
  if (s->kind != EX_BINARY || s->op != OP_MOD || u->kind != EX_BINARY || u->op != OP_BAND || !ir_const_int(u->b, &k) ||
      k < 0 || k >= INT32_MAX || (k & (k + 1)) || s->b->kind != EX_VAR || !tensorize_is_param(m, s->b->var) ||
      !type_same(u->type, s->type) || !(p = lane_base(m, s->a, &uv)) || m->nnonneg == MAX_BIND)
    return 0;
  if (!tensorize_bind_operand(m, s->b->var, ir_int(m->a, k + 1, s->b->type, u->loc)) || !lane_index(m, u->a, s->a))
    return tensorize_differ(m, "the index mask differs", u, s), -1;
  m->nonneg[m->nnonneg++] = p;
  return 1;
}

/* E when u tests that E is odd, for every E: `E % 2` or `E & 1` as a
 * truth value or `!= 0`, or NULL. */
static const Expr *odd_test(const Expr *u) {
  int64_t z, k;
  while (u->kind == EX_CAST && u->implicit) u = u->a;
  if (u->kind == EX_BINARY && u->op == OP_NE) {
    if (ir_const_int(u->b, &z) && z == 0) return odd_test(u->a);
    if (ir_const_int(u->a, &z) && z == 0) return odd_test(u->b);
    return NULL;
  }
  if (u->kind != EX_BINARY || !ir_const_int(u->b, &k) || !type_is_integer(u->type)) return NULL;
  return (u->op == OP_MOD && k == 2) || (u->op == OP_BAND && k == 1) ? u->a : NULL;
}

/* An odd test (odd_test) for the semantics' `(P + v) % M == R`: E % 2 ==
 * 1 where E is not negative, so M = 2, R = 1 and P not negative, as for
 * & (index_and). 0: not this form; -1: it is, and does not match. */
static int index_odd(Match *m, const Expr *u, const Expr *s) {
  const Expr *e = odd_test(u);
  const Var *uv, *p;
  if (!e || s->kind != EX_BINARY || s->op != OP_EQ || s->a->kind != EX_BINARY || s->a->op != OP_MOD ||
      s->a->b->kind != EX_VAR || !tensorize_is_param(m, s->a->b->var) || s->b->kind != EX_VAR || !tensorize_is_param(m, s->b->var) ||
      !(p = lane_base(m, s->a->a, &uv)) || m->nnonneg == MAX_BIND)
    return 0;
  if (!tensorize_bind_operand(m, s->a->b->var, ir_int(m->a, 2, s->a->b->type, u->loc)) ||
      !tensorize_bind_operand(m, s->b->var, ir_int(m->a, 1, s->b->type, u->loc)) || !lane_index(m, e, s->a->a))
    return tensorize_differ(m, "the index mask differs", u, s), -1;
  m->nonneg[m->nnonneg++] = p;
  return 1;
}

/* `c != d ? x : y` for the semantics' `p == q ? a : b`: it is `c == d ?
 * y : x`, C's != being the negation of == for every value, NaN too. */
static bool unequal_select(Match *m, const Expr *u, const Expr *s) {
  if (u->kind != EX_COND || s->kind != EX_COND || u->a->kind != EX_BINARY || u->a->op != OP_NE ||
      s->a->kind != EX_BINARY || s->a->op != OP_EQ)
    return false;
  Expr *eq = ARENA_NEW(m->a, Expr);
  *eq = *u->a;
  eq->op = OP_EQ;
  Match *save = malloc(sizeof *save);
  *save = *m;
  bool ok = tensorize_match_expr(m, eq, s->a) && tensorize_match_expr(m, u->c, s->b) && tensorize_match_expr(m, u->b, s->c);
  if (!ok) *m = *save; /* another form may match (an odd test) */
  free(save);
  return ok;
}

/* `odd ? x : y` (odd_test) for the semantics' `c ? a : b`: it is `E % 2
 * == 0 ? y : x` for every E, negative too. */
static bool odd_select(Match *m, const Expr *u, const Expr *s) {
  const Expr *e = u->kind == EX_COND && s->kind == EX_COND ? odd_test(u->a) : NULL;
  if (!e || !type_is_integer(e->type)) return false;
  Expr *rem = ir_binary(m->a, OP_MOD, (Expr *)e, ir_int(m->a, 2, e->type, u->loc), e->type, u->loc);
  Expr *even = ir_binary(m->a, OP_EQ, rem, ir_int(m->a, 0, e->type, u->loc), &ty_int, u->loc);
  Match *save = malloc(sizeof *save);
  *save = *m;
  bool ok = tensorize_match_expr(m, even, s->a) && tensorize_match_expr(m, u->c, s->b) && tensorize_match_expr(m, u->b, s->c);
  if (!ok) *m = *save;
  free(save);
  return ok;
}

/* `e > k` (or `k < e`) on ints for the semantics' `x >= P`, P a scalar
 * operand: it is e >= k + 1. 0: not this form; -1: it is, and does not
 * match. */
static int int_above(Match *m, const Expr *u, const Expr *s) {
  int64_t k;
  if (u->kind != EX_BINARY || s->kind != EX_BINARY || s->op != OP_GE || s->b->kind != EX_VAR ||
      !tensorize_is_param(m, s->b->var) || !type_is_integer(s->a->type))
    return 0;
  const Expr *e = u->op == OP_GT ? u->a : u->op == OP_LT ? u->b : NULL, *c = u->op == OP_GT ? u->b : u->a;
  if (!e || !ir_const_int(c, &k) || k >= INT32_MAX || !type_same(e->type, s->a->type)) return 0;
  return tensorize_match_expr(m, e, s->a) && tensorize_bind_operand(m, s->b->var, ir_int(m->a, k + 1, s->b->type, c->loc)) ? 1 : -1;
}

/* An integer select that is min(x, y) (want_min) or max(x, y): `x < y ?
 * x : y`, `x >= y ? y : x` and the like; its operands in x and y. */
static bool min_max(const Expr *e, bool want_min, const Expr **x, const Expr **y) {
  if (e->kind != EX_COND || e->a->kind != EX_BINARY || !type_is_integer(e->type)) return false;
  const Expr *p = e->a->a, *q = e->a->b;
  bool less = e->a->op == OP_LT || e->a->op == OP_LE, more = e->a->op == OP_GT || e->a->op == OP_GE;
  if (!(less || more) || !type_is_integer(p->type) || !type_is_integer(q->type)) return false;
  bool picks_p = ir_expr_same(e->b, p) && ir_expr_same(e->c, q), picks_q = ir_expr_same(e->b, q) && ir_expr_same(e->c, p);
  if (!(picks_p || picks_q) || (less == picks_p) != want_min) return false;
  *x = p, *y = q;
  return true;
}

/* min or max of x and a constant k (in either order). */
static bool bound_by(const Expr *e, bool want_min, const Expr **x, int64_t *k) {
  const Expr *p, *q;
  if (!min_max(e, want_min, &p, &q)) return false;
  if (ir_const_int(q, k)) return *x = p, true;
  if (ir_const_int(p, k)) return *x = q, true;
  return false;
}

/* e clamps an integer x to [lo, hi], lo <= hi constants, in one of the
 * forms C programmers write (all equal for every x then, and x has no
 * side effects to repeat): `x < lo ? lo : x > hi ? hi : x` (the
 * semantics'), min(max(x, lo), hi) (TFLite's std::max then std::min,
 * each a select), max(min(x, hi), lo). */
static bool clamp_form(const Expr *e, const Expr **x, int64_t *lo, int64_t *hi) {
  const Expr *in, *x2;
  if (bound_by(e, true, &in, hi) && bound_by(in, false, x, lo)) return *lo <= *hi;
  if (bound_by(e, false, &in, lo) && bound_by(in, true, x, hi)) return *lo <= *hi;
  if (e->kind != EX_COND || e->c->kind != EX_COND || e->a->kind != EX_BINARY || e->c->a->kind != EX_BINARY) return false;
  const Expr *t = e->a, *t2 = e->c->a;
  if ((t->op != OP_LT || t2->op != OP_GT) || !ir_const_int(t->b, lo) || !ir_const_int(t2->b, hi)) return false;
  *x = t->a, x2 = t2->a;
  int64_t b, b2;
  return ir_expr_same(x2, *x) && ir_expr_same(e->c->c, *x) && ir_const_int(e->b, &b) && b == *lo &&
         ir_const_int(e->c->b, &b2) && b2 == *hi && *lo <= *hi && type_is_integer((*x)->type);
}

/* Two clamps of different forms (clamp_form): the same bounds, and the
 * clamped values match. 0: not both clamps; -1: they are, and differ. */
static int clamp_select(Match *m, const Expr *u, const Expr *s) {
  const Expr *ux, *sx;
  int64_t ulo, uhi, slo, shi;
  if (!clamp_form(u, &ux, &ulo, &uhi) || !clamp_form(s, &sx, &slo, &shi) || !type_same(u->type, s->type)) return 0;
  if (ulo != slo || uhi != shi) {
    tensorize_differ(m, "the clamps' bounds differ", u, s);
    return -1;
  }
  return tensorize_match_expr(m, ux, sx) ? 1 : -1;
}

/* Two integer selects that are both min (or both max) of two values,
 * written in different forms: `x > 127 ? 127 : x` against the semantics'
 * `X < Y ? X : Y` (for integers the same value whatever the order of the
 * compare or of the branches; floats are left out, a NaN tells them
 * apart). A constant operand is taken second, as a scalar operand is in
 * the semantics. 0: not both such selects; 1 or -1: they are, and match
 * or not. */
static int min_max_select(Match *m, const Expr *u, const Expr *s) {
  const Expr *ux, *uy, *sx, *sy;
  int64_t k;
  for (int want_min = 0; want_min < 2; want_min++) {
    if (!min_max(u, want_min, &ux, &uy) || !min_max(s, want_min, &sx, &sy) || !type_same(u->type, s->type)) continue;
    if (ir_const_int(ux, &k) && !ir_const_int(uy, &k)) {
      const Expr *t = ux;
      ux = uy, uy = t;
    }
    return tensorize_match_expr(m, ux, sx) && tensorize_match_expr(m, uy, sy) ? 1 : -1;
  }
  return 0;
}

bool tensorize_match_expr(Match *m, const Expr *u, const Expr *s) {
  m->progress++;
  const Expr *truth = u && s && u->kind == EX_COND && s->kind == EX_COND && s->a->kind == EX_LOAD ? truth_of(u->a) : NULL;
  if (truth) /* the mask's test written out */
    return tensorize_match_expr(m, truth, s->a) && tensorize_match_expr(m, u->b, s->b) && tensorize_match_expr(m, u->c, s->c);
  if (!u || !s) return (!u && !s) || tensorize_differ(m, "an operand is missing", u, s);
  if (unequal_select(m, u, s) || odd_select(m, u, s)) return true;
  int odd = index_odd(m, u, s);
  if (odd) return odd > 0;
  int above = int_above(m, u, s);
  if (above) return above > 0;
  int clamp = clamp_select(m, u, s);
  if (clamp) return clamp > 0;
  int bound = u->kind == EX_COND && s->kind == EX_COND && !ir_expr_same(u->a, s->a) ? min_max_select(m, u, s) : 0;
  if (bound) return bound > 0;
  /* a scalar parameter binds any value of its type the nest does not vary */
  if (s->kind == EX_VAR && tensorize_is_param(m, s->var) && (constant_fits(u, s->type) || type_same(u->type, s->type)))
    return tensorize_bind_operand(m, s->var, u);
  if (promoted_constant(m, u, s)) return tensorize_bind_operand(m, s->a->var, u);
  if (int_as_float(u, s)) return true;
  int and_form = index_and(m, u, s);
  if (and_form) return and_form > 0;
  if (lane_index(m, u, s)) return true;
  int64_t uv, c;
  if (s->kind == EX_VAR && tensorize_unit_value(m, s->var, &uv)) /* a loop that runs once: its start */
    return (ir_const_int(u, &c) && c == uv && type_same(u->type, s->type)) ||
           tensorize_differ(m, "the intrinsic's counter here belongs to a loop the nest does not have (it runs once)", u, s);
  if (u->kind != s->kind && s->kind == EX_LOAD && (u->kind == EX_INT || u->kind == EX_FLOAT))
    return tensorize_differ(m, "a constant where the intrinsic reads a vector operand (an array)", u, s);
  /* a conversion between integer types of one width and signedness
   * changes no value: `(long long)(ab + nudge)` against `ab + nudge` */
  if (u->kind == EX_CAST && u->implicit && !type_same(u->type, u->a->type) && same_width_int(u->type, u->a->type))
    return tensorize_match_expr(m, u->a, s);
  if (s->kind == EX_CAST && s->implicit && !type_same(s->type, s->a->type) && same_width_int(s->type, s->a->type))
    return tensorize_match_expr(m, u, s->a);
  /* two integer constant expressions of one value and type are the same
   * constant, however spelt (INT32_MIN, `(-2147483647 - 1)`, -2147483648) */
  if (s->kind != EX_LOAD && s->kind != EX_VAR && ir_const_int(u, &uv) && ir_const_int(s, &c) &&
      same_width_int(u->type, s->type))
    return uv == c || tensorize_differ(m, "the constants differ", u, s);
  if (u->kind != s->kind) return tensorize_differ(m, "the expressions differ", u, s);
  bool value = u->kind != EX_LOAD && u->kind != EX_VAR; /* an operand's element type must be the same C type */
  if (!type_same(u->type, s->type) && !(value && same_width_int(u->type, s->type)))
    return tensorize_differ(m, "the types differ", u, s);
  switch (u->kind) {
  case EX_INT: return u->ival == s->ival || tensorize_differ(m, "the constants differ", u, s);
  case EX_FLOAT: return u->fval == s->fval || tensorize_differ(m, "the constants differ", u, s);
  case EX_VAR: return tensorize_mapped(m, s->var) == u->var || tensorize_differ(m, "the variables differ", u, s);
  case EX_LOAD: return match_load(m, u, s);
  case EX_CALL:
    if (strcmp(u->text, s->text) || u->nargs != s->nargs) return tensorize_differ(m, "the calls differ", u, s);
    for (int i = 0; i < u->nargs; i++)
      if (!tensorize_match_expr(m, u->args[i], s->args[i])) return false;
    return true;
  default:
    if (u->kind == EX_BINARY && u->op != s->op && mirrored(u->op) == s->op) /* x > m is m < x */
      return tensorize_match_expr(m, u->b, s->a) && tensorize_match_expr(m, u->a, s->b);
    if (u->op != s->op) return tensorize_differ(m, "the operators differ", u, s);
    if (u->kind == EX_BINARY && tensorize_commutative(u->op)) return match_either_order(m, u, s);
    return tensorize_match_expr(m, u->a, s->a) && tensorize_match_expr(m, u->b, s->b) && tensorize_match_expr(m, u->c, s->c);
  }
}

/* The operands of u in order, or swapped; neither, the difference of the
 * order that came further (in order on a tie). */
static bool match_either_order(Match *m, const Expr *u, const Expr *s) {
  Match *save = malloc(sizeof *save), *first = malloc(sizeof *first);
  *save = *m;
  bool ok = tensorize_match_expr(m, u->a, s->a) && tensorize_match_expr(m, u->b, s->b);
  if (!ok) {
    *first = *m;
    *m = *save;
    ok = tensorize_match_expr(m, u->b, s->a) && tensorize_match_expr(m, u->a, s->b);
    if (!ok && first->progress >= m->progress) *m = *first;
  }
  free(save);
  free(first);
  return ok;
}
