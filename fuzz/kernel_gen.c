/* The random-kernel generator (see kernel_gen.h).
 *
 * Values. Every expression carries its C type and a conservative range of
 * the values it can take: an integer interval (__int128, exact for every
 * type) or a float interval with a "may be NaN" flag (infinite bounds when
 * unknown). The rules are C's: integer promotions, usual arithmetic
 * conversions, wrap-around of unsigned types and of conversions to a
 * narrower integer type (implementation-defined, two's complement in gcc
 * and tcc), and undefined behaviour (refused) for signed overflow, / and %
 * by a range holding 0 or INT_MIN / -1, shifts past the width or of a
 * negative value, and a float converted to an integer type that cannot
 * hold it (NaN included). Float ranges are widened by a relative 1e-6 for
 * rounding. An operation that could be undefined is repaired (an operand
 * widened, made unsigned, masked or made non-zero) or dropped.
 *
 * Storage. Inputs hold check's ranges. Every integer variable (an output
 * array, a local, a local array) has a base range: plain stores are
 * clamped into it. Wide signed ones (32 and 64 bits) also get an
 * accumulation budget: `x += e` and `x -= e` take |e| times the most the
 * statement can run (since the variable's declaration) from it, so a read
 * is within base widened by the whole budget. Narrow and unsigned integer
 * variables take any integer value (stores wrap). Float variables read as
 * unknown, except const locals.
 *
 * Indices. Each index is in bounds over a box enclosing the loop domain
 * (counter intervals), in a form npugen's bounds check proves: affine in
 * the counters; or data-dependent through `x & m`, a uint8_t cast, or
 * `(x % K + K) % K` over a variable of at most 32 bits (whose type bounds
 * it). */
#include "fuzz/kernel_gen.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"

typedef __int128 i128;

enum {
  MAX_STORES = 64,
  MAX_DEPTH = 4,        /* loop nest depth */
  NEST_WORK = 2048,     /* most executions of a statement */
  TOTAL_WORK = 12000,   /* most executions of all statements of a kernel */
  MAX_ELEMS = 4096,     /* elements of an array parameter */
  MAX_STMTS = 40,       /* leaf statements per kernel */
};

/* ---------------- random numbers ---------------- */

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ---------------- types ---------------- */

typedef struct {
  KgKind kind;
  int rank; /* 1 char, 2 short, 3 int, 4 long, 5 long long; 0 floats */
  const char *name;
} Ty;

static const Ty ty_int = {KG_I32, 3, "int"}, ty_uint = {KG_U32, 3, "unsigned int"}, ty_long = {KG_I64, 4, "long"},
                ty_ulong = {KG_U64, 4, "unsigned long"}, ty_llong = {KG_I64, 5, "long long"},
                ty_ullong = {KG_U64, 5, "unsigned long long"}, ty_float = {KG_F32, 0, "float"},
                ty_double = {KG_F64, 0, "double"}, ty_u8 = {KG_U8, 1, "uint8_t"};

/* Every spelling; the first of each kind is the fixed-width one. */
static const Ty spellings[] = {
    {KG_I8, 1, "int8_t"},        {KG_I8, 1, "signed char"},       {KG_I8, 1, "char"},
    {KG_U8, 1, "uint8_t"},       {KG_U8, 1, "unsigned char"},     {KG_I16, 2, "int16_t"},
    {KG_I16, 2, "short"},        {KG_U16, 2, "uint16_t"},         {KG_U16, 2, "unsigned short"},
    {KG_I32, 3, "int32_t"},      {KG_I32, 3, "int"},              {KG_U32, 3, "uint32_t"},
    {KG_U32, 3, "unsigned"},     {KG_U32, 3, "unsigned int"},     {KG_I64, 4, "int64_t"},
    {KG_I64, 4, "long"},         {KG_I64, 5, "long long"},        {KG_U64, 4, "uint64_t"},
    {KG_U64, 4, "unsigned long"},{KG_U64, 5, "unsigned long long"},{KG_F32, 0, "float"},
    {KG_F64, 0, "double"},
};
enum { NSPELLINGS = sizeof spellings / sizeof spellings[0] };

static const char *const kind_names[KG_NKINDS] = {"int8",  "uint8",  "int16", "uint16", "int32",
                                                  "uint32", "int64", "uint64", "float", "double"};
const char *kg_kind_name(KgKind k) { return k < KG_NKINDS ? kind_names[k] : "?"; }

static const char *const feature_names[KG_NFEATURES] = {
    "cast", "float-to-int", "triangular", "step", "decreasing", "if", "else", "data-if", "ternary",
    "math", "abs", "shift", "bitwise", "div", "mod", "compound", "incdec", "chain", "local",
    "const-local", "local-array", "label", "data-index", "scalar-param", "define", "unsigned-wrap",
    "mixed-sign", "predeclared", "two-kernels", "scalar-write", "folded-bound", "reduction"};
const char *kg_feature_name(KgFeature f) { return f < KG_NFEATURES ? feature_names[f] : "?"; }

static bool is_float(const Ty *t) { return t->kind >= KG_F32; }
static bool is_signed(const Ty *t) {
  return t->kind == KG_I8 || t->kind == KG_I16 || t->kind == KG_I32 || t->kind == KG_I64 || is_float(t);
}
static int bits(const Ty *t) {
  static const int b[KG_NKINDS] = {8, 8, 16, 16, 32, 32, 64, 64, 32, 64};
  return b[t->kind];
}
/* Signed integers of 32 and 64 bits: their variables keep a declared range. */
static bool is_wide_signed(const Ty *t) { return t->kind == KG_I32 || t->kind == KG_I64; }

typedef struct {
  i128 lo, hi;
} Rng;

static Rng type_rng(const Ty *t) {
  int b = bits(t);
  if (is_signed(t)) return (Rng){-((i128)1 << (b - 1)), ((i128)1 << (b - 1)) - 1};
  return (Rng){0, ((i128)1 << b) - 1};
}

static const Ty *canonical(const Ty *t) {
  switch (t->kind) {
  case KG_I32: return &ty_int;
  case KG_U32: return &ty_uint;
  case KG_I64: return t->rank == 5 ? &ty_llong : &ty_long;
  case KG_U64: return t->rank == 5 ? &ty_ullong : &ty_ulong;
  case KG_F32: return &ty_float;
  case KG_F64: return &ty_double;
  default: return t;
  }
}

static const Ty *promote(const Ty *t) { return !is_float(t) && t->rank < 3 ? &ty_int : canonical(t); }

/* C11 6.3.1.8 on LP64. */
static const Ty *common(const Ty *a, const Ty *b) {
  if (a->kind == KG_F64 || b->kind == KG_F64) return &ty_double;
  if (a->kind == KG_F32 || b->kind == KG_F32) return &ty_float;
  a = promote(a);
  b = promote(b);
  if (a == b) return a;
  if (is_signed(a) == is_signed(b)) return a->rank >= b->rank ? a : b;
  const Ty *u = is_signed(a) ? b : a, *s = is_signed(a) ? a : b;
  if (u->rank >= s->rank) return u;
  if (bits(s) > bits(u)) return s;
  return s->rank == 4 ? &ty_ulong : &ty_ullong;
}

/* ---------------- value ranges ---------------- */

typedef struct {
  double lo, hi;
  bool nan;
} FR;

typedef struct {
  const Ty *t;
  Rng i; /* integer types */
  FR f;  /* float types */
} Val;

static i128 imin(i128 a, i128 b) { return a < b ? a : b; }
static i128 imax(i128 a, i128 b) { return a > b ? a : b; }
static i128 iabs(i128 a) { return a < 0 ? -a : a; }
static i128 maxabs(Rng r) { return imax(iabs(r.lo), iabs(r.hi)); }
static bool within(Rng a, Rng b) { return a.lo >= b.lo && a.hi <= b.hi; }
static int bitlen(i128 x) {
  int n = 0;
  while (x > 0) n++, x >>= 1;
  return n;
}

static FR f_unknown(void) { return (FR){-INFINITY, INFINITY, true}; }
static bool f_finite(FR f) { return !f.nan && isfinite(f.lo) && isfinite(f.hi); }
static double fmag(FR f) { return fmax(fabs(f.lo), fabs(f.hi)); }

/* Outward by rounding slack relative to mag; unknown past lim. */
static FR f_widen(FR f, double mag, const Ty *t) {
  if (!f_finite(f)) return f;
  double lim = t->kind == KG_F32 ? 1e37 : 1e300;
  if (mag > lim || fmag(f) > lim) return f_unknown();
  double d = mag * 1e-6 + 1e-37;
  return (FR){f.lo - d, f.hi + d, false};
}

static Val ival(const Ty *t, i128 lo, i128 hi) { return (Val){t, {lo, hi}, {0, 0, false}}; }
static Val fval(const Ty *t, FR f) { return (Val){t, {0, 0}, f}; }

/* v converted to type to (a cast, an assignment, an argument); false when
 * that is undefined for some value in range (float to integer). */
static bool conv(Val v, const Ty *to, Val *out) {
  if (is_float(to)) {
    FR f = is_float(v.t) ? v.f : (FR){(double)v.i.lo, (double)v.i.hi, false};
    if (to->kind == KG_F32 && f_finite(f)) {
      if (fmag(f) > 3e38) f = f_unknown();
      else f = (FR){(float)f.lo, (float)f.hi, false};
    }
    *out = fval(to, f_widen(f, fmag(f), to));
    return true;
  }
  Rng tr = type_rng(to);
  if (is_float(v.t)) {
    FR f = v.f;
    if (!f_finite(f)) return false;
    int b = bits(to);
    double lo_lim = is_signed(to) ? (b == 64 ? -9.2e18 : (double)tr.lo + 1) : -0.99;
    double hi_lim = b == 64 ? (is_signed(to) ? 9.2e18 : 1.8e19) : (double)tr.hi - 1;
    if (f.lo < lo_lim || f.hi > hi_lim) return false;
    i128 lo = (i128)trunc(f.lo), hi = (i128)trunc(f.hi);
    *out = ival(to, imax(lo, tr.lo), imin(hi, tr.hi));
    return true;
  }
  *out = within(v.i, tr) ? ival(to, v.i.lo, v.i.hi) : ival(to, tr.lo, tr.hi);
  return true;
}

enum { O_ADD, O_SUB, O_MUL, O_DIV, O_MOD, O_SHL, O_SHR, O_AND, O_OR, O_XOR,
       O_LT, O_LE, O_GT, O_GE, O_EQ, O_NE, O_LAND, O_LOR, NOPS };
static const char *const op_text[NOPS] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
                                          "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
static const int op_prec[NOPS] = {12, 12, 13, 13, 13, 11, 11, 8, 6, 7, 10, 10, 10, 10, 9, 9, 5, 4};
enum { P_COND = 3, P_UNARY = 15, P_PRIMARY = 16 };

static bool int_only(int op) { return op == O_MOD || (op >= O_SHL && op <= O_XOR); }

static bool f_arith(int op, FR a, FR b, const Ty *ct, FR *r) {
  if (!f_finite(a) || !f_finite(b) || (op == O_DIV && b.lo <= 0 && b.hi >= 0)) {
    *r = f_unknown();
    return true;
  }
  double c[4], lo, hi;
  switch (op) {
  case O_ADD: lo = a.lo + b.lo, hi = a.hi + b.hi; break;
  case O_SUB: lo = a.lo - b.hi, hi = a.hi - b.lo; break;
  default:
    if (op == O_MUL) c[0] = a.lo * b.lo, c[1] = a.lo * b.hi, c[2] = a.hi * b.lo, c[3] = a.hi * b.hi;
    else c[0] = a.lo / b.lo, c[1] = a.lo / b.hi, c[2] = a.hi / b.lo, c[3] = a.hi / b.hi;
    lo = fmin(fmin(c[0], c[1]), fmin(c[2], c[3]));
    hi = fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
  }
  double mag = fmax(fmax(fmag(a), fmag(b)), fmax(fabs(lo), fabs(hi)));
  *r = f_widen((FR){lo, hi, false}, mag, ct);
  return true;
}

