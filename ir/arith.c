/* Range-aware simplification of integer index expressions (see arith.h).
 *
 * Model. An integer expression is read as a linear form
 *     c + k1 * atom1 + k2 * atom2 + ...
 * over the mathematical integers. Atoms are variables, div/mod nodes of linear
 * forms by a positive constant (truncating, as C divides), and opaque subtrees
 * (loads, calls, shifts, value-changing casts...). Reading C arithmetic as
 * mathematical arithmetic is exact for every execution in which the original
 * expression is defined, provided no unsigned node wraps and no conversion
 * changes a value: signed overflow is undefined, so a signed node's value is
 * its mathematical value; an unsigned node or a cast is read linearly only when
 * the interval analysis proves it exact, and is opaque otherwise.
 *
 * Rules on the linear form (each needs only what the ranges prove):
 *   constant folding, x * 1, x + 0, 0 * x, like terms;
 *   (D + R) / c -> D / c + R / c and (D + R) % c -> R % c when every term of D
 *     is a multiple of c and D, R are both >= 0 (or both <= 0);
 *   x / c -> 0 and x % c -> x when |x| < c;  x / 1 -> x, x % 1 -> 0;
 *   (x / c1) / c2 -> x / (c1 * c2)          (all x; c1, c2 > 0);
 *   (x % m) % c -> x % c when c divides m   (all x);
 *   k * c * (x / c) + k * (x % c) -> k * x  (all x).
 * The rebuilt expression computes every node in C without overflow (checked
 * with intervals), keeps the implicit conversions the C compiler re-inserts,
 * and is used only when it is smaller than the input; otherwise the input is
 * kept with its operands simplified (bottom-up, each subtree on its own).
 * #define'd constants stay named: they are atoms of known value. Unsigned
 * wrap-around is not modelled (u - 1 + 1 stays when u may be 0). */
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"

enum { ARITH_MAX_DEPTH = 64 };

typedef __int128 i128;
#define BIG ((i128)1 << 100) /* |v| >= BIG: unbounded */

typedef struct {
  i128 lo, hi;
} Ivl;

static i128 sat(i128 v) { return v >= BIG ? BIG : v <= -BIG ? -BIG : v; }

static i128 smul(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? -BIG : BIG;
  return sat(r);
}

static Ivl iv_add(Ivl a, Ivl b) { return (Ivl){sat(a.lo + b.lo), sat(a.hi + b.hi)}; }

static Ivl iv_scale(Ivl a, int64_t k) {
  i128 x = smul(a.lo, k), y = smul(a.hi, k);
  return k >= 0 ? (Ivl){x, y} : (Ivl){y, x};
}

static Ivl iv_meet(Ivl a, Ivl b) { return (Ivl){a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi}; }

static bool iv_within(Ivl a, Ivl b) { return a.lo >= b.lo && a.hi <= b.hi; }

static Ivl type_ivl(const Type *t) {
  int64_t lo;
  uint64_t hi;
  type_int_range(t, &lo, &hi);
  return (Ivl){lo, (i128)hi};
}

/* Truncating division by d > 0 is monotone; unbounded ends stay unbounded. */
static i128 tdiv(i128 v, int64_t d) { return v <= -BIG || v >= BIG ? v : v / d; }

static Ivl iv_div(Ivl a, int64_t d) { return (Ivl){tdiv(a.lo, d), tdiv(a.hi, d)}; }

static Ivl iv_mod(Ivl a, int64_t d) {
  if (a.lo >= 0) {
    if (a.hi < BIG && a.hi - a.lo < d && a.lo % d <= a.hi % d) return (Ivl){a.lo % d, a.hi % d};
    return (Ivl){0, a.hi < d - 1 ? a.hi : d - 1};
  }
  if (a.hi <= 0) {
    if (a.lo > -BIG && a.hi - a.lo < d && a.lo % d <= a.hi % d) return (Ivl){a.lo % d, a.hi % d};
    return (Ivl){a.lo > -(d - 1) ? a.lo : -(d - 1), 0};
  }
  return iv_meet(a, (Ivl){-(d - 1), d - 1});
}

static bool same_kind(const Type *a, const Type *b) { return a->kind == b->kind; }

static const Expr *skip_implicit(const Expr *e) {
  while (e->kind == EX_CAST && e->implicit) e = e->a;
  return e;
}

/* Printed size: nodes the emitted text shows (implicit casts are not
 * shown, a #define'd constant is one), at most 1 << 20, which a tree past
 * the depth cap counts as. */
static IrVisit count_shown(const Expr *e, int depth, void *ctx) {
  int *n = ctx;
  if (depth > 4 * ARITH_MAX_DEPTH) return *n = 1 << 20, IR_VISIT_STOP;
  if (e->kind == EX_CAST && e->implicit) return IR_VISIT_ON;
  if (++*n >= 1 << 20) return IR_VISIT_STOP;
  return e->macro ? IR_VISIT_SKIP : IR_VISIT_ON;
}

