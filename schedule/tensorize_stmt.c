/* tensorize's matcher, part 3: the nest's statements and loops against the
 * semantics kernel's (loops run once, tails, windows, selects). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "schedule/tensorize_match.h"

/* ---------------- statements ---------------- */

static const Stmt *flat(const Stmt *s) {
  while (s && s->kind == ST_BLOCK && !s->next) s = s->body;
  return s;
}

static bool bind_size(Match *m, const Expr *shi, int64_t v, const Stmt *u, const Stmt *s) {
  int64_t c;
  if (!shi->macro) return (ir_const_int(shi, &c) && c == v) || tensorize_differ_stmt(m, "the trip counts differ", u, s);
  int before = m->nsizes;
  if (!tensorize_size_bind(m, shi->macro, v)) return tensorize_differ_stmt(m, "a size would take two values", u, s);
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

bool tensorize_match_list(Match *m, const Stmt *u, const Stmt *s);

/* A loop runs by 1 from a constant start to a constant end; the starts are
 * equal (a max reduction's from 1, after its init from element 0) and the
 * end binds the intrinsic's size. */
static bool match_loop(Match *m, const Stmt *u, const Stmt *s) {
  int64_t lo, hi, slo;
  if (u->step == 1 && u->cmp == OP_LT && !ir_const_int(u->hi, &hi) && ir_expr_sizes_only(u->hi)) {
    m->sized_miss = true;
    return tensorize_differ_stmt(m, "the loop's bound is in the kernel's sizes: split the loop first (its tail guard then "
                       "gives the instruction a run-time length)", u, s);
  }
  if (u->step != 1 || u->cmp != OP_LT || !ir_const_int(u->lo, &lo) || !ir_const_int(u->hi, &hi) || hi <= lo)
    return tensorize_differ_stmt(m, "the loop must run by 1 between constants", u, s);
  if (s->step != 1 || s->cmp != OP_LT || !ir_const_int(s->lo, &slo))
    return tensorize_differ_stmt(m, "the intrinsic's loop is not of the supported form", u, s);
  if (lo != slo) return tensorize_differ_stmt(m, "the loops start at different values", u, s);
  /* a wider signed counter (`long`) over a constant range int holds
   * counts as the intrinsic's int counter would: its values are the same */
  bool same_values = type_is_integer(u->var->type) && u->var->type->is_signed && type_is_integer(s->var->type) &&
                     s->var->type->is_signed && u->var->type->size >= s->var->type->size && hi <= INT32_MAX &&
                     lo >= INT32_MIN;
  if (!type_same(u->var->type, s->var->type) && !same_values)
    return tensorize_differ_stmt(m, "the loop counters' types differ", u, s);
  if (!bind_size(m, s->hi, hi, u, s)) return false;
  if (m->nvars == MAX_BIND) return tensorize_differ_stmt(m, "too deep", u, s);
  m->svar[m->nvars] = s->var;
  m->uloop[m->nvars++] = u;
  return tensorize_match_list(m, u->body->body, s->body->body);
}

/* `p == c` over a scalar parameter of the semantics kernel. */
static bool param_test(const Match *m, const Expr *c, const Var **p, int64_t *v) {
  if (c->kind != EX_BINARY || c->op != OP_EQ || c->a->kind != EX_VAR || !ir_const_int(c->b, v) ||
      !tensorize_is_param(m, c->a->var))
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

bool tensorize_match_list(Match *m, const Stmt *u, const Stmt *s);

/* u, `if (E == c) T` with E fixed in the nest (outer counters, sizes; no
 * load), against the semantics' `if (p == v) S`: p binds to `E != c`
 * (plus v), which equals v exactly where E == c, and T matches S. */
static bool guarded_param(Match *m, const Stmt *u, const Stmt *s, const Var *p, int64_t v) {
  u = flat(u);
  int64_t c;
  if (!u || u->kind != ST_IF || u->else_s || u->cond->kind != EX_BINARY || u->cond->op != OP_EQ ||
      !ir_const_int(u->cond->b, &c) || !type_is_integer(u->cond->a->type) || v < INT32_MIN || v > INT32_MAX - 1)
    return false;
  Match *save = malloc(sizeof *save);
  *save = *m;
  Expr *test = ir_binary(m->a, OP_NE, ir_expr_copy(m->a, u->cond->a), ir_expr_copy(m->a, u->cond->b), &ty_int, u->loc);
  Expr *value = v ? ir_binary(m->a, OP_ADD, ir_int(m->a, v, &ty_int, u->loc), test, &ty_int, u->loc) : test;
  bool ok = tensorize_bind_operand(m, p, value) && tensorize_match_list(m, u->then_s, s->then_s) &&
            tensorize_match_list(m, u->next, s->next);
  if (!ok) *m = *save;
  free(save);
  return ok;
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
    return tensorize_differ_stmt(m, "the intrinsic's loop is not of the supported form", u, s);
  if (s->hi->macro) {
    int before = m->nsizes;
    if (!tensorize_size_bind(m, s->hi->macro, slo + 1))
      return tensorize_differ_stmt(m, "the nest has no loop here, and the intrinsic's size would take two values", u, s);
    if (m->nsizes > before) m->size_loop[before] = NULL;
  } else if (!ir_const_int(s->hi, &hi) || hi != slo + 1)
    return tensorize_differ_stmt(m, "the nest has no loop here, and the intrinsic's loop runs more than once", u, s);
  if (m->nunits == MAX_BIND) return tensorize_differ_stmt(m, "too deep", u, s);
  m->unit_var[m->nunits] = s->var;
  m->unit_val[m->nunits++] = slo;
  m->progress -= 2; /* a loop the nest lacks is a difference too: a nearest miss needs none */
  return tensorize_match_list(m, u, splice(m->a, s->body->body, s->next));
}

/* A semantics loop: the nest's loop here, or none (it runs once), whichever
 * matches; neither, the difference of the one that came further. The nest
 * may have fewer loops than the intrinsic, never more. */
static bool match_for(Match *m, const Stmt *u, const Stmt *s) {
  Match *save = malloc(sizeof *save), *loop = malloc(sizeof *loop);
  *save = *m;
  bool ok = u->kind == ST_FOR && match_loop(m, u, s) && tensorize_match_list(m, u->next, s->next);
  if (!ok) {
    *loop = *m;
    *m = *save;
    ok = unit_loop(m, u, s);
    /* the path that came further says why; a loop to a size is the
     * reason whatever the other path matched before it failed (a sized
     * reduction loop once read "the assignment operators differ") */
    if (!ok && u->kind == ST_FOR && (loop->progress >= m->progress || loop->sized_miss)) *m = *loop;
    if (!ok && u->kind != ST_FOR && !m->why[0]) tensorize_differ_stmt(m, "the statements differ", u, s);
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
  if (tensorize_commutative(op) && ir_expr_same(r->b, u->lhs)) return *rest = r->a, true;
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
  if (u->op == s->op) return tensorize_match_expr(m, u->lhs, s->lhs) && tensorize_match_expr(m, u->rhs, s->rhs);
  if (u->op == OP_NONE && folded(u, s->op, &rest)) return tensorize_match_expr(m, u->lhs, s->lhs) && tensorize_match_expr(m, rest, s->rhs);
  if (s->op == OP_NONE && (whole = unfolded(m->a, u)))
    return tensorize_match_expr(m, u->lhs, s->lhs) && tensorize_match_expr(m, whole, s->rhs);
  return tensorize_differ_stmt(m, "the assignment operators differ", u, s);
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
  bool ok = take_tail(m, u) && tensorize_match_list(m, u->then_s, s);
  if (!ok) *m = *save;
  free(save);
  return ok;
}

bool tensorize_match_list(Match *m, const Stmt *u, const Stmt *s) {
  u = flat(u);
  s = flat(s);
  m->progress++;
  if (!s) return !u || tensorize_differ_stmt(m, "the nest does more than the intrinsic", u, NULL);
  const Var *p;
  int64_t v;
  if (s->kind == ST_IF && !s->else_s && param_test(m, s->cond, &p, &v)) {
    /* the nest's own test of a value fixed in it (`if (ko == 0)`, an
     * init in the first pass of a K loop: init_at): p runs it as the
     * nest's test does, `p = v + (E != c)` */
    if (guarded_param(m, u, s, p, v)) return true;
    /* taken (p = v): its statements, then the rest; or not taken */
    Match save = *m;
    if (bind_param(m, p, v) && tensorize_match_list(m, u, splice(m->a, s->then_s, s->next))) return true;
    char taken_why[sizeof m->why];
    memcpy(taken_why, m->why, sizeof taken_why);
    bool taken_sized = m->sized_miss;
    *m = save;
    if (bind_param(m, p, v + 1) && tensorize_match_list(m, u, s->next)) return true;
    /* neither: the difference that explains it is the taken one's when the
     * nest has a statement where the if's would be, or when a loop to a
     * size stopped it */
    const Stmt *t = flat(s->then_s);
    if (taken_why[0] && (taken_sized || (u && t && u->kind == t->kind))) {
      memcpy(m->why, taken_why, sizeof m->why);
      m->sized_miss = taken_sized;
    }
    return false;
  }
  if (!u) return tensorize_differ_stmt(m, "the nest does less than the intrinsic", NULL, s);
  /* a split's tail guard, where the intrinsic has none: what it guards */
  if (u->kind == ST_IF && s->kind != ST_IF && take_tail(m, u)) return tensorize_match_list(m, u->then_s, s);
  if (u->kind == ST_IF && s->kind == ST_IF && tail_around_if(m, u, s)) return true;
  /* a guard that keeps a window of a loop's iterations: the call runs over it */
  if (u->kind == ST_IF && s->kind != ST_IF && take_window(m, u)) return tensorize_match_list(m, u->then_s, s);
  if (s->kind == ST_FOR) return match_for(m, u, s);
  /* a masked store or an if-else of one element: the select it is */
  const Stmt *sel = s->kind == ST_ASSIGN ? as_select(m->a, u) : NULL;
  if (sel) u = sel;
  if (u->kind != s->kind) return tensorize_differ_stmt(m, "the statements differ", u, s);
  bool ok;
  switch (s->kind) {
  case ST_IF:
    m->ucur = u;
    m->scur = s;
    ok = tensorize_match_cond(m, u->cond, s->cond) && tensorize_match_list(m, u->then_s, s->then_s) &&
         ((!u->else_s && !s->else_s) || (u->else_s && s->else_s && tensorize_match_list(m, u->else_s, s->else_s)) ||
          tensorize_differ_stmt(m, "one if has an else and the other has none", u, s));
    break;
  case ST_ASSIGN:
    m->ucur = u;
    m->scur = s;
    ok = match_assign(m, u, s);
    break;
  default: ok = tensorize_differ_stmt(m, "unsupported statement in the intrinsic", u, s); break;
  }
  return ok && tensorize_match_list(m, u->next, s->next);
}
