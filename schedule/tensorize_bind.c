/* tensorize's matcher, part 1: how a failed match says why, and the
 * bindings it makes (semantics counters to the nest's loops, sizes to
 * values, linear forms solved for sizes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "schedule/tensorize_match.h"

/* ---------------- differences ---------------- */

static const char *stmt_label(const Stmt *st) {
  return !st ? "?" : st->name ? st->name : st->kind == ST_IF ? "the if" : "a statement";
}

bool tensorize_differ(Match *m, const char *what, const Expr *u, const Expr *s) {
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

bool tensorize_differ_stmt(Match *m, const char *what, const Stmt *u, const Stmt *s) {
  bool decl = u && u->kind == ST_DECL && (u->buf || u->var);
  const char *uname = !u ? "" : decl ? (u->buf ? u->buf->name : u->var->name) : u->name ? u->name : "a statement";
  if (!m->why[0])
    snprintf(m->why, sizeof m->why, "%s: %s%s (line %d) against the intrinsic's %s (line %d)", what,
             !u ? "nothing" : u->kind == ST_FOR ? "loop " : decl ? "the declaration of " : "", uname,
             u ? u->loc.line : 0, s ? s->name ? s->name : "statement" : "nothing", s ? s->loc.line : 0);
  return false;
}

/* ---------------- linear indices ---------------- */

const Var *tensorize_mapped(const Match *m, const Var *sv) {
  for (int i = 0; i < m->nvars; i++)
    if (m->svar[i] == sv) return m->uloop[i]->var;
  return NULL;
}

/* A semantics counter whose loop runs once (the nest has no loop for it). */
bool tensorize_unit_value(const Match *m, const Var *sv, int64_t *v) {
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

bool tensorize_size_value(const Match *m, const char *name, int64_t *v) {
  for (int i = 0; i < m->nsizes; i++)
    if (!strcmp(m->size[i], name)) return *v = m->size_val[i], true;
  return false;
}

bool tensorize_size_bind(Match *m, const char *name, int64_t v) {
  int64_t old;
  if (tensorize_size_value(m, name, &old)) return old == v;
  if (m->nsizes == MAX_BIND) return false;
  m->size[m->nsizes] = name;
  m->size_val[m->nsizes++] = v;
  return true;
}

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
bool tensorize_form_const(const Form *f, int64_t *k) {
  *k = 0;
  for (int i = 0; i < f->n; i++) {
    if (f->t[i].v || f->t[i].size) return false;
    *k += f->t[i].c;
  }
  return true;
}

/* f += scale * e, over the semantics kernel's variables and unbound sizes. */
bool tensorize_sym_linear(const Match *m, const Expr *e, int64_t scale, Form *f) {
  int64_t v;
  switch (e->kind) {
  case EX_INT:
    if (e->macro && !tensorize_size_value(m, e->macro, &v)) return form_add(f, scale, NULL, e->macro);
    return form_add(f, scale * (e->macro ? v : e->ival), NULL, NULL);
  case EX_VAR:
    if (tensorize_unit_value(m, e->var, &v)) return form_add(f, scale * v, NULL, NULL);
    return form_add(f, scale, e->var, NULL);
  case EX_CAST: return type_is_integer(e->type) && e->type->size >= 4 && tensorize_sym_linear(m, e->a, scale, f);
  case EX_UNARY:
    if (e->op != OP_NEG && e->op != OP_PLUS) return false;
    return tensorize_sym_linear(m, e->a, e->op == OP_NEG ? -scale : scale, f);
  case EX_BINARY:
    if (e->op == OP_ADD || e->op == OP_SUB)
      return tensorize_sym_linear(m, e->a, scale, f) && tensorize_sym_linear(m, e->b, e->op == OP_ADD ? scale : -scale, f);
    if (e->op == OP_MUL) {
      Form x = {0}, y = {0};
      if (!tensorize_sym_linear(m, e->a, 1, &x) || !tensorize_sym_linear(m, e->b, 1, &y)) return false;
      for (int swap = 0; swap < 2; swap++) {
        const Form *p = swap ? &y : &x, *q = swap ? &x : &y;
        int64_t k;
        if (tensorize_form_const(p, &k)) {
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
  return tensorize_size_bind(m, t->size, (want - known) / t->c);
}

/* Matches the linear expression u against the semantics' s: equal
 * coefficients of each pair of loop counters, sizes solved on the way. With
 * rest != NULL the user's expression may add an offset free of the nest's
 * counters (returned); otherwise the constants must be equal too. */
bool tensorize_match_linear(Match *m, const Expr *u, const Expr *s, Expr **rest) {
  const char *differs = rest ? "an index differs" : "a condition differs";
  for (int again = 1; again;) { /* a size just solved may appear in other groups */
    again = 0;
    Form f = {0};
    if (!tensorize_sym_linear(m, s, 1, &f)) return tensorize_differ(m, "the intrinsic's expression is not linear in its counters and sizes", u, s);
    for (int i = 0; i < f.n; i++)
      if (f.t[i].v && !tensorize_mapped(m, f.t[i].v)) return tensorize_differ(m, "the intrinsic's expression uses a variable the nest does not bind", u, s);
    bool bound = false;
    for (int i = 0; i < m->nvars && !bound; i++) {
      int64_t cu;
      if (!ir_linear_coef(u, m->uloop[i]->var, &cu)) return tensorize_differ(m, "the expression is not linear in the nest's counters", u, s);
      if (!solve_group(m, &f, m->svar[i], cu, &bound)) return tensorize_differ(m, differs, u, s);
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
      if (unknowns) return tensorize_differ(m, "the intrinsic's sizes in this index are not bound yet (the guard that binds them must come first)", u, s);
      *rest = known ? ir_add(m->a, o, ir_int(m->a, -known, o->type, o->loc), o->type) : o;
      return true;
    }
    if (!ir_const_int(o, &oc)) return tensorize_differ(m, "the condition depends on values from outside the nest", u, s);
    if (!solve_group(m, &f, NULL, oc, &bound)) return tensorize_differ(m, differs, u, s);
    again = bound;
  }
  return true;
}