static int esize(const Expr *e) {
  int n = 0;
  ir_visit_expr(e, count_shown, &n);
  return n > (1 << 20) ? 1 << 20 : n;
}

/* Structural equality (same C text and types); false past the depth cap. */
static bool expr_equal(const Expr *x, const Expr *y, int depth) {
  if (x == y) return true;
  if (!x || !y || depth > 4 * ARITH_MAX_DEPTH) return false;
  if (x->kind != y->kind || !same_kind(x->type, y->type) || x->op != y->op) return false;
  if (x->implicit != y->implicit || (!x->macro) != (!y->macro)) return false;
  if (x->macro && strcmp(x->macro, y->macro)) return false;
  switch (x->kind) {
  case EX_INT:
    if (x->ival != y->ival) return false;
    break;
  case EX_FLOAT:
    if (x->fval != y->fval) return false;
    break;
  case EX_VAR:
    return x->var == y->var;
  case EX_LOAD:
    if (x->buf != y->buf) return false;
    for (int i = 0; i < x->buf->ndim; i++)
      if (!expr_equal(x->idx[i], y->idx[i], depth + 1)) return false;
    return true;
  case EX_CALL:
    if (strcmp(x->text, y->text) || x->nargs != y->nargs) return false;
    for (int i = 0; i < x->nargs; i++)
      if (!expr_equal(x->args[i], y->args[i], depth + 1)) return false;
    return true;
  default:
    break;
  }
  return expr_equal(x->a, y->a, depth + 1) && expr_equal(x->b, y->b, depth + 1) &&
         expr_equal(x->c, y->c, depth + 1);
}

/* ---------------- linear forms ---------------- */

typedef struct Atom Atom;
typedef struct {
  int64_t k;
  Atom *at;
} Term;
typedef struct {
  Term *t; /* sorted by Atom.order; no zero coefficients */
  int n;
  int64_t c;
} Lin;

typedef enum { AT_LEAF, AT_DIV, AT_MOD } AtomKind;
typedef enum { RB_UNKNOWN, RB_NUM, RB_ORIG, RB_FAIL } RbState;

struct Atom {
  AtomKind kind;
  int order;         /* creation order: the order terms are printed in */
  Expr *leaf;        /* AT_LEAF: a variable reference or an opaque subtree */
  Lin num;           /* AT_DIV, AT_MOD: num / den, num % den */
  int64_t den;       /* > 0 */
  const Expr *den_e; /* a named constant (#define) to print den as, or NULL */
  const Type *ty;    /* the C type the node has (div/mod: computed in) */
  Ivl iv;            /* its values (in executions where the input is defined) */
  Expr *orig;        /* div/mod: an input node with the same value, or NULL */
  RbState rb;        /* div/mod: how the rebuild prints it */
};

typedef struct {
  Arena *out;
  Arena scratch;
  const VarRange *ranges;
  int nranges;
  bool index;   /* simplifying an array index: only its value matters */
  Atom **atoms; /* interned (malloc'ed) */
  int natoms, cap;
} Ctx;

static Lin lin_const(int64_t c) { return (Lin){NULL, 0, c}; }

static Lin lin_atom(Ctx *c, Atom *at) {
  Lin l = {ARENA_ARRAY(&c->scratch, Term, 1), 1, 0};
  l.t[0] = (Term){1, at};
  return l;
}

static bool lin_equal(const Lin *x, const Lin *y) {
  if (x->n != y->n || x->c != y->c) return false;
  for (int i = 0; i < x->n; i++)
    if (x->t[i].k != y->t[i].k || x->t[i].at != y->t[i].at) return false;
  return true;
}

static Ivl lin_ivl(const Lin *l) {
  Ivl r = {l->c, l->c};
  for (int i = 0; i < l->n; i++) r = iv_add(r, iv_scale(l->t[i].at->iv, l->t[i].k));
  return r;
}

static Atom *intern(Ctx *c, Atom *n) {
  for (int i = 0; i < c->natoms; i++) {
    Atom *a = c->atoms[i];
    if (a->kind != n->kind || !same_kind(a->ty, n->ty)) continue;
    if (n->kind == AT_LEAF ? expr_equal(a->leaf, n->leaf, 0) : a->den == n->den && lin_equal(&a->num, &n->num)) {
      if (!a->orig) a->orig = n->orig;
      if (!a->den_e) a->den_e = n->den_e;
      return a;
    }
  }
  if (c->natoms == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->atoms = realloc(c->atoms, sizeof *c->atoms * (size_t)c->cap);
  }
  Atom *a = ARENA_NEW(&c->scratch, Atom);
  *a = *n;
  a->order = c->natoms;
  c->atoms[c->natoms++] = a;
  return a;
}

static bool combine(Ctx *c, Lin *l);