static Rng bitwise(int op, Rng a, Rng b) {
  if (a.lo >= 0 && b.lo >= 0) {
    if (op == O_AND) return (Rng){0, imin(a.hi, b.hi)};
    return (Rng){0, ((i128)1 << bitlen(imax(a.hi, b.hi))) - 1};
  }
  if (op == O_AND && a.lo >= 0) return (Rng){0, a.hi};
  if (op == O_AND && b.lo >= 0) return (Rng){0, b.hi};
  i128 k = (i128)1 << bitlen(imax(maxabs(a), maxabs(b)));
  return (Rng){-k, k - 1};
}

static bool mul_ovf(i128 a, i128 b, i128 *r) { return __builtin_mul_overflow(a, b, r); }

/* a op b in the (common, converted) integer type ct. */
static bool i_arith(int op, Rng a, Rng b, const Ty *ct, Rng *r) {
  Rng tr = type_rng(ct), v;
  bool s = is_signed(ct);
  i128 c[4];
  switch (op) {
  case O_ADD: v = (Rng){a.lo + b.lo, a.hi + b.hi}; break;
  case O_SUB: v = (Rng){a.lo - b.hi, a.hi - b.lo}; break;
  case O_MUL:
    if (mul_ovf(a.lo, b.lo, &c[0]) | mul_ovf(a.lo, b.hi, &c[1]) | mul_ovf(a.hi, b.lo, &c[2]) |
        mul_ovf(a.hi, b.hi, &c[3])) {
      if (s) return false;
      *r = tr;
      return true;
    }
    v = (Rng){imin(imin(c[0], c[1]), imin(c[2], c[3])), imax(imax(c[0], c[1]), imax(c[2], c[3]))};
    break;
  case O_DIV:
    if (b.lo <= 0 && b.hi >= 0) return false;
    c[0] = a.lo / b.lo, c[1] = a.lo / b.hi, c[2] = a.hi / b.lo, c[3] = a.hi / b.hi;
    v = (Rng){imin(imin(c[0], c[1]), imin(c[2], c[3])), imax(imax(c[0], c[1]), imax(c[2], c[3]))};
    break;
  case O_MOD: {
    if (b.lo <= 0 && b.hi >= 0) return false;
    if (s && a.lo == tr.lo && b.lo <= -1 && b.hi >= -1) return false;
    i128 bm = maxabs(b) - 1;
    v = (Rng){a.lo >= 0 ? 0 : imax(a.lo, -bm), a.hi <= 0 ? 0 : imin(a.hi, bm)};
    if (a.lo >= 0 && a.hi < imin(iabs(b.lo), iabs(b.hi))) v = a;
    break;
  }
  default: v = bitwise(op, a, b); break;
  }
  if (within(v, tr)) {
    *r = v;
    return true;
  }
  if (s) return false;
  *r = tr; /* unsigned: wraps */
  return true;
}

/* `a op b` by C's rules; false when it can be undefined. */
static bool val_binop(int op, Val a, Val b, Val *r) {
  if (op >= O_LT) {
    *r = ival(&ty_int, 0, 1);
    return true;
  }
  if (int_only(op) && (is_float(a.t) || is_float(b.t))) return false;
  if (op == O_SHL || op == O_SHR) {
    const Ty *lt = promote(a.t), *rt = promote(b.t);
    Val ca, cb;
    conv(a, lt, &ca);
    conv(b, rt, &cb);
    int w = bits(lt);
    if (cb.i.lo < 0 || cb.i.hi > w - 1) return false;
    if (op == O_SHL) {
      if (is_signed(lt) && ca.i.lo < 0) return false;
      if (bitlen(ca.i.hi) + (int)cb.i.hi <= w - (is_signed(lt) ? 1 : 0))
        *r = ival(lt, ca.i.lo << (int)cb.i.lo, ca.i.hi << (int)cb.i.hi);
      else if (is_signed(lt)) return false;
      else *r = ival(lt, type_rng(lt).lo, type_rng(lt).hi);
      return true;
    }
    i128 c[4] = {ca.i.lo >> (int)cb.i.lo, ca.i.lo >> (int)cb.i.hi, ca.i.hi >> (int)cb.i.lo, ca.i.hi >> (int)cb.i.hi};
    *r = ival(lt, imin(imin(c[0], c[1]), imin(c[2], c[3])), imax(imax(c[0], c[1]), imax(c[2], c[3])));
    return true;
  }
  const Ty *ct = common(a.t, b.t);
  Val ca, cb;
  if (!conv(a, ct, &ca) || !conv(b, ct, &cb)) return false;
  if (is_float(ct)) {
    FR f;
    f_arith(op, ca.f, cb.f, ct, &f);
    *r = fval(ct, f);
    return true;
  }
  Rng v;
  if (!i_arith(op, ca.i, cb.i, ct, &v)) return false;
  *r = ival(ct, v.lo, v.hi);
  return true;
}

enum { U_NEG, U_BNOT, U_LNOT, U_PLUS };

static bool val_unary(int op, Val a, Val *r) {
  if (op == U_LNOT) {
    *r = ival(&ty_int, 0, 1);
    return true;
  }
  if (is_float(a.t)) {
    if (op == U_BNOT) return false;
    *r = op == U_NEG ? fval(a.t, (FR){-a.f.hi, -a.f.lo, a.f.nan}) : a;
    return true;
  }
  const Ty *pt = promote(a.t);
  Val c;
  conv(a, pt, &c);
  Rng tr = type_rng(pt), v = c.i;
  if (op == U_NEG) {
    if (is_signed(pt)) {
      if (v.lo == tr.lo) return false;
      v = (Rng){-v.hi, -v.lo};
    } else if (v.hi == 0) {
      v = (Rng){0, 0};
    } else {
      v = v.lo >= 1 ? (Rng){tr.hi + 1 - v.hi, tr.hi + 1 - v.lo} : tr;
    }
  } else if (op == U_BNOT) {
    v = is_signed(pt) ? (Rng){-v.hi - 1, -v.lo - 1} : (Rng){tr.hi - v.hi, tr.hi - v.lo};
  }
  *r = ival(pt, v.lo, v.hi);
  return true;
}

/* ---------------- the generator ---------------- */

typedef struct {
  const char *s; /* C text */
  int prec;
  Val v;
  bool cst;  /* a constant expression */
  unsigned f; /* KgFeature bits it uses (counted when it is printed) */
} E;

typedef struct {
  char name[16];
  const Ty *t;
  bool is_array, is_const, writable, is_scalar_param;
  int ndim;
  int64_t dims[KG_MAX_DIMS];
  Rng base, read; /* integer types: stores fit base; a read is in read */
  FR fread;       /* float types: a read */
  i128 acc_left;  /* what += and -= may still add (wide signed) */
  i128 decl_mult; /* executions of the declaration's scope */
} Store;

typedef struct {
  char name[8];
  const Ty *t;
  Rng r;
} Counter;

typedef struct {
  char name[8];
  bool is_float;
  i128 ival;
  double fval;
  const Ty *t;
} Define;

typedef struct {
  uint64_t rng;
  Arena a;
  StrBuf sb; /* the current kernel's body */
  KgCase *c;
  KgKernel *k;
  Store st[MAX_STORES];
  int nst;
  Counter ctr[MAX_DEPTH];
  int nctr;
  Define defs[6];
  int ndefs;
  i128 mult;  /* most executions of the point being generated */
  long work;  /* of the current kernel */
  int ind;
  int nlocals, nlabels, nstmts;
  int index_depth; /* indices inside indices */
  bool predeclared;
  const Ty *pre_ty;
  bool uses_math, uses_abs;
  const char *acc_lhs; /* the next loop's body is `acc_lhs += e;` alone */
  int acc_store;
} G;

static uint64_t rnd(G *g) { return mix64(g->rng += 0x9e3779b97f4a7c15ull); }
static int below(G *g, int n) { return n > 0 ? (int)(rnd(g) % (uint64_t)n) : 0; }
static bool chance(G *g, int percent) { return below(g, 100) < percent; }
static int pick_w(G *g, const int *w, int n) {
  int t = 0;
  for (int i = 0; i < n; i++) t += w[i];
  int r = below(g, t);
  for (int i = 0; i < n; i++)
    if ((r -= w[i]) < 0) return i;
  return n - 1;
}
static void feat(G *g, KgFeature f) { g->c->features[f]++; }
/* Counts the features of an expression that is printed. */
static void commit(G *g, unsigned f) {
  for (int i = 0; i < KG_NFEATURES; i++)
    if (f & (1u << i)) feat(g, (KgFeature)i);
}

static const Ty *spelling_of(G *g, KgKind k) {
  const Ty *first = NULL, *opts[4];
  int n = 0;
  for (int i = 0; i < NSPELLINGS; i++)
    if (spellings[i].kind == k) {
      if (!first) first = &spellings[i];
      opts[n++] = &spellings[i];
    }
  return chance(g, 65) ? first : opts[below(g, n)];
}

static KgKind random_kind(G *g) {
  static const int w[KG_NKINDS] = {12, 10, 8, 7, 14, 8, 9, 6, 16, 12};
  return (KgKind)pick_w(g, w, KG_NKINDS);
}

/* ---------------- expressions: text ---------------- */

/* e as an operand that binds at least as tightly as need; now and then
 * with redundant parentheses, but not around text that starts with a
 * name: tree-sitter-c reads `(t) + u * 2`, `(x[i]) && u` as casts
 * (fuzz/regressions/kgen_paren_name_cast.c, open). */
static const char *paren(G *g, E e, int need) {
  bool extra = !(isalpha((unsigned char)e.s[0]) || e.s[0] == '_') && chance(g, e.prec < P_PRIMARY ? 4 : 2);
  return e.prec < need || extra ? arena_printf(&g->a, "(%s)", e.s) : e.s;
}

static E mk(const char *s, int prec, Val v) { return (E){s, prec, v, false, 0}; }
static E with(E e, KgFeature f) {
  e.f |= 1u << f;
  return e;
}
static E cst(E e) {
  e.cst = true;
  return e;
}

