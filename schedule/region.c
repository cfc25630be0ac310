/* Regions for compute_at / reverse_compute_at: which instances of a moved
 * nest one iteration of the target loop needs, and loop bounds for them. */
#include "schedule/region.h"

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/constraint.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/arith.h"

/* ---------------- structure ---------------- */

typedef struct {
  const Stmt *target;
  AtFrame *f;
  int max, n;
  bool deep;
} FrameFind;

static bool frames_rec(FrameFind *ff, const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next) {
    if (c == ff->target) return true;
    const Stmt *bodies[2] = {NULL, NULL};
    switch (c->kind) {
    case ST_BLOCK:
      if (frames_rec(ff, c->body)) return true;
      continue;
    case ST_FOR: bodies[0] = c->body->body; break;
    case ST_IF:
      bodies[0] = c->then_s->body;
      bodies[1] = c->else_s ? c->else_s->body : NULL;
      break;
    default: continue;
    }
    for (int b = 0; b < 2; b++) {
      if (!bodies[b]) continue;
      if (ff->n == ff->max) {
        ff->deep = true;
        return false;
      }
      ff->f[ff->n++] = (AtFrame){c, b == 1};
      if (frames_rec(ff, bodies[b])) return true;
      ff->n--;
    }
  }
  return false;
}

bool at_frames(const Kernel *k, const Stmt *target, AtFrame *f, int max, int *n) {
  FrameFind ff = {target, f, max, 0, false};
  bool found = frames_rec(&ff, k->body->body);
  *n = ff.n;
  return found && !ff.deep;
}

typedef struct {
  int *v, n;
} Insts;

static bool inst_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Insts *in = ctx;
  if (st->kind == ST_ASSIGN || st->kind == ST_DECL) in->v[in->n++] = st->inst;
  return true;
}

static bool count_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  if (st->kind == ST_ASSIGN || st->kind == ST_DECL) ++*(int *)ctx;
  return true;
}

/* Leaves of st's subtree (st alone, not its successors). */
static void subtree_insts(Stmt *st, int **v, int *n) {
  Stmt *next = st->next;
  st->next = NULL;
  int cnt = 0;
  ir_walk_stmts(st, count_visit, &cnt);
  Insts in = {malloc(sizeof(int) * (size_t)(cnt + 1)), 0};
  ir_walk_stmts(st, inst_visit, &in);
  st->next = next;
  *v = in.v;
  *n = in.n;
}

/* Size i of the kernel as a loop of [o]: constant through a run, it
 * leads every iteration, as it leads every instance of the model
 * (ir/deps.c), so regions and bounds are exact at every size. */
static const Stmt *size_loop(Sched *s, int i) {
  Stmt *l = ir_stmt(s->a, ST_FOR, s->k->sizes[i]->loc);
  l->var = (Var *)s->k->sizes[i];
  l->name = l->var->name;
  l->step = 1;
  return l;
}

bool at_init(AtRegion *r, Sched *s, Stmt *root, Stmt *target) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->root = root;
  r->target = target;
  AtFrame f[AT_MAX_LOOPS], rf[AT_MAX_LOOPS];
  int nf, nrf, ns = s->k->nsizes;
  if (!at_frames(s->k, target, f, AT_MAX_LOOPS - 1 - ns, &nf) ||
      !at_frames(s->k, root, rf, AT_MAX_LOOPS - ns, &nrf))
    return sched_error(s, NULL, "loop nest too deep");
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  char why[300];
  if (ns && !aff_push_sizes(&a, why, sizeof why)) {
    aff_free(&a);
    return sched_error(s, NULL, "internal error: cannot model the sizes: %s", why);
  }
  for (int i = 0; i < ns; i++) r->oloops[r->n++] = size_loop(s, i);
  r->nsh = ns; /* every nest shares the sizes */
  for (int i = 0; i < nf; i++) {
    if (f[i].st->kind == ST_FOR) {
      aff_push_loop(&a, f[i].st);
      r->oloops[r->n++] = f[i].st;
    } else if (!aff_push_cond(&a, f[i].st->cond, f[i].neg)) {
      /* Leaving the condition out would model iterations that never run as
       * running: the moved nest would be assumed to run where it does not.
       * The callers refuse such ifs first (compute_at.c, movable). */
      aff_free(&a);
      return sched_error(s, NULL, "internal error: the if (line %d) around loop %s is not affine", f[i].st->loc.line, target->name);
    }
  }
  aff_push_loop(&a, target);
  r->oloops[r->n++] = target;
  for (int i = 0; i < nrf; i++)
    if (rf[i].st->kind == ST_FOR) r->nsh++;
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int i = 0; i < r->n; i++) sb_printf(&sb, "%sc%d", i ? ", " : "", r->oloops[i]->var->id);
  sb_puts(&sb, "] : ");
  for (int i = 0; i < a.ncons; i++) sb_printf(&sb, "%s(%s)", i ? " and " : "", a.cons[i]);
  if (!a.ncons) sb_puts(&sb, "0 = 0");
  sb_puts(&sb, " }");
  r->odom = isl_set_read_from_str(s->ctx, sb.data);
  sb_free(&sb);
  aff_free(&a);
  subtree_insts(root, &r->move, &r->nmove);
  subtree_insts(target, &r->at, &r->nat);
  if (!r->odom) return sched_error(s, NULL, "internal error: cannot model the iterations of loop %s", target->name);
  return true;
}

