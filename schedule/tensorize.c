/* tensorize(loop, INTRINSIC): the loop nest under `loop` computes exactly
 * what one call of an NPU intrinsic computes; the emitter calls it instead.
 *
 * An intrinsic's semantics is a kernel in the DSL, npu_intrinsics/NAME.c
 * (like TVM's TensorIntrin desc and Exo's instr). The match is structural,
 * up to renaming: loop for loop (the user's trip counts bind the size
 * macros, M = 32), statement for statement, expression for expression with
 * the same operators, casts and types. A semantics `if (p == c)` on a
 * scalar parameter is taken (p = c) or not (p = c + 1), whichever matches
 * (the matmul's accumulate flag). Each semantics array binds to one user
 * array: every index must be the semantics index plus an offset that does
 * not vary inside the nest, so the operand is &USER[offset...] and its
 * leading dimensions are the user array's. The comment lines of the
 * semantics file give the scopes the operands must live in ("scopes: C
 * nu_ob, A nu_ib") and the order of the call's arguments ("abi: ..."):
 * operands, size macros, scalar parameters, and LDX for the leading
 * dimension of operand X.
 *
 * Forms C defines to be equal match too (docs/schedules.md, "Nests with
 * fewer loops" and "Equivalent forms"): a semantics loop the nest has no
 * loop for runs once (size 1, a GEMV as the matmul with N = 1), and an
 * operand of lower rank leaves out the dimensions whose index is then 0;
 * commuted operands, mirrored comparisons, S = S + X for S += X and back,
 * an operand written in place, element for element, and an if under a
 * mask that stores one element as the select it is; `c != d ? x : y` as
 * `c == d ? y : x`, `e > k` on ints as `e >= k + 1`; a lane's index, the
 * semantics' `P + i`, as any signed int index with coefficient 1 on the
 * counter (P its value at counter 0), and `E & k` as `E % (k + 1)` where
 * E is not negative (tested at run time). A guard on a matched
 * loop's counter that keeps a prefix (a split's tail) or any window of
 * its iterations (`if (i >= 7)`, schedule/vectorize_window.c) runs the
 * call over what it keeps: start and length at run time.
 *
 * The nest stays in the IR, marked with the intrinsic, so later steps and
 * their proofs see the code it stands for; the emitter matches again and
 * writes the call (or the loops, with a comment, if a later step changed
 * the nest so that it no longer matches). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "ir/arith.h"
#include "schedule/primitives.h"
#include "schedule/expand.h"
#include "schedule/tensorize.h"
#include "schedule/intrinsics.h"

enum { MAX_BIND = 32 };

typedef struct {
  const Kernel *sem;
  const char *sem_src;
  const Var *svar[MAX_BIND];
  int nvars;
  const char *size[MAX_BIND]; /* macro -> value */
  int64_t size_val[MAX_BIND];
  int nsizes;
  const Buffer *sbuf[MAX_BIND], *ubuf[MAX_BIND];
  const Expr *sacc[MAX_BIND]; /* the first access of sbuf[i] in the semantics */
  Expr **off[MAX_BIND]; /* per dimension */
  int nbufs;
  const Var *sparam[MAX_BIND];
  int64_t sparam_val[MAX_BIND];
  const Expr *sparam_expr[MAX_BIND]; /* a scalar operand bound to the nest's value, or NULL */
  int nparams;
  Arena *a;
  const Stmt *uloop[MAX_BIND];   /* the nest's loop matched to svar[i] */
  /* semantics loops the nest has no loop for: run once, counter = value */
  const Var *unit_var[MAX_BIND];
  int64_t unit_val[MAX_BIND];
  int nunits;
  signed char dmap[MAX_BIND][IR_MAX_DIMS]; /* operand i: semantics dim -> user dim, -1 left out */
  const Var *size_loop[MAX_BIND]; /* the nest's counter whose extent bound size i, or NULL */
  /* tails: a matched loop's iterations from end - start on do nothing (a
   * split's guard `start + v < end` around what follows): the size its
   * extent binds is min(extent, end - start), computed in the call */
  const Var *tail_var[MAX_BIND];
  Expr *tail_start[MAX_BIND];
  const Expr *tail_end[MAX_BIND]; /* a constant, or an expression of the kernel's sizes */
  int ntails;
  /* windows: a matched loop's iterations outside a window do nothing (a
   * guard `if (start + v >= lo)`, schedule/vectorize_window.c): the call
   * runs over the window alone */
  const Var *win_var[MAX_BIND];
  SchedWindow win[MAX_BIND];
  int nwins;
  /* index masks written with & (`(i & 3) == 1` for the semantics' `(s +
   * i) % m == r`): the scalar operands that must not be negative there,
   * where & and % agree (check_nonneg) */
  const Var *nonneg[MAX_BIND];
  int nnonneg;
  /* the semantics' lane index start P (`(P + i) % m`) and the nest's
   * counter for i (lane_index), or NULL */
  const Var *lane_param, *lane_var;
  const Stmt *ucur, *scur; /* the statements being matched */
  int progress;             /* nodes compared: how near a failed match came */
  char why[1024];
} Match;

/* ---------------- differences ---------------- */

static const char *stmt_label(const Stmt *st) {
  return !st ? "?" : st->name ? st->name : st->kind == ST_IF ? "the if" : "a statement";
}

static bool differ(Match *m, const char *what, const Expr *u, const Expr *s) {
  if (m->why[0]) return false;
  if (!s) { /* a scalar operand: no expression of the intrinsic's to show */
    StrBuf us;
    sb_init(&us);
    if (u) ir_print_expr(&us, u);
    snprintf(m->why, sizeof m->why, "%s: '%s' in %s (line %d)", what, us.data ? us.data : "", stmt_label(m->ucur),
             m->ucur ? m->ucur->loc.line : 0);
    sb_free(&us);
    return false;
  }
  StrBuf us, ss;
  sb_init(&us);
  sb_init(&ss);
  if (u) ir_print_expr(&us, u);
  if (s) ir_print_expr(&ss, s);
  snprintf(m->why, sizeof m->why, "%s: '%s' in %s (line %d) against the intrinsic's '%s' (line %d)", what,
           us.data ? us.data : "", stmt_label(m->ucur), m->ucur ? m->ucur->loc.line : 0, ss.data ? ss.data : "",
           m->scur ? m->scur->loc.line : 0);
  sb_free(&us);
  sb_free(&ss);
  return false;
}

static bool differ_stmt(Match *m, const char *what, const Stmt *u, const Stmt *s) {
  bool decl = u && u->kind == ST_DECL && (u->buf || u->var);
  const char *uname = !u ? "" : decl ? (u->buf ? u->buf->name : u->var->name) : u->name ? u->name : "a statement";
  if (!m->why[0])
    snprintf(m->why, sizeof m->why, "%s: %s%s (line %d) against the intrinsic's %s (line %d)", what,
             !u ? "nothing" : u->kind == ST_FOR ? "loop " : decl ? "the declaration of " : "", uname,
             u ? u->loc.line : 0, s ? s->name ? s->name : "statement" : "nothing", s ? s->loc.line : 0);
  return false;
}

/* ---------------- linear indices ---------------- */

static const Var *mapped(const Match *m, const Var *sv) {
  for (int i = 0; i < m->nvars; i++)
    if (m->svar[i] == sv) return m->uloop[i]->var;
  return NULL;
}

/* A semantics counter whose loop runs once (the nest has no loop for it). */
static bool unit_value(const Match *m, const Var *sv, int64_t *v) {
  for (int i = 0; i < m->nunits; i++)
    if (m->unit_var[i] == sv) return *v = m->unit_val[i], true;
  return false;
}

/* ---------------- sizes and linear forms ----------------
 * The semantics kernel's #define sizes are unknowns: a loop's trip count
 * binds its bound (M = 32), and an index or a condition binds the sizes in
 * it (in[y * SH - PH + r * DH] against in[oh + kh - 1] gives SH = 1, DH = 1
 * once PH is known from the guard oh + kh - 1 >= 0). A semantics
 * expression is read as a sum of terms c * var * size, with at most one of
 * var and size per term; a group with one unknown size solves for it. */

static bool size_value(const Match *m, const char *name, int64_t *v) {
  for (int i = 0; i < m->nsizes; i++)
    if (!strcmp(m->size[i], name)) return *v = m->size_val[i], true;
  return false;
}

static bool size_bind(Match *m, const char *name, int64_t v) {
  int64_t old;
  if (size_value(m, name, &old)) return old == v;
  if (m->nsizes == MAX_BIND) return false;
  m->size[m->nsizes] = name;
  m->size_val[m->nsizes++] = v;
  return true;
}

enum { MAX_TERMS = 24 };
typedef struct {
  int64_t c;
  const Var *v;     /* NULL: no variable */
  const char *size; /* an unbound size, or NULL */
} Term;
typedef struct {
  Term t[MAX_TERMS];
  int n;
} Form;

static bool same_size(const char *x, const char *y) { return x == y || (x && y && !strcmp(x, y)); }