/* *r = kx * x + ky * y. False on overflow. */
static bool lin_add(Ctx *c, const Lin *x, int64_t kx, const Lin *y, int64_t ky, Lin *r) {
  Lin o = {ARENA_ARRAY(&c->scratch, Term, x->n + y->n), 0, 0};
  int64_t cx, cy;
  if (__builtin_mul_overflow(x->c, kx, &cx) || __builtin_mul_overflow(y->c, ky, &cy) ||
      __builtin_add_overflow(cx, cy, &o.c))
    return false;
  int i = 0, j = 0;
  while (i < x->n || j < y->n) {
    Atom *at;
    int64_t k = 0, t;
    if (j >= y->n || (i < x->n && x->t[i].at->order < y->t[j].at->order)) {
      at = x->t[i].at;
      if (__builtin_mul_overflow(x->t[i++].k, kx, &k)) return false;
    } else if (i >= x->n || y->t[j].at->order < x->t[i].at->order) {
      at = y->t[j].at;
      if (__builtin_mul_overflow(y->t[j++].k, ky, &k)) return false;
    } else {
      at = x->t[i].at;
      if (__builtin_mul_overflow(x->t[i++].k, kx, &k) || __builtin_mul_overflow(y->t[j++].k, ky, &t) ||
          __builtin_add_overflow(k, t, &k))
        return false;
    }
    if (k) o.t[o.n++] = (Term){k, at};
  }
  *r = o;
  return combine(c, r);
}

/* The y that x / c * c + x % c = y joins, or NULL: y = x for the div atom
 * x / c and the mod atom x % c, and also y = x / c1 for x / (c1 * c2) and
 * (x / c1) % c2 (nested divisions were folded). */
static const Lin *joined(const Atom *d, const Atom *m) {
  if (d->kind != AT_DIV || m->kind != AT_MOD || !same_kind(m->ty, d->ty)) return NULL;
  if (m->den == d->den && lin_equal(&m->num, &d->num)) return &d->num;
  const Lin *y = &m->num;
  if (y->n != 1 || y->c != 0 || y->t[0].k != 1) return NULL;
  const Atom *in = y->t[0].at;
  int64_t dd;
  if (in->kind == AT_DIV && same_kind(in->ty, d->ty) && lin_equal(&in->num, &d->num) &&
      !__builtin_mul_overflow(in->den, m->den, &dd) && dd == d->den)
    return y;
  return NULL;
}

/* k * c * (x / c) + k * (x % c) -> k * x (C truncation keeps this for every
 * x). The sum is combined again: nested pairs (split + fuse twice) collapse. */
static bool combine(Ctx *c, Lin *l) {
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].at->kind != AT_DIV) continue;
    for (int j = 0; j < l->n; j++) {
      const Lin *y = joined(l->t[i].at, l->t[j].at);
      int64_t km;
      if (!y || __builtin_mul_overflow(l->t[j].k, l->t[j].at->den, &km) || km != l->t[i].k) continue;
      Lin rest = {ARENA_ARRAY(&c->scratch, Term, l->n), 0, l->c};
      for (int x = 0; x < l->n; x++)
        if (x != i && x != j) rest.t[rest.n++] = l->t[x];
      return lin_add(c, &rest, 1, y, l->t[j].k, l);
    }
  }
  return true;
}

static Lin make_div(Ctx *c, AtomKind kind, const Lin *num, int64_t d, const Type *ty, const Expr *den_e, Expr *orig,
                    int depth);

static Lin atom_divmod(Ctx *c, AtomKind kind, const Lin *num, int64_t d, const Type *ty, const Expr *den_e, Expr *orig) {
  Ivl n = iv_meet(lin_ivl(num), type_ivl(ty));
  Atom a = {.kind = kind, .num = *num, .den = d, .den_e = den_e, .ty = ty, .orig = orig};
  a.iv = kind == AT_DIV ? iv_div(n, d) : iv_mod(n, d);
  return lin_atom(c, intern(c, &a));
}

/* num / d or num % d (kind) computed in C type ty, d > 0; orig: an input node
 * with that value. */