void at_free(AtRegion *r) {
  isl_set_free(r->odom);
  free(r->move);
  free(r->at);
  memset(r, 0, sizeof *r);
}

const Stmt *at_leaf_stmt(const AtRegion *r, const char *tuple) {
  if (!tuple || tuple[0] != 'S') return NULL;
  int i = atoi(tuple + 1);
  if (i < 0 || i >= r->s->before.nleaves) return NULL;
  return r->s->before.leaves[i].stmt;
}

/* ---------------- instance maps ---------------- */

static void tuple_text(StrBuf *sb, const AtRegion *r, int inst, char var) {
  int d = r->s->before.leaves[inst].depth;
  sb_printf(sb, "S%d[", inst);
  for (int i = 0; i < d; i++) sb_printf(sb, "%s%c%d", i ? ", " : "", var, i);
  sb_putc(sb, ']');
}

isl_union_set *at_leaves(const AtRegion *r, const int *insts, int n) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ ");
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(&sb, "; ");
    tuple_text(&sb, r, insts[i], 'i');
  }
  sb_puts(&sb, " }");
  isl_union_set *u = isl_union_set_read_from_str(r->s->ctx, sb.data);
  sb_free(&sb);
  return u;
}

isl_union_map *at_by_iter(const AtRegion *r, const DepModel *m, const int *insts, int n) {
  int dims[AT_MAX_LOOPS];
  for (int k = 0; k < r->n; k++) {
    dims[k] = k < r->s->k->nsizes ? k : -1; /* the sizes: the first time dimensions (ir/deps.c) */
    for (int i = 0; i < m->nloops; i++)
      if (m->loops[i].loop == r->oloops[k]) dims[k] = m->loops[i].dim;
    if (dims[k] < 0) return NULL;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int i = 0; i < m->time_dims; i++) sb_printf(&sb, "%st%d", i ? ", " : "", i);
  sb_puts(&sb, "] -> [");
  for (int k = 0; k < r->n; k++) sb_printf(&sb, "%so%d", k ? ", " : "", k);
  sb_puts(&sb, "] : ");
  for (int k = 0; k < r->n; k++)
    sb_printf(&sb, "%so%d = %st%d", k ? " and " : "", k, r->oloops[k]->step > 0 ? "" : "-", dims[k]);
  sb_puts(&sb, " }");
  isl_union_map *proj = isl_union_map_read_from_str(m->ctx, sb.data);
  sb_free(&sb);
  isl_union_map *t = isl_union_map_intersect_domain(isl_union_map_copy(m->sched), at_leaves(r, insts, n));
  return isl_union_map_reverse(isl_union_map_apply_range(t, proj));
}

isl_union_map *at_shared(const AtRegion *r, const int *insts, int n) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ ");
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(&sb, "; ");
    sb_puts(&sb, "[");
    for (int k = 0; k < r->n; k++) sb_printf(&sb, "%so%d", k ? ", " : "", k);
    sb_puts(&sb, "] -> ");
    tuple_text(&sb, r, insts[i], 'i');
    sb_puts(&sb, " : 0 = 0");
    for (int k = 0; k < r->nsh; k++) sb_printf(&sb, " and o%d = i%d", k, k);
  }
  sb_puts(&sb, " }");
  isl_union_map *u = isl_union_map_read_from_str(r->s->ctx, sb.data);
  sb_free(&sb);
  return u;
}

typedef struct {
  const char *name;
  isl_union_map *out;
} TupleFilter;

static isl_stat tuple_filter(isl_map *m, void *user) {
  TupleFilter *f = user;
  const char *n = isl_map_get_tuple_name(m, isl_dim_out);
  if (n && !strcmp(n, f->name)) f->out = isl_union_map_add_map(f->out, m);
  else isl_map_free(m);
  return isl_stat_ok;
}

isl_union_map *at_only_tuple(isl_union_map *u, const char *tuple) {
  TupleFilter f = {tuple, isl_union_map_empty(isl_union_map_get_space(u))};
  isl_union_map_foreach_map(u, tuple_filter, &f);
  isl_union_map_free(u);
  return f.out;
}

/* ---------------- affine expressions in IR ---------------- */

typedef struct {
  Sched *s;
  const AtRegion *r;
  const Type *t; /* type of the expressions built */
  SrcLoc loc;
} Build;