static bool form_add(Form *f, int64_t c, const Var *v, const char *size) {
  if (!c) return true;
  for (int i = 0; i < f->n; i++)
    if (f->t[i].v == v && same_size(f->t[i].size, size)) return f->t[i].c += c, true;
  if (f->n == MAX_TERMS) return false;
  f->t[f->n++] = (Term){c, v, size};
  return true;
}

/* A form that is one plain constant (or empty, 0). */
static bool form_const(const Form *f, int64_t *k) {
  *k = 0;
  for (int i = 0; i < f->n; i++) {
    if (f->t[i].v || f->t[i].size) return false;
    *k += f->t[i].c;
  }
  return true;
}

/* f += scale * e, over the semantics kernel's variables and unbound sizes. */
static bool sym_linear(const Match *m, const Expr *e, int64_t scale, Form *f) {
  int64_t v;
  switch (e->kind) {
  case EX_INT:
    if (e->macro && !size_value(m, e->macro, &v)) return form_add(f, scale, NULL, e->macro);
    return form_add(f, scale * (e->macro ? v : e->ival), NULL, NULL);
  case EX_VAR:
    if (unit_value(m, e->var, &v)) return form_add(f, scale * v, NULL, NULL);
    return form_add(f, scale, e->var, NULL);
  case EX_CAST: return type_is_integer(e->type) && e->type->size >= 4 && sym_linear(m, e->a, scale, f);
  case EX_UNARY:
    if (e->op != OP_NEG && e->op != OP_PLUS) return false;
    return sym_linear(m, e->a, e->op == OP_NEG ? -scale : scale, f);
  case EX_BINARY:
    if (e->op == OP_ADD || e->op == OP_SUB)
      return sym_linear(m, e->a, scale, f) && sym_linear(m, e->b, e->op == OP_ADD ? scale : -scale, f);
    if (e->op == OP_MUL) {
      Form x = {0}, y = {0};
      if (!sym_linear(m, e->a, 1, &x) || !sym_linear(m, e->b, 1, &y)) return false;
      for (int swap = 0; swap < 2; swap++) {
        const Form *p = swap ? &y : &x, *q = swap ? &x : &y;
        int64_t k;
        if (form_const(p, &k)) {
          for (int i = 0; i < q->n; i++)
            if (!form_add(f, scale * k * q->t[i].c, q->t[i].v, q->t[i].size)) return false;
          return true;
        }
        /* var * SIZE: the size must be alone on its side, the other side free of sizes */
        if (p->n == 1 && !p->t[0].v && p->t[0].size) {
          for (int i = 0; i < q->n; i++)
            if (q->t[i].size || !form_add(f, scale * p->t[0].c * q->t[i].c, q->t[i].v, p->t[0].size)) return false;
          return true;
        }
      }
    }
    return false;
  default: return false;
  }
}

/* The terms of group v (a variable, or NULL for the constant part): their
 * known sum, and the one unknown size if there is exactly one. */
static int form_group(const Form *f, const Var *v, int64_t *known, const Term **unknown) {
  int n = 0;
  *known = 0;
  *unknown = NULL;
  for (int i = 0; i < f->n; i++) {
    if (f->t[i].v != v) continue;
    if (f->t[i].size) n++, *unknown = &f->t[i];
    else *known += f->t[i].c;
  }
  return n;
}

/* Solve group value = want for its one unknown size, or check it. */
static bool solve_group(Match *m, const Form *f, const Var *v, int64_t want, bool *bound) {
  int64_t known;
  const Term *t;
  int n = form_group(f, v, &known, &t);
  if (n == 0) return known == want;
  if (n > 1 || (want - known) % t->c) return false;
  *bound = true;
  return size_bind(m, t->size, (want - known) / t->c);
}

/* Matches the linear expression u against the semantics' s: equal
 * coefficients of each pair of loop counters, sizes solved on the way. With
 * rest != NULL the user's expression may add an offset free of the nest's
 * counters (returned); otherwise the constants must be equal too. */
static bool match_linear(Match *m, const Expr *u, const Expr *s, Expr **rest) {
  const char *differs = rest ? "an index differs" : "a condition differs";
  for (int again = 1; again;) { /* a size just solved may appear in other groups */
    again = 0;
    Form f = {0};
    if (!sym_linear(m, s, 1, &f)) return differ(m, "the intrinsic's expression is not linear in its counters and sizes", u, s);
    for (int i = 0; i < f.n; i++)
      if (f.t[i].v && !mapped(m, f.t[i].v)) return differ(m, "the intrinsic's expression uses a variable the nest does not bind", u, s);
    bool bound = false;
    for (int i = 0; i < m->nvars && !bound; i++) {
      int64_t cu;
      if (!ir_linear_coef(u, m->uloop[i]->var, &cu)) return differ(m, "the expression is not linear in the nest's counters", u, s);
      if (!solve_group(m, &f, m->svar[i], cu, &bound)) return differ(m, differs, u, s);
    }
    if (bound) {
      again = 1;
      continue;
    }
    Expr *o = ir_expr_copy(m->a, u);
    for (int i = 0; i < m->nvars; i++) o = ir_subst_expr(m->a, o, m->uloop[i]->var, ir_int(m->a, 0, &ty_int, u->loc));
    int64_t known, oc;
    const Term *t;
    int unknowns = form_group(&f, NULL, &known, &t);
    if (rest) {
      if (unknowns) return differ(m, "the intrinsic's sizes in this index are not bound yet (the guard that binds them must come first)", u, s);
      *rest = known ? ir_add(m->a, o, ir_int(m->a, -known, o->type, o->loc), o->type) : o;
      return true;
    }
    if (!ir_const_int(o, &oc)) return differ(m, "the condition depends on values from outside the nest", u, s);
    if (!solve_group(m, &f, NULL, oc, &bound)) return differ(m, differs, u, s);
    again = bound;
  }
  return true;
}

/* ---------------- conditions ---------------- */