static E e_bin(G *g, int op, E a, E b, Val v) {
  int p = op_prec[op];
  const char *as = paren(g, a, p), *bs = paren(g, b, p + 1);
  if ((op == O_SUB || op == O_ADD) && bs[0] == op_text[op][0]) bs = arena_printf(&g->a, "(%s)", bs);
  /* mostly "a op b"; also without spaces when no token can merge (not
   * after a number: 0x1E-1 is one pp-number), with a comment, or broken
   * across lines */
  char l = as[strlen(as) - 1], f = bs[0];
  bool ident = (as[0] == '_' || isalpha((unsigned char)as[0])) && strspn(as, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == strlen(as);
  bool tight = (l == ')' || l == ']' || ident) && (f == '(' || f == '_' || isalnum((unsigned char)f));
  int r = below(g, 100);
  const char *fmt = r < 6 && tight ? "%s%s%s" : r < 8 ? "%s %s /* c */ %s" : r < 9 ? "%s /* c */%s %s" : r < 10 ? "%s %s\n        %s" : "%s %s %s";
  E e = mk(arena_printf(&g->a, fmt, as, op_text[op], bs), p, v);
  e.cst = a.cst && b.cst;
  e.f = a.f | b.f;
  if (op <= O_XOR && !is_float(v.t) && !is_float(a.v.t) && !is_float(b.v.t) &&
      is_signed(promote(a.v.t)) != is_signed(promote(b.v.t)))
    e = with(e, KG_F_MIXED_SIGN);
  return e;
}

static E e_unary(G *g, int op, E a, Val v) {
  static const char *const t[] = {"-", "~", "!", "+"};
  const char *as = paren(g, a, P_UNARY);
  if ((as[0] == '-' || as[0] == '+') && (op == U_NEG || op == U_PLUS)) as = arena_printf(&g->a, "(%s)", as);
  E e = mk(arena_printf(&g->a, "%s%s", t[op], as), P_UNARY, v);
  e.cst = a.cst;
  e.f = a.f;
  return e;
}

/* (T)a; the caller knows the conversion is defined. */
static E e_cast(G *g, const Ty *t, E a) {
  Val v;
  conv(a.v, t, &v);
  E e = mk(arena_printf(&g->a, "(%s)%s", t->name, paren(g, a, P_UNARY)), P_UNARY, v);
  e.cst = a.cst;
  e.f = a.f | 1u << KG_F_CAST;
  return e;
}

/* An integer constant of type int (long past it), as a plain literal. */
static E int_lit(G *g, i128 v) {
  bool big = v > INT32_MAX || v < INT32_MIN;
  const Ty *t = big ? &ty_long : &ty_int;
  if (v < 0) {
    Val pv = ival(t, -v, -v), r;
    val_unary(U_NEG, pv, &r);
    return cst(mk(arena_printf(&g->a, "-%lld%s", (long long)-v, big ? "L" : ""), P_UNARY, r));
  }
  return cst(mk(arena_printf(&g->a, "%lld%s", (long long)v, big ? "L" : ""), P_PRIMARY, ival(t, v, v)));
}

/* A random integer literal, with C11 6.4.4.1's type for its spelling. */
static E rand_int_lit(G *g) {
  static const int64_t pool[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 16, 17, 31, 32, 63, 64, 100, 127, 128,
                                 255, 256, 1000, 4095, 32767, 65535, 65536, 100000, 2147483647LL,
                                 2147483648LL, 4294967295LL, 4294967296LL};
  int n = sizeof pool / sizeof pool[0];
  int64_t v = pool[chance(g, 75) ? below(g, 22) : below(g, n)];
  bool hex = chance(g, 15), oct = hex && v && chance(g, 25); /* both are "not decimal" for the type */
  static const char *const sfx[] = {"", "u", "U", "l", "L", "ll", "LL", "ul", "UL", "ull", "lu"};
  const char *sf = chance(g, 75) ? "" : sfx[below(g, 11)];
  bool has_u = strchr(sf, 'u') || strchr(sf, 'U');
  int nl = (int)(strchr(sf, 'l') ? 1 : 0) + (int)(strchr(sf, 'L') ? 1 : 0) + (strstr(sf, "ll") || strstr(sf, "LL") ? 1 : 0);
  if (strstr(sf, "ll") || strstr(sf, "LL")) nl = 2;
  const Ty *cands[6];
  int nc = 0;
  if (nl == 0) {
    if (!has_u) cands[nc++] = &ty_int;
    if (has_u || hex) cands[nc++] = &ty_uint;
  }
  if (nl <= 1) {
    if (!has_u) cands[nc++] = &ty_long;
    if (has_u || hex) cands[nc++] = &ty_ulong;
  }
  if (!has_u) cands[nc++] = &ty_llong;
  if (has_u || hex) cands[nc++] = &ty_ullong;
  const Ty *t = cands[nc - 1];
  for (int i = 0; i < nc; i++)
    if (v <= type_rng(cands[i]).hi) {
      t = cands[i];
      break;
    }
  E e = mk(oct   ? arena_printf(&g->a, "0%llo%s", (unsigned long long)v, sf)
           : hex ? arena_printf(&g->a, chance(g, 80) ? "0x%llX%s" : "0X%llx%s", (unsigned long long)v, sf)
                 : arena_printf(&g->a, "%lld%s", (long long)v, sf),
           P_PRIMARY, ival(t, v, v));
  if (chance(g, 12) && v) {
    Val r;
    if (val_unary(U_NEG, e.v, &r)) e = mk(arena_printf(&g->a, "-%s", e.s), P_UNARY, r);
  }
  return cst(e);
}

static E float_lit(G *g, bool single) {
  static const char *const exact[] = {"0.0", "0.5", "0.25", "0.125", "1.0", "1.5", "2.0", "3.0", "4.0", "10.0",
                                      "100.0", "0.75", "2.5", "1e3", "6.25e-2", "0x1p-3", "0x1.8p1", "3.", ".5", "1E-1"};
  static const char *const inexact[] = {"0.1", "0.2", "0.3", "1e-3", "0.7", "3.14159", "2.71828", "1e-6"};
  int n = sizeof exact / sizeof exact[0];
  /* non-dyadic values only as float literals: tcc reads a double literal
   * through long double, which may round differently from gcc */
  const char *t = single && chance(g, 30) ? inexact[below(g, 8)] : exact[below(g, n - 1)];
  if (!single && !strcmp(t, "1E-1")) t = "1.25";
  double v = strtod(t, NULL);
  if (single) v = (float)v;
  const Ty *ty = single ? &ty_float : &ty_double;
  const char *s = single ? arena_printf(&g->a, "%s%s", t, chance(g, 80) ? "f" : "F") : t;
  return cst(mk(s, P_PRIMARY, fval(ty, (FR){v, v, false})));
}

/* ---------------- expressions: repairs ---------------- */

static E gen_expr(G *g, int depth, int want);
enum { W_ANY, W_INT, W_FLOAT };

static E binop_or(G *g, int op, E a, E b, E fallback) {
  Val v;
  return val_binop(op, a.v, b.v, &v) ? e_bin(g, op, a, b, v) : fallback;
}

/* A float clamped into [lo, hi] (integers): fminf(fmaxf(e, lo), hi). NaN
 * gives lo (fmax returns the other operand). */
static E clamp_float(G *g, E e, int64_t lo, int64_t hi) {
  bool d = e.v.t->kind == KG_F64;
  g->uses_math = true;
  const char *s = arena_printf(&g->a, "fmin%s(fmax%s(%s, %lld.0%s), %lld.0%s)", d ? "" : "f", d ? "" : "f", e.s,
                               (long long)lo, d ? "" : "f", (long long)hi, d ? "" : "f");
  E r = mk(s, P_PRIMARY, fval(d ? &ty_double : &ty_float, (FR){(double)lo, (double)hi, false}));
  r.f = e.f | 1u << KG_F_MATH;
  return r;
}

/* A float made an integer of type t (clamped when its range needs it). */
static E to_int(G *g, E e, const Ty *t) {
  Val v;
  if (!conv(e.v, t, &v) || chance(g, 20)) {
    Rng tr = type_rng(t);
    int64_t lim = chance(g, 50) ? 100 : 100000;
    int64_t lo = is_signed(t) ? (int64_t)imax(tr.lo + 1, -lim) : 0, hi = (int64_t)imin(tr.hi - 1, lim);
    e = clamp_float(g, e, lo, hi);
  }
  return with(e_cast(g, t, e), KG_F_FLOAT_TO_INT);
}

static E as_int(G *g, E e) {
  if (!is_float(e.v.t)) return e;
  static const KgKind k[] = {KG_I32, KG_I32, KG_I16, KG_I64, KG_U8, KG_U32};
  return to_int(g, e, spelling_of(g, k[below(g, 6)]));
}

/* e & m */
static E mask(G *g, E e, int64_t m) {
  e = as_int(g, e);
  E l = int_lit(g, m);
  Val v;
  val_binop(O_AND, e.v, l.v, &v);
  return with(e_bin(g, O_AND, e, l, v), KG_F_BITWISE);
}

/* An integer expression that is never 0 (and never -1). */
static E nonzero(G *g, E e) {
  static const int64_t m[] = {1, 3, 7, 15};
  switch (below(g, 3)) {
  case 0: {
    E l = mask(g, e, m[below(g, 4)]);
    return binop_or(g, O_ADD, l, int_lit(g, 1 + below(g, 3)), int_lit(g, 3));
  }
  case 1:
    for (int i = 0; i < g->nst; i++)
      if (!g->st[i].is_array && !g->st[i].writable && !is_float(g->st[i].t) && g->st[i].read.lo >= 1 && chance(g, 50))
        return mk(g->st[i].name, P_PRIMARY, ival(g->st[i].t, g->st[i].read.lo, g->st[i].read.hi));
    /* fall through */
  default: return int_lit(g, 1 + below(g, 9));
  }
}

/* An integer value moved into [lo, hi] (lo <= 0 <= hi). */
static E clamp_int(G *g, E e, i128 lo, i128 hi) {
  Val v;
  for (int tries = 0; tries < 8; tries++) {
    int r = below(g, 4);
    if (r == 0) {
      int k = bitlen(hi + 1) - 1;
      if (k > 24) k = 24;
      if (k >= 1) e = mask(g, e, ((int64_t)1 << k) - 1);
    } else if (r == 1 && -lo >= 1) {
      i128 m = imin(-lo, hi);
      if (m > 100000 && chance(g, 50)) m = 100000;
      E l = int_lit(g, m + 1);
      if (val_binop(O_MOD, e.v, l.v, &v)) e = with(e_bin(g, O_MOD, e, l, v), KG_F_MOD);
    } else if (r == 2) {
      const KgKind ks[] = {KG_I8, KG_I16, KG_U8, KG_U16};
      const Ty *t = spelling_of(g, ks[below(g, 4)]);
      if (within(type_rng(t), (Rng){lo, hi})) e = e_cast(g, t, e);
    } else if (is_signed(promote(e.v.t))) {
      /* e < lo ? lo : e > hi ? hi : e, typed like e */
      const Ty *pt = promote(e.v.t);
      i128 l = imax(lo, type_rng(pt).lo), h = imin(hi, type_rng(pt).hi);
      const char *sf = pt->rank == 4 ? "L" : pt->rank == 5 ? "LL" : "";
      const char *ls = l < 0 ? arena_printf(&g->a, "-%lld%s", (long long)-l, sf) : arena_printf(&g->a, "%lld%s", (long long)l, sf);
      const char *es = paren(g, e, op_prec[O_LT] + 1);
      Rng nr = {imax(e.v.i.lo, l), imin(e.v.i.hi, h)};
      if (nr.lo > nr.hi) nr = (Rng){l, l};
      nr = (Rng){imin(nr.lo, l), imax(nr.hi, h)};
      nr = (Rng){imax(nr.lo, l), imin(nr.hi, h)};
      unsigned f = e.f | 1u << KG_F_TERNARY;
      e = mk(arena_printf(&g->a, "%s < %s ? %s : %s > %lld%s ? %lld%s : %s", es, ls, ls, es, (long long)h, sf,
                          (long long)h, sf, es),
             P_COND, ival(pt, nr.lo, nr.hi));
      e.f = f;
    }
    if (within(e.v.i, (Rng){lo, hi})) return e;
  }
  return int_lit(g, 0);
}

/* a op b, repaired until it is defined (or a alone). */
static E arith(G *g, int op, E a, E b) {
  Val v;
  for (int tries = 0; tries < 6; tries++) {
    if (val_binop(op, a.v, b.v, &v)) {
      E r = e_bin(g, op, a, b, v);
      if (op == O_SHL || op == O_SHR) r = with(r, KG_F_SHIFT);
      else if (op == O_AND || op == O_OR || op == O_XOR) r = with(r, KG_F_BITWISE);
      else if (op == O_DIV && !is_float(v.t)) r = with(r, KG_F_DIV);
      else if (op == O_MOD) r = with(r, KG_F_MOD);
      if (op <= O_MUL && !is_float(v.t) && !is_signed(v.t) && v.i.lo == 0 && v.i.hi == type_rng(v.t).hi)
        r = with(r, KG_F_UNSIGNED_WRAP);
      return r;
    }
    if (int_only(op) && (is_float(a.v.t) || is_float(b.v.t))) {
      a = as_int(g, a);
      b = as_int(g, b);
      continue;
    }
    switch (op) {
    case O_DIV:
    case O_MOD:
      b = nonzero(g, b);
      break;
    case O_SHL:
    case O_SHR: {
      int w = bits(promote(a.v.t));
      Val cb;
      conv(b.v, promote(b.v.t), &cb);
      if (cb.i.lo < 0 || cb.i.hi > w - 1) {
        b = mask(g, b, chance(g, 50) ? 7 : w - 1);
      } else if (chance(g, 50)) {
        a = e_cast(g, spelling_of(g, bits(promote(a.v.t)) == 64 ? KG_U64 : KG_U32), a);
      } else {
        a = mask(g, a, 255);
        b = mask(g, b, 7);
      }
      break;
    }
    default: {
      const Ty *ct = common(a.v.t, b.v.t);
      int r = below(g, 4);
      if (r == 0 && bits(ct) < 64) a = e_cast(g, spelling_of(g, KG_I64), a);
      else if (r == 1) a = e_cast(g, spelling_of(g, bits(ct) == 64 ? KG_U64 : KG_U32), a);
      else if (r == 2) a = e_cast(g, chance(g, 50) ? &ty_double : &ty_float, a);
      else {
        a = mask(g, a, 255);
        b = mask(g, b, 1023);
      }
    }
    }
  }
  return a;
}

/* ---------------- expressions: leaves ---------------- */

static E gen_index(G *g, int64_t ext);

static Val store_val(const Store *s) { return is_float(s->t) ? fval(s->t, s->fread) : ival(s->t, s->read.lo, s->read.hi); }

/* A read of s (its indices generated). */
static E read_store(G *g, const Store *s) {
  if (!s->is_array) return mk(s->name, P_PRIMARY, store_val(s));
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, s->name);
  unsigned f = 0;
  for (int d = 0; d < s->ndim; d++) {
    E ix = gen_index(g, s->dims[d]);
    f |= ix.f;
    sb_printf(&sb, "[%s]", ix.s);
  }
  E e = mk(arena_strdup(&g->a, sb.data), P_PRIMARY, store_val(s));
  sb_free(&sb);
  e.f = f;
  return e;
}