typedef struct {
  Arena *a;
  const Stmt *const *loops;
  int n;
  const Type *t;
  SrcLoc loc;
} Terms;

static Expr *ovar(const Terms *b, int k) {
  Expr *v = ir_var(b->a, b->loops[k]->var, b->loc);
  return v->type == b->t ? v : ir_cast(b->a, v, b->t, false);
}

/* sum coef[k] * o_k + cst, positive terms first: "y - 1", "3 - y". */
static Expr *sum_terms(const Terms *b, const int64_t *coef, int64_t cst) {
  Arena *a = b->a;
  const Type *t = b->t;
  Expr *e = NULL;
  for (int k = 0; k < b->n; k++)
    if (coef[k] > 0) {
      Expr *term = ir_mul_int(a, ovar(b, k), coef[k], t);
      e = e ? ir_add(a, e, term, t) : term;
    }
  bool neg = false;
  for (int k = 0; k < b->n; k++) neg |= coef[k] < 0;
  if (!e && (cst > 0 || !neg)) {
    e = ir_int(a, cst, t, b->loc);
    cst = 0;
  }
  for (int k = 0; k < b->n; k++)
    if (coef[k] < 0) {
      Expr *term = ir_mul_int(a, ovar(b, k), -coef[k], t);
      if (e) {
        e = ir_sub(a, e, term, t);
      } else {
        e = ARENA_NEW(a, Expr);
        e->kind = EX_UNARY;
        e->op = OP_NEG;
        e->a = term;
        e->type = t;
        e->loc = b->loc;
      }
    }
  if (cst) e = ir_add(a, e, ir_int(a, cst, t, b->loc), t);
  return e;
}

Expr *affine_expr(Arena *a, const Stmt *const *loops, int n, const int64_t *coef, int64_t cst, const Type *t,
                  SrcLoc loc) {
  Terms b = {a, loops, n, t, loc};
  return sum_terms(&b, coef, cst);
}

static Expr *terms(Build *b, const int64_t *coef, int64_t cst) {
  return affine_expr(b->s->a, b->r->oloops, b->r->n, coef, cst, b->t, b->loc);
}

bool aff_int_terms(isl_aff *aff, int n, int64_t *coef, int64_t *cst) {
  bool ok = isl_aff_dim(aff, isl_dim_in) == n;
  isl_size nd = isl_aff_dim(aff, isl_dim_div);
  for (int i = 0; ok && i < nd; i++) {
    isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_div, i);
    ok = isl_val_is_zero(v) == isl_bool_true;
    isl_val_free(v);
  }
  for (int k = 0; ok && k < n; k++) {
    isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, k);
    ok = isl_val_is_int(v) == isl_bool_true;
    coef[k] = ok ? isl_val_get_num_si(v) : 0;
    isl_val_free(v);
  }
  if (ok) {
    isl_val *v = isl_aff_get_constant_val(aff);
    ok = isl_val_is_int(v) == isl_bool_true;
    *cst = ok ? isl_val_get_num_si(v) : 0;
    isl_val_free(v);
  }
  return ok;
}

static Expr *aff_expr(Build *b, isl_aff *aff, int add) {
  int64_t coef[AT_MAX_LOOPS], cst;
  if (!aff_int_terms(aff, b->r->n, coef, &cst)) return NULL;
  return terms(b, coef, cst + add);
}

/* l op r in C's types (both of type b->t). */
static Expr *compare(Build *b, Op op, Expr *l, Expr *r) {
  const Type *ct = type_common(b->t, b->t);
  return ir_binary(b->s->a, op, ir_cast(b->s->a, l, ct, true), ir_cast(b->s->a, r, ct, true), &ty_int, b->loc);
}

static Expr *land(Build *b, Expr *x, Expr *y) {
  return x ? ir_binary(b->s->a, OP_LAND, x, y, &ty_int, b->loc) : y;
}

/* A set of iterations as a C condition: constraints joined by && and the
 * parts of a union by ||. */
typedef struct {
  Build *b;
  Expr *conj, *disj;
  bool fail;
} CondBuild;

static isl_stat constraint_cond(isl_constraint *c, void *user) {
  CondBuild *cb = user;
  isl_aff *aff = isl_constraint_get_aff(c);
  int64_t coef[AT_MAX_LOOPS], cst, pos[AT_MAX_LOOPS], neg[AT_MAX_LOOPS];
  if (!aff_int_terms(aff, cb->b->r->n, coef, &cst)) {
    cb->fail = true;
  } else {
    /* a + b - c - 2 >= 0 is written a + b >= c + 2 */
    for (int k = 0; k < cb->b->r->n; k++) {
      pos[k] = coef[k] > 0 ? coef[k] : 0;
      neg[k] = coef[k] < 0 ? -coef[k] : 0;
    }
    Expr *l = terms(cb->b, pos, cst > 0 ? cst : 0), *r = terms(cb->b, neg, cst < 0 ? -cst : 0);
    cb->conj = land(cb->b, cb->conj, compare(cb->b, isl_constraint_is_equality(c) == isl_bool_true ? OP_EQ : OP_GE, l, r));
  }
  isl_aff_free(aff);
  isl_constraint_free(c);
  return cb->fail ? isl_stat_error : isl_stat_ok;
}