static bool match_expr(Match *m, const Expr *u, const Expr *s);

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
static bool match_cond(Match *m, const Expr *u, const Expr *s) {
  enum { MAX_CONJ = 16 };
  const Expr *uc[MAX_CONJ], *sc[MAX_CONJ];
  int nu = conjuncts(u, uc, 0, MAX_CONJ), ns = conjuncts(s, sc, 0, MAX_CONJ);
  if (nu != ns || nu > MAX_CONJ) return differ(m, "the conditions have different numbers of terms", u, s);
  bool used[MAX_CONJ] = {false};
  Match *save = malloc(sizeof *save);
  for (int i = 0; i < ns; i++) {
    bool found = false;
    for (int j = 0; j < nu && !found; j++) {
      if (used[j]) continue;
      *save = *m;
      if (relational(sc[i]) && relational(uc[j]))
        found = match_linear(m, nonneg_form(m->a, uc[j]), nonneg_form(m->a, sc[i]), NULL);
      else
        found = match_expr(m, uc[j], sc[i]);
      if (found) used[j] = true;
      else *m = *save;
    }
    if (!found) {
      free(save);
      return differ(m, "no term of the condition matches", u, sc[i]);
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
  return sym_linear(m, s, 1, &f) && form_const(&f, &k) && k == 0;
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
    if (!sym_linear(m, s->idx[d], 1, &f)) continue;
    for (int t = 0; t < f.n; t++) {
      const Var *uv = f.t[t].v ? mapped(m, f.t[t].v) : NULL;
      bool used = false;
      for (int e = 0; uv && e < u->buf->ndim; e++) used = used || ir_expr_uses(u->idx[e], uv, NULL);
      if (uv && !used) {
        snprintf(what + n, sizeof what - (size_t)n, ", and %s's index %s follows loop %s, which %s's indices do not "
                 "use (one element for every %s: a stride of 0)", sn, f.t[t].v->name, uv->name, un, uv->name);
        return differ(m, what, u, s);
      }
    }
  }
  snprintf(what + n, sizeof what - (size_t)n, "; only a dimension whose index is always 0 (its loop runs once) can "
           "be left out");
  return differ(m, what, u, s);
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
    if (!invariant(m, u->idx[d])) return differ(m, "a leading index changes inside the nest", u, s);
  if (!type_same(u->buf->elem, s->buf->elem)) return differ(m, "the element types differ", u, s);
  int bi = -1;
  for (int i = 0; i < m->nbufs; i++)
    if (m->sbuf[i] == s->buf) bi = i;
  if (bi >= 0 && m->ubuf[bi] != u->buf) return differ(m, "one intrinsic operand would be two arrays", u, s);
  signed char dmap[IR_MAX_DIMS];
  if (!dim_map(m, u, s, dmap)) return false;
  Expr **off = ARENA_ARRAY(m->a, Expr *, u->buf->ndim);
  for (int d = 0; d < lead; d++) off[d] = u->idx[d];
  for (int d = 0; d < s->buf->ndim; d++)
    if (dmap[d] >= 0 && !match_linear(m, u->idx[dmap[d]], s->idx[d], &off[dmap[d]])) return false;
  for (int i = 0; i < m->nbufs; i++)
    if (i != bi && m->ubuf[i] == u->buf && !may_share(m, i, s, off, dmap))
      return differ(m, "one array would be two intrinsic operands", u, s);
  if (bi < 0) {
    if (m->nbufs == MAX_BIND) return differ(m, "too many arrays", u, s);
    bi = m->nbufs++;
    m->sbuf[bi] = s->buf;
    m->sacc[bi] = s;
    m->ubuf[bi] = u->buf;
    m->off[bi] = off;
    memcpy(m->dmap[bi], dmap, sizeof dmap);
    return true;
  }
  if (memcmp(dmap, m->dmap[bi], (size_t)s->buf->ndim))
    return differ(m, "two accesses of one operand leave out different dimensions", u, s);
  for (int d = 0; d < u->buf->ndim; d++)
    if (!ir_expr_same(off[d], m->off[bi][d])) return differ(m, "two accesses of one operand start at different places", u, s);
  return true;
}

/* A scalar parameter of the semantics kernel (multiplier, shift): it binds
 * to the nest's value there, which must not change inside the nest. */
static bool is_param(const Match *m, const Var *v) {
  for (const Param *q = m->sem->params; q; q = q->next)
    if (q->var && q->var == v) return true;
  return false;
}

static bool bind_operand(Match *m, const Var *p, const Expr *u) {
  if (!invariant(m, u) || ir_expr_has_load(u)) return differ(m, "a scalar operand of the intrinsic must not change inside the nest", u, NULL);
  for (int i = 0; i < m->nparams; i++)
    if (m->sparam[i] == p)
      return (m->sparam_expr[i] && ir_expr_same(m->sparam_expr[i], u)) ||
             differ(m, "one scalar operand of the intrinsic would take two values", u, NULL);
  if (m->nparams == MAX_BIND) return differ(m, "too many scalar operands", u, NULL);
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
static bool commutative(Op op) {
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
    if (p->kind == EX_VAR && is_param(m, p->var) && v->kind == EX_VAR && (*uv = mapped(m, v->var))) return p->var;
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
  if (!bind_operand(m, p, arith_simplify(m->a, start, NULL, 0))) return false;
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
      k < 0 || k >= INT32_MAX || (k & (k + 1)) || s->b->kind != EX_VAR || !is_param(m, s->b->var) ||
      !type_same(u->type, s->type) || !(p = lane_base(m, s->a, &uv)) || m->nnonneg == MAX_BIND)
    return 0;
  if (!bind_operand(m, s->b->var, ir_int(m->a, k + 1, s->b->type, u->loc)) || !lane_index(m, u->a, s->a))
    return differ(m, "the index mask differs", u, s), -1;
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
      s->a->b->kind != EX_VAR || !is_param(m, s->a->b->var) || s->b->kind != EX_VAR || !is_param(m, s->b->var) ||
      !(p = lane_base(m, s->a->a, &uv)) || m->nnonneg == MAX_BIND)
    return 0;
  if (!bind_operand(m, s->a->b->var, ir_int(m->a, 2, s->a->b->type, u->loc)) ||
      !bind_operand(m, s->b->var, ir_int(m->a, 1, s->b->type, u->loc)) || !lane_index(m, e, s->a->a))
    return differ(m, "the index mask differs", u, s), -1;
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
  bool ok = match_expr(m, eq, s->a) && match_expr(m, u->c, s->b) && match_expr(m, u->b, s->c);
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
  bool ok = match_expr(m, even, s->a) && match_expr(m, u->c, s->b) && match_expr(m, u->b, s->c);
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
      !is_param(m, s->b->var) || !type_is_integer(s->a->type))
    return 0;
  const Expr *e = u->op == OP_GT ? u->a : u->op == OP_LT ? u->b : NULL, *c = u->op == OP_GT ? u->b : u->a;
  if (!e || !ir_const_int(c, &k) || k >= INT32_MAX || !type_same(e->type, s->a->type)) return 0;
  return match_expr(m, e, s->a) && bind_operand(m, s->b->var, ir_int(m->a, k + 1, s->b->type, c->loc)) ? 1 : -1;
}

static bool match_expr(Match *m, const Expr *u, const Expr *s) {
  m->progress++;
  const Expr *truth = u && s && u->kind == EX_COND && s->kind == EX_COND && s->a->kind == EX_LOAD ? truth_of(u->a) : NULL;
  if (truth) /* the mask's test written out */
    return match_expr(m, truth, s->a) && match_expr(m, u->b, s->b) && match_expr(m, u->c, s->c);
  if (!u || !s) return (!u && !s) || differ(m, "an operand is missing", u, s);
  if (unequal_select(m, u, s) || odd_select(m, u, s)) return true;
  int odd = index_odd(m, u, s);
  if (odd) return odd > 0;
  int above = int_above(m, u, s);
  if (above) return above > 0;
  /* a scalar parameter binds any value of its type the nest does not vary */
  if (s->kind == EX_VAR && is_param(m, s->var) && (constant_fits(u, s->type) || type_same(u->type, s->type)))
    return bind_operand(m, s->var, u);
  if (int_as_float(u, s)) return true;
  int and_form = index_and(m, u, s);
  if (and_form) return and_form > 0;
  if (lane_index(m, u, s)) return true;
  int64_t uv, c;
  if (s->kind == EX_VAR && unit_value(m, s->var, &uv)) /* a loop that runs once: its start */
    return (ir_const_int(u, &c) && c == uv && type_same(u->type, s->type)) ||
           differ(m, "the intrinsic's counter here belongs to a loop the nest does not have (it runs once)", u, s);
  if (u->kind != s->kind) return differ(m, "the expressions differ", u, s);
  if (!type_same(u->type, s->type)) return differ(m, "the types differ", u, s);
  switch (u->kind) {
  case EX_INT: return u->ival == s->ival || differ(m, "the constants differ", u, s);
  case EX_FLOAT: return u->fval == s->fval || differ(m, "the constants differ", u, s);
  case EX_VAR: return mapped(m, s->var) == u->var || differ(m, "the variables differ", u, s);
  case EX_LOAD: return match_load(m, u, s);
  case EX_CALL:
    if (strcmp(u->text, s->text) || u->nargs != s->nargs) return differ(m, "the calls differ", u, s);
    for (int i = 0; i < u->nargs; i++)
      if (!match_expr(m, u->args[i], s->args[i])) return false;
    return true;
  default:
    if (u->kind == EX_BINARY && u->op != s->op && mirrored(u->op) == s->op) /* x > m is m < x */
      return match_expr(m, u->b, s->a) && match_expr(m, u->a, s->b);
    if (u->op != s->op) return differ(m, "the operators differ", u, s);
    if (u->kind == EX_BINARY && commutative(u->op)) return match_either_order(m, u, s);
    return match_expr(m, u->a, s->a) && match_expr(m, u->b, s->b) && match_expr(m, u->c, s->c);
  }
}

/* The operands of u in order, or swapped; neither, the difference of the
 * order that came further (in order on a tie). */
static bool match_either_order(Match *m, const Expr *u, const Expr *s) {
  Match *save = malloc(sizeof *save), *first = malloc(sizeof *first);
  *save = *m;
  bool ok = match_expr(m, u->a, s->a) && match_expr(m, u->b, s->b);
  if (!ok) {
    *first = *m;
    *m = *save;
    ok = match_expr(m, u->b, s->a) && match_expr(m, u->a, s->b);
    if (!ok && first->progress >= m->progress) *m = *first;
  }
  free(save);
  free(first);
  return ok;
}

/* ---------------- statements ---------------- */

static const Stmt *flat(const Stmt *s) {
  while (s && s->kind == ST_BLOCK && !s->next) s = s->body;
  return s;
}

static bool bind_size(Match *m, const Expr *shi, int64_t v, const Stmt *u, const Stmt *s) {
  int64_t c;
  if (!shi->macro) return (ir_const_int(shi, &c) && c == v) || differ_stmt(m, "the trip counts differ", u, s);
  int before = m->nsizes;
  if (!size_bind(m, shi->macro, v)) return differ_stmt(m, "a size would take two values", u, s);
  if (m->nsizes > before) m->size_loop[before] = u->var;
  return true;
}

/* g is all loop's body runs: its body, or the whole body of a loop or of
 * an if with no else that is all loop's body runs, and so on down (ifs have
 * no side effects: when g is false, nothing runs). */
static bool whole_body(const Stmt *loop, const Stmt *g) {
  const Stmt *s = flat(loop->body->body);
  while (s && s != g && !s->next && (s->kind == ST_FOR || (s->kind == ST_IF && !s->else_s && s->then_s)))
    s = flat(s->kind == ST_FOR ? s->body->body : s->then_s);
  return s == g && !s->next;
}

/* A matched loop's counter that a tail or a window already shortens. */
static bool shortened(const Match *m, const Var *v) {
  for (int j = 0; j < m->ntails; j++)
    if (m->tail_var[j] == v) return true;
  for (int j = 0; j < m->nwins; j++)
    if (m->win_var[j] == v) return true;
  return false;
}

/* u is a tail guard (ir_tail_guard) on a matched loop that starts at 0,
 * all that loop's body runs (so an iteration past the end does nothing),
 * with a start free of every matched counter: recorded, true. */
