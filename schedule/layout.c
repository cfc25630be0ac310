/* The layout engine: applies one index map to one buffer.
 *
 * A map sends the buffer's current indices to new ones. It is checked with
 * isl over the whole current buffer (padding included): every output must be
 * affine (/ and % by positive constants allowed) and never negative, and the
 * map must be injective. Each output's extent is the smallest that holds its
 * image, except that `x % c` always gets extent c (a split pads its last
 * block, as in TVM). Physical elements that hold no logical element are
 * padding, which needs a pad value: pack writes it there.
 *
 * The map is composed with the buffer's earlier layout, so Layout.index
 * always goes from the logical indices of the kernel as written straight to
 * the physical ones; pack and unpack are generated from that. Accesses are
 * rewritten by substitution. Statements, loops and their order do not
 * change, and the map is injective, so every dependence stays exactly as it
 * was: a layout step needs no further legality proof. */
#include "schedule/layout.h"

#include <math.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/arith.h"
#include "ir/suggest.h"
#include "schedule/call_layouts.h"

/* ---------------- finding buffers ---------------- */

typedef struct {
  const char *name;
  Buffer *found;
  StrBuf all;     /* the arrays there are, for "no such" messages */
  IrSuggest near; /* and the closest of them */
} FindBuf;

static void candidate(FindBuf *f, const char *name) {
  sb_printf(&f->all, "%s%s", f->all.len ? ", " : "", name);
  ir_suggest_add(&f->near, name);
}

static bool find_decl(Stmt *st, int depth, void *ctx) {
  (void)depth;
  FindBuf *f = ctx;
  if (st->kind == ST_DECL && st->buf && !strcmp(st->buf->name, f->name)) f->found = st->buf;
  else if (st->kind == ST_DECL && st->buf) candidate(f, st->buf->name);
  return !f->found;
}

Buffer *sched_buffer(Sched *s, const SchedArg *arg) {
  if (arg->kind != SA_NAME) {
    sched_error(s, arg, "expected a buffer name, got '%s'", arg->text);
    return NULL;
  }
  for (Param *p = s->k->params; p; p = p->next) {
    if (p->buf && !strcmp(p->buf->name, arg->name)) return p->buf;
    if (p->var && !strcmp(p->var->name, arg->name)) {
      sched_error(s, arg, "'%s' is a scalar parameter, not an array", arg->name);
      return NULL;
    }
  }
  FindBuf f = {arg->name, NULL, {0}, ir_suggest_start(arg->name)};
  sb_init(&f.all);
  for (Param *p = s->k->params; p; p = p->next)
    if (p->buf) candidate(&f, p->buf->name);
  ir_walk_stmts(s->k->body, find_decl, &f);
  char dym[160];
  if (!f.found)
    sched_error(s, arg, "no array named '%s' among the kernel's parameters and local arrays (arrays: %s)%s", arg->name,
                f.all.len ? f.all.data : "none", ir_suggest_text(&f.near, dym, sizeof dym));
  sb_free(&f.all);
  return f.found;
}

Var *layout_var(Sched *s, const char *name) {
  Var *v = ARENA_NEW(s->a, Var);
  v->name = arena_strdup(s->a, name);
  v->type = &ty_int;
  v->kind = VAR_LOOP;
  v->id = s->k->nvars++; /* unique, so isl texts over it are unambiguous */
  return v;
}

void layout_map_init(IndexMap *m, Sched *s, const Buffer *b, const char *const *names) {
  memset(m, 0, sizeof *m);
  m->nin = b->ndim;
  for (int d = 0; d < b->ndim; d++) {
    char def[16];
    snprintf(def, sizeof def, "i%d", d);
    m->in[d] = layout_var(s, names ? names[d] : def);
  }
}

/* ---------------- isl over a box ---------------- */

/* The box [0, shape) over vars, as synthetic loops in an AffCtx (so that
 * aff_text and aff_range see the variables' ranges). */