static Lin make_div(Ctx *c, AtomKind kind, const Lin *num, int64_t d, const Type *ty, const Expr *den_e, Expr *orig,
                    int depth) {
  bool div = kind == AT_DIV;
  Ivl n = iv_meet(lin_ivl(num), type_ivl(ty));
  if (depth > ARITH_MAX_DEPTH) return atom_divmod(c, kind, num, d, ty, den_e, orig);
  if (num->n == 0) return lin_const(div ? num->c / d : num->c % d);
  if (d == 1) return div ? *num : lin_const(0);
  if (n.lo > -d && n.hi < d) return div ? lin_const(0) : *num;
  if (num->n == 1 && num->c == 0 && num->t[0].k == 1) {
    const Atom *in = num->t[0].at;
    int64_t dd;
    /* (x / d1) / d2 -> x / (d1 * d2) */
    if (div && in->kind == AT_DIV && same_kind(in->ty, ty) && !__builtin_mul_overflow(in->den, d, &dd) &&
        iv_within((Ivl){dd, dd}, type_ivl(ty)))
      return make_div(c, AT_DIV, &in->num, dd, ty, NULL, NULL, depth + 1);
    /* (x % m) % d -> x % d when d divides m */
    if (!div && in->kind == AT_MOD && same_kind(in->ty, ty) && in->den % d == 0)
      return make_div(c, AT_MOD, &in->num, d, ty, den_e, NULL, depth + 1);
  }
  /* num = D + R with d dividing every coefficient of D; both of one sign. */
  for (int sign = 1; sign >= -1; sign -= 2) {
    if (sign > 0 ? n.lo < 0 : n.hi > 0) continue;
    Lin D = {ARENA_ARRAY(&c->scratch, Term, num->n), 0, 0}, R = {ARENA_ARRAY(&c->scratch, Term, num->n), 0, 0};
    for (int i = 0; i < num->n; i++) {
      if (num->t[i].k % d == 0) D.t[D.n++] = num->t[i];
      else R.t[R.n++] = num->t[i];
    }
    /* constant: R gets the remainder in [0, d) (sign > 0) or (-d, 0] */
    int64_t q = num->c / d, r = num->c % d;
    if (sign > 0 && r < 0) q--, r += d;
    if (sign < 0 && r > 0) q++, r -= d;
    if (__builtin_mul_overflow(q, d, &D.c)) break;
    R.c = r;
    if (D.n == 0 && q == 0) break;
    Ivl id = lin_ivl(&D), ir = lin_ivl(&R);
    if (sign > 0 ? id.lo < 0 || ir.lo < 0 : id.hi > 0 || ir.hi > 0) continue;
    Lin rpart = make_div(c, kind, &R, d, ty, den_e, NULL, depth + 1);
    if (!div) return rpart;
    Lin Dq = {ARENA_ARRAY(&c->scratch, Term, D.n), D.n, q}, sum;
    for (int i = 0; i < D.n; i++) Dq.t[i] = (Term){D.t[i].k / d, D.t[i].at};
    if (lin_add(c, &Dq, 1, &rpart, 1, &sum)) return sum;
    break;
  }
  return atom_divmod(c, kind, num, d, ty, den_e, orig);
}

static Lin opaque(Ctx *c, Expr *e) {
  Atom a = {.kind = AT_LEAF, .leaf = e, .ty = e->type, .iv = type_ivl(e->type)};
  if (e->kind == EX_VAR) {
    for (int i = 0; i < c->nranges; i++)
      if (c->ranges[i].var == e->var) a.iv = iv_meet(a.iv, (Ivl){c->ranges[i].lo == INT64_MIN ? -BIG : c->ranges[i].lo,
                                                                c->ranges[i].hi == INT64_MAX ? BIG : c->ranges[i].hi});
  } else if (e->macro) {
    int64_t v;
    if (ir_const_int(e, &v)) a.iv = iv_meet(a.iv, (Ivl){v, v});
  } else if (e->kind == EX_BINARY && e->op == OP_BAND) {
    int64_t m;
    if ((ir_const_int(e->b, &m) || ir_const_int(e->a, &m)) && m >= 0) a.iv = iv_meet(a.iv, (Ivl){0, m});
  }
  return lin_atom(c, intern(c, &a));
}

/* l is one named constant (#define) of known value, and nothing else. */
static bool named_value(const Lin *l) {
  return l->n == 1 && l->c == 0 && l->t[0].k == 1 && l->t[0].at->kind == AT_LEAF && l->t[0].at->leaf->macro &&
         l->t[0].at->iv.lo == l->t[0].at->iv.hi;
}