static bool take_tail(Match *m, const Stmt *u) {
  for (int i = 0; i < m->nvars; i++) {
    Expr *start;
    const Expr *end;
    int64_t lo, end_val;
    if (!ir_tail_guard(m->a, u, m->uloop[i]->var, &start, &end) || !ir_const_int(m->uloop[i]->lo, &lo) || lo != 0 ||
        !whole_body(m->uloop[i], u))
      continue;
    bool const_end = ir_const_int(end, &end_val);
    for (int j = 0; j < m->nvars; j++)
      if (ir_expr_uses(start, m->uloop[j]->var, NULL)) return false;
    for (int j = 0; j < m->nwins; j++) /* inside a window: cut it at the tail's end */
      if (m->win_var[j] == m->uloop[i]->var) {
        SchedWindow *w = &m->win[j];
        if (!const_end || !ir_expr_same(arith_simplify(m->a, start, NULL, 0), w->start)) return false;
        w->hi = w->has_hi && w->hi < end_val ? w->hi : end_val;
        w->has_hi = true;
        return true;
      }
    if (shortened(m, m->uloop[i]->var) || m->ntails == MAX_BIND) return false;
    m->tail_var[m->ntails] = m->uloop[i]->var;
    m->tail_start[m->ntails] = start;
    m->tail_end[m->ntails++] = end;
    return true;
  }
  return false;
}

/* A split's tail guard and a window guard on one loop (`if (core * 256 +
 * ii < N) if (core * 256 + ii >= 300)`), with one start: one window, w
 * cut at the tail's end; the tail is dropped. */
static bool merge_tail(Match *m, const Var *v, SchedWindow *w) {
  for (int j = 0; j < m->ntails; j++) {
    if (m->tail_var[j] != v) continue;
    int64_t end;
    if (!ir_const_int(m->tail_end[j], &end) || !ir_expr_same(arith_simplify(m->a, m->tail_start[j], NULL, 0), w->start))
      return false;
    w->hi = w->has_hi && w->hi < end ? w->hi : end;
    w->has_hi = true;
    m->ntails--;
    m->tail_var[j] = m->tail_var[m->ntails];
    m->tail_start[j] = m->tail_start[m->ntails];
    m->tail_end[j] = m->tail_end[m->ntails];
    return true;
  }
  return true;
}

/* u is a window guard (sched_window_guard) on a matched loop that starts
 * at 0, all that loop's body runs, with a start free of every matched
 * counter: recorded (with the loop's tail, merge_tail), true. A tail that
 * is not a prefix. */
static bool take_window(Match *m, const Stmt *u) {
  for (int i = 0; i < m->nvars; i++) {
    SchedWindow w;
    int64_t lo;
    if (!sched_window_guard(m->a, u, m->uloop[i]->var, &w) || !ir_const_int(m->uloop[i]->lo, &lo) || lo != 0 ||
        !whole_body(m->uloop[i], u))
      continue;
    for (int j = 0; j < m->nvars; j++)
      if (ir_expr_uses(w.start, m->uloop[j]->var, NULL)) return false;
    if (!merge_tail(m, m->uloop[i]->var, &w) || shortened(m, m->uloop[i]->var) || m->nwins == MAX_BIND) return false;
    m->win_var[m->nwins] = m->uloop[i]->var;
    m->win[m->nwins++] = w;
    return true;
  }
  return false;
}

static bool match_list(Match *m, const Stmt *u, const Stmt *s);

/* A loop runs by 1 from a constant start to a constant end; the starts are
 * equal (a max reduction's from 1, after its init from element 0) and the
 * end binds the intrinsic's size. */
static bool match_loop(Match *m, const Stmt *u, const Stmt *s) {
  int64_t lo, hi, slo;
  if (u->step == 1 && u->cmp == OP_LT && !ir_const_int(u->hi, &hi) && ir_expr_sizes_only(u->hi))
    return differ_stmt(m, "the loop's bound is in the kernel's sizes: split the loop first (its tail guard then "
                       "gives the instruction a run-time length)", u, s);
  if (u->step != 1 || u->cmp != OP_LT || !ir_const_int(u->lo, &lo) || !ir_const_int(u->hi, &hi) || hi <= lo)
    return differ_stmt(m, "the loop must run by 1 between constants", u, s);
  if (s->step != 1 || s->cmp != OP_LT || !ir_const_int(s->lo, &slo))
    return differ_stmt(m, "the intrinsic's loop is not of the supported form", u, s);
  if (lo != slo) return differ_stmt(m, "the loops start at different values", u, s);
  if (!type_same(u->var->type, s->var->type)) return differ_stmt(m, "the loop counters' types differ", u, s);
  if (!bind_size(m, s->hi, hi, u, s)) return false;
  if (m->nvars == MAX_BIND) return differ_stmt(m, "too deep", u, s);
  m->svar[m->nvars] = s->var;
  m->uloop[m->nvars++] = u;
  return match_list(m, u->body->body, s->body->body);
}

/* `p == c` over a scalar parameter of the semantics kernel. */
static bool param_test(const Match *m, const Expr *c, const Var **p, int64_t *v) {
  if (c->kind != EX_BINARY || c->op != OP_EQ || c->a->kind != EX_VAR || !ir_const_int(c->b, v) ||
      !is_param(m, c->a->var))
    return false;
  *p = c->a->var;
  return true;
}

static bool bind_param(Match *m, const Var *p, int64_t v) {
  for (int i = 0; i < m->nparams; i++)
    if (m->sparam[i] == p) return !m->sparam_expr[i] && m->sparam_val[i] == v;
  if (m->nparams == MAX_BIND) return false;
  m->sparam[m->nparams] = p;
  m->sparam_expr[m->nparams] = NULL;
  m->sparam_val[m->nparams++] = v;
  return true;
}

/* The statements of body, then rest: a copy of the list, in the arena. */
static const Stmt *splice(Arena *a, const Stmt *body, const Stmt *rest) {
  Stmt *list = (Stmt *)rest, **tail = &list;
  for (const Stmt *t = flat(body); t; t = t->next) {
    Stmt *c = ARENA_NEW(a, Stmt);
    *c = *t;
    c->next = *tail;
    *tail = c;
    tail = &c->next;
  }
  return list;
}

/* A semantics loop the nest has no loop for runs once: its size binds to
 * 1, its counter is its start everywhere, and its body, then what follows
 * it, matches the nest from u on (the matmul's j loop for a GEMV). */
static bool unit_loop(Match *m, const Stmt *u, const Stmt *s) {
  int64_t slo, hi;
  if (s->step != 1 || s->cmp != OP_LT || !ir_const_int(s->lo, &slo) || slo == INT64_MAX)
    return differ_stmt(m, "the intrinsic's loop is not of the supported form", u, s);
  if (s->hi->macro) {
    int before = m->nsizes;
    if (!size_bind(m, s->hi->macro, slo + 1))
      return differ_stmt(m, "the nest has no loop here, and the intrinsic's size would take two values", u, s);
    if (m->nsizes > before) m->size_loop[before] = NULL;
  } else if (!ir_const_int(s->hi, &hi) || hi != slo + 1)
    return differ_stmt(m, "the nest has no loop here, and the intrinsic's loop runs more than once", u, s);
  if (m->nunits == MAX_BIND) return differ_stmt(m, "too deep", u, s);
  m->unit_var[m->nunits] = s->var;
  m->unit_val[m->nunits++] = slo;
  m->progress -= 2; /* a loop the nest lacks is a difference too: a nearest miss needs none */
  return match_list(m, u, splice(m->a, s->body->body, s->next));
}

/* A semantics loop: the nest's loop here, or none (it runs once), whichever
 * matches; neither, the difference of the one that came further. The nest
 * may have fewer loops than the intrinsic, never more. */
static bool match_for(Match *m, const Stmt *u, const Stmt *s) {
  Match *save = malloc(sizeof *save), *loop = malloc(sizeof *loop);
  *save = *m;
  bool ok = u->kind == ST_FOR && match_loop(m, u, s) && match_list(m, u->next, s->next);
  if (!ok) {
    *loop = *m;
    *m = *save;
    ok = unit_loop(m, u, s);
    if (!ok && u->kind == ST_FOR && loop->progress >= m->progress) *m = *loop;
    if (!ok && u->kind != ST_FOR && !m->why[0]) differ_stmt(m, "the statements differ", u, s);
  }
  free(save);
  free(loop);
  return ok;
}

/* u, L = L op X (or X op L when op commutes), computed in L's type: then
 * it is L op= X exactly (C defines L op= X as L = L op X with L read
 * once), and *rest is X. Not L = X - L, nor a sum C converts back. */
static bool folded(const Stmt *u, Op op, const Expr **rest) {
  const Expr *r = u->rhs;
  if (r->kind != EX_BINARY || r->op != op || !type_same(r->type, u->lhs->type)) return false;
  if (ir_expr_same(r->a, u->lhs)) return *rest = r->b, true;
  if (commutative(op) && ir_expr_same(r->b, u->lhs)) return *rest = r->a, true;
  return false;
}

/* u, L op= R, as L = L op R when that needs no conversion (L and R of
 * one type that promotes to itself); NULL otherwise. */