static E counter_e(G *g, int ci) { return mk(g->ctr[ci].name, P_PRIMARY, ival(g->ctr[ci].t, g->ctr[ci].r.lo, g->ctr[ci].r.hi)); }

static E gen_leaf(G *g, int want) {
  for (int tries = 0; tries < 8; tries++) {
    int r = below(g, 100);
    if (r < 22 && g->nctr && want != W_FLOAT) return counter_e(g, below(g, g->nctr));
    if (r < 34 && want != W_FLOAT) return rand_int_lit(g);
    if (r < 40 && want != W_INT) return float_lit(g, chance(g, 60));
    if (r < 45 && g->ndefs) {
      const Define *d = &g->defs[below(g, g->ndefs)];
      if ((d->is_float && want == W_INT) || (!d->is_float && want == W_FLOAT)) continue;
      return with(cst(mk(d->name, P_PRIMARY, d->is_float ? fval(d->t, (FR){d->fval, d->fval, false}) : ival(d->t, d->ival, d->ival))), KG_F_DEFINE);
    }
    const Store *s = &g->st[below(g, g->nst)];
    if ((want == W_INT && is_float(s->t)) || (want == W_FLOAT && !is_float(s->t))) continue;
    return s->is_scalar_param ? with(read_store(g, s), KG_F_SCALAR_PARAM) : read_store(g, s);
  }
  return want == W_FLOAT ? float_lit(g, chance(g, 50)) : rand_int_lit(g);
}

/* ---------------- indices ---------------- */

/* An index in [0, ext - 1] over the counters' ranges, in a form npugen
 * proves. */
static E gen_index(G *g, int64_t ext) {
  E e;
  Rng want = {0, ext - 1};
  g->index_depth++;
  for (int tries = 0; tries < 12; tries++) {
    int r = below(g, 100);
    if (r < 70 && g->nctr) {
      /* affine: a term of the counters plus an offset */
      int ci = g->nctr - 1 - (chance(g, 60) ? 0 : below(g, g->nctr));
      E t = counter_e(g, ci);
      int form = below(g, 10);
      Val v;
      if (form == 0) t = binop_or(g, O_MUL, int_lit(g, 2), t, t);
      else if (form == 1) t = binop_or(g, O_MUL, t, int_lit(g, 2), t);
      else if (form == 2) t = binop_or(g, O_DIV, t, int_lit(g, 2 + below(g, 2)), t);
      else if (form == 3 && g->nctr > 1) t = binop_or(g, chance(g, 70) ? O_ADD : O_SUB, t, counter_e(g, below(g, g->nctr)), t);
      else if (form == 4 && t.v.i.lo >= 0) t = binop_or(g, O_MOD, t, int_lit(g, ext), t);
      else if (form == 5) {
        /* reversed: K - t */
        i128 k = t.v.i.hi + below(g, (int)imax(1, imin(ext - 1 - (t.v.i.hi - t.v.i.lo), 4)));
        if (val_binop(O_SUB, int_lit(g, k).v, t.v, &v)) t = e_bin(g, O_SUB, int_lit(g, k), t, v);
      }
      Rng tr = t.v.i;
      if (is_float(t.v.t)) continue;
      i128 clo = -tr.lo, chi = ext - 1 - tr.hi;
      if (clo > chi) continue;
      i128 c = clo <= 0 && chi >= 0 && chance(g, 60) ? 0 : clo + (i128)below(g, (int)imin(chi - clo + 1, 1000));
      if (c > 0) t = binop_or(g, O_ADD, t, int_lit(g, c), t);
      else if (c < 0) t = binop_or(g, O_SUB, t, int_lit(g, -c), t);
      if (!is_float(t.v.t) && within(t.v.i, want)) {
        e = t;
        goto done;
      }
    } else if (r < 86 && g->index_depth <= 2) {
      /* data-dependent */
      E x = as_int(g, gen_expr(g, 1 + below(g, 2), W_INT));
      int k = bitlen(ext) - 1, form = below(g, 6);
      if (form == 0 && ext >= 256) {
        e = e_cast(g, chance(g, 50) ? &ty_u8 : spelling_of(g, KG_U8), x);
      } else if (form == 1 && ext >= 2) {
        /* (x % K + K) % K over a variable of at most 32 bits */
        const Store *s = &g->st[below(g, g->nst)];
        if (is_float(s->t) || bits(s->t) > 32) continue;
        E xs = read_store(g, s), kl = int_lit(g, ext), m;
        Val v;
        if (!val_binop(O_MOD, xs.v, kl.v, &v)) continue;
        m = e_bin(g, O_MOD, xs, kl, v);
        if (!val_binop(O_ADD, m.v, kl.v, &v)) continue;
        m = e_bin(g, O_ADD, m, kl, v);
        if (!val_binop(O_MOD, m.v, kl.v, &v)) continue;
        e = with(e_bin(g, O_MOD, m, kl, v), KG_F_MOD);
      } else if (form == 2 && ext >= 2) {
        int64_t m = ((int64_t)1 << (k + 1 + below(g, 3))) - 1;
        e = mask(g, x, m);
        E kl = int_lit(g, 1 + below(g, (int)ext));
        Val v;
        if (val_binop(O_MOD, e.v, kl.v, &v)) e = with(e_bin(g, O_MOD, e, kl, v), KG_F_MOD);
      } else {
        int kk = below(g, k + 1);
        e = mask(g, x, ((int64_t)1 << kk) - 1);
        i128 room = ext - 1 - (((i128)1 << kk) - 1);
        if (room > 0 && chance(g, 30)) e = binop_or(g, O_ADD, e, int_lit(g, below(g, (int)imin(room, 1000) + 1)), e);
      }
      if (!is_float(e.v.t) && within(e.v.i, want)) {
        e = with(e, KG_F_DATA_INDEX);
        goto done;
      }
    }
  }
  {
    /* a constant, by a #define's name when one fits */
    i128 c = below(g, (int)imin(ext, 1 << 20));
    for (int i = 0; i < g->ndefs; i++)
      if (!g->defs[i].is_float && g->defs[i].ival == ext && chance(g, 50)) {
        e = mk(arena_printf(&g->a, "%s - %d", g->defs[i].name, 1 + (int)(ext - 1 - c)), op_prec[O_SUB],
               ival(&ty_int, c, c));
        goto done;
      }
    e = int_lit(g, c);
  }
done:
  g->index_depth--;
  return e;
}

/* ---------------- expressions: inner nodes ---------------- */

static const struct {
  const char *name;
  int nargs;
} math_fns[] = {
    {"sqrt", 1}, {"exp", 1},  {"log", 1},   {"fabs", 1}, {"tanh", 1}, {"sin", 1},   {"cos", 1},
    {"floor", 1},{"ceil", 1}, {"round", 1}, {"trunc", 1},{"exp2", 1}, {"log2", 1},  {"log10", 1},
    {"erf", 1},  {"atan", 1}, {"cbrt", 1},  {"log1p", 1},{"asin", 1}, {"acos", 1},  {"tan", 1},
    {"pow", 2},  {"fmin", 2}, {"fmax", 2},  {"fmod", 2}, {"atan2", 2},{"hypot", 2}, {"copysign", 2},
    {"fma", 3},  {"sinh", 1}, {"expm1", 1},
};
enum { NMATH = sizeof math_fns / sizeof math_fns[0] };

static FR mono(double (*f)(double), FR a) { return (FR){f(a.lo), f(a.hi), false}; }

/* The range of a math call on (converted) arguments. */
static FR math_range(const char *n, FR *a, const Ty *t) {
  FR x = a[0], u = f_unknown();
  bool fin = f_finite(x);
  double lim = t->kind == KG_F32 ? 80 : 700;
  FR r = u;
  if (!strcmp(n, "sqrt")) r = fin && x.lo >= 0 ? mono(sqrt, x) : u;
  else if (!strcmp(n, "exp")) r = fin && x.hi < lim ? mono(exp, x) : u;
  else if (!strcmp(n, "exp2")) r = fin && x.hi < lim ? mono(exp2, x) : u;
  else if (!strcmp(n, "log")) r = fin && x.lo > 0 ? mono(log, x) : u;
  else if (!strcmp(n, "log2")) r = fin && x.lo > 0 ? mono(log2, x) : u;
  else if (!strcmp(n, "log10")) r = fin && x.lo > 0 ? mono(log10, x) : u;
  else if (!strcmp(n, "log1p")) r = fin && x.lo > -1 ? mono(log1p, x) : u;
  else if (!strcmp(n, "cbrt")) r = fin ? mono(cbrt, x) : u;
  else if (!strcmp(n, "fabs")) r = fin ? (FR){x.lo >= 0 ? x.lo : x.hi <= 0 ? -x.hi : 0, fmag(x), false} : u;
  else if (!strcmp(n, "floor") || !strcmp(n, "ceil") || !strcmp(n, "round") || !strcmp(n, "trunc"))
    r = fin ? (FR){floor(x.lo), ceil(x.hi), false} : u;
  else if (!strcmp(n, "tanh") || !strcmp(n, "sin") || !strcmp(n, "cos") || !strcmp(n, "erf"))
    r = fin ? (FR){-1, 1, false} : u;
  else if (!strcmp(n, "atan")) r = fin ? (FR){-1.6, 1.6, false} : u;
  else if (!strcmp(n, "asin")) r = fin && x.lo >= -1 && x.hi <= 1 ? (FR){-1.6, 1.6, false} : u;
  else if (!strcmp(n, "acos")) r = fin && x.lo >= -1 && x.hi <= 1 ? (FR){0, 3.2, false} : u;
  else if (!strcmp(n, "atan2")) r = !x.nan && !a[1].nan ? (FR){-3.2, 3.2, false} : u;
  else if (!strcmp(n, "copysign")) r = fin ? (FR){-fmag(x), fmag(x), false} : u;
  else if (!strcmp(n, "fmod")) r = fin && f_finite(a[1]) && (a[1].lo > 0 || a[1].hi < 0) ? (FR){-fmag(a[1]), fmag(a[1]), false} : u;
  else if (!strcmp(n, "fmin") || !strcmp(n, "fmax")) {
    bool mx = n[2] == 'a';
    FR y = a[1];
    r = (FR){INFINITY, -INFINITY, x.nan && y.nan};
    if (!(x.lo > x.hi) && !(y.lo > y.hi)) {
      r.lo = mx ? fmax(x.lo, y.lo) : fmin(x.lo, y.lo);
      r.hi = mx ? fmax(x.hi, y.hi) : fmin(x.hi, y.hi);
    }
    if (x.nan) r.lo = fmin(r.lo, y.lo), r.hi = fmax(r.hi, y.hi);
    if (y.nan) r.lo = fmin(r.lo, x.lo), r.hi = fmax(r.hi, x.hi);
    return r;
  }
  return f_widen(r, fmag(r), t);
}