/* The linear form of integer expression e. False only past the depth cap. */
static bool lin_of(Ctx *c, Expr *e, int depth, Lin *out) {
  if (depth > ARITH_MAX_DEPTH) return false;
  const Type *t = e->type;
  Lin x, y;
  if (!type_is_integer(t)) return false;
  if (e->macro) { /* a named constant stays named: an atom of known value */
    *out = opaque(c, e);
    return true;
  }
  switch (e->kind) {
  case EX_INT:
    if (!iv_within((Ivl){e->ival, e->ival}, type_ivl(t))) break;
    *out = lin_const(e->ival);
    return true;
  case EX_CAST: {
    if (!type_is_integer(e->a->type)) break;
    if (!lin_of(c, e->a, depth + 1, &x)) return false;
    /* value-preserving conversion: the operand's values fit the new type */
    if (!iv_within(iv_meet(lin_ivl(&x), type_ivl(e->a->type)), type_ivl(t))) break;
    *out = x;
    goto check;
  }
  case EX_UNARY:
    if (e->op != OP_PLUS && e->op != OP_NEG) break;
    if (!lin_of(c, e->a, depth + 1, &x)) return false;
    if (e->op == OP_PLUS) *out = x;
    else if (!lin_add(c, &x, -1, &(Lin){0}, 0, out)) break;
    goto check;
  case EX_BINARY:
    switch (e->op) {
    case OP_ADD:
    case OP_SUB:
      if (!lin_of(c, e->a, depth + 1, &x) || !lin_of(c, e->b, depth + 1, &y)) return false;
      if (!lin_add(c, &x, 1, &y, e->op == OP_ADD ? 1 : -1, out)) break;
      goto check;
    case OP_MUL:
      if (!lin_of(c, e->a, depth + 1, &x) || !lin_of(c, e->b, depth + 1, &y)) return false;
      /* oco * OB is linear in oco: the named constant takes its value (kept
       * by name unless the form shrinks, as oco * OB - oco * 4 does) */
      if (named_value(&y) && !named_value(&x)) y = lin_const((int64_t)y.t[0].at->iv.lo);
      else if (named_value(&x) && !named_value(&y)) x = lin_const((int64_t)x.t[0].at->iv.lo);
      if (y.n == 0) {
        if (!lin_add(c, &x, y.c, &(Lin){0}, 0, out)) break;
      } else if (x.n == 0) {
        if (!lin_add(c, &y, x.c, &(Lin){0}, 0, out)) break;
      } else {
        break;
      }
      goto check;
    case OP_DIV:
    case OP_MOD: {
      if (!lin_of(c, e->b, depth + 1, &y)) return false;
      if (y.n == 1 && y.c == 0 && y.t[0].k == 1 && y.t[0].at->iv.lo == y.t[0].at->iv.hi) /* a named constant */
        y = lin_const((int64_t)y.t[0].at->iv.lo);
      if (y.n != 0 || y.c == 0 || y.c == INT64_MIN) break;
      if (!lin_of(c, e->a, depth + 1, &x)) return false;
      AtomKind kind = e->op == OP_DIV ? AT_DIV : AT_MOD;
      const Expr *den_e = skip_implicit(e->b)->macro && y.c > 0 ? e->b : NULL;
      Lin r = make_div(c, kind, &x, y.c > 0 ? y.c : -y.c, t, den_e, y.c > 0 ? e : NULL, depth);
      /* x / -d == -(x / d); x % -d == x % d */
      if (y.c < 0 && kind == AT_DIV) {
        if (!lin_add(c, &r, -1, &(Lin){0}, 0, out)) break;
      } else {
        *out = r;
      }
      goto check;
    }
    default:
      break;
    }
    break;
  default:
    break;
  }
  *out = opaque(c, e);
  return true;
check:
  /* An unsigned node is linear only when it provably does not wrap. */
  if (!t->is_signed && !iv_within(lin_ivl(out), type_ivl(t))) *out = opaque(c, e);
  return true;
}

/* ---------------- rebuilding ---------------- */

typedef struct {
  Ctx *c;
  bool build; /* false: dry run (sizes and checks only) */
  bool ok;
  int size;
} Bld;

typedef struct {
  Expr *e;        /* NULL in a dry run */
  const Type *t;  /* IR type */
  const Type *pt; /* printed type (below implicit casts) */
  bool icast;     /* e is an implicit cast (may be made explicit) */
  Ivl iv;
} RB;

static RB rb_fail(Bld *b) {
  b->ok = false;
  return (RB){0};
}

static RB rb_expr(Bld *b, Expr *e, Ivl iv) {
  b->size += esize(e);
  return (RB){b->build ? e : NULL, e->type, skip_implicit(e)->type, e->kind == EX_CAST && e->implicit, iv};
}

static RB rb_const(Bld *b, int64_t v, const Type *t) {
  if (!b->ok || !iv_within((Ivl){v, v}, type_ivl(t))) return rb_fail(b);
  b->size += 1;
  bool small = v >= INT32_MIN && v <= INT32_MAX;
  const Type *lt = small ? &ty_int : t;
  RB r = {NULL, t, lt, false, {v, v}};
  if (small && !same_kind(t, &ty_int)) {
    if (!same_kind(type_common(&ty_int, t), t)) return rb_fail(b);
    r.icast = true;
  }
  if (b->build) r.e = ir_cast(b->c->out, ir_int(b->c->out, v, lt, (SrcLoc){0}), t, true);
  return r;
}

/* The implicit cast on top of x becomes explicit. */
static bool rb_explicit(Bld *b, RB *x) {
  if (!x->icast) return false;
  b->size += 1;
  if (b->build) {
    Expr *n = ARENA_NEW(b->c->out, Expr);
    *n = *x->e;
    n->implicit = false;
    x->e = n;
  }
  x->pt = x->t;
  x->icast = false;
  return true;
}