static Expr *unfolded(Arena *a, const Stmt *u) {
  const Type *t = u->lhs->type;
  if (!type_same(t, u->rhs->type) || !type_same(type_promote(t), t)) return NULL;
  return ir_binary(a, u->op, ir_expr_copy(a, u->lhs), ir_expr_copy(a, u->rhs), t, u->loc);
}

/* Assignments match with the same operator, or as their equivalent forms:
 * S = S + X (or X + S) is S += X, and S += X is S = S + X. */
static bool match_assign(Match *m, const Stmt *u, const Stmt *s) {
  const Expr *rest;
  Expr *whole;
  if (u->op == s->op) return match_expr(m, u->lhs, s->lhs) && match_expr(m, u->rhs, s->rhs);
  if (u->op == OP_NONE && folded(u, s->op, &rest)) return match_expr(m, u->lhs, s->lhs) && match_expr(m, rest, s->rhs);
  if (s->op == OP_NONE && (whole = unfolded(m->a, u)))
    return match_expr(m, u->lhs, s->lhs) && match_expr(m, whole, s->rhs);
  return differ_stmt(m, "the assignment operators differ", u, s);
}

/* Any comparison, of any type. */
static bool comparison(const Expr *e) {
  return e->kind == EX_BINARY && (e->op == OP_LT || e->op == OP_LE || e->op == OP_GT || e->op == OP_GE ||
                                  e->op == OP_EQ || e->op == OP_NE);
}

/* A mask itself: an element of an integer array (`if (m[i])`). */
static bool byte_mask(const Expr *e) { return e->kind == EX_LOAD && type_is_integer(e->type); }

/* u, `if (C) L = X; else L = Y;` (with no else, Y is L: the value L
 * held), as the one assignment L = C ? X : Y, which stores the same value.
 * Only for a data-dependent C, one comparison of values loaded from
 * arrays or an element of an integer array (a mask): the bounds check
 * (ir/bounds.c) narrows nothing by such a C, so X, Y and L are in bounds
 * wherever the nest runs, as the instruction reads and writes them. X and
 * Y of L's type: no conversion that the ?: would add. */

static const Stmt *as_select(Arena *a, const Stmt *u) {
  if (u->kind != ST_IF || !(byte_mask(u->cond) || (comparison(u->cond) && ir_expr_has_load(u->cond)))) return NULL;
  const Stmt *t = flat(u->then_s), *e = u->else_s ? flat(u->else_s) : NULL;
  if (!t || t->kind != ST_ASSIGN || t->next || t->op != OP_NONE || t->lhs->kind != EX_LOAD) return NULL;
  if (u->else_s && (!e || e->kind != ST_ASSIGN || e->next || e->op != OP_NONE || !ir_expr_same(e->lhs, t->lhs)))
    return NULL;
  const Expr *y = e ? e->rhs : t->lhs;
  if (!type_same(t->rhs->type, t->lhs->type) || !type_same(y->type, t->lhs->type)) return NULL;
  Expr *sel = ARENA_NEW(a, Expr);
  sel->kind = EX_COND;
  sel->a = u->cond;
  sel->b = t->rhs;
  sel->c = (Expr *)y;
  sel->type = t->lhs->type;
  sel->loc = u->loc;
  Stmt *as = ARENA_NEW(a, Stmt);
  *as = *t;
  as->rhs = sel;
  as->next = u->next;
  return as;
}

/* A split's tail guard around the intrinsic's own if (an index mask's,
 * `if ((s + i) % m == r)`): what it guards, or, when that does not match,
 * nothing taken (the guard may be the if itself). */
static bool tail_around_if(Match *m, const Stmt *u, const Stmt *s) {
  Match *save = malloc(sizeof *save);
  *save = *m;
  bool ok = take_tail(m, u) && match_list(m, u->then_s, s);
  if (!ok) *m = *save;
  free(save);
  return ok;
}

static bool match_list(Match *m, const Stmt *u, const Stmt *s) {
  u = flat(u);
  s = flat(s);
  m->progress++;
  if (!s) return !u || differ_stmt(m, "the nest does more than the intrinsic", u, NULL);
  const Var *p;
  int64_t v;
  if (s->kind == ST_IF && !s->else_s && param_test(m, s->cond, &p, &v)) {
    /* taken (p = v): its statements, then the rest; or not taken */
    Match save = *m;
    if (bind_param(m, p, v) && match_list(m, u, splice(m->a, s->then_s, s->next))) return true;
    char taken_why[sizeof m->why];
    memcpy(taken_why, m->why, sizeof taken_why);
    *m = save;
    if (bind_param(m, p, v + 1) && match_list(m, u, s->next)) return true;
    /* neither: the difference that explains it is the taken one's when the
     * nest has a statement where the if's would be */
    const Stmt *t = flat(s->then_s);
    if (u && t && u->kind == t->kind && taken_why[0]) memcpy(m->why, taken_why, sizeof m->why);
    return false;
  }
  if (!u) return differ_stmt(m, "the nest does less than the intrinsic", NULL, s);
  /* a split's tail guard, where the intrinsic has none: what it guards */
  if (u->kind == ST_IF && s->kind != ST_IF && take_tail(m, u)) return match_list(m, u->then_s, s);
  if (u->kind == ST_IF && s->kind == ST_IF && tail_around_if(m, u, s)) return true;
  /* a guard that keeps a window of a loop's iterations: the call runs over it */
  if (u->kind == ST_IF && s->kind != ST_IF && take_window(m, u)) return match_list(m, u->then_s, s);
  if (s->kind == ST_FOR) return match_for(m, u, s);
  /* a masked store or an if-else of one element: the select it is */
  const Stmt *sel = s->kind == ST_ASSIGN ? as_select(m->a, u) : NULL;
  if (sel) u = sel;
  if (u->kind != s->kind) return differ_stmt(m, "the statements differ", u, s);
  bool ok;
  switch (s->kind) {
  case ST_IF:
    m->ucur = u;
    m->scur = s;
    ok = match_cond(m, u->cond, s->cond) && match_list(m, u->then_s, s->then_s) &&
         ((!u->else_s && !s->else_s) || (u->else_s && s->else_s && match_list(m, u->else_s, s->else_s)) ||
          differ_stmt(m, "one if has an else and the other has none", u, s));
    break;
  case ST_ASSIGN:
    m->ucur = u;
    m->scur = s;
    ok = match_assign(m, u, s);
    break;
  default: ok = differ_stmt(m, "unsupported statement in the intrinsic", u, s); break;
  }
  return ok && match_list(m, u->next, s->next);
}

/* ---------------- the semantics file ---------------- */


typedef struct {
  Module *m;
  DiagList d;
} Sem;

/* A semantics kernel's local scalars (requantize's `double r = ...`) are
 * substituted into the statements after them, as compute_inline does in
 * the user's nest, so both compare in the same shape. */
static void inline_locals(Arena *a, Stmt **list) {
  for (Stmt **p = list; *p;) {
    Stmt *x = *p;
    if (x->kind == ST_DECL && !x->buf && x->var && x->init) {
      for (Stmt *y = x->next; y; y = y->next) ir_subst_stmt(a, y, x->var, x->init);
      *p = x->next;
      continue;
    }
    if (x->kind == ST_BLOCK || x->kind == ST_FOR) inline_locals(a, &x->body);
    if (x->kind == ST_IF) {
      inline_locals(a, &x->then_s);
      inline_locals(a, &x->else_s);
    }
    p = &x->next;
  }
}

static bool sem_load(Sem *sem, const char *name, char *err, size_t n) {
  diag_init(&sem->d);
  sem->m = NULL;
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
      snprintf(err, n, "'%s' is not an intrinsic name", name);
      return false;
    }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.c", NPG_INTRINSICS_INCLUDE_DIR, name);
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    char dym[160];
    snprintf(err, n, "unknown intrinsic '%s' (npu_intrinsics/ has no semantics kernel %s.c; `npugen intrinsics` "
             "lists them)%s", name, name, sched_intrinsic_suggest(name, dym, sizeof dym));
    return false;
  }
  sem->m = frontend_parse_intrinsic(path, text, len, &sem->d);
  free(text);
  if (!sem->m || !sem->m->kernels) {
    snprintf(err, n, "the semantics kernel of %s does not parse", name);
    return false;
  }
  inline_locals(&sem->m->arena, &sem->m->kernels->body);
  return true;
}

static void sem_free(Sem *sem) {
  if (sem->m) module_free(sem->m);
  diag_free(&sem->d);
}

/* Parsed semantics kernels by name, loaded at most once per owner: a
 * vectorize tries every npu_vu_* file, and a schedule may vectorize often.
 * Matching only reads them. */
struct SemCache {
  struct Cached {
    char *name;
    Sem sem;
    bool known;
    char err[512];
  } *v;
  int n, cap;
};

SemCache *sem_cache_new(void) { return calloc(1, sizeof(SemCache)); }

void sem_cache_free(SemCache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) {
    free(c->v[i].name);
    sem_free(&c->v[i].sem);
  }
  free(c->v);
  free(c);
}

/* name's semantics from the cache (loaded into it the first time), or into
 * *own when there is no cache (the caller frees it). NULL with err when it
 * does not load. */
