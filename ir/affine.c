#include "ir/affine.h"

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <stdlib.h>
#include <string.h>

static bool collect_defs(Stmt *s, int depth, void *ctx);

typedef struct {
  const Expr **defs;
  int *assigns;
} DefScan;

static bool collect_defs(Stmt *s, int depth, void *ctx) {
  (void)depth;
  DefScan *d = ctx;
  if (s->kind == ST_DECL && s->var && s->init) d->defs[s->var->id] = s->init;
  if (s->kind == ST_ASSIGN && s->lhs->kind == EX_VAR) d->assigns[s->lhs->var->id]++;
  return true;
}

void aff_init(AffCtx *c, isl_ctx *ctx, const Kernel *k) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->k = k;
  c->dom_empty = -1;
  int n = k->nvars + 1;
  c->defs = calloc((size_t)n, sizeof *c->defs);
  int *assigns = calloc((size_t)n, sizeof *assigns);
  DefScan d = {c->defs, assigns};
  ir_walk_stmts(k->body, collect_defs, &d);
  for (int i = 0; i < n; i++)
    if (assigns[i]) c->defs[i] = NULL; /* reassigned: not a plain alias */
  free(assigns);
}

static void dom_forget(AffCtx *c) {
  isl_set_free(c->dom);
  c->dom = NULL;
  c->dom_empty = -1;
}

void aff_free(AffCtx *c) {
  dom_forget(c);
  for (int i = 0; i < c->ncons; i++) {
    free(c->cons[i]);
    isl_set_free(c->cons_dom[i]);
    isl_set_free(c->cons_set[i]);
  }
  free(c->size_loops);
  free(c->size_bounds);
  free(c->cons);
  free(c->cons_loops);
  free(c->cons_dom);
  free(c->cons_set);
  free(c->loops);
  free(c->defs);
}

/* ---------------- affine text ---------------- */

static bool is_const_int(const Expr *e, int64_t *v);

static bool text_rec(AffCtx *c, StrBuf *sb, const Expr *e, int depth);

static bool nonneg(AffCtx *c, const Expr *e) {
  int64_t lo, hi;
  bool exact, empty;
  return aff_range(c, e, &lo, &hi, &exact, &empty) && (empty || lo >= 0);
}

static bool is_const_int(const Expr *e, int64_t *v) {
  while (e->kind == EX_CAST && type_is_integer(e->type) && type_is_integer(e->a->type)) e = e->a;
  if (e->kind == EX_INT) {
    *v = e->ival;
    return true;
  }
  if (e->kind == EX_UNARY && e->op == OP_NEG && is_const_int(e->a, v)) {
    *v = -*v;
    return true;
  }
  return false;
}

/* Does integer cast e keep every value its operand takes here? Always
 * when the new type holds the old one; otherwise when the operand's range
 * (over the current domain) fits. */
static bool cast_keeps_value(AffCtx *c, const Expr *e) {
  const Type *from = e->a->type, *to = e->type;
  if (from->is_signed == to->is_signed ? to->size >= from->size : to->is_signed && to->size > from->size) return true;
  int64_t lo, hi, tl;
  uint64_t th;
  bool exact, empty;
  type_int_range(to, &tl, &th);
  if (!aff_range(c, e->a, &lo, &hi, &exact, &empty)) return false;
  return empty || (lo >= tl && (hi < 0 || (uint64_t)hi <= th));
}

/* `x / v + (x % v > 0)` with v > 0 a constant: ceil(x / v) for every x
 * (C truncates toward 0, which is the ceiling below 0). schedule/split.c
 * writes a tile count so, as no sum in it can overflow. */
static const Expr *ceil_div_form(const Expr *e, int64_t *v) {
  if (e->kind != EX_BINARY || e->op != OP_ADD || e->a->kind != EX_BINARY || e->a->op != OP_DIV) return NULL;
  const Expr *some = e->b;
  while (some->kind == EX_CAST && some->implicit) some = some->a;
  int64_t zero, v2;
  if (some->kind != EX_BINARY || some->op != OP_GT || some->a->kind != EX_BINARY || some->a->op != OP_MOD ||
      !is_const_int(some->b, &zero) || zero != 0 || !is_const_int(e->a->b, v) || *v <= 0 ||
      !is_const_int(some->a->b, &v2) || v2 != *v || !ir_expr_same(e->a->a, some->a->a))
    return NULL;
  return e->a->a;
}

/* `x > 0` of an x the domain keeps in [0, m], m >= 1: ceil(x / m), 0 or
 * 1 as the comparison is. The simplifier (ir/arith.c) leaves a tile count
 * `(io * 4 + ii) / 4 + ((io * 4 + ii) % 4 > 0)` as `io + (ii > 0)`: a
 * triangular loop split in a split loop is bounded so. */