/* x converted to t: its values must fit t. */
static RB rb_conv(Bld *b, RB x, const Type *t) {
  if (!b->ok) return x;
  if (same_kind(x.t, t)) return x;
  if (!iv_within(x.iv, type_ivl(t))) return rb_fail(b);
  RB r = {NULL, t, x.pt, true, x.iv};
  if (b->build) r.e = ir_cast(b->c->out, x.e, t, true);
  if (!same_kind(type_common(x.pt, t), t)) rb_explicit(b, &r);
  return r;
}

static RB rb_binary(Bld *b, Op op, RB x, RB y, const Type *t, Ivl iv) {
  if (!b->ok) return x;
  if (!iv_within(iv, type_ivl(t))) return rb_fail(b);
  /* The C compiler must re-insert exactly our conversions. */
  if (!same_kind(type_common(x.pt, y.pt), t) && !rb_explicit(b, &x) && !rb_explicit(b, &y)) return rb_fail(b);
  if (!same_kind(type_common(x.pt, y.pt), t)) return rb_fail(b);
  b->size += 1;
  RB r = {NULL, t, t, false, iv};
  if (b->build) r.e = ir_binary(b->c->out, op, x.e, y.e, t, (SrcLoc){0});
  return r;
}

static RB rb_lin(Bld *b, const Lin *l, const Type *t, Ivl known);

/* A div/mod atom made from an input node has the value of that node's
 * operand, which lies in the node type's range where the input is defined. */
static Ivl num_known(const Atom *at) { return at->orig ? type_ivl(at->ty) : (Ivl){-BIG, BIG}; }

static RB rb_atom(Bld *b, Atom *at, const Type *t) {
  if (!b->ok) return (RB){0};
  if (at->kind == AT_LEAF) return rb_conv(b, rb_expr(b, at->leaf, at->iv), t);
  if (at->rb == RB_UNKNOWN) {
    Bld dry = {b->c, false, true, 0};
    rb_lin(&dry, &at->num, at->ty, num_known(at));
    at->rb = dry.ok ? RB_NUM : at->orig ? RB_ORIG : RB_FAIL;
  }
  if (at->rb == RB_FAIL) return rb_fail(b);
  if (at->rb == RB_ORIG) return rb_conv(b, rb_expr(b, at->orig, at->iv), t);
  RB num = rb_lin(b, &at->num, at->ty, num_known(at));
  RB den = at->den_e ? rb_expr(b, (Expr *)at->den_e, (Ivl){at->den, at->den}) : rb_const(b, at->den, at->ty);
  den = rb_conv(b, den, at->ty);
  return rb_conv(b, rb_binary(b, at->kind == AT_DIV ? OP_DIV : OP_MOD, num, den, at->ty, at->iv), t);
}

/* |k| * atom in type t; known: see rb_lin */
static RB rb_term(Bld *b, const Term *tm, const Type *t, Ivl known) {
  RB x = rb_atom(b, tm->at, t);
  int64_t k = tm->k < 0 ? -tm->k : tm->k;
  if (k == 1 || !b->ok) return x;
  return rb_binary(b, OP_MUL, x, rb_const(b, k, t), t, iv_meet(iv_scale(tm->at->iv, k), known));
}

/* l in type t. `known`: an interval its value is known to lie in (the whole
 * input's value is in its type's range wherever the input is defined), which
 * bounds the last operation; the partial sums before it must fit t. */
static RB rb_lin(Bld *b, const Lin *l, const Type *t, Ivl known) {
  const Ivl all = {-BIG, BIG};
  const Type *pt = type_promote(t);
  if (!same_kind(pt, t)) return rb_conv(b, rb_lin(b, l, pt, known), t); /* arithmetic happens in int */
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k == INT64_MIN) return rb_fail(b);
  if (l->c == INT64_MIN) return rb_fail(b);
  if (l->n == 0) return rb_const(b, l->c, t);
  int first = -1, last = -1;
  for (int i = 0; i < l->n && first < 0; i++)
    if (l->t[i].k > 0) first = i;
  RB acc;
  bool const_done = false;
  if (first < 0 && l->c > 0) {
    acc = rb_const(b, l->c, t);
    const_done = true;
  } else if (first < 0) {
    first = 0;
  }
  for (int i = 0; i < l->n; i++)
    if (i != first) last = i;
  bool const_last = !const_done && l->c;
  if (first >= 0 && l->t[first].k > 0) {
    acc = rb_term(b, &l->t[first], t, last < 0 && !const_last ? known : all);
  } else if (first >= 0) {
    RB x = rb_term(b, &l->t[0], t, all);
    Ivl iv = iv_scale(x.iv, -1);
    if (last < 0 && !const_last) iv = iv_meet(iv, known);
    if (!b->ok || !iv_within(iv, type_ivl(t))) return rb_fail(b);
    if (!same_kind(type_promote(x.pt), t) && !rb_explicit(b, &x)) return rb_fail(b);
    b->size += 1;
    acc = (RB){NULL, t, t, false, iv};
    if (b->build) {
      acc.e = ARENA_NEW(b->c->out, Expr);
      acc.e->kind = EX_UNARY;
      acc.e->op = OP_NEG;
      acc.e->a = x.e;
      acc.e->type = t;
    }
  }
  for (int i = 0; i < l->n && b->ok; i++) {
    if (i == first) continue;
    RB x = rb_term(b, &l->t[i], t, all);
    bool add = l->t[i].k > 0;
    Ivl iv = iv_add(acc.iv, add ? x.iv : iv_scale(x.iv, -1));
    if (i == last && !const_last) iv = iv_meet(iv, known);
    acc = rb_binary(b, add ? OP_ADD : OP_SUB, acc, x, t, iv);
  }
  if (const_last && b->ok) {
    RB k = rb_const(b, l->c > 0 ? l->c : -l->c, t);
    acc = rb_binary(b, l->c > 0 ? OP_ADD : OP_SUB, acc, k, t, iv_meet(iv_add(acc.iv, (Ivl){l->c, l->c}), known));
  }
  return b->ok ? acc : rb_fail(b);
}