static const Sem *sem_get(SemCache *c, const char *name, Sem *own, char *err, size_t n) {
  if (!c) return sem_load(own, name, err, n) ? own : NULL;
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->v[i].name, name)) {
      if (!c->v[i].known) snprintf(err, n, "%s", c->v[i].err);
      return c->v[i].known ? &c->v[i].sem : NULL;
    }
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->v = realloc(c->v, sizeof *c->v * (size_t)c->cap);
  }
  struct Cached *e = &c->v[c->n++];
  e->name = strdup(name);
  e->known = sem_load(&e->sem, name, e->err, sizeof e->err);
  if (!e->known) snprintf(err, n, "%s", e->err);
  return e->known ? &e->sem : NULL;
}

/* After the match: sizes defined from others (OH from H, PH, ...) must
 * agree with what the match bound, and the operands' extents with the
 * semantics arrays' (an extent that is a size of its own, like LDA, takes
 * the user array's). The defines are re-read by the frontend with the bound
 * values in place of their literals. */
static bool is_literal(const char *body) {
  char *end;
  errno = 0;
  (void)strtoll(body, &end, 0);
  return end != body && !*end && !errno;
}

/* Operand i's extents, which set its strides: each semantics dimension
 * after the first one the user array has is the user's extent there, or 1
 * where the user array leaves it out (C[M][LDC] as y[M]: LDC = 1); the
 * dimensions before it set no stride. An unbound extent binds. */
static bool check_extents(Match *m, int i, char *why, size_t n) {
  const Buffer *sb = m->sbuf[i], *ub = m->ubuf[i];
  const signed char *dmap = m->dmap[i];
  int first = 0;
  while (first < sb->ndim && dmap[first] < 0) first++;
  for (int d = first; d < sb->ndim; d++) {
    int64_t v, want = dmap[d] < 0 ? 1 : ub->shape[dmap[d]];
    if (d == 0) continue;
    if (!sb->dim_macro[d]) v = sb->shape[d];
    else if (!size_value(m, sb->dim_macro[d], &v)) {
      size_bind(m, sb->dim_macro[d], want);
      continue;
    }
    if (d == first || v == want) continue;
    if (dmap[d] < 0)
      snprintf(why, n, "operand %s is %s, which has no dimension for the intrinsic's dimension %d; the intrinsic "
               "needs extent %lld (%s) there, and only a dimension of extent 1 can be left out",
               sb->name, ub->name, d, (long long)v, sb->dim_macro[d] ? sb->dim_macro[d] : "its extent");
    else
      snprintf(why, n, "operand %s is %s, whose dimension %d has extent %lld; the intrinsic needs %lld (%s) there",
               sb->name, ub->name, dmap[d], (long long)want, (long long)v,
               sb->dim_macro[d] ? sb->dim_macro[d] : "its extent");
    return false;
  }
  return true;
}

static bool check_sizes(Match *m, const Module *sem, char *why, size_t n) {
  for (int i = 0; i < m->nbufs; i++)
    if (!check_extents(m, i, why, n)) return false;
  /* A size still unbound is in no expression the nest matched but as the
   * coefficient of a loop run once (r * SH with r = 0: a window reduction
   * over one row) or in a branch not taken: any value computes the same.
   * It binds to 1, the least size; the sizes derived from it are checked
   * below as from any other. */
  for (const Define *d = sem->defines; d; d = d->next) {
    int64_t v;
    if (is_literal(d->body) && !size_value(m, d->name, &v) && !size_bind(m, d->name, 1))
      return snprintf(why, n, "too many sizes") < 0;
  }
  for (int i = 0; i < m->nsizes; i++)
    if (m->size_val[i] < 0) {
      snprintf(why, n, "the match gives %s = %lld; the intrinsic's sizes are not negative", m->size[i],
               (long long)m->size_val[i]);
      return false;
    }
  StrBuf text;
  sb_init(&text);
  for (const Define *d = sem->defines; d; d = d->next) {
    int64_t v;
    if (is_literal(d->body) && size_value(m, d->name, &v)) sb_printf(&text, "#define %s %lld\n", d->name, (long long)v);
    else sb_printf(&text, "#define %s %s\n", d->name, d->body);
  }
  sb_puts(&text, "void semantics_sizes(int x) { x = 0; }\n");
  DiagList dl;
  diag_init(&dl);
  Module *mod = frontend_parse("<sizes>", text.data, text.len, &dl);
  bool ok = mod != NULL;
  if (!ok) snprintf(why, n, "the sizes of the semantics kernel do not evaluate with the bound values");
  for (const Define *d = mod ? mod->defines : NULL; d && ok; d = d->next) {
    int64_t v, want;
    if (!d->value || !ir_const_int(d->value, &v)) continue;
    if (!size_value(m, d->name, &want)) {
      if (is_literal(d->body)) continue; /* never bound: unused by this match */
      size_bind(m, arena_printf(m->a, "%s", d->name), v); /* mod is freed below */
    } else if (v != want) {
      snprintf(why, n, "the nest has %s = %lld where the intrinsic computes %s = %s = %lld from the other sizes",
               d->name, (long long)want, d->name, d->body, (long long)v);
      ok = false;
    }
  }
  if (mod) module_free(mod);
  diag_free(&dl);
  sb_free(&text);
  return ok;
}

/* The size loop v's extent bound, or NULL. */
static const char *loop_size(const Match *m, const Var *v) {
  for (int i = 0; i < m->nsizes; i++)
    if (m->size_loop[i] == v) return m->size[i];
  return NULL;
}

/* A tail shortens one size at run time: only a size no other size derives
 * from and that is no operand's inner extent (a leading dimension, like a
 * matmul's M or a VU op's rows) may be. */
static bool check_tails(Match *m, const Module *sem, char *why, size_t n) {
  for (int t = 0; t < m->ntails + m->nwins; t++) {
    const Var *v = t < m->ntails ? m->tail_var[t] : m->win_var[t - m->ntails];
    const char *size = loop_size(m, v);
    const char *loop = v->name;
    if (!size) return snprintf(why, n, "the guard on loop %s shortens no size of the intrinsic", loop) < 0;
    /* an inner extent is the cache's: the peeled tail needs caches of its own extent */
    const Buffer *inner = NULL;
    for (int i = 0; i < m->nbufs && !inner; i++)
      for (int d = 1; d < m->sbuf[i]->ndim; d++)
        if (m->sbuf[i]->dim_macro[d] && !strcmp(m->sbuf[i]->dim_macro[d], size)) inner = m->sbuf[i];
    const char *peel = inner ? "; peel the tail with loop_partition before cache_read and cache_write, so that "
                               "the tail's caches have its extent"
                             : "; peel the tail with loop_partition";
    for (const Define *d = sem->defines; d; d = d->next)
      if (!is_literal(d->body))
        return snprintf(why, n, "the guard on loop %s (a tail) would shorten %s at run time, but the intrinsic's "
                        "%s derives from its sizes%s", loop, size, d->name, peel) < 0;
    if (inner)
      return snprintf(why, n, "the guard on loop %s (a tail) would shorten %s at run time, an inner extent of "
                      "operand %s%s", loop, size, inner->name, peel) < 0;
  }
  return true;
}

/* The extent of the matched loop whose counter is v (its trip count: it
 * runs from 0) and the semantics counter it binds. */
static int64_t window_loop(const Match *m, const Var *v, const Var **sv) {
  int64_t hi = 0;
  for (int k = 0; k < m->nvars; k++)
    if (m->uloop[k]->var == v) {
      *sv = m->svar[k];
      ir_const_int(m->uloop[k]->hi, &hi);
    }
  return hi;
}

/* Operand i's offsets with each window's first iteration added where its
 * counter indexes the operand (times its coefficient there): the call
 * starts at the window. NULL when a semantics index is not linear in it. */
static Expr **window_offsets(Match *m, int i) {
  int nd = m->ubuf[i]->ndim;
  Expr **off = ARENA_ARRAY(m->a, Expr *, nd);
  memcpy(off, m->off[i], sizeof *off * (size_t)nd);
  for (int w = 0; w < m->nwins; w++) {
    if (!m->win[w].has_lo) continue;
    const Var *sv = NULL;
    int64_t n = window_loop(m, m->win_var[w], &sv), c;
    Expr *first = sched_window_first(m->a, &m->win[w], n);
    for (int sd = 0; sd < m->sbuf[i]->ndim; sd++) {
      int ud = m->dmap[i][sd];
      if (ud < 0) continue;
      if (!sv || !ir_linear_coef(m->sacc[i]->idx[sd], sv, &c)) return NULL;
      const Type *t = off[ud]->type;
      if (c) off[ud] = ir_add(m->a, off[ud], c == 1 ? first : ir_mul_int(m->a, ir_expr_copy(m->a, first), c, t), t);
    }
  }
  return off;
}

static bool check_windows(Match *m, char *why, size_t n) {
  for (int i = 0; i < m->nbufs; i++)
    if (!window_offsets(m, i))
      return snprintf(why, n, "the guard on loop %s keeps a window that does not start at 0, but the intrinsic "
                      "indexes its operand %s other than linearly in the loop's counter, so the call cannot "
                      "start there; peel the window with loop_partition", m->win_var[0]->name,
                      m->sbuf[i]->name) < 0;
  return true;
}