static E gen_math(G *g, int depth) {
  int fi = below(g, NMATH);
  E args[3];
  FR fr[3] = {{0, 0, false}, {0, 0, false}, {0, 0, false}};
  bool dbl = chance(g, 40);
  const Ty *t = dbl ? &ty_double : &ty_float;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s%s(", math_fns[fi].name, dbl ? "" : "f");
  unsigned f = 1u << KG_F_MATH;
  for (int i = 0; i < math_fns[fi].nargs; i++) {
    args[i] = gen_expr(g, depth - 1, chance(g, 75) ? W_FLOAT : W_ANY);
    f |= args[i].f;
    Val v;
    conv(args[i].v, t, &v);
    fr[i] = v.f;
    sb_printf(&sb, "%s%s", i ? ", " : "", args[i].s);
  }
  sb_putc(&sb, ')');
  g->uses_math = true;
  E e = mk(arena_strdup(&g->a, sb.data), P_PRIMARY, fval(t, math_range(math_fns[fi].name, fr, t)));
  e.f = f;
  sb_free(&sb);
  return e;
}

static E gen_abs(G *g, int depth) {
  E x = as_int(g, gen_expr(g, depth - 1, W_INT));
  Val v;
  conv(x.v, &ty_int, &v);
  if (v.i.lo == type_rng(&ty_int).lo) {
    x = clamp_int(g, x, -100000, 100000);
    conv(x.v, &ty_int, &v);
  }
  Rng r = v.i;
  Rng a = r.lo >= 0 ? r : r.hi <= 0 ? (Rng){-r.hi, -r.lo} : (Rng){0, maxabs(r)};
  g->uses_abs = true;
  E e = mk(arena_printf(&g->a, "abs(%s)", x.s), P_PRIMARY, ival(&ty_int, a.lo, a.hi));
  e.f = x.f | 1u << KG_F_ABS;
  return e;
}

/* A condition: affine in the counters, or reading data. */
static E gen_cond(G *g, int depth, bool *data) {
  *data = false;
  if (g->nctr && chance(g, 55)) {
    E a = counter_e(g, below(g, g->nctr)), b;
    int r = below(g, 5);
    if (r == 0 && g->nctr > 1) b = counter_e(g, below(g, g->nctr));
    else if (r == 1) {
      a = binop_or(g, O_MOD, a, int_lit(g, 2 + below(g, 3)), a);
      b = int_lit(g, 0);
    } else if (r == 2 && g->nctr > 1) {
      a = binop_or(g, O_ADD, a, counter_e(g, below(g, g->nctr)), a);
      b = int_lit(g, (i128)below(g, 16));
    } else {
      b = int_lit(g, (a.v.i.lo + a.v.i.hi) / 2 + below(g, 3) - 1);
    }
    int op = O_LT + below(g, 6);
    E c = e_bin(g, op, a, b, ival(&ty_int, 0, 1));
    if (chance(g, 20)) {
      bool d2;
      E c2 = gen_cond(g, depth - 1, &d2);
      *data = d2;
      c = e_bin(g, chance(g, 50) ? O_LAND : O_LOR, c, c2, ival(&ty_int, 0, 1));
    } else if (chance(g, 8)) {
      c = e_unary(g, U_LNOT, c, ival(&ty_int, 0, 1));
    }
    return c;
  }
  *data = true;
  int r = below(g, 10);
  if (r == 0) return gen_expr(g, depth, W_ANY); /* a scalar as a truth value */
  E a = gen_expr(g, depth, W_ANY), b = gen_expr(g, depth - 1, W_ANY);
  int op = r < 8 ? O_LT + below(g, 6) : (r == 8 ? O_LAND : O_LOR);
  E c = e_bin(g, op, a, b, ival(&ty_int, 0, 1));
  if (chance(g, 10)) c = e_unary(g, U_LNOT, c, ival(&ty_int, 0, 1));
  return c;
}

static E coerce(G *g, E e, int want) {
  if (want == W_INT && is_float(e.v.t)) return as_int(g, e);
  if (want == W_FLOAT && !is_float(e.v.t)) return e_cast(g, chance(g, 60) ? &ty_float : &ty_double, e);
  return e;
}

static E gen_expr(G *g, int depth, int want) {
  E e;
  if (depth <= 0 || chance(g, 18)) return coerce(g, gen_leaf(g, want), want);
  static const int w[] = {44, 8, 12, 8, 11, 3, 6};
  switch (pick_w(g, w, 7)) {
  case 0: {
    static const int ow[] = {20, 14, 14, 8, 6, 5, 5, 7, 5, 5};
    int op = pick_w(g, ow, 10);
    int sub = int_only(op) ? W_INT : want;
    E a = gen_expr(g, depth - 1, sub), b = gen_expr(g, depth - 1 - below(g, 2), sub);
    e = arith(g, op, a, b);
    break;
  }
  case 1: {
    int op = want == W_FLOAT ? (chance(g, 80) ? U_NEG : U_PLUS) : below(g, 4);
    E a = gen_expr(g, depth - 1, op == U_BNOT ? W_INT : want);
    Val v;
    if (!val_unary(op, a.v, &v)) {
      e = a;
      break;
    }
    e = e_unary(g, op, a, v);
    if (op == U_NEG && !is_float(v.t) && !is_signed(v.t)) e = with(e, KG_F_UNSIGNED_WRAP);
    break;
  }
  case 2: {
    E a = gen_expr(g, depth - 1, W_ANY);
    KgKind k = want == W_FLOAT ? (chance(g, 50) ? KG_F32 : KG_F64) : want == W_INT ? (KgKind)below(g, KG_F32) : random_kind(g);
    const Ty *t = spelling_of(g, k);
    e = is_float(a.v.t) && !is_float(t) ? to_int(g, a, t) : e_cast(g, t, a);
    break;
  }
  case 3: {
    bool data;
    E c = gen_cond(g, depth - 1, &data), a = gen_expr(g, depth - 1, want), b = gen_expr(g, depth - 1, want);
    const Ty *ct = common(a.v.t, b.v.t);
    Val va, vb, v;
    conv(a.v, ct, &va);
    conv(b.v, ct, &vb);
    if (is_float(ct)) {
      FR f = {fmin(va.f.lo, vb.f.lo), fmax(va.f.hi, vb.f.hi), va.f.nan || vb.f.nan};
      v = fval(ct, f);
    } else {
      v = ival(ct, imin(va.i.lo, vb.i.lo), imax(va.i.hi, vb.i.hi));
    }
    e = mk(arena_printf(&g->a, "%s ? %s : %s", paren(g, c, P_COND + 1), paren(g, a, P_COND + 1), paren(g, b, P_COND)),
           P_COND, v);
    e.f = c.f | a.f | b.f | 1u << KG_F_TERNARY;
    break;
  }
  case 4: e = gen_math(g, depth); break;
  case 5: e = gen_abs(g, depth); break;
  default: {
    bool data;
    e = gen_cond(g, depth - 1, &data);
  }
  }
  return coerce(g, e, want);
}

/* ---------------- statements ---------------- */

static void line(G *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(G *g, const char *fmt, ...) {
  sb_indent(&g->sb, g->ind);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&g->sb, fmt, ap);
  va_end(ap);
  sb_putc(&g->sb, '\n');
}

static const char *label(G *g) {
  if (!chance(g, 8)) return "";
  feat(g, KG_F_LABEL);
  return arena_printf(&g->a, "L%d: ", ++g->nlabels);
}

/* Makes e storable by a plain `=` into s (clamped into its base). */
static bool fit_store(G *g, const Store *s, E *e) {
  if (is_float(s->t)) return true;
  Val v;
  if (conv(e->v, s->t, &v) && within(v.i, s->base)) {
    if (is_float(e->v.t)) *e = with(*e, KG_F_FLOAT_TO_INT);
    return true;
  }
  i128 lo = imax(s->base.lo, -(1 << 20)), hi = imin(s->base.hi, 1 << 20);
  if (is_float(e->v.t)) {
    *e = with(clamp_float(g, *e, (int64_t)lo, (int64_t)hi), KG_F_FLOAT_TO_INT);
  } else {
    *e = clamp_int(g, *e, lo, hi);
  }
  return conv(e->v, s->t, &v) && within(v.i, s->base);
}

/* Executions of the current point since s's declaration. */
static i128 rel_mult(G *g, const Store *s) { return s->decl_mult > 0 ? g->mult / s->decl_mult : g->mult; }

/* Can `s op= e` run (its budget taken)? */
static bool fit_compound(G *g, Store *s, int op, E e) {
  Val v, nv;
  if (!val_binop(op, store_val(s), e.v, &v) || !conv(v, s->t, &nv)) return false;
  if (is_float(s->t)) return true;
  if (s->acc_left > 0 && (op == O_ADD || op == O_SUB)) {
    i128 k;
    if (is_float(e.v.t)) {
      if (!f_finite(e.v.f)) return false;
      int mant = v.t->kind == KG_F32 ? 22 : 51;
      k = (i128)ceil(fmag(e.v.f)) + 1 + (maxabs(s->read) >> mant);
    } else {
      k = maxabs(e.v.i);
    }
    i128 need;
    if (mul_ovf(k, rel_mult(g, s), &need) || need > s->acc_left) return false;
    s->acc_left -= need;
    return true;
  }
  return within(nv.i, s->base);
}

/* Does C text t use the name n? */
static bool mentions(const char *t, const char *n) {
  size_t l = strlen(n);
  for (const char *p = strstr(t, n); p; p = strstr(p + 1, n)) {
    bool before = p > t && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    char c = p[l];
    bool after = c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
    if (!before && !after) return true;
  }
  return false;
}

static int writable_store(G *g) {
  int idx[MAX_STORES], n = 0;
  for (int i = 0; i < g->nst; i++)
    if (g->st[i].writable) idx[n++] = i;
  return n ? idx[below(g, n)] : -1;
}

static void gen_assign(G *g) {
  int si = writable_store(g);
  Store *s = &g->st[si];
  E lhs = read_store(g, s);
  if (s->is_scalar_param) feat(g, KG_F_SCALAR_WRITE);
  int r = below(g, 100);
  const char *lb = label(g);
  g->work += (long)g->mult;
  g->nstmts++;
  if (r < 8) {
    /* x++ as a statement: x += 1 */
    if (fit_compound(g, s, O_ADD, int_lit(g, 1))) {
      static const char *const f[] = {"%s%s++;", "%s++%s;", "%s%s--;", "%s--%s;"};
      int k = below(g, 4);
      feat(g, KG_F_INCDEC);
      commit(g, lhs.f);
      if (k & 1) line(g, k == 1 ? "%s++%s;" : "%s--%s;", lb, lhs.s);
      else line(g, f[k], lb, lhs.s);
      return;
    }
  } else if (r < 42) {
    static const int ow[] = {30, 14, 8, 5, 4, 3, 3, 6, 5, 5};
    int op = pick_w(g, ow, 10);
    for (int tries = 0; tries < 3; tries++) {
      E e = gen_expr(g, 1 + below(g, 3), int_only(op) ? W_INT : W_ANY);
      if (tries == 1 && !is_float(e.v.t)) e = mask(g, e, 3);
      if (tries == 2) e = int_lit(g, 1 + below(g, 3));
      /* npugen refuses `x /= 0` also for a float x (a constant divisor) */
      if ((op == O_DIV || op == O_MOD) && !is_float(e.v.t) && e.v.i.lo <= 0 && e.v.i.hi >= 0) e = nonzero(g, e);
      if ((op == O_SHL || op == O_SHR) && !is_float(e.v.t)) e = mask(g, e, chance(g, 50) ? 3 : 7);
      if (fit_compound(g, s, op, e)) {
        feat(g, KG_F_COMPOUND);
        if (op == O_SHL || op == O_SHR) feat(g, KG_F_SHIFT);
        commit(g, lhs.f | e.f);
        line(g, "%s%s %s= %s;", lb, lhs.s, op_text[op], e.s);
        return;
      }
    }
  }
  E e = gen_expr(g, 1 + below(g, 4), W_ANY);
  if (!fit_store(g, s, &e)) e = int_lit(g, 0);
  commit(g, lhs.f | e.f);
  /* a = b = e: b a local scalar */
  if (chance(g, 25)) {
    for (int i = g->nst - 1; i >= 0; i--) {
      Store *b = &g->st[i];
      /* the outer target must not read b: C does not sequence that read
       * with b's store (undefined behaviour) */
      if (b == s || b->is_array || !b->writable || mentions(lhs.s, b->name)) continue;
      Val bv, av;
      if (!conv(e.v, b->t, &bv)) continue;
      if (!is_float(b->t) && !within(bv.i, b->base)) continue;
      if (!conv(bv, s->t, &av) || (!is_float(s->t) && !within(av.i, s->base))) continue;
      feat(g, KG_F_CHAIN);
      line(g, "%s%s = %s = %s;", lb, lhs.s, b->name, e.s);
      return;
    }
  }
  line(g, "%s%s = %s;", lb, lhs.s, e.s);
}

static Store *new_store(G *g, const char *name, const Ty *t) {
  Store *s = &g->st[g->nst++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->t = t;
  s->decl_mult = g->mult;
  s->writable = true;
  g->c->kinds[t->kind]++;
  if (is_float(t)) s->fread = f_unknown();
  else s->base = s->read = type_rng(t);
  return s;
}

/* A wide signed variable's ranges: base [-b, b] and a budget acc. */
static void set_budget(Store *s, i128 b, i128 acc) {
  s->base = (Rng){-b, b};
  s->acc_left = acc;
  s->read = (Rng){-b - acc, b + acc};
}

static void random_budget(G *g, Store *s, i128 at_least) {
  i128 cap = bits(s->t) == 32 ? ((i128)1 << 29) : ((i128)1 << 61);
  static const int sizes[] = {7, 10, 12, 16, 20, 24, 28, 40, 56};
  i128 b = ((i128)1 << sizes[below(g, bits(s->t) == 32 ? 7 : 9)]) - 1;
  while (b < at_least && b < cap) b = b * 2 + 1;
  if (b > cap) b = cap;
  i128 acc = chance(g, 25) ? 0 : chance(g, 50) ? b : (cap - b) / 2;
  set_budget(s, b, acc);
}

/* "name = init" of a new local of type t (its store created). */
static const char *local_decl(G *g, const Ty *t, bool is_const) {
  char name[16];
  snprintf(name, sizeof name, "t%d", g->nlocals++);
  E e = gen_expr(g, 1 + below(g, 3), W_ANY);
  Val v;
  if (!is_float(t)) {
    Rng lim = is_wide_signed(t) ? (Rng){-(1 << 24), 1 << 24} : type_rng(t);
    if (!conv(e.v, t, &v) || (is_wide_signed(t) && !within(v.i, lim))) {
      if (is_float(e.v.t)) e = clamp_float(g, e, (int64_t)imax(lim.lo, -100000), (int64_t)imin(lim.hi, 100000));
      else e = clamp_int(g, e, imax(lim.lo, -100000), imin(lim.hi, 100000));
      if (!conv(e.v, t, &v)) e = int_lit(g, 0), conv(e.v, t, &v);
    }
    if (is_float(e.v.t)) e = with(e, KG_F_FLOAT_TO_INT);
  } else {
    conv(e.v, t, &v);
  }
  g->work += (long)g->mult;
  g->nstmts++;
  Store *s = new_store(g, name, t);
  feat(g, KG_F_LOCAL);
  if (is_const) {
    feat(g, KG_F_CONST_LOCAL);
    s->writable = false;
    if (is_float(t)) s->fread = v.f;
    else s->base = s->read = v.i;
  } else if (is_wide_signed(t)) {
    random_budget(g, s, maxabs(v.i));
  }
  commit(g, e.f);
  return arena_printf(&g->a, "%s = %s", name, e.s);
}

/* A local scalar declaration, now and then of two (the second may read
 * the first). */
static void gen_local(G *g) {
  if (g->nst >= MAX_STORES - 3) return;
  const Ty *t = spelling_of(g, random_kind(g));
  bool is_const = chance(g, 15);
  const char *d = local_decl(g, t, is_const);
  if (chance(g, 12)) d = arena_printf(&g->a, "%s, %s", d, local_decl(g, t, is_const));
  line(g, "%s%s %s;", is_const ? "const " : "", t->name, d);
}

static void gen_local_array(G *g) {
  if (g->nst >= MAX_STORES - 2) return;
  const Ty *t = spelling_of(g, random_kind(g));
  char name[16];
  snprintf(name, sizeof name, "buf%d", g->nlocals++);
  Store *s = new_store(g, name, t);
  s->is_array = true;
  s->ndim = chance(g, 70) ? 1 : 2;
  static const int64_t ds[] = {2, 3, 4, 5, 8, 10, 16, 32};
  int64_t total = 1;
  for (int d = 0; d < s->ndim; d++) total *= s->dims[d] = ds[below(g, d ? 5 : 8)];
  if (is_wide_signed(t)) random_budget(g, s, 100);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s %s", t->name, name);
  for (int d = 0; d < s->ndim; d++) sb_printf(&sb, "[%lld]", (long long)s->dims[d]);
  int n = chance(g, 40) ? 1 : 1 + below(g, (int)(total < 8 ? total : 8));
  sb_puts(&sb, " = {");
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(&sb, ", ");
    if (is_float(t)) sb_puts(&sb, float_lit(g, t->kind == KG_F32).s);
    else sb_printf(&sb, "%d", n == 1 && chance(g, 70) ? 0 : below(g, 100) - (is_signed(t) ? 50 : 0));
  }
  sb_puts(&sb, "};");
  line(g, "%s", sb.data);
  sb_free(&sb);
  feat(g, KG_F_LOCAL_ARRAY);
  g->nstmts++;
}

static void gen_block(G *g, int n);
static void gen_loop(G *g);

static void gen_if(G *g) {
  bool data;
  E c = gen_cond(g, 2, &data);
  feat(g, KG_F_IF);
  if (data) feat(g, KG_F_DATA_IF);
  commit(g, c.f);
  bool braces = chance(g, 70);
  line(g, "if (%s)%s", c.s, braces ? " {" : "");
  g->ind++;
  if (braces) gen_block(g, 1 + below(g, 2));
  else gen_assign(g);
  g->ind--;
  if (chance(g, 40)) {
    feat(g, KG_F_ELSE);
    if (chance(g, 20)) {
      E c2 = gen_cond(g, 1, &data);
      commit(g, c2.f);
      line(g, "%selse if (%s) {", braces ? "} " : "", c2.s);
    } else {
      line(g, "%selse {", braces ? "} " : "");
    }
    g->ind++;
    gen_block(g, 1 + below(g, 2));
    g->ind--;
    line(g, "}");
  } else if (braces) {
    line(g, "}");
  }
}


/* `P = INIT;` then a loop whose body is `P += e;` alone: the accumulation
 * the check's reference unrolls (lower/ref_plan.c). */
static void gen_reduction(G *g) {
  int si = writable_store(g);
  Store *s = &g->st[si];
  E lhs = read_store(g, s);
  E init = gen_expr(g, 1 + below(g, 2), W_ANY);
  if (!fit_store(g, s, &init)) init = int_lit(g, 0);
  commit(g, lhs.f | init.f);
  g->work += (long)g->mult;
  g->nstmts++;
  feat(g, KG_F_REDUCTION);
  line(g, "%s = %s;", lhs.s, init.s);
  g->acc_lhs = lhs.s;
  g->acc_store = si;
  gen_loop(g);
}

/* The reduction loop's one statement. */
static void gen_acc_body(G *g, int si, const char *lhs) {
  Store *s = &g->st[si];
  g->work += (long)g->mult;
  g->nstmts++;
  for (int tries = 0; tries < 3; tries++) {
    E e = tries == 2 ? int_lit(g, 1) : gen_expr(g, 1 + below(g, 3), W_ANY);
    if (fit_compound(g, s, O_ADD, e)) {
      commit(g, e.f);
      line(g, "%s += %s;", lhs, e.s);
      return;
    }
  }
  line(g, "%s += 0;", lhs);
}

static void gen_stmt(G *g) {
  int depth = g->nctr;
  bool can_loop = depth < MAX_DEPTH && g->mult * 2 <= NEST_WORK && g->work + (long)g->mult * 4 < TOTAL_WORK &&
                  g->nstmts < MAX_STMTS;
  int w[] = {can_loop ? (depth == 0 ? 80 : 30) : 0, depth == 0 ? 8 : 45, 12, depth ? 3 : 1, depth ? 10 : 2, 2,
             can_loop ? 12 : 0};
  switch (pick_w(g, w, 7)) {
  case 6: gen_reduction(g); break;
  case 0: gen_loop(g); break;
  case 1: gen_assign(g); break;
  case 2: gen_local(g); break;
  case 3: gen_local_array(g); break;
  case 4:
    if (g->ind < 10) gen_if(g);
    else gen_assign(g);
    break;
  default:
    line(g, "{");
    g->ind++;
    gen_block(g, 1 + below(g, 2));
    g->ind--;
    line(g, "}");
  }
}

/* n statements in a new scope (at least one assignment is possible:
 * every kernel has an output). */
static void gen_block(G *g, int n) {
  int saved = g->nst;
  for (int i = 0; i < n; i++) {
    if (g->nstmts >= MAX_STMTS && i) break;
    if (chance(g, 4)) line(g, "/* %s */", chance(g, 50) ? "step" : "the next part");
    if (chance(g, 1)) line(g, chance(g, 50) ? ";" : "{}");
    gen_stmt(g);
  }
  g->nst = saved;
}

/* A typical extent (of an array in scope) for a loop to run over. */
static int64_t some_extent(G *g) {
  int64_t e[64];
  int n = 0;
  for (int i = 0; i < g->nst && n < 64; i++)
    for (int d = 0; d < g->st[i].ndim && n < 64; d++) e[n++] = g->st[i].dims[d];
  return n ? e[below(g, n)] : 8;
}

/* v as constant arithmetic of int type, as people write bounds: a sum, a
 * difference, a product, a quotient, a cast of an unsigned literal, a
 * negation. The check's reference must read each as C computes it. */
static E folded_lit(G *g, i128 v) {
  Val iv = ival(&ty_int, v, v);
  int b = 1 + below(g, 6);
  E e;
  switch (below(g, 6)) {
  case 0: e = mk(arena_printf(&g->a, "%lld + %d", (long long)(v - b), b), op_prec[O_ADD], iv); break;
  case 1: e = mk(arena_printf(&g->a, "%lld - %d", (long long)(v + b), b), op_prec[O_ADD], iv); break;
  case 2:
    if (v % (b + 1) == 0 && v) e = mk(arena_printf(&g->a, "%d * %lld", b + 1, (long long)(v / (b + 1))), op_prec[O_MUL], iv);
    else e = mk(arena_printf(&g->a, "%lld * 1", (long long)v), op_prec[O_MUL], iv);
    break;
  case 3: e = mk(arena_printf(&g->a, "%lld / %d", (long long)(v * (b + 1)), b + 1), op_prec[O_MUL], iv); break;
  case 4:
    if (v >= 0) e = mk(arena_printf(&g->a, "(int)%lldu", (long long)v), P_UNARY, iv);
    else e = mk(arena_printf(&g->a, "-(%lld)", (long long)-v), P_UNARY, iv);
    break;
  default: e = mk(arena_printf(&g->a, "%lld + 0", (long long)v), op_prec[O_ADD], iv);
  }
  return with(cst(e), KG_F_FOLDED_BOUND);
}

/* Text of a loop bound: a literal, a #define's name when one fits, or
 * constant arithmetic (folded_lit). */
static E bound_lit(G *g, i128 v) {
  if (v > -100000 && v < 100000 && chance(g, 30)) return folded_lit(g, v);
  for (int i = 0; i < g->ndefs; i++)
    if (!g->defs[i].is_float && chance(g, 60)) {
      i128 d = v - g->defs[i].ival;
      if (d == 0) return cst(mk(g->defs[i].name, P_PRIMARY, ival(&ty_int, v, v)));
      if (d > -4 && d < 4)
        return cst(mk(arena_printf(&g->a, "%s %s %d", g->defs[i].name, d > 0 ? "+" : "-", (int)iabs(d)),
                      op_prec[O_ADD], ival(&ty_int, v, v)));
    }
  return int_lit(g, v);
}

static void gen_loop(G *g) {
  const char *acc_lhs = g->acc_lhs;
  int acc_store = g->acc_store;
  g->acc_lhs = NULL;
  int d = g->nctr;
  static const char *const names[] = {"i", "j", "k", "l"};
  const Ty *t = g->predeclared ? g->pre_ty : &ty_int;
  if (!g->predeclared && chance(g, 18)) {
    static const KgKind ks[] = {KG_I64, KG_U32, KG_U64, KG_I16, KG_U8, KG_U16};
    t = spelling_of(g, ks[below(g, 6)]);
  }
  bool uns = !is_signed(t);
  i128 room = NEST_WORK / g->mult;
  if (room > 64) room = 64;
  if (room < 1) room = 1;
  int64_t ext = some_extent(g);
  E lo, hi;
  int step = chance(g, 80) ? 1 : 2 + below(g, 3);
  bool down = chance(g, 20);
  int cmp; /* O_LT, O_LE, O_GT, O_GE as the counter's relation to hi */
  bool tri = false;
  int form = d > 0 && chance(g, 45) ? 1 + below(g, 4) : 0;
  int w = below(g, d > 0 ? d : 1);
  Rng wr = d ? g->ctr[w].r : (Rng){0, 0};
  if (form && (wr.hi - wr.lo > room || wr.lo < 0 || wr.hi > 4096)) form = 0;
  if (form && down && form > 2) form = 1;
  if (!form) {
    i128 n = imin(ext, room * step);
    if (n < 1) n = 1;
    i128 base = chance(g, 80) ? 0 : (i128)below(g, 4) - (uns ? 0 : 2);
    if (base < 0 && uns) base = 0;
    if (!down) {
      lo = bound_lit(g, base);
      cmp = chance(g, 70) ? O_LT : O_LE;
      hi = bound_lit(g, cmp == O_LT ? base + n : base + n - 1);
    } else {
      i128 top = base + n - 1;
      lo = bound_lit(g, top);
      cmp = chance(g, 70) ? O_GE : O_GT;
      i128 bot = cmp == O_GE ? base : base - 1;
      if (uns && bot - step + 1 < 0) bot = cmp == O_GE ? step : step - 1, lo = bound_lit(g, imax(top, bot + 1));
      hi = bound_lit(g, bot);
    }
  } else {
    E wv = counter_e(g, w);
    tri = true;
    i128 c = imax(ext, wr.hi + 1);
    if (!down) {
      switch (form) {
      case 1: /* 0 .. w */
        lo = int_lit(g, 0);
        cmp = chance(g, 50) ? O_LT : O_LE;
        hi = chance(g, 70) ? wv : arith(g, O_ADD, wv, int_lit(g, 1));
        break;
      case 2: /* w .. c */
        lo = chance(g, 70) ? wv : arith(g, O_ADD, wv, int_lit(g, 1));
        cmp = O_LT;
        hi = bound_lit(g, c);
        break;
      case 3: /* 0 .. c - w */
        lo = int_lit(g, 0);
        cmp = O_LT;
        hi = arith(g, O_SUB, bound_lit(g, c), wv);
        break;
      default: /* w / 2 .. 2 * w + 1 */
        lo = arith(g, O_DIV, wv, int_lit(g, 2));
        cmp = O_LE;
        hi = arith(g, O_ADD, arith(g, O_MUL, int_lit(g, 2), wv), int_lit(g, 1));
        break;
      }
    } else {
      /* w down to 0 (or 1 for unsigned counters), or c - 1 down to w */
      if (form == 1) {
        lo = wv;
        cmp = O_GE;
        hi = int_lit(g, uns ? step : 0);
      } else {
        lo = bound_lit(g, c - 1);
        cmp = O_GE;
        hi = uns && wr.lo < step ? arith(g, O_ADD, wv, int_lit(g, step)) : wv;
      }
    }
  }
  /* the counter's values, its trips, and a final step that cannot wrap */
  Rng r;
  i128 trips;
  if (!down) {
    i128 last = cmp == O_LT ? hi.v.i.hi - 1 : hi.v.i.hi;
    r = (Rng){lo.v.i.lo, imax(lo.v.i.lo, last)};
    trips = (r.hi - r.lo) / step + 1;
  } else {
    i128 last = cmp == O_GE ? hi.v.i.lo : hi.v.i.lo + 1;
    r = (Rng){imin(lo.v.i.hi, last), lo.v.i.hi};
    trips = (r.hi - r.lo) / step + 1;
  }
  Rng tr = type_rng(t);
  bool ok = !is_float(lo.v.t) && !is_float(hi.v.t) && trips <= room * 2 && r.lo - step >= tr.lo &&
            r.hi + step <= tr.hi && hi.v.i.lo - step - 1 >= tr.lo && hi.v.i.hi + step + 1 <= tr.hi;
  /* with an unsigned counter or bound, every value and the comparison
   * stay non-negative */
  if (uns || !is_signed(promote(hi.v.t)) || !is_signed(promote(lo.v.t)))
    ok = ok && r.lo >= 0 && lo.v.i.lo >= 0 && hi.v.i.lo >= 0 && (!down || hi.v.i.lo - step + (cmp == O_GT) >= 0);
  /* npugen refuses a comparison C makes unsigned unless a signed bound is
   * a constant, and a signed counter counts up from a constant */
  if (!is_signed(common(promote(t), promote(hi.v.t)))) {
    if (is_signed(promote(hi.v.t)) && !hi.cst) ok = false;
    if (is_signed(promote(t)) && (down || !lo.cst)) ok = false;
  }
  if (!ok || g->mult * trips > NEST_WORK) {
    /* a plain small loop instead */
    t = g->predeclared ? g->pre_ty : &ty_int;
    trips = imin(room, imin(ext, 8));
    lo = int_lit(g, 0);
    cmp = O_LT;
    hi = int_lit(g, trips);
    r = (Rng){0, trips - 1};
    step = 1;
    down = tri = false;
  }
  commit(g, lo.f | hi.f);
  if (tri) feat(g, KG_F_TRIANGULAR);
  if (step != 1) feat(g, KG_F_STEP);
  if (down) feat(g, KG_F_DECREASING);
  const char *v = names[d];
  /* header text in one of C's spellings */
  const char *init = g->predeclared ? arena_printf(&g->a, "%s = %s", v, lo.s) : arena_printf(&g->a, "%s %s = %s", t->name, v, lo.s);
  static const char *const cmps[] = {"<", "<=", ">", ">="}, *const flip[] = {">", ">=", "<", "<="};
  int ci = cmp - O_LT;
  const char *cond = chance(g, 85) ? arena_printf(&g->a, "%s %s %s", v, cmps[ci], paren(g, hi, op_prec[O_LT] + 1))
                                   : arena_printf(&g->a, "%s %s %s", paren(g, hi, op_prec[O_LT] + 1), flip[ci], v);
  const char *us, *pm = down ? "-" : "+";
  switch (below(g, 4)) {
  case 0: us = step == 1 ? arena_printf(&g->a, "%s%s%s", v, pm, pm) : arena_printf(&g->a, "%s %s= %d", v, pm, step); break;
  case 1: us = step == 1 ? arena_printf(&g->a, "%s%s%s", pm, pm, v) : arena_printf(&g->a, "%s %s= %d", v, pm, step); break;
  case 2: us = arena_printf(&g->a, "%s = %s %s %d", v, v, pm, step); break;
  default: us = down ? arena_printf(&g->a, "%s -= %d", v, step) : arena_printf(&g->a, "%s = %d + %s", v, step, v);
  }
  if (chance(g, 6)) line(g, "/* loop %s */", v);
  bool braces = !acc_lhs && chance(g, 80);
  line(g, "%sfor (%s; %s; %s)%s", label(g), init, cond, us, braces ? " {" : "");
  Counter *c = &g->ctr[g->nctr++];
  snprintf(c->name, sizeof c->name, "%s", v);
  c->t = t;
  c->r = r;
  i128 saved = g->mult;
  g->mult *= trips;
  g->ind++;
  if (acc_lhs) gen_acc_body(g, acc_store, acc_lhs);
  else if (braces) gen_block(g, 1 + below(g, 3));
  else if (chance(g, 70) || d + 1 >= MAX_DEPTH || g->mult * 2 > NEST_WORK) gen_assign(g);
  else gen_loop(g);
  g->ind--;
  g->mult = saved;
  g->nctr--;
  if (braces) line(g, "}");
}

/* ---------------- kernels and files ---------------- */

static int64_t random_dim(G *g) {
  static const int64_t pool[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 20, 24, 31, 32, 33, 48, 64, 100, 128, 256};
  int n = sizeof pool / sizeof pool[0];
  for (int i = 0; i < g->ndefs; i++)
    if (!g->defs[i].is_float && g->defs[i].ival <= 256 && chance(g, 25)) return (int64_t)g->defs[i].ival;
  return pool[chance(g, 80) ? 3 + below(g, 15) : below(g, n)];
}

static const char *dim_text(G *g, int64_t v) {
  for (int i = 0; i < g->ndefs; i++)
    if (!g->defs[i].is_float && g->defs[i].ival == v && chance(g, 70)) {
      feat(g, KG_F_DEFINE);
      return g->defs[i].name;
    }
  return arena_printf(&g->a, "%lld", (long long)v);
}

static void gen_kernel(G *g, int ki, StrBuf *out) {
  KgKernel *k = &g->c->kernels[ki];
  memset(k, 0, sizeof *k);
  g->k = k;
  snprintf(k->name, sizeof k->name, ki ? "kgen%d" : "kgen", ki + 1);
  g->nst = g->nctr = 0;
  g->mult = 1;
  g->work = 0;
  g->nlocals = g->nlabels = g->nstmts = 0;
  static const char *const anames[] = {"A", "B", "C", "X", "Y", "Z", "in", "out", "lut", "img", "acc", "w"};
  static const char *const snames[] = {"alpha", "beta", "n", "m", "scale", "bias", "sh"};
  int narr = 1 + below(g, 3), nsc = chance(g, 35) ? 1 + below(g, 2) : 0;
  int out_at = below(g, narr); /* at least this array is an output */
  unsigned used_a = 0, used_s = 0;
  int ai = 0, si = 0;
  while (ai < narr || si < nsc) {
    bool arr = si >= nsc || (ai < narr && chance(g, 70));
    KgParam *p = &k->params[k->nparams++];
    const Ty *t = spelling_of(g, random_kind(g));
    p->kind = t->kind;
    p->spelling = t->name;
    int j;
    if (arr) {
      do j = below(g, 12);
      while (used_a & (1u << j));
      used_a |= 1u << j;
      snprintf(p->name, sizeof p->name, "%s", anames[j]);
      p->is_array = true;
      p->is_const = ai != out_at && chance(g, 65);
      p->ndim = chance(g, 40) ? 1 : chance(g, 75) ? 2 : 3;
      int64_t total = 1;
      for (int d = 0; d < p->ndim; d++) {
        int64_t v = random_dim(g);
        while (total * v > MAX_ELEMS) v = v > 1 ? v / 2 : 1;
        if (p->ndim == 1 && chance(g, 10)) v = 256;
        p->dims[d] = v;
        total *= v;
      }
      Store *s = new_store(g, p->name, t);
      s->is_array = true;
      s->ndim = p->ndim;
      memcpy(s->dims, p->dims, sizeof s->dims);
      if (p->is_const) {
        s->writable = false;
        s->is_const = true;
        if (is_float(t)) s->fread = (FR){-1, 1, false};
        else s->base = s->read = is_signed(t) ? (Rng){-8, 8} : (Rng){0, 16};
      } else if (is_wide_signed(t)) {
        random_budget(g, s, 8);
      }
      ai++;
    } else {
      do j = below(g, 7);
      while (used_s & (1u << j));
      used_s |= 1u << j;
      snprintf(p->name, sizeof p->name, "%s", snames[j]);
      Store *s = new_store(g, p->name, t);
      s->is_scalar_param = true;
      if (chance(g, 25)) {
        /* the kernel's own copy, written like a local */
        if (is_wide_signed(t)) random_budget(g, s, 8);
      } else {
        p->is_const = chance(g, 20);
        s->writable = false;
        if (is_float(t)) s->fread = (FR){0.5, 1.5, false};
        else s->base = s->read = (Rng){1, 8};
      }
      si++;
    }
  }
  StrBuf body;
  sb_init(&body);
  StrBuf saved = g->sb;
  g->sb = body;
  g->ind = 1;
  g->predeclared = chance(g, 8);
  if (g->predeclared) {
    g->pre_ty = chance(g, 70) ? &ty_int : &ty_long;
    feat(g, KG_F_PREDECLARED);
    line(g, "%s i, j, k, l;", g->pre_ty->name);
  }
  int ntop = 1 + below(g, 3);
  for (int i = 0; i < ntop || (i < 6 && g->work == 0); i++) gen_block(g, 1);
  if (chance(g, 10)) line(g, "return;");
  body = g->sb;
  g->sb = saved;
  /* the signature */
  sb_printf(out, "void %s(", k->name);
  for (int i = 0; i < k->nparams; i++) {
    KgParam *p = &k->params[i];
    if (i) sb_puts(out, chance(g, 20) ? ",\n    " : ", ");
    sb_printf(out, "%s%s %s", p->is_const ? "const " : "", p->spelling, p->name);
    for (int d = 0; d < p->ndim; d++) sb_printf(out, "[%s]", dim_text(g, p->dims[d]));
  }
  sb_printf(out, ") {\n%s}\n", body.data ? body.data : "");
  sb_free(&body);
  /* float values are not kept finite (a read of a float variable is
   * unknown), so the check is told a float output may end NaN or infinite */
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].is_array && !k->params[i].is_const && k->params[i].kind >= KG_F32) {
      sb_printf(out, "#pragma npu allow_nonfinite(%s)\n", k->name);
      break;
    }
  g->c->work += g->work;
}