static isl_stat bset_cond(isl_basic_set *bs, void *user) {
  CondBuild *cb = user;
  cb->conj = NULL;
  isl_basic_set_foreach_constraint(bs, constraint_cond, cb);
  isl_basic_set_free(bs);
  if (cb->fail) return isl_stat_error;
  Expr *c = cb->conj ? cb->conj : ir_int(cb->b->s->a, 1, &ty_int, cb->b->loc);
  cb->disj = cb->disj ? ir_binary(cb->b->s->a, OP_LOR, cb->disj, c, &ty_int, cb->b->loc) : c;
  return isl_stat_ok;
}

static Expr *set_cond(Build *b, isl_set *set) {
  CondBuild cb = {b, NULL, NULL, false};
  set = isl_set_coalesce(set);
  isl_set_foreach_basic_set(set, bset_cond, &cb);
  isl_set_free(set);
  if (cb.fail) return NULL;
  return cb.disj ? cb.disj : ir_int(b->s->a, 0, &ty_int, b->loc);
}

/* ---------------- narrowing ---------------- */

static isl_stat piece(isl_set *set, isl_aff *aff, void *user) {
  RegionPieces *p = user;
  isl_set_free(set);
  for (int i = 0; i < p->n; i++)
    if (isl_aff_plain_is_equal(p->a[i], aff) == isl_bool_true) {
      isl_aff_free(aff);
      return isl_stat_ok;
    }
  if (p->n == REGION_MAX_PIECES) {
    p->over = true;
    isl_aff_free(aff);
    return isl_stat_ok;
  }
  p->a[p->n++] = aff;
  return isl_stat_ok;
}

void region_pieces(isl_pw_aff *pa, RegionPieces *p) {
  *p = (RegionPieces){{NULL}, 0, false};
  isl_pw_aff_foreach_piece(pa, piece, p);
}

void region_pieces_free(RegionPieces *p) {
  for (int i = 0; i < p->n; i++) isl_aff_free(p->a[i]);
  p->n = 0;
}

/* Does aff depend on a loop of [o] past the sizes? (Always false
 * without sizes: the bound's piece is then the first non-constant one.) */
static bool in_loops(const AtRegion *r, isl_aff *aff) {
  for (int k = r->s->k->nsizes; r->s->k->nsizes && k < r->n; k++)
    if (isl_aff_involves_dims(aff, isl_dim_in, (unsigned)k, 1) == isl_bool_true) return true;
  return false;
}

/* A bound of loop q over the iterations ctx, pa (taken, defined on ctx):
 * the max (lower) or min (upper) of its pieces. The piece that depends on
 * the iteration becomes the loop bound, the others (the clamps at the
 * borders) guards on q's counter. Counting up (step 1), *out is the start
 * (lower) or the exclusive end (upper, for <); counting down (step -1), the
 * start (upper, inclusive) or the inclusive end (lower, for >=). */