/* The size of the rebuilt form of l, the linear form of e, or -1 when it
 * cannot be built; *out the expression when build. relax: only the value
 * matters (an array index), the printed type may change. */
static int rebuild(Ctx *c, Expr *e, const Lin *l, bool relax, bool build, Expr **out) {
  Bld b = {c, build, true, 0};
  const Type *want = skip_implicit(e)->type;
  if (l->n == 0 && same_kind(type_promote(e->type), e->type) && (relax || same_kind(want, e->type))) {
    /* a constant: one literal of the expression's type */
    if (!iv_within((Ivl){l->c, l->c}, type_ivl(e->type))) return -1;
    if (build) *out = ir_int(c->out, l->c, e->type, e->loc);
    return 1;
  }
  RB r = rb_lin(&b, l, e->type, type_ivl(e->type));
  /* (char and short print as themselves but act as int in every operation) */
  if (b.ok && !relax && !same_kind(type_promote(r.pt), type_promote(want)) && !(same_kind(r.t, want) && rb_explicit(&b, &r)))
    b.ok = false;
  if (!b.ok || !same_kind(r.t, e->type)) return -1;
  if (build) *out = r.e;
  return b.size;
}

/* ---------------- driver ---------------- */

static Expr *simp(Ctx *c, Expr *e, int depth) {
  if (!e || depth > ARITH_MAX_DEPTH || !type_is_integer(e->type) || e->macro) return e;
  Expr *e2 = e;
  if (e->kind == EX_BINARY || e->kind == EX_UNARY || e->kind == EX_CAST || e->kind == EX_COND) {
    Expr *k[3] = {e->a, e->b, e->c};
    bool changed = false;
    for (int i = 0; i < 3; i++) {
      Expr *s = k[i] && type_is_integer(k[i]->type) ? simp(c, k[i], depth + 1) : k[i];
      changed |= s != k[i];
      k[i] = s;
    }
    if (changed) {
      e2 = ARENA_NEW(c->out, Expr);
      *e2 = *e;
      e2->a = k[0];
      e2->b = k[1];
      e2->c = k[2];
    }
  }
  if (e2->kind == EX_VAR || e2->kind == EX_INT || e2->kind == EX_LOAD || e2->kind == EX_CALL) return e2;
  int s2 = esize(e2);
  Lin l;
  c->natoms = 0;
  arena_free(&c->scratch);
  arena_init(&c->scratch, 0);
  if (!lin_of(c, e2, 0, &l)) return e2;
  bool relax = c->index && depth == 0;
  int s1 = rebuild(c, e2, &l, relax, false, NULL);
  if (s1 < 0 || s1 >= s2) return e2;
  Expr *r = NULL;
  rebuild(c, e2, &l, relax, true, &r);
  return r ? r : e2;
}

static void ctx_init(Ctx *c, Arena *a, const VarRange *ranges, int n) {
  memset(c, 0, sizeof *c);
  c->out = a;
  c->ranges = ranges;
  c->nranges = n;
  arena_init(&c->scratch, 0);
}

static void ctx_free(Ctx *c) {
  arena_free(&c->scratch);
  free(c->atoms);
}

/* A deep copy (subtrees past the depth cap are shared, never reached in
 * practice: the frontend limits nesting far below it). */
static Expr *simplify(Arena *a, Expr *e, const VarRange *ranges, int n, bool index) {
  if (!e || !type_is_integer(e->type)) return e;
  Ctx c;
  ctx_init(&c, a, ranges, n);
  c.index = index;
  Expr *r = simp(&c, e, 0);
  ctx_free(&c);
  /* The result shares no node with e (nor with itself). */
  return r == e ? e : ir_expr_copy(a, r);
}