static const Expr *positive_form(AffCtx *c, const Expr *e, int64_t *m) {
  int64_t zero, lo;
  bool exact, empty;
  if (e->kind != EX_BINARY || e->op != OP_GT || !is_const_int(e->b, &zero) || zero != 0 || !type_is_integer(e->a->type))
    return NULL;
  if (!aff_range(c, e->a, &lo, m, &exact, &empty) || empty || lo < 0 || *m < 1) return NULL;
  return e->a;
}

static bool text_rec(AffCtx *c, StrBuf *sb, const Expr *e, int depth) {
  if (depth > 64 || !type_is_integer(e->type)) return false;
  int64_t v;
  /* a constant subtree is its value as C computes it ((-6) / 6 is -1,
   * which isl's floor would not give; 0u - 1 wraps) */
  if (ir_const_int(e, &v)) {
    sb_printf(sb, "(%lld)", (long long)v);
    return true;
  }
  const Expr *x = ceil_div_form(e, &v);
  if (!x) x = positive_form(c, e, &v);
  if (x) {
    sb_puts(sb, "(-floor((-(");
    if (!text_rec(c, sb, x, depth + 1)) return false;
    sb_printf(sb, "))/%lld))", (long long)v);
    return true;
  }
  switch (e->kind) {
  case EX_INT: /* an unsigned literal past INT64_MAX */
    return false;
  case EX_VAR: {
    if (e->var->kind == VAR_LOOP || e->var->kind == VAR_PARAM) { /* a size is a dimension too (aff_push_sizes) */
      for (int i = 0; i < c->nloops; i++)
        if (c->loops[i]->var == e->var) {
          sb_printf(sb, "c%d", e->var->id);
          return true;
        }
      return false;
    }
    const Expr *d = e->var->kind == VAR_LOCAL ? c->defs[e->var->id] : NULL;
    if (!d) return false;
    sb_putc(sb, '(');
    bool ok = text_rec(c, sb, d, depth + 1);
    sb_putc(sb, ')');
    return ok;
  }
  case EX_CAST:
    /* Affine only where the conversion keeps the value: a narrowing or a
     * change of sign may wrap ((unsigned)(i - 1) is not i - 1). */
    if (!type_is_integer(e->a->type) || !cast_keeps_value(c, e)) return false;
    return text_rec(c, sb, e->a, depth + 1);
  case EX_UNARY:
    if (e->op != OP_NEG && e->op != OP_PLUS) return false;
    sb_puts(sb, e->op == OP_NEG ? "-(" : "(");
    if (!text_rec(c, sb, e->a, depth + 1)) return false;
    sb_putc(sb, ')');
    return true;
  case EX_BINARY:
    switch (e->op) {
    case OP_ADD:
    case OP_SUB:
      sb_putc(sb, '(');
      if (!text_rec(c, sb, e->a, depth + 1)) return false;
      sb_puts(sb, e->op == OP_ADD ? " + " : " - ");
      if (!text_rec(c, sb, e->b, depth + 1)) return false;
      sb_putc(sb, ')');
      return true;
    case OP_MUL:
      if (is_const_int(e->a, &v)) {
        sb_printf(sb, "(%lld*(", (long long)v);
        if (!text_rec(c, sb, e->b, depth + 1)) return false;
      } else if (is_const_int(e->b, &v)) {
        sb_printf(sb, "(%lld*(", (long long)v);
        if (!text_rec(c, sb, e->a, depth + 1)) return false;
      } else {
        return false;
      }
      sb_puts(sb, "))");
      return true;
    case OP_SHL:
      if (!is_const_int(e->b, &v) || v < 0 || v > 30) return false;
      sb_printf(sb, "(%lld*(", (long long)1 << v);
      if (!text_rec(c, sb, e->a, depth + 1)) return false;
      sb_puts(sb, "))");
      return true;
    case OP_DIV:
    case OP_MOD:
    case OP_SHR:
      /* C truncates; isl floors: equal when the dividend is >= 0. */
      if (!is_const_int(e->b, &v)) return false;
      if (e->op == OP_SHR) {
        if (v < 0 || v > 30) return false;
        v = (int64_t)1 << v;
      }
      if (v <= 0 || !nonneg(c, e->a)) return false;
      sb_puts(sb, e->op == OP_MOD ? "((" : "floor((");
      if (!text_rec(c, sb, e->a, depth + 1)) return false;
      if (e->op == OP_MOD)
        sb_printf(sb, ") mod %lld)", (long long)v);
      else
        sb_printf(sb, ")/%lld)", (long long)v);
      return true;
    default:
      return false;
    }
  default:
    return false;
  }
}

/* text_rec's twin with isl's API: the same expressions are affine, built
 * as an isl_aff on ls (the loops' space) instead of text to parse. */