/* The scalar operands an index mask with & needs not negative
 * (index_form): a constant is checked, another value joins `guard`. */
static bool check_nonneg(const Match *m, StrBuf *guard, char *why, size_t n) {
  for (int k = 0; k < m->nnonneg; k++)
    for (int i = 0; i < m->nparams; i++) {
      if (m->sparam[i] != m->nonneg[k]) continue;
      const Expr *e = m->sparam_expr[i];
      int64_t v;
      if (e && ir_const_int(e, &v)) {
        if (v < 0)
          return snprintf(why, n, "the index mask's & agrees with %% only for an index that is not negative, and "
                          "the loop's index starts at %lld", (long long)v) < 0;
      } else if (e && guard) {
        sb_puts(guard, guard->len ? " && (" : "(");
        ir_print_expr(guard, e);
        sb_puts(guard, ") >= 0");
      }
    }
  return true;
}

/* Under an index mask a cache holds only the elements the nest touches:
 * `if (i % 4 == 1)` under a split by 256 touches each tile's elements 1,
 * 5, ..., and its caches start at element 1, so the call's operands would
 * start at &y_vm[-1]. When every operand (one dimension each) starts d >=
 * 1 lanes into the call, the lanes below d touch no element in the nest
 * as written, so the call starts at lane d: the operands, the lane index's
 * start and the length move by d. False when that is not the case. */
/* The constant term of offset e (`ii * 16 - 1`: -1; `-1`: -1; `ii * 16`: 0). */
static int64_t const_term(const Expr *e) {
  int64_t c;
  if (ir_const_int(e, &c)) return c;
  if (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB) && ir_const_int(e->b, &c))
    return e->op == OP_ADD ? c : -c;
  return 0;
}

static bool shift_lanes(Match *m) {
  int64_t d = INT64_MAX, c;
  if (!m->lane_param) return false;
  for (int i = 0; i < m->nbufs; i++) {
    /* a run-time start (`ii * 16 - 1` after a split) moves by its constant term alike */
    if (m->ubuf[i]->ndim != 1 || !m->off[i][0] || (c = const_term(m->off[i][0])) >= 0) return false;
    d = -c < d ? -c : d;
  }
  for (int j = 0; j < m->ntails; j++)
    if (m->tail_var[j] == m->lane_var) return false;
  for (int j = 0; j < m->nwins; j++)
    if (m->win_var[j] == m->lane_var) return false;
  int size = -1, param = -1;
  for (int i = 0; i < m->nsizes; i++)
    if (m->size_loop[i] == m->lane_var) size = i;
  for (int i = 0; i < m->nparams; i++)
    if (m->sparam[i] == m->lane_param && m->sparam_expr[i]) param = i;
  if (size < 0 || param < 0 || m->size_val[size] <= d) return false;
  for (int i = 0; i < m->nbufs; i++) {
    Expr *o = m->off[i][0];
    m->off[i][0] = arith_simplify(m->a, ir_add(m->a, ir_expr_copy(m->a, o), ir_int(m->a, d, o->type, o->loc), o->type),
                                  NULL, 0);
  }
  m->size_val[size] -= d;
  const Expr *p = m->sparam_expr[param];
  m->sparam_expr[param] =
      arith_simplify(m->a, ir_add(m->a, ir_expr_copy(m->a, p), ir_int(m->a, d, p->type, p->loc), p->type), NULL, 0);
  return true;
}

/* No operand starts before its array (&x_vm[-1] points outside x_vm),
 * unless the call can start where they do (shift_lanes). */
static bool check_offsets(Match *m, char *why, size_t n) {
  for (int i = 0; i < m->nbufs; i++)
    for (int d = 0; d < m->ubuf[i]->ndim; d++) {
      /* a constant below 0, or, under an index mask (whose caches start at
       * the first element touched, past the tile's start), a run-time start
       * whose constant term is (`ii * 16 - 1`: &x_vm[-1] at ii = 0); other
       * run-time starts are those of the loops around (`io * 128 - 896`
       * over io >= 7) */
      int64_t c = 0;
      if (m->off[i][d] && !ir_const_int(m->off[i][d], &c) && m->lane_param) c = const_term(m->off[i][d]);
      if (c < 0 && !shift_lanes(m))
        return snprintf(why, n, "its operand %s would start %lld elements before %s (which holds only the elements "
                        "the nest touches), and the call cannot start later: split so that each tile starts at an "
                        "element the nest touches",
                        m->sbuf[i]->name, (long long)-c, m->ubuf[i]->name) < 0;
    }
  return true;
}

/* The operand domains of the semantics file ("domain: multiplier -2097152
 * 2097152, shift 0 47"): where the intrinsic is defined for each scalar
 * operand. A constant operand outside its domain does not match; one that
 * is not a constant is tested by `guard` (C text, when not NULL), under
 * which the call runs: the emitter runs the nest as written otherwise. */
static bool check_domains(const Match *m, const char *src, const char *name, StrBuf *guard, char *why, size_t n) {
  char *dom = sched_intrinsic_meta(src, "domain: ");
  bool ok = true;
  for (char *p = dom; ok && p && *p;) {
    char op[64];
    long long lo, hi;
    int used = 0;
    if (sscanf(p, " %63[^ ,] %lld %lld%n", op, &lo, &hi, &used) != 3) {
      ok = snprintf(why, n, "the semantics of %s have a bad domain line", name) < 0;
      break;
    }
    p += used;
    while (*p == ',' || *p == ' ') p++;
    for (int i = 0; i < m->nparams && ok; i++) {
      if (strcmp(m->sparam[i]->name, op)) continue;
      const Expr *e = m->sparam_expr[i];
      bool constant = !e || e->kind == EX_INT;
      int64_t v = e ? e->ival : m->sparam_val[i];
      if (constant && (v < lo || v > hi))
        ok = snprintf(why, n, "its operand %s would be %lld, outside [%lld, %lld], where %s is defined", op,
                      (long long)v, lo, hi, name) < 0;
      else if (!constant && guard) {
        bool paren = e->kind != EX_VAR;
        for (int side = 0; side < 2; side++) {
          sb_puts(guard, guard->len ? " && " : "");
          if (paren) sb_putc(guard, '(');
          ir_print_expr(guard, e);
          if (paren) sb_putc(guard, ')');
          sb_printf(guard, side ? " <= %lld" : " >= %lld", side ? hi : lo);
        }
      }
    }
  }
  free(dom);
  return ok;
}

/* Matches and checks scopes; fills the call text when sb is not NULL, and
 * the operands' domain test when guard is not NULL (check_domains). */
static bool match_intrinsic(SemCache *cache, Arena *a, const Stmt *loop, const char *name, StrBuf *call,
                            StrBuf *guard, char *why, size_t n, bool *known, int *progress) {
  Sem own = {0};
  const Sem *sem = sem_get(cache, name, &own, why, n);
  *known = sem != NULL;
  if (!sem) {
    sem_free(&own);
    return false;
  }
  Match *m = calloc(1, sizeof *m);
  m->sem = sem->m->kernels;
  m->a = a;
  Stmt one = *loop;
  one.next = NULL;
  bool ok = match_list(m, &one, m->sem->body->body);
  if (progress) *progress = m->progress;
  if (!ok) snprintf(why, n, "%s", m->why);
  else ok = check_sizes(m, sem->m, why, n) && check_tails(m, sem->m, why, n) && check_windows(m, why, n) &&
            check_offsets(m, why, n) && check_nonneg(m, guard, why, n) && check_domains(m, sem->m->src, name, guard, why, n) &&
            sched_libm_agrees(sem->m->src, why, n);
  char *scopes = ok ? sched_intrinsic_meta(sem->m->src, "scopes: ") : NULL, *abi = ok ? sched_intrinsic_meta(sem->m->src, "abi: ") : NULL;
  /* scopes: "C nu_ob, A nu_ib, B nu_wb" */
  for (char *p = scopes; ok && p && *p;) {
    char op[64], scope[64];
    int used = 0;
    if (sscanf(p, " %63[^ ,] %63[^ ,]%n", op, scope, &used) != 2) break;
    p += used;
    while (*p == ',' || *p == ' ') p++;
    for (int i = 0; i < m->nbufs; i++)
      if (!strcmp(m->sbuf[i]->name, op) && strcmp(m->ubuf[i]->scope, scope)) {
        snprintf(why, n, "its operand %s would be %s, which is in %s; it must be in %s (stage it there with "
                 "cache_read or cache_write)", op, m->ubuf[i]->name,
                 strcmp(m->ubuf[i]->scope, "global") ? m->ubuf[i]->scope : "DDR", scope);
        ok = false;
      }
  }
  /* abi: "npu_nu_matmul_i8(C, A, B, M, N, K, LDA, LDB, LDC, accumulate)" */
  char *args = abi ? strchr(abi, '(') : NULL;
  if (ok && !args) ok = snprintf(why, n, "the semantics of %s give no abi line", name) < 0;
  if (ok && call) {
    sb_printf(call, "%s(", name);
    int k = 0;
    for (char *t = strtok(args + 1, ", )"); t && ok; t = strtok(NULL, ", )"), k++) {
      if (k) sb_puts(call, ", ");
      bool done = false;
      for (int i = 0; i < m->nbufs && !done; i++)
        if (!strcmp(m->sbuf[i]->name, t)) {
          Expr e = {.kind = EX_LOAD, .buf = (Buffer *)m->ubuf[i], .type = m->ubuf[i]->elem, .idx = window_offsets(m, i)};
          /* a _Bool mask passed as the intrinsic's uint8_t bytes: C calls the pointer types incompatible */
          const Type *ue = m->ubuf[i]->elem, *se = m->sbuf[i]->elem;
          if ((ue->rank == 0) != (se->rank == 0) && type_is_integer(ue) && type_is_integer(se))
            sb_printf(call, "(%s%s *)", m->sbuf[i]->is_const ? "const " : "", se->name);
          sb_putc(call, '&');
          ir_print_expr(call, &e);
          done = true;
        }
      for (int i = 0; i < m->nsizes && !done; i++)
        if (!strcmp(m->size[i], t)) {
          int tail = -1;
          for (int j = 0; j < m->ntails; j++)
            if (m->size_loop[i] && m->size_loop[i] == m->tail_var[j]) tail = j;
          /* a tail's size, clamped at 0 too: the loops around may reach the
           * nest where its guard holds for no iteration */
          int win = -1;
          for (int j = 0; j < m->nwins; j++)
            if (m->size_loop[i] && m->size_loop[i] == m->win_var[j]) win = j;
          int64_t known;
          if (win >= 0) ir_print_expr(call, sched_window_count(a, &m->win[win], m->size_val[i]));
          else if (tail >= 0)
            sb_puts(call, ir_tail_count(a, m->tail_start[tail], m->tail_end[tail], m->size_val[i], false, &known));
          else sb_printf(call, "%lld", (long long)m->size_val[i]);
          done = true;
        }
      for (int i = 0; i < m->nparams && !done; i++)
        if (!strcmp(m->sparam[i]->name, t)) {
          if (m->sparam_expr[i]) ir_print_expr(call, m->sparam_expr[i]);
          else sb_printf(call, "%lld", (long long)m->sparam_val[i]);
          done = true;
        }
      if (!done) ok = snprintf(why, n, "the abi of %s names '%s', which the match does not bind", name, t) < 0;
    }
    sb_puts(call, ");");
  }
  free(scopes);
  free(abi);
  free(m);
  sem_free(&own);
  return ok;
}