static bool bound(Build *b, isl_pw_aff *pa, isl_set *ctx, bool lower, const Stmt *q, Expr **out, Expr **guard) {
  bool down = q->step < 0;
  RegionPieces p;
  region_pieces(pa, &p);
  /* isl may split one affine bound into pieces (constants at some
   * iterations): when one piece alone is the bound everywhere, use it */
  for (int pass = 0; pass < 2 && !p.over && p.n > 1; pass++)
    for (int i = 0; i < p.n; i++) {
      if ((isl_aff_is_cst(p.a[i]) == isl_bool_true) != (pass == 1)) continue;
      isl_pw_aff *alone = isl_pw_aff_alloc(isl_set_copy(ctx), isl_aff_copy(p.a[i]));
      bool same = isl_pw_aff_is_equal(alone, pa) == isl_bool_true;
      isl_pw_aff_free(alone);
      if (!same) continue;
      isl_aff *keep = p.a[i];
      for (int j = 0; j < p.n; j++)
        if (j != i) isl_aff_free(p.a[j]);
      p.a[0] = keep;
      p.n = 1;
      break;
    }
  isl_pw_aff *m = NULL;
  for (int i = 0; i < p.n; i++) {
    isl_pw_aff *pi = isl_pw_aff_alloc(isl_set_copy(ctx), isl_aff_copy(p.a[i]));
    m = !m ? pi : lower ? isl_pw_aff_max(m, pi) : isl_pw_aff_min(m, pi);
  }
  bool ok = !p.over && m && isl_pw_aff_is_equal(m, pa) == isl_bool_true;
  isl_pw_aff_free(m);
  isl_pw_aff_free(pa);
  int main = 0;
  for (int i = p.n - 1; i >= 0; i--)
    if (isl_aff_is_cst(p.a[i]) == isl_bool_false) main = i;
  for (int i = p.n - 1; i >= 0; i--) /* with sizes: a piece in the loops (io * 8 + 8, not n) */
    if (in_loops(b->r, p.a[i])) main = i;
  for (int i = 0; ok && i < p.n; i++) {
    /* lower bounds are inclusive; upper ones exclusive (+1), except the
     * start of a loop counting down */
    bool incl_upper = !lower && down && i == main;
    Expr *e = aff_expr(b, p.a[i], lower || incl_upper ? 0 : 1);
    /* a clamp at the loop's own bound keeps its spelling (a macro) */
    const Expr *spelled = NULL;
    if (lower) spelled = !down ? q->lo : q->cmp == OP_GE ? q->hi : NULL;
    else if (incl_upper) spelled = q->lo;
    else spelled = !down && q->cmp == OP_LT ? q->hi : NULL;
    int64_t c, orig;
    if (e && spelled && ir_const_int(e, &c) && ir_const_int(spelled, &orig) && c == orig)
      e = ir_expr_copy(b->s->a, spelled);
    if (!e) {
      ok = false;
    } else if (i == main) {
      *out = e;
    } else {
      Expr *v = ir_var(b->s->a, q->var, b->loc);
      *guard = land(b, *guard, compare(b, lower ? OP_GE : OP_LT, v, e));
    }
  }
  region_pieces_free(&p);
  return ok;
}

/* Is pa (kept) the min (lower) or max of its pieces' affine expressions
 * over ctx? Then "the counter is at or past some piece" (lower) or "at
 * or before some piece" is its bound, as a disjunction: *cond. */
static bool extreme_of_pieces(Build *b, isl_pw_aff *pa, isl_set *ctx, bool lower, const Stmt *q, Expr **cond) {
  RegionPieces p;
  region_pieces(pa, &p); /* pa is kept */
  isl_pw_aff *m = NULL;
  for (int i = 0; i < p.n; i++) {
    isl_pw_aff *pi = isl_pw_aff_alloc(isl_set_copy(ctx), isl_aff_copy(p.a[i]));
    m = !m ? pi : lower ? isl_pw_aff_min(m, pi) : isl_pw_aff_max(m, pi);
  }
  bool ok = !p.over && m && isl_pw_aff_is_equal(m, pa) == isl_bool_true;
  isl_pw_aff_free(m);
  *cond = NULL;
  for (int i = 0; ok && i < p.n; i++) {
    Expr *e = aff_expr(b, p.a[i], lower ? 0 : 1);
    if (!e) {
      ok = false;
      break;
    }
    Expr *c = compare(b, lower ? OP_GE : OP_LT, ir_var(b->s->a, q->var, b->loc), e);
    *cond = *cond ? ir_binary(b->s->a, OP_LOR, *cond, c, &ty_int, b->loc) : c;
  }
  region_pieces_free(&p);
  return ok;
}

/* A range that is not one max/min of affine bounds on each side, e.g. the
 * indices t[i] and t[N - 1 - i] read: from min(i, N-1-i) to max(i, N-1-i).
 * The loop, counting up, runs over the range's hull over all iterations,
 * and a guard keeps each iteration's own box (its lower bound is the min
 * of some pieces, its upper the max). Takes lo and hi. */
static bool hull(Build *b, isl_pw_aff *lo, isl_pw_aff *hi, isl_set *ctx, const Stmt *q, Expr **nlo, Expr **nhi,
                 Expr **guard) {
  Expr *cl = NULL, *ch = NULL;
  bool ok = q->step == 1 && extreme_of_pieces(b, lo, ctx, true, q, &cl) && extreme_of_pieces(b, hi, ctx, false, q, &ch);
  isl_val *vl = isl_pw_aff_min_val(lo), *vh = isl_pw_aff_max_val(hi);
  ok = ok && vl && vh && isl_val_is_int(vl) && isl_val_is_int(vh);
  if (ok) {
    *nlo = ir_int(b->s->a, isl_val_get_num_si(vl), b->t, b->loc);
    *nhi = ir_int(b->s->a, isl_val_get_num_si(vh) + 1, b->t, b->loc);
    *guard = ir_binary(b->s->a, OP_LAND, cl, ch, &ty_int, b->loc);
  }
  isl_val_free(vl);
  isl_val_free(vh);
  return ok;
}

/* [o] -> [value of q's counter] over the wanted instances under q; NULL
 * when none of them is under q (or, with *err, when isl failed). */