static isl_aff *build_rec(AffCtx *c, isl_local_space *ls, const Expr *e, int depth) {
  if (depth > 64 || !type_is_integer(e->type)) return NULL;
  int64_t v;
  isl_ctx *ctx = c->ctx;
  if (ir_const_int(e, &v)) return isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(ctx, v));
  const Expr *x = ceil_div_form(e, &v);
  if (!x) x = positive_form(c, e, &v);
  if (x) return isl_aff_ceil(isl_aff_scale_down_val(build_rec(c, ls, x, depth + 1), isl_val_int_from_si(ctx, v)));
  switch (e->kind) {
  case EX_INT: /* an unsigned literal past INT64_MAX */
    return NULL;
  case EX_VAR: {
    if (e->var->kind == VAR_LOOP || e->var->kind == VAR_PARAM) {
      for (int i = 0; i < c->nloops; i++)
        if (c->loops[i]->var == e->var) return isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)i);
      return NULL;
    }
    const Expr *d = e->var->kind == VAR_LOCAL ? c->defs[e->var->id] : NULL;
    return d ? build_rec(c, ls, d, depth + 1) : NULL;
  }
  case EX_CAST:
    if (!type_is_integer(e->a->type) || !cast_keeps_value(c, e)) return NULL;
    return build_rec(c, ls, e->a, depth + 1);
  case EX_UNARY:
    if (e->op == OP_PLUS) return build_rec(c, ls, e->a, depth + 1);
    return e->op == OP_NEG ? isl_aff_neg(build_rec(c, ls, e->a, depth + 1)) : NULL;
  case EX_BINARY:
    switch (e->op) {
    case OP_ADD:
    case OP_SUB: {
      isl_aff *a = build_rec(c, ls, e->a, depth + 1);
      isl_aff *b = a ? build_rec(c, ls, e->b, depth + 1) : NULL;
      if (!b) return isl_aff_free(a);
      return e->op == OP_ADD ? isl_aff_add(a, b) : isl_aff_sub(a, b);
    }
    case OP_MUL:
      if (is_const_int(e->a, &v)) return isl_aff_scale_val(build_rec(c, ls, e->b, depth + 1), isl_val_int_from_si(ctx, v));
      if (is_const_int(e->b, &v)) return isl_aff_scale_val(build_rec(c, ls, e->a, depth + 1), isl_val_int_from_si(ctx, v));
      return NULL;
    case OP_SHL:
      if (!is_const_int(e->b, &v) || v < 0 || v > 30) return NULL;
      return isl_aff_scale_val(build_rec(c, ls, e->a, depth + 1), isl_val_int_from_si(ctx, (int64_t)1 << v));
    case OP_DIV:
    case OP_MOD:
    case OP_SHR: {
      /* C truncates; isl floors: equal when the dividend is >= 0. */
      if (!is_const_int(e->b, &v)) return NULL;
      if (e->op == OP_SHR) {
        if (v < 0 || v > 30) return NULL;
        v = (int64_t)1 << v;
      }
      if (v <= 0 || !nonneg(c, e->a)) return NULL;
      isl_aff *a = build_rec(c, ls, e->a, depth + 1);
      if (e->op == OP_MOD) return isl_aff_mod_val(a, isl_val_int_from_si(ctx, v));
      return isl_aff_floor(isl_aff_scale_down_val(a, isl_val_int_from_si(ctx, v)));
    }
    default:
      return NULL;
    }
  default:
    return NULL;
  }
}

/* The loops' space [c<id>, ...] as a local space. */
static isl_local_space *loops_space(AffCtx *c) {
  isl_space *sp = isl_space_set_alloc(c->ctx, 0, (unsigned)c->nloops);
  for (int i = 0; i < c->nloops; i++) {
    char name[24];
    snprintf(name, sizeof name, "c%d", c->loops[i]->var->id);
    sp = isl_space_set_dim_name(sp, isl_dim_set, (unsigned)i, name);
  }
  return isl_local_space_from_space(sp);
}

isl_space *aff_space(AffCtx *c) {
  isl_local_space *ls = loops_space(c);
  isl_space *sp = isl_local_space_get_space(ls);
  isl_local_space_free(ls);
  return sp;
}

isl_aff *aff_build(AffCtx *c, const Expr *e) {
  isl_local_space *ls = loops_space(c);
  isl_aff *a = build_rec(c, ls, e, 0);
  isl_local_space_free(ls);
  return a;
}

char *aff_text(AffCtx *c, const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  if (!text_rec(c, &sb, e, 0)) {
    sb_free(&sb);
    return NULL;
  }
  return sb_take(&sb);
}

/* ---------------- domain stack ---------------- */