typedef struct {
  AffCtx aff;
  Stmt loops[IR_MAX_DIMS];
  int n;
  StrBuf dom; /* "0 <= c1 < 4 and ..." */
} Box;

static void box_init(Box *bx, Sched *s, Var *const *vars, const int64_t *shape, int n) {
  aff_init(&bx->aff, s->ctx, s->k);
  sb_init(&bx->dom);
  bx->n = n;
  for (int d = 0; d < n; d++) {
    Stmt *l = &bx->loops[d];
    memset(l, 0, sizeof *l);
    l->kind = ST_FOR;
    l->var = vars[d];
    l->lo = ir_int(s->a, 0, &ty_int, (SrcLoc){0, 0});
    l->hi = ir_int(s->a, shape[d], &ty_long, (SrcLoc){0, 0});
    l->cmp = OP_LT;
    l->step = 1;
    aff_push_loop(&bx->aff, l);
    sb_printf(&bx->dom, "%s0 <= c%d < %lld", d ? " and " : "", vars[d]->id, (long long)shape[d]);
  }
  if (!n) sb_puts(&bx->dom, "0 = 0");
}

static void box_free(Box *bx) {
  for (int d = 0; d < bx->n; d++) aff_pop_loop(&bx->aff);
  aff_free(&bx->aff);
  sb_free(&bx->dom);
}

/* "{ [c1, c2] -> [o0, o1] : dom and o0 = ... and o1 = ... }" or NULL when an
 * output is not affine. */
static isl_map *box_map(Sched *s, Box *bx, Var *const *vars, Expr *const *out, int nout) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int d = 0; d < bx->n; d++) sb_printf(&sb, "%sc%d", d ? ", " : "", vars[d]->id);
  sb_puts(&sb, "] -> [");
  for (int k = 0; k < nout; k++) sb_printf(&sb, "%so%d", k ? ", " : "", k);
  sb_printf(&sb, "] : %s", bx->dom.data);
  for (int k = 0; k < nout; k++) {
    char *t = aff_text(&bx->aff, out[k]);
    if (!t) {
      sb_free(&sb);
      return NULL;
    }
    sb_printf(&sb, " and o%d = %s", k, t);
    free(t);
  }
  sb_puts(&sb, " }");
  isl_map *m = isl_map_read_from_str(s->ctx, sb.data);
  sb_free(&sb);
  return m;
}

static int64_t point_coord(isl_point *p, int pos) {
  isl_val *v = isl_point_get_coordinate_val(p, isl_dim_set, pos);
  int64_t r = isl_val_get_num_si(v);
  isl_val_free(v);
  return r;
}

static void index_text(StrBuf *sb, const int64_t *v, int n) {
  for (int d = 0; d < n; d++) sb_printf(sb, "[%lld]", (long long)v[d]);
}

isl_set *layout_box_set(Sched *s, const Buffer *b) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{ [");
  for (int d = 0; d < b->ndim; d++) sb_printf(&sb, "%st%d", d ? ", " : "", d);
  sb_puts(&sb, "] : ");
  for (int d = 0; d < b->ndim; d++) sb_printf(&sb, "%s0 <= t%d < %lld", d ? " and " : "", d, (long long)b->shape[d]);
  if (!b->ndim) sb_puts(&sb, "0 = 0");
  sb_puts(&sb, " }");
  isl_set *set = isl_set_read_from_str(s->ctx, sb.data);
  sb_free(&sb);
  return set;
}

isl_set *layout_pad_set(Sched *s, const Buffer *b) {
  isl_set *box = layout_box_set(s, b);
  const Layout *L = b->layout;
  if (!L || !box) return isl_set_subtract(box, isl_set_copy(box)); /* empty */
  Box lb;
  box_init(&lb, s, L->var, L->shape, L->ndim);
  isl_map *m = box_map(s, &lb, L->var, L->index, b->ndim);
  box_free(&lb);
  if (!m) {
    isl_set_free(box);
    return NULL;
  }
  return isl_set_subtract(box, isl_map_range(m));
}

/* ---------------- checks ---------------- */

static const char *expr_text(Sched *s, const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, e);
  const char *t = arena_strdup(s->a, sb.data);
  sb_free(&sb);
  return t;
}