static isl_map *loop_range(AtRegion *r, isl_union_map *want, const Stmt *q, bool *err) {
  isl_map *acc = NULL;
  for (int i = 0; i < r->nmove; i++) {
    const DepLeaf *L = &r->s->before.leaves[r->move[i]];
    int pos = -1;
    for (int d = 0; d < L->depth; d++)
      if (L->vars[d] == q->var) pos = d;
    if (pos < 0) continue;
    char name[32];
    snprintf(name, sizeof name, "S%d", r->move[i]);
    isl_union_map *u = at_only_tuple(isl_union_map_copy(want), name);
    isl_bool e = isl_union_map_is_empty(u);
    if (e != isl_bool_false) {
      isl_union_map_free(u);
      if (e == isl_bool_true) continue;
      isl_map_free(acc);
      *err = true;
      return NULL;
    }
    isl_map *m = isl_map_from_union_map(u);
    m = isl_map_project_out(m, isl_dim_out, pos + 1, L->depth - pos - 1);
    m = isl_map_project_out(m, isl_dim_out, 0, pos);
    m = isl_map_reset_tuple_id(m, isl_dim_out);
    acc = acc ? isl_map_union(acc, m) : m;
  }
  return acc;
}

enum { MAX_NEST_LOOPS = 256 };

typedef struct {
  Stmt *loops[MAX_NEST_LOOPS];
  int n;
  bool over;
} Loops;

static bool loop_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Loops *l = ctx;
  if (st->kind == ST_FOR) {
    if (l->n < MAX_NEST_LOOPS) l->loops[l->n++] = st;
    else l->over = true;
  }
  return true;
}

/* Bounds in the iteration's counters are computed in their C types: with
 * an unsigned counter, i - 1 would wrap at 0. */
static bool signed_counters(AtRegion *r) {
  for (int k = 0; k < r->n; k++)
    if (!r->oloops[k]->var->type->is_signed)
      return sched_error(r->s, NULL, "loop %s (line %d) has an unsigned counter; narrowing to its iterations needs signed counters",
                         r->oloops[k]->name, r->oloops[k]->loc.line);
  return true;
}

/* pa when one affine expression gives it over ctx: isl keeps the bound of
 * two tiles as two points, {[0] -> [0]; [1] -> [32]}, which is 32 * io
 * (three or more make the line itself). The affine hull of pa's graph,
 * kept only when it equals pa on ctx. Consumes pa. */
static isl_pw_aff *one_affine(isl_pw_aff *pa, isl_set *ctx) {
  if (isl_pw_aff_n_piece(pa) <= 1) return pa;
  isl_map *line = isl_map_from_basic_map(isl_map_affine_hull(isl_map_from_pw_aff(isl_pw_aff_copy(pa))));
  if (isl_map_is_single_valued(line) != isl_bool_true) {
    isl_map_free(line);
    return pa;
  }
  isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(line);
  isl_pw_aff *one = isl_pw_aff_intersect_domain(isl_pw_multi_aff_get_pw_aff(pma, 0), isl_set_copy(ctx));
  isl_pw_multi_aff_free(pma);
  if (isl_pw_aff_n_piece(one) == 1 && isl_pw_aff_is_equal(one, pa) == isl_bool_true) {
    isl_pw_aff_free(pa);
    return one;
  }
  isl_pw_aff_free(one);
  return pa;
}

/* Narrows one loop; false with a message. */
/* May e, in the iterations of r's target (its sizes, the loops and ifs
 * around it, and its own loop), pass the range of type t? Unknown: no. */
static bool may_pass(AtRegion *r, const Expr *e, const Type *t) {
  Sched *s = r->s;
  AtFrame f[AT_MAX_LOOPS];
  int nf;
  if (!at_frames(s->k, r->target, f, AT_MAX_LOOPS, &nf)) return false;
  AffCtx a;
  aff_init(&a, s->ctx, s->k);
  char why[300];
  bool ok = !s->k->nsizes || aff_push_sizes(&a, why, sizeof why);
  for (int i = 0; ok && i < nf; i++) {
    if (f[i].st->kind == ST_FOR) aff_push_loop(&a, f[i].st);
    else ok = aff_push_cond(&a, f[i].st->cond, f[i].neg);
  }
  if (ok) aff_push_loop(&a, r->target);
  int64_t lo, hi, tmin;
  uint64_t tmax;
  bool exact = false, empty = false;
  ok = ok && aff_range(&a, e, &lo, &hi, &exact, &empty) && !empty;
  aff_free(&a);
  type_int_range(t, &tmin, &tmax);
  return ok && (lo < tmin || (hi >= 0 && (uint64_t)hi > tmax));
}

/* The narrowed loop `for (i = lo; i < lo + W; i++)` whose end lo + W may
 * pass its type (a tile of a loop to a size, `io * 8 + 8` at io's last
 * value): as a split writes it, counting the offset from lo, `for (i = 0;
 * i < W; i++)` with lo + i for the old counter, a value it took. */