static void push_con(AffCtx *c, char *text) {
  dom_forget(c);
  if (c->ncons == c->cap_cons) {
    c->cap_cons = c->cap_cons ? 2 * c->cap_cons : 32;
    c->cons = realloc(c->cons, sizeof *c->cons * (size_t)c->cap_cons);
    c->cons_loops = realloc(c->cons_loops, sizeof *c->cons_loops * (size_t)c->cap_cons);
    c->cons_dom = realloc(c->cons_dom, sizeof *c->cons_dom * (size_t)c->cap_cons);
    c->cons_set = realloc(c->cons_set, sizeof *c->cons_set * (size_t)c->cap_cons);
  }
  c->cons_loops[c->ncons] = c->nloops;
  c->cons_dom[c->ncons] = NULL;
  c->cons_set[c->ncons] = NULL;
  c->cons[c->ncons++] = text;
}

/* The bounds of the innermost loop (a step of 1 or -1, affine bounds) as a
 * set built with isl's API; NULL otherwise (then its text is parsed). */
static isl_set *loop_set(AffCtx *c, const Stmt *loop) {
  if (loop->step != 1 && loop->step != -1) return NULL;
  isl_local_space *ls = loops_space(c);
  isl_aff *lo = build_rec(c, ls, loop->lo, 0), *hi = lo ? build_rec(c, ls, loop->hi, 0) : NULL;
  isl_aff *var = isl_aff_var_on_domain(ls, isl_dim_set, (unsigned)(c->nloops - 1));
  isl_set *set = NULL;
  if (lo && hi) {
    set = loop->step > 0 ? isl_aff_ge_set(isl_aff_copy(var), lo) : isl_aff_le_set(isl_aff_copy(var), lo);
    lo = NULL;
    switch (loop->cmp) {
    case OP_LT: set = isl_set_intersect(set, isl_aff_lt_set(var, hi)); break;
    case OP_LE: set = isl_set_intersect(set, isl_aff_le_set(var, hi)); break;
    case OP_GT: set = isl_set_intersect(set, isl_aff_gt_set(var, hi)); break;
    case OP_GE: set = isl_set_intersect(set, isl_aff_ge_set(var, hi)); break;
    default: set = isl_set_free(set); isl_aff_free(var); isl_aff_free(hi); break;
    }
    var = hi = NULL;
  }
  isl_aff_free(lo);
  isl_aff_free(hi);
  isl_aff_free(var);
  return set;
}

void aff_push_loop(AffCtx *c, const Stmt *loop) {
  if (c->nloops == c->cap_loops) {
    c->cap_loops = c->cap_loops ? 2 * c->cap_loops : 16;
    c->loops = realloc(c->loops, sizeof *c->loops * (size_t)c->cap_loops);
  }
  dom_forget(c); /* a new dimension */
  c->loops[c->nloops++] = loop;
  int id = loop->var->id;
  char *lo = aff_text(c, loop->lo), *hi = aff_text(c, loop->hi);
  StrBuf sb;
  sb_init(&sb);
  /* Without affine bounds the domain over-approximates (still sound). */
  if (lo) sb_printf(&sb, "c%d %s %s", id, loop->step > 0 ? ">=" : "<=", lo);
  if (hi) sb_printf(&sb, "%sc%d %s %s", lo ? " and " : "", id, op_spelling(loop->cmp), hi);
  if (lo && (loop->step > 1 || loop->step < -1))
    sb_printf(&sb, " and exists (e%d : c%d = %s + %lld*e%d)", id, id, lo, (long long)loop->step, id);
  if (!sb.len) sb_puts(&sb, "0 = 0");
  free(lo);
  free(hi);
  push_con(c, sb_take(&sb));
  c->cons_set[c->ncons - 1] = loop_set(c, loop);
}

void aff_pop_loop(AffCtx *c) {
  if (c->nloops == 0) return;
  dom_forget(c);
  c->nloops--;
  aff_pop_cond(c);
}

/* A comparison's operand that no unsigned conversion can wrap: a
 * counter or size of the domain, or a constant >= 0, each converted only
 * to a type that holds all its values. */
static bool no_wrap(AffCtx *c, const Expr *e) {
  while (e->kind == EX_CAST && e->implicit && type_is_integer(e->type) && type_is_integer(e->a->type) &&
         cast_keeps_value(c, e))
    e = e->a;
  if (e->kind == EX_INT) return e->ival >= 0;
  if (e->kind != EX_VAR) return false;
  for (int i = 0; i < c->nloops; i++)
    if (c->loops[i]->var == e->var) return true;
  return false;
}