static bool is_mod_by(const Expr *e, int64_t *c) {
  return e->kind == EX_BINARY && e->op == OP_MOD && ir_const_int(e->b, c) && *c > 0;
}

/* Extents of the outputs over the buffer; false (error) when an output is
 * not affine or can be negative. */
static bool output_extents(Sched *s, Box *bx, IndexMap *m, const Buffer *b, const SchedArg *at) {
  for (int k = 0; k < m->nout; k++) {
    const SchedArg *where = m->out_arg[k] ? m->out_arg[k] : at;
    char *t = aff_text(&bx->aff, m->out[k]);
    if (!t)
      return sched_error(s, where, "index '%s' is not affine in the indices of %s (allowed: + and -, * by a constant, / and %% by a positive constant)",
                         expr_text(s, m->out[k]), b->name);
    free(t);
    int64_t lo, hi, c;
    bool exact, empty;
    if (!aff_range(&bx->aff, m->out[k], &lo, &hi, &exact, &empty) || empty)
      return sched_error(s, where, "cannot bound index '%s' of the new layout of %s", expr_text(s, m->out[k]), b->name);
    if (hi >= ((int64_t)1 << 31) || lo <= -((int64_t)1 << 31))
      return sched_error(s, where, "index '%s' of the new layout of %s reaches %lld: indices must stay below 2^31",
                         expr_text(s, m->out[k]), b->name, (long long)(hi >= ((int64_t)1 << 31) ? hi : lo));
    if (lo < 0)
      return sched_error(s, where, "index '%s' of the new layout of %s ranges over [%lld, %lld]: it must not be negative",
                         expr_text(s, m->out[k]), b->name, (long long)lo, (long long)hi);
    int64_t need = is_mod_by(m->out[k], &c) && hi < c ? c : hi + 1;
    if (m->extent[k] && m->extent[k] < need)
      return sched_error(s, where, "internal error: extent %lld is too small for index '%s'", (long long)m->extent[k],
                         expr_text(s, m->out[k]));
    if (!m->extent[k]) m->extent[k] = need;
  }
  return true;
}

static bool check_injective(Sched *s, Box *bx, IndexMap *m, const Buffer *b, const SchedArg *at) {
  isl_map *map = box_map(s, bx, m->in, m->out, m->nout);
  if (!map) return sched_error(s, at, "internal error: the map of %s has no isl form", b->name);
  isl_bool inj = isl_map_is_injective(map);
  if (inj == isl_bool_true) {
    isl_map_free(map);
    return true;
  }
  /* Two indices with the same image, for the message. */
  isl_map *same = isl_map_apply_range(isl_map_copy(map), isl_map_reverse(map));
  isl_set *lt = isl_map_wrap(isl_map_lex_lt(isl_space_range(isl_map_get_space(same))));
  isl_set *pairs = isl_set_intersect(isl_map_wrap(same), lt);
  isl_point *p = isl_set_sample_point(pairs);
  StrBuf sb;
  sb_init(&sb);
  int64_t x[IR_MAX_DIMS], y[IR_MAX_DIMS];
  if (p && !isl_point_is_void(p)) {
    for (int d = 0; d < m->nin; d++) {
      x[d] = point_coord(p, d);
      y[d] = point_coord(p, m->nin + d);
    }
    sb_printf(&sb, ": %s", b->name);
    index_text(&sb, x, m->nin);
    sb_printf(&sb, " and %s", b->name);
    index_text(&sb, y, m->nin);
    sb_puts(&sb, " map to the same element");
  }
  isl_point_free(p);
  if (!sb.len && m->nout < m->nin)
    sb_printf(&sb, ": it has %d output%s for %d indices", m->nout, m->nout == 1 ? "" : "s", m->nin);
  sched_error(s, at, "the map is not injective%s", sb.len ? sb.data : "");
  sb_free(&sb);
  return false;
}