Expr *arith_simplify(Arena *a, Expr *e, const VarRange *ranges, int n) { return simplify(a, e, ranges, n, false); }

Expr *arith_simplify_index(Arena *a, Expr *e, const VarRange *ranges, int n) {
  return simplify(a, e, ranges, n, true);
}

/* ---------------- kernels ---------------- */

typedef struct {
  Arena *a;
  VarRange *r;
  int n, cap;
} KWalk;

/* Interval of e over the current ranges (within its type). */
static Ivl expr_ivl(KWalk *w, Expr *e) {
  Ivl t = type_ivl(e->type);
  if (!type_is_integer(e->type)) return (Ivl){-BIG, BIG};
  Ctx c;
  ctx_init(&c, w->a, w->r, w->n);
  Lin l;
  if (lin_of(&c, e, 0, &l)) t = iv_meet(t, lin_ivl(&l));
  ctx_free(&c);
  return t;
}

/* A load with each index simplified over the current ranges (as an index:
 * arith_simplify_index), after ir_map_expr simplified the loads inside it. */
static Expr *simplify_indices(Arena *a, Expr *e, void *ctx) {
  KWalk *w = ctx;
  if (e->kind != EX_LOAD) return e;
  Expr **idx = NULL;
  for (int i = 0; i < e->buf->ndim; i++) {
    Expr *s = arith_simplify_index(w->a, e->idx[i], w->r, w->n);
    if (s == e->idx[i]) continue;
    if (!idx) {
      idx = ARENA_ARRAY(a, Expr *, e->buf->ndim);
      memcpy(idx, e->idx, sizeof *idx * (size_t)e->buf->ndim);
    }
    idx[i] = s;
  }
  if (!idx) return e;
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->idx = idx;
  return c;
}

static Expr *walk_expr(KWalk *w, Expr *e) { return ir_map_expr(w->a, e, simplify_indices, w); }

static Expr *bound(KWalk *w, Expr *e) { return arith_simplify(w->a, walk_expr(w, e), w->r, w->n); }

static int64_t clamp64(i128 v) { return v <= INT64_MIN ? INT64_MIN : v >= INT64_MAX ? INT64_MAX : (int64_t)v; }

/* The values loop s's counter takes in its body. */
static VarRange loop_range(KWalk *w, const Stmt *s) {
  const Type *vt = s->var->type;
  Ivl tr = type_ivl(vt), lo = expr_ivl(w, s->lo), hi = expr_ivl(w, s->hi), r = tr;
  bool up = s->step > 0;
  /* the first value: lo converted to the counter's type */
  if (iv_within(lo, tr)) {
    if (up) r.lo = lo.lo;
    else r.hi = lo.hi;
  }
  /* var cmp hi compares mathematically when the common type is signed or
   * both sides are non-negative */
  const Type *ct = type_common(vt, s->hi->type);
  if (ct->is_signed || (hi.lo >= 0 && (up ? r.lo >= 0 : tr.lo >= 0))) {
    if (up) r.hi = s->cmp == OP_LT ? hi.hi - 1 : hi.hi;
    else r.lo = s->cmp == OP_GT ? hi.lo + 1 : hi.lo;
  }
  r = iv_meet(r, tr);
  /* A counter that can wrap (unsigned, or narrower than int) can pass its
   * first value: then only its type bounds it. */
  if (!vt->is_signed || vt->rank < ty_int.rank) {
    i128 next = up ? r.hi + s->step : r.lo + s->step;
    if (!iv_within((Ivl){next, next}, tr)) r = tr;
  }
  return (VarRange){s->var, clamp64(r.lo), clamp64(r.hi)};
}

static void walk_stmts(KWalk *w, Stmt *s) {
  for (; s; s = s->next) {
    switch (s->kind) {
    case ST_BLOCK:
      walk_stmts(w, s->body);
      break;
    case ST_FOR: {
      s->lo = bound(w, s->lo);
      s->hi = bound(w, s->hi);
      if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->r = realloc(w->r, sizeof *w->r * (size_t)w->cap);
      }
      VarRange vr = loop_range(w, s);
      w->r[w->n++] = vr;
      walk_stmts(w, s->body);
      w->n--;
      break;
    }
    case ST_IF:
      s->cond = walk_expr(w, s->cond);
      walk_stmts(w, s->then_s);
      walk_stmts(w, s->else_s);
      break;
    case ST_ASSIGN:
      s->lhs = walk_expr(w, s->lhs);
      s->rhs = walk_expr(w, s->rhs);
      break;
    case ST_DECL:
      s->init = walk_expr(w, s->init);
      for (int i = 0; i < s->ninit; i++) s->init_list[i] = walk_expr(w, s->init_list[i]);
      break;
    }
  }
}

void arith_simplify_kernel(Arena *a, Kernel *k) {
  KWalk w = {.a = a};
  walk_stmts(&w, k->body);
  free(w.r);
}