static bool cond_rec(AffCtx *c, StrBuf *sb, const Expr *e, int depth) {
  if (depth > 64) return false;
  while (e->kind == EX_CAST && e->implicit) e = e->a;
  if (e->kind == EX_UNARY && e->op == OP_LNOT) {
    sb_puts(sb, "not (");
    if (!cond_rec(c, sb, e->a, depth + 1)) return false;
    sb_putc(sb, ')');
    return true;
  }
  if (e->kind != EX_BINARY) return false;
  if (e->op == OP_LAND || e->op == OP_LOR) {
    sb_putc(sb, '(');
    if (!cond_rec(c, sb, e->a, depth + 1)) return false;
    sb_puts(sb, e->op == OP_LAND ? ") and (" : ") or (");
    if (!cond_rec(c, sb, e->b, depth + 1)) return false;
    sb_putc(sb, ')');
    return true;
  }
  if (e->op < OP_LT || e->op > OP_NE) return false;
  /* a comparison C makes in an unsigned type (i - 1u >= 0) is not the
   * affine one: its operands wrap */
  if (((type_is_integer(e->a->type) && !e->a->type->is_signed) || (type_is_integer(e->b->type) && !e->b->type->is_signed)) &&
      !(no_wrap(c, e->a) && no_wrap(c, e->b)))
    return false;
  char *a = aff_text(c, e->a), *b = aff_text(c, e->b);
  bool ok = a && b;
  if (ok) sb_printf(sb, "%s %s %s", a, e->op == OP_EQ ? "=" : op_spelling(e->op), b);
  free(a);
  free(b);
  return ok;
}

bool aff_push_cond(AffCtx *c, const Expr *cond, bool negate) {
  StrBuf sb;
  sb_init(&sb);
  if (negate) sb_puts(&sb, "not (");
  if (!cond_rec(c, &sb, cond, 0)) {
    sb_free(&sb);
    return false;
  }
  if (negate) sb_putc(&sb, ')');
  push_con(c, sb_take(&sb));
  return true;
}

void aff_pop_cond(AffCtx *c) {
  if (c->ncons == 0) return;
  dom_forget(c);
  c->ncons--;
  free(c->cons[c->ncons]);
  isl_set_free(c->cons_dom[c->ncons]);
  isl_set_free(c->cons_set[c->ncons]);
}

/* ---------------- ranges ---------------- */

static char *space_text(AffCtx *c) {
  StrBuf sb;
  sb_init(&sb);
  sb_putc(&sb, '[');
  for (int i = 0; i < c->nloops; i++) sb_printf(&sb, "%sc%d", i ? ", " : "", c->loops[i]->var->id);
  sb_putc(&sb, ']');
  return sb_take(&sb);
}

char *aff_space_text(AffCtx *c) { return space_text(c); }

char *aff_cons_text(AffCtx *c) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < c->ncons; i++) sb_printf(&sb, "%s(%s)", i ? " and " : "", c->cons[i]);
  if (!c->ncons) sb_puts(&sb, "0 = 0");
  return sb_take(&sb);
}

/* set with dimensions added up to the first n loops' counters, named c<id>. */
static isl_set *extend(const AffCtx *c, isl_set *set, int n) {
  isl_size have = isl_set_dim(set, isl_dim_set);
  if (have < 0) return isl_set_free(set);
  set = isl_set_add_dims(set, isl_dim_set, (unsigned)(n - have));
  for (int i = have; i < n && set; i++) {
    char name[24];
    snprintf(name, sizeof name, "c%d", c->loops[i]->var->id);
    set = isl_set_set_dim_name(set, isl_dim_set, (unsigned)i, name);
  }
  return set;
}

/* The domain up to constraint i (a new reference), from the one below and
 * a parse of constraint i alone: a full parse per statement was most of a
 * dependence model's cost. NULL when isl fails. */
static isl_set *domain_upto(AffCtx *c, int i) {
  if (!c->cons_dom[i]) {
    isl_set *below = i ? domain_upto(c, i - 1) : isl_set_universe(isl_space_set_alloc(c->ctx, 0, 0));
    if (!below) return NULL;
    int n = c->cons_loops[i];
    isl_set *con = isl_set_copy(c->cons_set[i]);
    if (!con) {
      StrBuf sb;
      sb_init(&sb);
      sb_putc(&sb, '{');
      sb_putc(&sb, ' ');
      sb_putc(&sb, '[');
      for (int k = 0; k < n; k++) sb_printf(&sb, "%sc%d", k ? ", " : "", c->loops[k]->var->id);
      sb_printf(&sb, "] : %s }", c->cons[i]);
      con = isl_set_read_from_str(c->ctx, sb.data);
      sb_free(&sb);
    }
    c->cons_dom[i] = con ? isl_set_intersect(extend(c, below, n), con) : isl_set_free(below);
  }
  return isl_set_copy(c->cons_dom[i]);
}

/* The current domain (cached until the stack changes); NULL when isl fails. */
static isl_set *domain(AffCtx *c) {
  if (!c->dom) {
    isl_set *d = c->ncons ? domain_upto(c, c->ncons - 1) : isl_set_universe(isl_space_set_alloc(c->ctx, 0, 0));
    c->dom = d ? extend(c, d, c->nloops) : NULL;
    c->dom_empty = c->dom ? isl_set_is_empty(c->dom) : -1;
  }
  return c->dom;
}

isl_set *aff_domain(AffCtx *c) { return isl_set_copy(domain(c)); }

/* Exact min/max of an affine expression (aff_build; consumed) over the
 * domain with isl. */