/* pad_value: an integer, or a float for float buffers, that fits the type. */
static bool read_pad(Sched *s, const SchedArg *a, const Buffer *b, const char **text, double *value) {
  bool neg = a->kind == SA_EXPR && a->op == OP_NEG && a->nitems == 1;
  const SchedArg *v = neg ? &a->items[0] : a;
  if (v->kind == SA_INT || (v->kind == SA_NAME && v->has_value)) {
    int64_t iv = a == v ? v->ival : -v->ival;
    if (type_is_integer(b->elem)) {
      int64_t lo;
      uint64_t hi;
      type_int_range(b->elem, &lo, &hi);
      if (iv < lo || (iv > 0 && (uint64_t)iv > hi))
        return sched_error(s, a, "pad_value %lld does not fit %s's element type %s", (long long)iv, b->name, b->elem->name);
    }
    *text = arena_printf(s->a, "%lld", (long long)iv);
    *value = (double)iv;
    return true;
  }
  if (v->kind == SA_FLOAT) {
    if (!type_is_float(b->elem))
      return sched_error(s, a, "pad_value %s is not an integer, but %s holds %s", a->text, b->name, b->elem->name);
    double lim = b->elem->kind == TY_FLOAT ? 3.4028234663852886e38 : 1.7976931348623157e308;
    if (!(v->fval <= lim)) /* also inf and nan */
      return sched_error(s, a, "pad_value %s is out of the range of %s", a->text, b->elem->name);
    *text = a->text;
    *value = neg ? -v->fval : v->fval;
    return true;
  }
  return sched_error(s, a, "pad_value must be a number, got '%s'", a->text);
}

/* ---------------- rewriting ---------------- */

typedef struct {
  Sched *s;
  Buffer *b;
  Expr *const *phys; /* new indices over m->in */
  int nphys;
  const IndexMap *m;
} Rewrite;

static Expr *as_int(Sched *s, Expr *e) { return e->type->kind == TY_INT ? e : ir_cast(s->a, e, &ty_int, true); }

/* ir_map_expr's step: a load of b (its indices already rewritten) at
 * its physical indices, the map's inputs replaced by the logical ones
 * (b's ndim changes only at the end). */
static Expr *rewrite_load(Arena *a, Expr *e, void *ctx) {
  Rewrite *r = ctx;
  if (e->kind != EX_LOAD || e->buf != r->b) return e;
  Expr **idx = ARENA_ARRAY(a, Expr *, r->nphys);
  for (int g = 0; g < r->nphys; g++) {
    Expr *x = ir_expr_copy(a, r->phys[g]);
    for (int d = 0; d < r->m->nin; d++) x = ir_subst_expr(a, x, r->m->in[d], as_int(r->s, e->idx[d]));
    idx[g] = x;
  }
  Expr *c = ARENA_NEW(a, Expr);
  *c = *e;
  c->idx = idx;
  return c;
}

static Expr *rewritten(Rewrite *r, Expr *e) { return ir_map_expr(r->s->a, e, rewrite_load, r); }

static bool rewrite_stmt(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Rewrite *r = ctx;
  st->lo = rewritten(r, st->lo);
  st->hi = rewritten(r, st->hi);
  st->cond = rewritten(r, st->cond);
  st->lhs = rewritten(r, st->lhs);
  st->rhs = rewritten(r, st->rhs);
  st->init = rewritten(r, st->init);
  for (int i = 0; i < st->ninit; i++) st->init_list[i] = rewritten(r, st->init_list[i]);
  return true;
}

typedef struct {
  const Buffer *b;
  bool has_init;
} InitScan;

static bool scan_init(Stmt *st, int depth, void *ctx) {
  (void)depth;
  InitScan *i = ctx;
  if (st->kind == ST_DECL && st->buf == i->b && st->ninit) i->has_init = true;
  return true;
}