/* The guard in the offset v from lo: `i < E` as `v < E - lo` (a
 * difference of two values the loop's bounds take, as split's tail
 * guard), any other test with lo + v for i. */
static Expr *offset_guard(Sched *s, Expr *c, const Var *old, Var *v, Expr *nlo, Expr *value) {
  if (c->kind == EX_BINARY && (c->op == OP_LAND || c->op == OP_LOR)) {
    c->a = offset_guard(s, c->a, old, v, nlo, value);
    c->b = offset_guard(s, c->b, old, v, nlo, value);
    return c;
  }
  bool cmp = c->kind == EX_BINARY && (c->op == OP_LT || c->op == OP_LE || c->op == OP_GT || c->op == OP_GE);
  if (cmp && c->a->kind == EX_VAR && c->a->var == old && type_same(c->b->type, old->type) &&
      !ir_expr_uses(c->b, old, NULL))
    return ir_binary(s->a, c->op, ir_var(s->a, v, c->loc), ir_sub(s->a, c->b, ir_expr_copy(s->a, nlo), old->type),
                     &ty_int, c->loc);
  return ir_subst_expr(s->a, c, old, value);
}

static void count_from_lo(Sched *s, Stmt *q, Expr *nlo, int64_t w, Expr **guard) {
  Var *old = q->var;
  Var *v = ir_new_var(s->a, s->k, old->name, old->type, VAR_LOOP, q->loc);
  Expr *value = ir_add(s->a, nlo, ir_var(s->a, v, q->loc), old->type);
  for (Stmt *c = q->body->body; c; c = c->next) ir_subst_stmt(s->a, c, old, value);
  if (*guard) *guard = offset_guard(s, *guard, old, v, nlo, value);
  q->var = v;
  q->lo = ir_int(s->a, 0, old->type, q->loc);
  q->hi = ir_int(s->a, w, old->type, q->loc);
  q->cmp = OP_LT;
}

static bool narrow_loop(AtRegion *r, Build *b, isl_union_map *want, isl_set *ctx, Stmt *q) {
  Sched *s = r->s;
  bool err = false;
  isl_map *range = loop_range(r, want, q, &err);
  if (err) return sched_error(s, NULL, "internal error: isl failed on the range of loop %s", q->name);
  if (!range) return true;
  isl_pw_aff *lo = isl_pw_aff_intersect_domain(isl_map_dim_min(isl_map_copy(range), 0), isl_set_copy(ctx));
  isl_pw_aff *hi = isl_pw_aff_intersect_domain(isl_map_dim_max(range, 0), isl_set_copy(ctx));
  isl_set *dl = isl_pw_aff_domain(isl_pw_aff_copy(lo)), *dh = isl_pw_aff_domain(isl_pw_aff_copy(hi));
  bool whole = isl_set_is_subset(ctx, dl) == isl_bool_true && isl_set_is_subset(ctx, dh) == isl_bool_true;
  isl_set_free(dl);
  isl_set_free(dh);
  if (!whole) {
    isl_pw_aff_free(lo);
    isl_pw_aff_free(hi);
    return sched_error(s, NULL, "cannot narrow loop %s (line %d): some iterations of %s need only part of the statements it holds",
                       q->name, q->loc.line, r->target->name);
  }
  /* A loop whose whole (constant) range is needed stays as it is. */
  int64_t lc, hc;
  bool whole_const = false;
  if (q->step == 1 && (q->cmp == OP_LT || q->cmp == OP_LE) && ir_const_int(q->lo, &lc) && ir_const_int(q->hi, &hc)) {
    if (q->cmp == OP_LT) hc--;
    whole_const = true;
  } else if (q->step == -1 && (q->cmp == OP_GT || q->cmp == OP_GE) && ir_const_int(q->lo, &hc) && ir_const_int(q->hi, &lc)) {
    if (q->cmp == OP_GT) lc++;
    whole_const = true;
  }
  if (whole_const) {
    isl_pw_aff *l0 = isl_pw_aff_val_on_domain(isl_set_copy(ctx), isl_val_int_from_si(s->ctx, lc));
    isl_pw_aff *h0 = isl_pw_aff_val_on_domain(isl_set_copy(ctx), isl_val_int_from_si(s->ctx, hc));
    bool same = isl_pw_aff_is_equal(l0, lo) == isl_bool_true && isl_pw_aff_is_equal(h0, hi) == isl_bool_true;
    isl_pw_aff_free(l0);
    isl_pw_aff_free(h0);
    if (same) {
      isl_pw_aff_free(lo);
      isl_pw_aff_free(hi);
      return true;
    }
  }
  if (!signed_counters(r)) {
    isl_pw_aff_free(lo);
    isl_pw_aff_free(hi);
    return false;
  }
  if ((q->step != 1 && q->step != -1) || !q->var->type->is_signed) {
    isl_pw_aff_free(lo);
    isl_pw_aff_free(hi);
    return sched_error(s, NULL, "loop %s (line %d) must count up or down by 1 over a signed counter to be narrowed", q->name, q->loc.line);
  }
  b->t = q->var->type;
  b->loc = q->loc;
  lo = one_affine(lo, ctx);
  hi = one_affine(hi, ctx);
  Expr *nlo = NULL, *nhi = NULL, *guard = NULL;
  char *tlo = isl_pw_aff_to_str(lo), *thi = isl_pw_aff_to_str(hi);
  /* bound() takes its pw_aff: call both, even when the first fails */
  isl_pw_aff *lo2 = isl_pw_aff_copy(lo), *hi2 = isl_pw_aff_copy(hi);
  bool ok_lo = bound(b, lo, ctx, true, q, &nlo, &guard);
  bool ok_hi = bound(b, hi, ctx, false, q, &nhi, &guard);
  bool ok = ok_lo && ok_hi;
  if (!ok) {
    guard = NULL;
    ok = hull(b, lo2, hi2, ctx, q, &nlo, &nhi, &guard);
  } else {
    isl_pw_aff_free(lo2);
    isl_pw_aff_free(hi2);
  }
  if (!ok)
    sched_error(s, NULL, "cannot narrow loop %s (line %d): the range an iteration of %s needs, from %s to %s, is not a max/min of affine expressions, nor a min/max of them within constant bounds",
                q->name, q->loc.line, r->target->name, tlo, thi);
  free(tlo);
  free(thi);
  if (!ok) return false;
  int64_t w;
  Expr *width = arith_simplify(s->a, ir_sub(s->a, ir_expr_copy(s->a, nhi), ir_expr_copy(s->a, nlo), b->t), NULL, 0);
  if (q->step > 0 && ir_const_int(width, &w) && w > 0 && may_pass(r, nhi, b->t)) {
    count_from_lo(s, q, nlo, w, &guard);
  } else if (q->step > 0) {
    q->lo = nlo;
    q->hi = nhi;
    q->cmp = OP_LT;
  } else {
    /* from the largest value down to the smallest: the same order */
    q->lo = nhi;
    q->hi = nlo;
    q->cmp = OP_GE;
  }
  if (guard) {
    Stmt *g = ir_stmt(s->a, ST_IF, q->loc);
    g->cond = guard;
    g->then_s = sched_block(s, q->body->body, q->loc);
    q->body->body = g;
  }
  return true;
}

