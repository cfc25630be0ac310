/* tensorize's checks after a structural match: sizes, tails, windows,
 * operand offsets, index masks and operand domains. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "schedule/intrinsics.h"
#include "schedule/tensorize_match.h"

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
    else if (!tensorize_size_value(m, sb->dim_macro[d], &v)) {
      tensorize_size_bind(m, sb->dim_macro[d], want);
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
    if (is_literal(d->body) && !tensorize_size_value(m, d->name, &v) && !tensorize_size_bind(m, d->name, 1))
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
    if (is_literal(d->body) && tensorize_size_value(m, d->name, &v)) sb_printf(&text, "#define %s %lld\n", d->name, (long long)v);
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
    if (!tensorize_size_value(m, d->name, &want)) {
      if (is_literal(d->body)) continue; /* never bound: unused by this match */
      tensorize_size_bind(m, arena_printf(m->a, "%s", d->name), v); /* mod is freed below */
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
Expr **tensorize_window_offsets(Match *m, int i) {
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
    if (!tensorize_window_offsets(m, i))
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

bool tensorize_check_match(Match *m, const Module *sem, const char *name, StrBuf *guard, char *why, size_t n) {
  return check_sizes(m, sem, why, n) && check_tails(m, sem, why, n) && check_windows(m, why, n) &&
         check_offsets(m, why, n) && check_nonneg(m, guard, why, n) && check_domains(m, sem->src, name, guard, why, n) &&
         sched_libm_agrees(sem->src, why, n);
}