/* One physical index per group: its outputs flattened row-major. */
static int group_indices(Sched *s, const IndexMap *m, Expr **phys, int64_t *shape) {
  int from = 0;
  for (int g = 0; g < m->ngroups; g++) {
    Expr *x = NULL;
    int64_t ext = 1;
    for (int k = from; k < m->group_end[g]; k++) {
      x = x ? ir_add(s->a, ir_mul_int(s->a, x, m->extent[k], &ty_int), m->out[k], &ty_int) : m->out[k];
      if (__builtin_mul_overflow(ext, m->extent[k], &ext)) ext = INT64_MAX; /* refused by the size check */
    }
    phys[g] = x;
    shape[g] = ext;
    from = m->group_end[g];
  }
  return m->ngroups;
}

/* The map sends each index to itself over b's box, axis for axis and
 * extent for extent: ((i / 32) * 32 + i % 32) too, once simplified. */
static bool is_identity(Sched *s, const Buffer *b, const IndexMap *m, Expr **phys, const int64_t *shape, int nphys) {
  if (nphys != b->ndim || m->nin != b->ndim) return false;
  VarRange in[IR_MAX_DIMS];
  for (int d = 0; d < m->nin; d++) in[d] = (VarRange){m->in[d], 0, b->shape[d] - 1};
  for (int g = 0; g < nphys; g++) {
    Expr *x = arith_simplify_index(s->a, ir_expr_copy(s->a, phys[g]), in, m->nin);
    if (shape[g] != b->shape[g] || x->kind != EX_VAR || x->var != m->in[g]) return false;
  }
  return true;
}

/* docs/schedules.md: a step that changes nothing warns, naming itself. A
 * layout the buffer has already, or a pad_value with nothing to pad. */
static void warn_if_nothing(Sched *s, const Buffer *b, const IndexMap *m, Expr **phys, const int64_t *shape, int nphys,
                            int64_t total, const SchedArg *at) {
  if (is_identity(s, b, m, phys, shape, nphys)) {
    sched_warning(s, at, "the new layout of %s is the one it has%s; the step changes nothing", b->name,
                  m->pad ? " (no padding for pad_value)" : "");
    return;
  }
  int64_t before = 1;
  for (int d = 0; d < b->ndim; d++) before *= b->shape[d];
  if (m->pad && total == before)
    sched_warning(s, m->pad, "pad_value pads nothing: the new layout of %s has no more elements than the old (%lld)",
                  b->name, (long long)total);
}