static bool isl_range(AffCtx *c, isl_aff *aff, int64_t *lo, int64_t *hi, bool *empty) {
  isl_set *dom = domain(c);
  bool ok = false;
  *empty = false;
  if (dom && aff && c->dom_empty >= 0) {
    if (c->dom_empty) {
      *empty = true;
      ok = true;
    } else {
      isl_val *mn = isl_set_min_val(dom, aff), *mx = isl_set_max_val(dom, aff);
      if (mn && mx && isl_val_is_int(mn) && isl_val_is_int(mx)) {
        *lo = isl_val_get_num_si(mn);
        *hi = isl_val_get_num_si(mx);
        ok = true;
      }
      isl_val_free(mn);
      isl_val_free(mx);
    }
  }
  isl_aff_free(aff);
  return ok;
}

#define BIG ((int64_t)1 << 62)

static bool clamp_ok(int64_t lo, int64_t hi) { return lo >= -BIG && hi <= BIG; }

static bool interval(AffCtx *c, const Expr *e, int64_t *lo, int64_t *hi, int depth) {
  if (depth > 64) return false;
  bool exact, empty;
  isl_aff *a = aff_build(c, e);
  if (a) {
    bool ok = isl_range(c, a, lo, hi, &empty);
    if (ok && empty) *lo = *hi = 0;
    if (ok) return true;
  }
  (void)exact;
  int64_t a0, a1, b0, b1, v;
  if (type_is_integer(e->type) && (e->kind == EX_LOAD || e->kind == EX_VAR)) {
    int64_t tl;
    uint64_t th;
    type_int_range(e->type, &tl, &th);
    if (th > (uint64_t)BIG || tl < -BIG) return false;
    *lo = tl;
    *hi = (int64_t)th;
    return true;
  }
  if (ir_const_int(e, &v)) {
    *lo = *hi = v;
    return true;
  }
  switch (e->kind) {
  case EX_INT: /* an unsigned literal past INT64_MAX */
    return false;
  case EX_CAST: {
    if (!type_is_integer(e->type) || !type_is_integer(e->a->type)) return false;
    int64_t tl;
    uint64_t th;
    type_int_range(e->type, &tl, &th);
    if (interval(c, e->a, &a0, &a1, depth + 1) && a0 >= tl && (a1 < 0 || (uint64_t)a1 <= th)) {
      *lo = a0;
      *hi = a1;
      return true;
    }
    if (th > (uint64_t)BIG || tl < -BIG) return false;
    *lo = tl;
    *hi = (int64_t)th;
    return true;
  }
  case EX_UNARY:
    if (!interval(c, e->a, &a0, &a1, depth + 1)) return false;
    if (e->op == OP_PLUS) { *lo = a0; *hi = a1; return true; }
    if (e->op == OP_NEG) { *lo = -a1; *hi = -a0; return true; }
    if (e->op == OP_BNOT) { *lo = ~a1; *hi = ~a0; return true; }
    if (e->op == OP_LNOT) { *lo = 0; *hi = 1; return true; }
    return false;
  case EX_COND:
    if (!interval(c, e->b, &a0, &a1, depth + 1) || !interval(c, e->c, &b0, &b1, depth + 1)) return false;
    *lo = a0 < b0 ? a0 : b0;
    *hi = a1 > b1 ? a1 : b1;
    return true;
  case EX_BINARY:
    if (e->op >= OP_LT && e->op <= OP_LOR) {
      *lo = 0;
      *hi = 1;
      return true;
    }
    if (e->op == OP_BAND) {
      const Expr *m = is_const_int(e->b, &v) ? e->b : is_const_int(e->a, &v) ? e->a : NULL;
      if (m && v >= 0) {
        *lo = 0;
        *hi = v;
        return true;
      }
    }
    if (!interval(c, e->a, &a0, &a1, depth + 1)) return false;
    if (e->op == OP_MOD || e->op == OP_DIV || e->op == OP_SHR) {
      if (!is_const_int(e->b, &v)) return false;
      if (e->op == OP_SHR) {
        if (v < 0 || v > 62) return false;
        *lo = a0 >> v;
        *hi = a1 >> v;
        return true;
      }
      if (v == 0 || (v == -1 && a0 == INT64_MIN)) return false;
      if (e->op == OP_DIV) { /* monotone in the dividend: x / -2 flips the ends */
        *lo = a0 / v;
        *hi = a1 / v;
        if (*lo > *hi) { int64_t t2 = *lo; *lo = *hi; *hi = t2; }
        return true;
      }
      if (v < 0) v = -v; /* a % b has a's sign, |a % b| < |b| */
      *lo = a0 >= 0 ? 0 : -(v - 1);
      *hi = a1 <= 0 ? 0 : (a1 < v - 1 ? a1 : v - 1);
      if (a0 >= 0 && a1 < v) *lo = a0;
      return true;
    }
    if (!interval(c, e->b, &b0, &b1, depth + 1)) return false;
    switch (e->op) {
    case OP_ADD: *lo = a0 + b0; *hi = a1 + b1; break;
    case OP_SUB: *lo = a0 - b1; *hi = a1 - b0; break;
    case OP_MUL: {
      if (!clamp_ok(a0, a1) || !clamp_ok(b0, b1)) return false;
      if ((a0 < -(1 << 30) || a1 > (1 << 30)) && (b0 < -(1 << 30) || b1 > (1 << 30))) return false;
      __int128 p[4] = {(__int128)a0 * b0, (__int128)a0 * b1, (__int128)a1 * b0, (__int128)a1 * b1};
      __int128 mn = p[0], mx = p[0];
      for (int i = 1; i < 4; i++) {
        if (p[i] < mn) mn = p[i];
        if (p[i] > mx) mx = p[i];
      }
      if (mn < -BIG || mx > BIG) return false;
      *lo = (int64_t)mn;
      *hi = (int64_t)mx;
      break;
    }
    case OP_SHL:
      if (b0 < 0 || b1 > 30 || a0 < -(1 << 30) || a1 > (1 << 30)) return false;
      *lo = a0 < 0 ? a0 * ((int64_t)1 << b1) : a0 * ((int64_t)1 << b0);
      *hi = a1 < 0 ? a1 * ((int64_t)1 << b0) : a1 * ((int64_t)1 << b1);
      break;
    default:
      return false;
    }
    return clamp_ok(*lo, *hi);
  default:
    return false;
  }
}