static void gen_defines(G *g, StrBuf *out) {
  static const char *const inames[] = {"N", "M", "K", "LEN", "SZ", "DIM"};
  static const char *const fnames[] = {"SCALE", "EPS"};
  static const int64_t vals[] = {4, 8, 10, 12, 16, 20, 32, 64};
  int n = chance(g, 55) ? 1 + below(g, 3) : 0;
  for (int i = 0; i < n; i++) {
    Define *d = &g->defs[g->ndefs++];
    snprintf(d->name, sizeof d->name, "%s", inames[i + 3 * below(g, 2)]); /* distinct for i < 3 */
    d->t = &ty_int;
    if (i > 0 && chance(g, 40)) {
      const Define *o = &g->defs[below(g, i)];
      int m = 2 + below(g, 2);
      bool div = chance(g, 40) && o->ival % m == 0;
      d->ival = div ? o->ival / m : o->ival * m;
      if (d->ival > 256) d->ival = o->ival, div = true, m = 1;
      sb_printf(out, "#define %s (%s %s %d)\n", d->name, o->name, div ? "/" : "*", m);
    } else {
      d->ival = vals[below(g, 8)];
      sb_printf(out, chance(g, 15) ? "#define %s (%lld)\n" : "#define %s %lld\n", d->name, (long long)d->ival);
    }
  }
  if (chance(g, 25)) {
    Define *d = &g->defs[g->ndefs++];
    snprintf(d->name, sizeof d->name, "%s", fnames[below(g, 2)]);
    bool single = chance(g, 60);
    static const char *const fv[] = {"0.5", "0.25", "2.0", "1.5", "0.125"};
    const char *t = fv[below(g, 5)];
    d->is_float = true;
    d->fval = strtod(t, NULL);
    d->t = single ? &ty_float : &ty_double;
    sb_printf(out, "#define %s %s%s\n", d->name, t, single ? "f" : "");
  }
  if (g->ndefs) feat(g, KG_F_DEFINE);
}