bool layout_apply(Sched *s, Buffer *b, IndexMap *m, const SchedArg *at) {
  /* the box, the pack and unpack helpers and the signature are built from
   * constant extents */
  if (buffer_symbolic(b))
    return sched_error(s, at, "%s's extents are in the kernel's sizes: a new layout of such an array is not supported "
                       "yet (an array of constant extents in the same kernel can take one)", b->name);
  if (m->nout == 0) return sched_error(s, at, "the new layout of %s has no index", b->name);
  if (m->ngroups == 0) /* no separators: one dimension per output */
    for (int k = 0; k < m->nout; k++) m->group_end[m->ngroups++] = k + 1;
  if (m->ngroups > IR_MAX_DIMS)
    return sched_error(s, at, "the new layout of %s has %d dimensions; at most %d are supported", b->name, m->ngroups,
                       IR_MAX_DIMS);
  for (int g = 0; g < m->ngroups; g++)
    if (g ? m->group_end[g] == m->group_end[g - 1] : m->group_end[g] == 0)
      return sched_error(s, at, "an axis separator needs indices on both sides");
  InitScan is = {b, false};
  ir_walk_stmts(s->k->body, scan_init, &is);
  if (is.has_init)
    return sched_error(s, at, "%s has an initializer list; a local array with a new layout must be initialized by statements",
                       b->name);

  Box in;
  box_init(&in, s, m->in, b->shape, b->ndim);
  bool ok = output_extents(s, &in, m, b, at) && check_injective(s, &in, m, b, at);
  box_free(&in);
  if (!ok) return false;

  Expr *phys[IR_MAX_DIMS];
  int64_t shape[IR_MAX_DIMS];
  int nphys = group_indices(s, m, phys, shape);
  /* As for a parameter (frontend/kernel.c): C compilers refuse an extent
   * of 2^31, and the emitted code indexes with int. */
  int64_t total = 1;
  bool over = false;
  for (int g = 0; g < nphys; g++) over |= __builtin_mul_overflow(total, shape[g], &total);
  if (over || total > INT32_MAX)
    return sched_error(s, at, "the new layout of %s has %s%lld elements; at most 2147483647 (2^31 - 1) are supported",
                       b->name, over ? "more than " : "", over ? (long long)INT64_MAX : (long long)total);

  /* The composed layout: logical indices -> new physical ones. */
  Layout *L = ARENA_NEW(s->a, Layout);
  const Layout *old = b->layout;
  if (old) {
    *L = *old;
  } else {
    L->ndim = b->ndim;
    for (int d = 0; d < b->ndim; d++) {
      L->shape[d] = b->shape[d];
      /* pack and unpack name their arrays `logical` and `physical` */
      const char *n = m->in[d]->name;
      L->var[d] = layout_var(s, strcmp(n, "logical") && strcmp(n, "physical") ? n : arena_printf(s->a, "%s_", n));
      L->index[d] = ir_var(s->a, L->var[d], (SrcLoc){0, 0});
    }
  }
  VarRange logical_range[IR_MAX_DIMS];
  for (int d = 0; d < L->ndim; d++) logical_range[d] = (VarRange){L->var[d], 0, L->shape[d] - 1};
  for (int g = 0; g < nphys; g++) {
    Expr *x = ir_expr_copy(s->a, phys[g]);
    for (int d = 0; d < m->nin; d++)
      x = ir_subst_expr(s->a, x, m->in[d], old ? old->index[d] : ir_var(s->a, L->var[d], (SrcLoc){0, 0}));
    L->index[g] = arith_simplify_index(s->a, x, logical_range, L->ndim); /* what pack and unpack print */
  }
  for (int g = nphys; g < IR_MAX_DIMS; g++) L->index[g] = NULL;
  int64_t logical = 1;
  for (int d = 0; d < L->ndim; d++) logical *= L->shape[d];
  L->padded = total > logical; /* the map is injective: the rest is padding */
  L->steps = arena_printf(s->a, "%s%s\n", old ? old->steps : "", s->step ? s->step->text : "layout");

  if (m->pad) {
    const char *text = NULL;
    double v = 0;
    if (!read_pad(s, m->pad, b, &text, &v)) return false;
    if (old && old->pad_text && old->pad_value != v)
      return sched_error(s, m->pad, "%s's padding already holds %s; pad_value %s differs", b->name, old->pad_text, text);
    L->pad_text = text;
    L->pad_value = v;
  }
  if (L->padded && !L->pad_text && m->gaps) {
    L->pad_text = "0";
    L->pad_value = 0;
  }
  if (L->padded && !L->pad_text)
    return sched_error(s, at, "the new layout of %s has %lld elements for %lld values: the %lld padding elements need a pad_value (the last argument)",
                       b->name, (long long)total, (long long)logical, (long long)(total - logical));

  warn_if_nothing(s, b, m, phys, shape, nphys, total, at);
  Rewrite r = {s, b, phys, nphys, m};
  ir_walk_stmts(s->k->body, rewrite_stmt, &r);
  b->ndim = nphys;
  for (int g = 0; g < IR_MAX_DIMS; g++) b->shape[g] = g < nphys ? shape[g] : 0;
  b->layout = L;
  return sched_call_layouts_follow(s, b, at); /* the calls that take b run over its new layout */
}

/* ---------------- comparing layouts (schedule/call_layouts.c) ---------------- */