static bool domain_empty(AffCtx *c);

bool aff_range(AffCtx *c, const Expr *e, int64_t *lo, int64_t *hi, bool *exact, bool *empty) {
  *empty = false;
  isl_aff *a = aff_build(c, e);
  if (a) {
    bool ok = isl_range(c, a, lo, hi, empty);
    if (ok) {
      *exact = true;
      return true;
    }
  }
  *exact = false;
  /* Over an empty domain (dead code: an always-false guard) every value is
   * vacuously in range; interval() would read its constants as 0 there. */
  if (domain_empty(c)) {
    *empty = true;
    *lo = *hi = 0;
    return true;
  }
  return interval(c, e, lo, hi, 0);
}

/* Not through aff_range: when isl fails (its operation budget), that would
 * ask domain_empty again, without end. */
static bool domain_empty(AffCtx *c) { return domain(c) && c->dom_empty == 1; }

/* Always true: the domain with the condition is the domain (no complement
 * of the condition is parsed: isl's negation of a conjunction with floors
 * and mods, such as a padding guard over a fused counter, costs far more). */
int aff_cond_value(AffCtx *c, const Expr *cond) {
  isl_set *all = isl_set_copy(domain(c));
  if (!all || c->dom_empty != 0) { /* dead code: vacuously true */
    isl_set_free(all);
    return c->dom_empty == 1 ? 1 : -1;
  }
  int r = -1;
  if (aff_push_cond(c, cond, false)) {
    isl_set *in = domain(c);
    if (in && c->dom_empty == 1) r = 0;
    else if (in && c->dom_empty == 0 && isl_set_is_subset(all, in) == isl_bool_true) r = 1;
    aff_pop_cond(c);
  }
  isl_set_free(all);
  return r;
}

/* ---------------- symbolic sizes ---------------- */

/* Each size n of the kernel as an outermost dimension c<id> over its
 * type's range, then the kernel's assumptions and that every array extent
 * is at least 1: the domains below hold for every size allowed, and a
 * range over them is one over all sizes. */
bool aff_push_size_dims(AffCtx *c, char *why, size_t n) {
  const Kernel *k = c->k;
  if (!k->nsizes) return true;
  c->size_loops = calloc((size_t)k->nsizes, sizeof *c->size_loops);
  c->size_bounds = calloc(2 * (size_t)k->nsizes, sizeof *c->size_bounds);
  for (int i = 0; i < k->nsizes; i++) {
    Stmt *l = &c->size_loops[i];
    int64_t lo;
    uint64_t hi;
    type_int_range(k->sizes[i]->type, &lo, &hi);
    l->kind = ST_FOR;
    l->var = (Var *)k->sizes[i];
    l->lo = &c->size_bounds[2 * i];
    l->hi = &c->size_bounds[2 * i + 1];
    *l->lo = (Expr){.kind = EX_INT, .type = &ty_llong, .ival = lo};
    *l->hi = (Expr){.kind = EX_INT, .type = &ty_llong, .ival = hi > INT64_MAX ? INT64_MAX : (int64_t)hi};
    l->cmp = OP_LE;
    l->step = 1;
    aff_push_loop(c, l);
  }
  c->nsize_dims = k->nsizes;
  /* the extents first: an assumption's % may need the size >= 0 */
  for (const Param *p = k->params; p; p = p->next)
    for (int d = 0; p->buf && d < p->buf->ndim; d++) {
      if (!p->buf->extent[d]) continue;
      char *t = aff_text(c, p->buf->extent[d]);
      if (!t) {
        snprintf(why, n, "an extent of '%s' is not affine in the sizes", p->buf->name);
        return false;
      }
      StrBuf sb;
      sb_init(&sb);
      sb_printf(&sb, "%s >= 1", t);
      free(t);
      push_con(c, sb_take(&sb));
    }
  c->nsize_cons = c->ncons;
  return true;
}