bool tensorize_call(Arena *a, const Stmt *loop, StrBuf *call, StrBuf *guard, char *why, size_t n) {
  bool known;
  return loop->intrin && match_intrinsic(NULL, a, loop, loop->intrin, call, guard, why, n, &known, NULL);
}

bool tensorize_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name) {
  char why[1024];
  bool known;
  StrBuf call; /* written, so the abi is known to bind */
  sb_init(&call);
  bool ok = match_intrinsic(cache, a, loop, name, &call, NULL, why, sizeof why, &known, NULL);
  sb_free(&call);
  return ok;
}

bool tensorize_shape_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = sem_get(cache, name, &own, why, sizeof why);
  bool ok = false;
  if (sem) {
    Match *m = calloc(1, sizeof *m);
    m->sem = sem->m->kernels;
    m->a = a;
    Stmt one = *loop;
    one.next = NULL;
    ok = match_list(m, &one, m->sem->body->body);
    free(m);
  }
  sem_free(&own);
  return ok;
}

static int sem_depth(const Stmt *list) {
  int n = 0;
  for (const Stmt *c = list; c; c = c->next) {
    int d = c->kind == ST_FOR ? 1 + sem_depth(c->body->body) : c->kind == ST_BLOCK ? sem_depth(c->body)
            : c->kind == ST_IF ? sem_depth(c->then_s) : 0;
    if (d > n) n = d;
  }
  return n;
}

int tensorize_depth(SemCache *cache, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = sem_get(cache, name, &own, why, sizeof why);
  int n = sem ? sem_depth(sem->m->kernels->body->body) : 0;
  sem_free(&own);
  return n;
}

static const Stmt *first_assign(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    const Stmt *f = c->kind == ST_ASSIGN ? c : c->kind == ST_FOR ? first_assign(c->body->body)
                  : c->kind == ST_BLOCK ? first_assign(c->body) : c->kind == ST_IF ? first_assign(c->then_s) : NULL;
    if (f) return f;
  }
  return NULL;
}

/* The operator at the root of an assignment's value: a compound
 * assignment's own, else its right-hand side's (a call: OP_NONE). */
static bool assign_root(const Stmt *s, ExprKind *kind, Op *op, const char **fn) {
  if (!s) return false;
  *kind = s->op != OP_NONE ? EX_BINARY : s->rhs->kind;
  *op = s->op != OP_NONE ? s->op : s->rhs->op;
  *fn = s->op == OP_NONE && s->rhs->kind == EX_CALL ? s->rhs->text : "";
  return true;
}

/* Whether the nest's first assignment and the intrinsic's compute their
 * values with one operator (or one call): between misses that came as
 * near, the one whose operation the nest shares is the nearer. */
static bool same_root(SemCache *cache, const Stmt *loop, const char *name) {
  char why[512];
  Sem own = {0};
  const Sem *sem = sem_get(cache, name, &own, why, sizeof why);
  Stmt one = *loop;
  one.next = NULL;
  ExprKind uk, sk;
  Op uo, so;
  const char *uf, *sf;
  bool same = sem && assign_root(first_assign(&one), &uk, &uo, &uf) &&
              assign_root(first_assign(sem->m->kernels->body->body), &sk, &so, &sf) && uk == sk &&
              (uk == EX_CALL ? !strcmp(uf, sf) : uk != EX_BINARY && uk != EX_UNARY ? true : uo == so);
  sem_free(&own);
  return same;
}

static int intrinsic_file(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 2 && !strcmp(e->d_name + n - 2, ".c");
}

const char *tensorize_find(SemCache *cache, Arena *a, const Stmt *loop, const char *prefix, char *why, size_t n) {
  struct dirent **files;
  int count = scandir(NPG_INTRINSICS_INCLUDE_DIR, &files, intrinsic_file, alphasort);
  if (count < 0) {
    snprintf(why, n, "cannot read the intrinsics' semantics in %s: %s", NPG_INTRINSICS_INCLUDE_DIR, strerror(errno));
    return NULL;
  }
  const char *found = NULL;
  int best = -1;
  bool best_root = false;
  snprintf(why, n, "npu_intrinsics/ has no %s* semantics kernel", prefix);
  for (int i = 0; i < count; i++) {
    char name[256], miss[1024];
    snprintf(name, sizeof name, "%.*s", (int)strlen(files[i]->d_name) - 2, files[i]->d_name);
    bool known;
    int progress = 0;
    if (!found && !strncmp(name, prefix, strlen(prefix))) {
      StrBuf call; /* written, so the abi is known to bind */
      sb_init(&call);
      if (match_intrinsic(cache, a, loop, name, &call, NULL, miss, sizeof miss, &known, &progress)) found = arena_strdup(a, name);
      else if (known && (progress > best || (progress == best && !best_root && same_root(cache, loop, name)))) {
        /* the nearest miss: the one that matched furthest; of those, the
         * first that computes what the nest does at its root */
        best_root = progress == best || same_root(cache, loop, name);
        best = progress;
        snprintf(why, n, "nearest %s: %s", name, miss);
      }
      sb_free(&call);
    }
    free(files[i]);
  }
  free(files);
  return found;
}

static bool nest_matches(Sched *s, const Stmt *loop, void *intrin) {
  return tensorize_matches(s->sems, s->a, loop, intrin);
}

bool prim_tensorize(Sched *s, const SchedStep *st) {
  Stmt *loop = sched_loop(s, &st->args[0]);
  if (!loop) return false;
  const Stmt *unrolled = sched_unrolled_inside(loop->body);
  if (unrolled)
    return sched_error(s, &st->args[0], "loop %s under %s is unrolled (%s, line %d), and one intrinsic call runs the whole nest; tensorize before the unroll",
                       unrolled->name, loop->name, unrolled->mark_step ? unrolled->mark_step : "unroll", unrolled->mark_loc.line);
  const SchedArg *ia = &st->args[1];
  if (ia->kind != SA_NAME) return sched_error(s, ia, "expected an intrinsic's name, got '%s'", ia->text);
  char why[1024];
  StrBuf call;
  sb_init(&call);
  bool known, ok = match_intrinsic(s->sems, s->a, loop, ia->name, &call, NULL, why, sizeof why, &known, NULL);
  sb_free(&call);
  if (!known) return sched_error(s, ia, "%s", why);
  if (!ok && sched_expand_to_match(s, loop, nest_matches, (void *)ia->name)) ok = true; /* schedule/expand.c */
  if (!ok) {
    sched_error(s, ia, "the nest under %s does not match %s: %s", loop->name, ia->name, why);
    tensorize_hint(s, loop, ia->name);
    return false;
  }
  loop->intrin = arena_strdup(s->a, ia->name);
  return true;
}