void kg_generate(uint64_t seed, KgCase *out) {
  memset(out, 0, sizeof *out);
  out->seed = seed;
  G *g = calloc(1, sizeof *g);
  g->rng = mix64(seed ^ 0x6b67656e2d6b6e6cull);
  g->c = out;
  arena_init(&g->a, 0);
  StrBuf defs, kernels, file;
  sb_init(&defs);
  sb_init(&kernels);
  sb_init(&file);
  gen_defines(g, &defs);
  out->nkernels = chance(g, 12) ? 2 : 1;
  if (out->nkernels == 2) feat(g, KG_F_TWO_KERNELS);
  for (int i = 0; i < out->nkernels; i++) {
    if (i) sb_putc(&kernels, '\n');
    if (chance(g, 30)) sb_printf(&kernels, "/* kernel %d of seed %llu */\n", i + 1, (unsigned long long)seed);
    gen_kernel(g, i, &kernels);
  }
  sb_printf(&file, "/* npugen random kernel (fuzz/kernel_gen.c), seed %llu */\n", (unsigned long long)seed);
  sb_puts(&file, "#include <stdint.h>\n");
  if (g->uses_math || chance(g, 20)) sb_puts(&file, "#include <math.h>\n");
  if (g->uses_abs || chance(g, 10)) sb_puts(&file, "#include <stdlib.h>\n");
  if (chance(g, 5)) sb_puts(&file, "#include <stddef.h>\n");
  if (defs.data) sb_printf(&file, "%s", defs.data);
  sb_printf(&file, "\n%s", kernels.data);
  out->src = sb_take(&file);
  sb_free(&defs);
  sb_free(&kernels);
  sb_free(&g->sb);
  arena_free(&g->a);
  free(g);
}