bool aff_push_assumption(AffCtx *c, int i, char *why, size_t n) {
  if (!aff_push_cond(c, c->k->assume[i], false)) {
    StrBuf t;
    sb_init(&t);
    ir_print_expr(&t, c->k->assume[i]);
    snprintf(why, n,
             "assumption '%s' is not an affine condition on the sizes (use comparisons, && || !, + - * by a "
             "constant, and / or %% by a positive constant of a value an earlier assumption keeps >= 0)",
             t.data);
    sb_free(&t);
    return false;
  }
  c->nsize_cons = c->ncons;
  return true;
}

bool aff_push_sizes(AffCtx *c, char *why, size_t n) {
  if (!aff_push_size_dims(c, why, n)) return false;
  for (int i = 0; i < c->k->nassume; i++)
    if (!aff_push_assumption(c, i, why, n)) return false;
  return true;
}

/* A set over the sizes alone, printed with their names, in C's words. */
static char *sizes_text(AffCtx *c, isl_set *set) {
  for (int i = 0; set && i < c->nsize_dims; i++) set = isl_set_set_dim_name(set, isl_dim_set, (unsigned)i, c->loops[i]->var->name);
  char *t = set ? isl_set_to_str(set) : NULL;
  isl_set_free(set);
  if (!t) return NULL;
  /* "{ [n, m] : n <= 128 and m >= 2 }" -> "n <= 128 and m >= 2" */
  char *colon = strstr(t, " : "), *end = strrchr(t, '}');
  char *out = NULL;
  if (colon && end && end > colon) {
    *end = '\0';
    size_t len = strlen(colon + 3);
    while (len && colon[3 + len - 1] == ' ') len--;
    out = malloc(len + 1);
    memcpy(out, colon + 3, len);
    out[len] = '\0';
  }
  free(t);
  return out;
}

int aff_outside(AffCtx *c, const Expr *idx, const Expr *ext, char *needs, size_t nneeds, char *sample, size_t nsample) {
  needs[0] = sample[0] = '\0';
  isl_set *dom = domain(c);
  isl_aff *a = aff_build(c, idx), *x = a && dom ? aff_build(c, ext) : NULL;
  if (!a || !x || !dom) {
    isl_aff_free(a);
    isl_aff_free(x);
    return -1;
  }
  isl_set *below = isl_set_from_basic_set(isl_aff_neg_basic_set(isl_aff_copy(a))); /* before a is consumed */
  isl_set *bad = isl_set_union(below, isl_aff_ge_set(a, x));
  bad = isl_set_intersect(bad, isl_set_copy(dom));
  isl_bool empty = isl_set_is_empty(bad);
  if (empty != isl_bool_false) {
    isl_set_free(bad);
    return empty == isl_bool_true ? 0 : -1;
  }
  bool every = false; /* proven: no allowed size avoids it */
  isl_point *pt = isl_set_sample_point(isl_set_copy(bad));
  size_t at = 0;
  for (int i = 0; pt && i < c->nsize_dims && at < nsample; i++) {
    isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, i);
    at += (size_t)snprintf(sample + at, nsample - at, "%s%s = %ld", i ? ", " : "", c->loops[i]->var->name,
                           v ? isl_val_get_num_si(v) : 0L);
    isl_val_free(v);
  }
  isl_point_free(pt);
  if (c->nsize_dims && c->nsize_cons) {
    int dims = c->nloops;
    isl_set *sizes_bad = isl_set_project_out(bad, isl_dim_set, (unsigned)c->nsize_dims, (unsigned)(dims - c->nsize_dims));
    isl_set *ctx = domain_upto(c, c->nsize_cons - 1);
    ctx = ctx ? extend(c, ctx, c->nsize_dims) : NULL;
    isl_set *good = ctx ? isl_set_subtract(isl_set_copy(ctx), sizes_bad) : isl_set_free(sizes_bad);
    isl_bool none = good ? isl_set_is_empty(good) : isl_bool_error;
    if (none == isl_bool_true) every = true;
    if (none == isl_bool_false) {
      good = isl_set_coalesce(isl_set_gist(good, ctx));
      char *t = sizes_text(c, good);
      if (t) snprintf(needs, nneeds, "%s", t);
      free(t);
    } else {
      isl_set_free(good);
      isl_set_free(ctx);
    }
  } else {
    isl_set_free(bad);
  }
  return every ? 2 : 1;
}