/* b's map from its logical indices to its physical ones over its logical
 * box: the identity without a layout. */
static isl_map *logical_map(Sched *s, const Buffer *b) {
  const Layout *L = b->layout;
  Var *vars[IR_MAX_DIMS];
  Expr *idx[IR_MAX_DIMS];
  int64_t shape[IR_MAX_DIMS];
  int n = L ? L->ndim : b->ndim;
  for (int d = 0; d < n; d++) {
    vars[d] = L ? L->var[d] : layout_var(s, "i");
    shape[d] = L ? L->shape[d] : b->shape[d];
  }
  for (int g = 0; g < b->ndim; g++) idx[g] = L ? L->index[g] : ir_var(s->a, vars[g], (SrcLoc){0, 0});
  Box bx;
  box_init(&bx, s, vars, shape, n);
  isl_map *m = box_map(s, &bx, vars, idx, b->ndim);
  box_free(&bx);
  return m;
}

/* 1: the maps are equal; 0: not; -1: isl could not tell. The dimensions'
 * names (each layout's own index variables) do not count. */
static int same_map(Sched *s, const Buffer *a, const Buffer *b) {
  isl_map *x = logical_map(s, a), *y = logical_map(s, b);
  int r = -1;
  if (x && y && isl_map_dim(x, isl_dim_in) == isl_map_dim(y, isl_dim_in)) {
    for (int d = 0; d < (int)isl_map_dim(x, isl_dim_in) && x && y; d++) {
      char nm[16];
      snprintf(nm, sizeof nm, "x%d", d);
      x = isl_map_set_dim_name(x, isl_dim_in, (unsigned)d, nm);
      y = isl_map_set_dim_name(y, isl_dim_in, (unsigned)d, nm);
    }
    isl_bool eq = isl_map_is_equal(x, y);
    r = eq == isl_bool_error ? -1 : eq == isl_bool_true;
  }
  isl_map_free(x);
  isl_map_free(y);
  return r;
}

int layout_agree(Sched *s, const Buffer *a, const Buffer *b, char *why, size_t n) {
  if (!a->layout && !b->layout) return 1;
  bool shape = a->ndim == b->ndim;
  for (int d = 0; shape && d < a->ndim; d++) shape = a->shape[d] == b->shape[d];
  if (!shape) {
    snprintf(why, n, "their physical shapes differ");
    return 0;
  }
  int m = same_map(s, a, b);
  if (m != 1) {
    snprintf(why, n, m ? "isl could not compare their index maps" : "their index maps differ");
    return m;
  }
  const Layout *x = a->layout, *y = b->layout;
  if (x && x->padded && y && y->padded &&
      (x->pad_value != y->pad_value || signbit(x->pad_value) != signbit(y->pad_value))) { /* -0.0 is not 0 */
    snprintf(why, n, "their padding holds %s (%s) and %s (%s)", y->pad_text, b->name, x->pad_text, a->name);
    return 0;
  }
  return 1;
}

const char *layout_text(Sched *s, const Buffer *b) {
  StrBuf sb;
  sb_init(&sb);
  const Layout *L = b->layout;
  if (!L) {
    sb_puts(&sb, "the logical layout ");
    index_text(&sb, b->shape, b->ndim);
  } else {
    sb_printf(&sb, "%s", b->name);
    for (int d = 0; d < L->ndim; d++) sb_printf(&sb, "[%s]", L->var[d]->name);
    sb_printf(&sb, " -> %s", b->name);
    for (int g = 0; g < b->ndim; g++) {
      sb_putc(&sb, '[');
      ir_print_expr(&sb, L->index[g]);
      sb_putc(&sb, ']');
    }
    sb_puts(&sb, " of ");
    index_text(&sb, b->shape, b->ndim);
    if (L->padded) sb_printf(&sb, ", padding %s", L->pad_text);
  }
  const char *t = arena_strdup(s->a, sb.data);
  sb_free(&sb);
  return t;
}