void kg_case_free(KgCase *c) {
  free(c->src);
  c->src = NULL;
}

/* ---------------- the driver ---------------- */

static int64_t elems(const KgParam *p) {
  int64_t n = 1;
  for (int d = 0; d < p->ndim; d++) n *= p->dims[d];
  return n;
}

static void param_decl(StrBuf *sb, const KgParam *p, const char *name) {
  sb_printf(sb, "%s%s %s", p->is_const ? "const " : "", p->spelling, name);
  for (int d = 0; d < p->ndim; d++) sb_printf(sb, "[%lld]", (long long)p->dims[d]);
}

char *kg_driver_source(const KgCase *c, uint64_t input_seed) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "/* fuzz_kernels driver: check's input ranges, every output element printed */\n"
               "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
               "#ifdef KG_HEADER\n#include KG_HEADER\n#endif\n\n");
  for (int k = 0; k < c->nkernels; k++) {
    const KgKernel *kk = &c->kernels[k];
    sb_printf(&sb, "void %s(", kk->name);
    for (int i = 0; i < kk->nparams; i++) {
      if (i) sb_puts(&sb, ", ");
      param_decl(&sb, &kk->params[i], kk->params[i].name);
    }
    sb_puts(&sb, ");\n");
  }
  sb_printf(&sb, "\nstatic uint64_t kg_state = %lluull;\n", (unsigned long long)input_seed);
  sb_puts(&sb, "static uint64_t kg_next(void) {\n"
               "  uint64_t z = (kg_state += 0x9e3779b97f4a7c15ull);\n"
               "  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
               "  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
               "  return z ^ (z >> 31);\n}\n"
               "static double kg_unit(void) { return (double)(kg_next() >> 11) / 9007199254740992.0; }\n");
  for (int k = 0; k < c->nkernels; k++)
    for (int i = 0; i < c->kernels[k].nparams; i++) {
      const KgParam *p = &c->kernels[k].params[i];
      if (!p->is_array) continue;
      KgParam q = *p;
      q.is_const = false;
      char name[32];
      snprintf(name, sizeof name, "a%d_%d", k, i);
      sb_puts(&sb, "static ");
      param_decl(&sb, &q, name);
      sb_puts(&sb, ";\n");
    }
  sb_puts(&sb, "\nint main(void) {\n");
  for (int k = 0; k < c->nkernels; k++) {
    const KgKernel *kk = &c->kernels[k];
    for (int i = 0; i < kk->nparams; i++) {
      const KgParam *p = &kk->params[i];
      bool f = p->kind >= KG_F32, s = p->kind == KG_I8 || p->kind == KG_I16 || p->kind == KG_I32 || p->kind == KG_I64;
      const char *val = f ? (p->is_array ? "2.0 * kg_unit() - 1.0" : "0.5 + kg_unit()")
                        : !p->is_array ? "1 + kg_next() % 8"
                        : s           ? "(int64_t)(kg_next() % 17) - 8"
                                      : "kg_next() % 17";
      if (p->is_array)
        sb_printf(&sb, "  { %s *p = (%s *)a%d_%d; for (long e = 0; e < %lld; e++) p[e] = (%s)(%s); }\n", p->spelling,
                  p->spelling, k, i, (long long)elems(p), p->spelling, val);
      else
        sb_printf(&sb, "  %s s%d_%d = (%s)(%s);\n", p->spelling, k, i, p->spelling, val);
    }
    sb_printf(&sb, "  %s(", kk->name);
    for (int i = 0; i < kk->nparams; i++) {
      const KgParam *p = &kk->params[i];
      if (i) sb_puts(&sb, ", ");
      if (!p->is_array) {
        sb_printf(&sb, "s%d_%d", k, i);
      } else if (p->is_const && p->ndim > 1) {
        /* int (*)[8] does not convert to const int (*)[8] in C99 */
        sb_printf(&sb, "(const %s (*)", p->spelling);
        for (int d = 1; d < p->ndim; d++) sb_printf(&sb, "[%lld]", (long long)p->dims[d]);
        sb_printf(&sb, ")a%d_%d", k, i);
      } else {
        sb_printf(&sb, "a%d_%d", k, i);
      }
    }
    sb_puts(&sb, ");\n");
  }
  for (int k = 0; k < c->nkernels; k++) {
    const KgKernel *kk = &c->kernels[k];
    for (int i = 0; i < kk->nparams; i++) {
      const KgParam *p = &kk->params[i];
      if (!p->is_array || p->is_const) continue;
      bool s = p->kind == KG_I8 || p->kind == KG_I16 || p->kind == KG_I32 || p->kind == KG_I64;
      sb_printf(&sb, "  { const %s *p = (const %s *)a%d_%d; for (long e = 0; e < %lld; e++) ", p->spelling,
                p->spelling, k, i, (long long)elems(p));
      if (p->kind == KG_F32)
        sb_printf(&sb, "{ uint32_t b; memcpy(&b, &p[e], 4); printf(\"%s.%s[%%ld] f %%08lx %%a\\n\", e, (unsigned long)b, (double)p[e]); } }\n",
                  kk->name, p->name);
      else if (p->kind == KG_F64)
        sb_printf(&sb, "{ uint64_t b; memcpy(&b, &p[e], 8); printf(\"%s.%s[%%ld] d %%016llx %%a\\n\", e, (unsigned long long)b, p[e]); } }\n",
                  kk->name, p->name);
      else if (s)
        sb_printf(&sb, "printf(\"%s.%s[%%ld] i %%lld\\n\", e, (long long)p[e]); }\n", kk->name, p->name);
      else
        sb_printf(&sb, "printf(\"%s.%s[%%ld] i %%llu\\n\", e, (unsigned long long)p[e]); }\n", kk->name, p->name);
    }
  }
  sb_puts(&sb, "  return 0;\n}\n");
  return sb_take(&sb);
}