bool at_narrow(AtRegion *r, isl_union_map *want, Stmt **placed) {
  Sched *s = r->s;
  *placed = NULL;
  isl_union_set *ud = isl_union_map_domain(isl_union_map_copy(want));
  isl_bool none = isl_union_set_is_empty(ud);
  if (none != isl_bool_false) {
    isl_union_set_free(ud);
    if (none < 0) return sched_error(s, NULL, "internal error: isl failed on the iterations of loop %s", r->target->name);
    return sched_error(s, NULL, "no iteration of loop %s needs %s", r->target->name, r->root->name);
  }
  isl_set *dom = isl_set_from_union_set(ud);
  isl_set *ctx = isl_set_intersect(isl_set_copy(r->odom), isl_set_copy(dom));
  Build b = {s, r, r->target->var->type, r->target->loc};
  Expr *cond = NULL;
  bool ok = true;
  if (isl_set_is_subset(r->odom, dom) != isl_bool_true && (ok = signed_counters(r))) {
    /* some iterations need nothing: the nest goes under an if */
    isl_set *g = isl_set_gist(isl_set_copy(dom), isl_set_copy(r->odom));
    char *t = isl_set_to_str(g);
    cond = set_cond(&b, g);
    if (!cond)
      ok = sched_error(s, NULL, "cannot narrow %s: the iterations of %s that need it, %s, are not affine conditions",
                       r->root->name, r->target->name, t);
    free(t);
  }
  isl_set_free(dom);
  Loops *l = calloc(1, sizeof *l);
  Stmt *next = r->root->next;
  r->root->next = NULL;
  ir_walk_stmts(r->root, loop_visit, l);
  r->root->next = next;
  if (ok && l->over) ok = sched_error(s, NULL, "cannot narrow %s: it holds more than %d loops", r->root->name, MAX_NEST_LOOPS);
  for (int i = 0; ok && i < l->n; i++) ok = narrow_loop(r, &b, want, ctx, l->loops[i]);
  free(l);
  isl_set_free(ctx);
  if (!ok) return false;
  *placed = r->root;
  if (cond) {
    Stmt *g = ir_stmt(s->a, ST_IF, r->root->loc);
    g->cond = cond;
    g->then_s = sched_block(s, r->root, r->root->loc);
    *placed = g;
  }
  return true;
}
