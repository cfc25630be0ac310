/* A kernel with symbolic sizes at given sizes (docs/kernel-language.md):
 * the size sets the check runs, and the kernel at one of them. */
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>
#include <stdio.h>
#include <string.h>

#include "ir/affine.h"
#include "ir/sizes.h"

/* The value of extent or bound e at set's sizes; false (why says) when it
 * is not an integer expression of them or overflows. */
static bool eval(const Kernel *k, const SizeSet *set, const Expr *e, int64_t *v) {
  int64_t a, b;
  switch (e->kind) {
  case EX_INT: *v = e->ival; return true;
  case EX_VAR:
    for (int i = 0; i < k->nsizes; i++)
      if (k->sizes[i] == e->var) {
        *v = set->val[i];
        return true;
      }
    return false;
  case EX_CAST: return type_is_integer(e->type) && eval(k, set, e->a, v);
  case EX_UNARY:
    if (!eval(k, set, e->a, &a)) return false;
    if (e->op == OP_PLUS) *v = a;
    else if (e->op != OP_NEG || __builtin_sub_overflow((int64_t)0, a, v)) return false;
    return true;
  case EX_BINARY:
    if (!eval(k, set, e->a, &a) || !eval(k, set, e->b, &b)) return false;
    switch (e->op) {
    case OP_ADD: return !__builtin_add_overflow(a, b, v);
    case OP_SUB: return !__builtin_sub_overflow(a, b, v);
    case OP_MUL: return !__builtin_mul_overflow(a, b, v);
    default: return false;
    }
  default: return false;
  }
}

void ir_size_set_text(const Kernel *k, const SizeSet *set, char *out, size_t n) {
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < k->nsizes && at < n; i++)
    at += (size_t)snprintf(out + at, n - at, "%s%s = %lld", i ? ", " : "", k->sizes[i]->name, (long long)set->val[i]);
}

Kernel *ir_instantiate(Arena *a, const Kernel *k, const SizeSet *set, char *why, size_t n) {
  Kernel *c = ir_clone_kernel(a, k);
  for (Param *p = c->params; p; p = p->next) {
    if (!p->buf || !buffer_symbolic(p->buf)) continue;
    Buffer *b = p->buf;
    int64_t total = 1;
    for (int d = 0; d < b->ndim; d++) {
      int64_t v = b->shape[d];
      if (b->extent[d] && !eval(c, set, b->extent[d], &v)) v = -1;
      bool dim_ok = v >= 1 && v <= INT32_MAX;
      if (!dim_ok || __builtin_mul_overflow(total, v, &total) || total > INT32_MAX) {
        char sz[200];
        ir_size_set_text(k, set, sz, sizeof sz);
        if (!dim_ok)
          snprintf(why, n, "at %s, dimension %d of '%s' is %lld: an extent is 1 to 2147483647", sz, d + 1, b->name,
                   (long long)v);
        else
          snprintf(why, n, "at %s, '%s' holds more than 2147483647 elements (2^31 - 1), the most an array may", sz,
                   b->name);
        return NULL;
      }
      b->shape[d] = v;
      b->extent[d] = NULL;
    }
  }
  for (int i = 0; i < c->nsizes; i++) {
    Expr *v = ir_int(a, set->val[i], c->sizes[i]->type, c->sizes[i]->loc);
    ir_subst_stmt(a, c->body, c->sizes[i], v);
  }
  c->nsizes = 0; /* a kernel of constant extents now; its scalars keep their place */
  c->nassume = 0;
  c->nentry_need = 0;
  c->nsize_sets = 0;
  return c;
}

/* The point of pick (consumed; a single point, from lexmin or lexmax)
 * into out; false when there is none or it does not fit int64. */
static bool point_of(isl_set *pick, int nsizes, SizeSet *out) {
  memset(out, 0, sizeof *out);
  isl_point *pt = pick ? isl_set_sample_point(pick) : NULL;
  bool ok = pt && !isl_point_is_void(pt);
  for (int i = 0; ok && i < nsizes; i++) {
    isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, i);
    ok = v && isl_val_is_int(v);
    if (ok) out->val[i] = isl_val_get_num_si(v);
    isl_val_free(v);
  }
  isl_point_free(pt);
  return ok;
}

/* The least point of allowed with size i at least at[i] (at NULL: the
 * least point at all); none when no point is that large. */
static isl_set *least_from(isl_set *allowed, int nsizes, const int64_t *at) {
  isl_set *want = isl_set_copy(allowed);
  for (int i = 0; at && i < nsizes; i++) want = isl_set_lower_bound_si(want, isl_dim_set, (unsigned)i, (int)at[i]);
  return isl_set_is_empty(want) == isl_bool_false ? isl_set_lexmin(want) : isl_set_free(want);
}

/* The point nearest above target in every size, or below it when none is above. */
static isl_set *near(isl_set *allowed, int nsizes, int64_t target) {
  int64_t at[IR_MAX_SIZES] = {0};
  for (int i = 0; i < nsizes; i++) at[i] = target;
  isl_set *pick = least_from(allowed, nsizes, at);
  if (pick) return pick;
  isl_set *below = isl_set_copy(allowed);
  for (int i = 0; i < nsizes; i++) below = isl_set_upper_bound_si(below, isl_dim_set, (unsigned)i, (int)target);
  return isl_set_is_empty(below) == isl_bool_false ? isl_set_lexmax(below) : isl_set_free(below);
}

/* out[(*n)++] = the point of pick (consumed), unless there is none, a size
 * passes at_most, or it is there already. */
static void add(SizeSet *out, int *n, int max, int nsizes, isl_set *pick, int64_t at_most) {
  SizeSet s;
  if (*n >= max) pick = isl_set_free(pick);
  if (!point_of(pick, nsizes, &s)) return;
  for (int i = 0; i < nsizes; i++)
    if (s.val[i] > at_most) return;
  for (int i = 0; i < *n; i++)
    if (!memcmp(out[i].val, s.val, sizeof s.val)) return;
  out[(*n)++] = s;
}

/* ir_size_sets, and with `largest` the largest sizes allowed after them
 * (when there are such): one isl context for both. */
static int size_sets(const Kernel *k, SizeSet *out, int max, bool largest) {
  int n = 0, ns = k->nsizes;
  if (k->nsize_sets) {
    n = k->nsize_sets < max ? k->nsize_sets : max;
    memcpy(out, k->size_sets, sizeof *out * (size_t)n);
    if (!largest) return n;
  }
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, k);
  char why[300];
  isl_set *allowed = aff_push_sizes(&c, why, sizeof why) ? aff_domain(&c) : NULL;
  bool some = allowed && isl_set_is_empty(allowed) == isl_bool_false;
  if (some && !k->nsize_sets) {
    /* the smallest sizes allowed (too large a run is then said and
     * skipped by the check), those nearest 0, 1, a prime, one past a power
     * of two, a mid size and 257 (a prime past 256: several tiles, with a
     * tail, for every power-of-two tile up to 256); sizes unlike each other (7, 33, 7, ... and
     * 33, 7, ...), where one size's loop runs past another's; the largest,
     * when small enough to run */
    add(out, &n, max, ns, least_from(allowed, ns, NULL), INT64_MAX);
    static const int64_t targets[] = {0, 1, 7, 33, 64, 257};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
      add(out, &n, max, ns, near(allowed, ns, targets[t]), INT64_MAX);
    for (int alt = 0; alt < 2 && ns > 1; alt++) {
      int64_t at[IR_MAX_SIZES];
      for (int i = 0; i < ns; i++) at[i] = (i + alt) % 2 ? 33 : 7;
      add(out, &n, max, ns, least_from(allowed, ns, at), INT64_MAX);
    }
    add(out, &n, max, ns, isl_set_lexmax(isl_set_copy(allowed)), 256);
  }
  if (some && largest) add(out, &n, max, ns, isl_set_lexmax(isl_set_copy(allowed)), INT64_MAX); /* deduplicated */
  isl_set_free(allowed);
  aff_free(&c);
  isl_ctx_free(ctx);
  return n;
}

int ir_size_sets(const Kernel *k, SizeSet *out, int max) { return size_sets(k, out, max, false); }

/* ---------------- the check's sets for a variant ---------------- */

/* The splits of a variant's loops that a size bounds: each divisor T of
 * a loop bound or guard, with its numerator A when A reads a size
 * ((n - 2 + 31) / 32: A = n - 2 + 31, the loop runs A + 1 - T times when
 * split by ceiling division). */
typedef struct {
  const Kernel *v;
  const Expr *a[64];
  int64_t t[64];
  bool count[64]; /* A is the loop's count itself (A / T + (A % T > 0)) */
  int n;
  int64_t widest;
} Tiles;

static bool reads_size(const Kernel *v, const Expr *e) {
  if (!e) return false;
  if (e->kind == EX_VAR)
    for (int i = 0; i < v->nsizes; i++)
      if (v->sizes[i] == e->var) return true;
  return reads_size(v, e->a) || reads_size(v, e->b) || reads_size(v, e->c);
}

static void tiles_in(Tiles *ts, const Expr *e) {
  if (!e) return;
  /* split's tile count X / T + (X % T > 0) (docs/limits.md): X iterations,
   * recorded as the (X + T - 1) / T it equals */
  if (e->kind == EX_BINARY && e->op == OP_ADD && e->a->kind == EX_BINARY && e->a->op == OP_DIV &&
      e->a->b->kind == EX_INT && e->a->b->ival >= 2 && e->a->b->ival <= (1 << 20) && reads_size(ts->v, e->a->a) &&
      e->b->kind == EX_BINARY && e->b->op == OP_GT && e->b->a->kind == EX_BINARY && e->b->a->op == OP_MOD &&
      ts->n < (int)(sizeof ts->t / sizeof ts->t[0])) {
    ts->a[ts->n] = e->a->a;
    ts->t[ts->n] = e->a->b->ival;
    ts->count[ts->n++] = true;
    ts->widest = e->a->b->ival > ts->widest ? e->a->b->ival : ts->widest;
    return;
  }
  if (e->kind == EX_BINARY && e->op == OP_DIV && e->b->kind == EX_INT && e->b->ival >= 2 && e->b->ival <= (1 << 20) &&
      reads_size(ts->v, e->a) && ts->n < (int)(sizeof ts->t / sizeof ts->t[0])) {
    ts->a[ts->n] = e->a;
    ts->t[ts->n++] = e->b->ival;
    ts->widest = e->b->ival > ts->widest ? e->b->ival : ts->widest;
  }
  tiles_in(ts, e->a), tiles_in(ts, e->b), tiles_in(ts, e->c);
}

static bool tiles_of_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if (s->kind == ST_FOR) tiles_in(ctx, s->lo), tiles_in(ctx, s->hi);
  if (s->kind == ST_IF) tiles_in(ctx, s->cond);
  return true;
}

/* Does every split that reads size i run more than `full` tiles and a
 * tail at sizes `at`? (A numerator eval cannot read is passed over.) */
static bool tails_hit(const Tiles *ts, const int64_t *at, int i, int64_t full) {
  SizeSet set = {0};
  memcpy(set.val, at, sizeof set.val);
  for (int d = 0; d < ts->n; d++) {
    SizeSet other = set;
    other.val[i] += 1; /* does this split read size i? */
    int64_t a, b;
    if (!eval(ts->v, &set, ts->a[d], &a) || !eval(ts->v, &other, ts->a[d], &b) || a == b) continue;
    int64_t runs = ts->count[d] ? a : a + 1 - ts->t[d];
    if (runs % ts->t[d] == 0 || runs <= full * ts->t[d]) return false;
  }
  return true;
}

/* The least value of size i from `from` on where its splits run more than
 * `full` tiles and a tail, the other sizes as in at. */
static int64_t tail_value(const Tiles *ts, const int64_t *at, int i, int64_t from, int64_t full) {
  int64_t probe[IR_MAX_SIZES];
  memcpy(probe, at, sizeof probe);
  for (int64_t v = from; v < from + (full + 2) * ts->widest + 64; v++) {
    probe[i] = v;
    if (tails_hit(ts, probe, i, full)) return v;
  }
  return from;
}

/* The steps of k at set (UINT64_MAX when it cannot be instantiated). */
static uint64_t steps_at(const Kernel *k, const SizeSet *set) {
  Arena a;
  arena_init(&a, 0);
  char why[300];
  Kernel *c = ir_instantiate(&a, k, set, why, sizeof why);
  uint64_t n = c ? ir_count_steps(c) : UINT64_MAX;
  arena_free(&a);
  return n;
}

/* Adds the point of pick unless it is there; when `budget`, only if k
 * runs it within that many steps. False when there is no point or it is
 * over the budget. */
static bool add_within(const Kernel *k, SizeSet *out, int *n, int max, isl_set *pick, uint64_t budget) {
  SizeSet s;
  if (!pick || !point_of(isl_set_copy(pick), k->nsizes, &s)) {
    isl_set_free(pick);
    return false;
  }
  if (budget && steps_at(k, &s) > budget) {
    isl_set_free(pick);
    return false;
  }
  add(out, n, max, k->nsizes, pick, INT64_MAX);
  return true;
}

/* The largest sizes allowed, when none passes 256 and k runs them within budget. */
static void add_largest(const Kernel *k, SizeSet *out, int *n, int max, isl_set *allowed, uint64_t budget) {
  int before = *n;
  add(out, n, max, k->nsizes, isl_set_lexmax(isl_set_copy(allowed)), 256);
  if (*n > before && steps_at(k, &out[*n - 1]) > budget) (*n)--;
}

int ir_check_size_sets(const Kernel *k, const Kernel *variant, uint64_t budget, SizeSet *out, int max) {
  if (k->nsize_sets) return size_sets(k, out, max, false);
  budget = budget && budget < IR_SIZE_SET_STEPS ? budget : IR_SIZE_SET_STEPS;
  int n = 0, ns = k->nsizes;
  Tiles ts = {.v = variant, .widest = 1};
  ir_walk_stmts(variant->body, tiles_of_stmt, &ts);
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, k);
  char why[300];
  isl_set *allowed = aff_push_sizes(&c, why, sizeof why) ? aff_domain(&c) : NULL;
  if (allowed && isl_set_is_empty(allowed) == isl_bool_false) {
    /* edges: the smallest sizes allowed, every size near 0, 1 and a small
     * prime (the base), and sizes unlike each other */
    add_within(k, out, &n, max, least_from(allowed, ns, NULL), 0);
    static const int64_t edges[] = {0, 1, IR_SIZE_BASE};
    for (size_t t = 0; t < sizeof edges / sizeof edges[0]; t++) add_within(k, out, &n, max, near(allowed, ns, edges[t]), 0);
    for (int alt = 0; alt < 2 && ns > 1; alt++) {
      int64_t at[IR_MAX_SIZES] = {0};
      for (int i = 0; i < ns; i++) at[i] = (i + alt) % 2 ? 33 : IR_SIZE_BASE;
      add_within(k, out, &n, max, least_from(allowed, ns, at), 0);
    }
    /* tails: one size at a time past the tiles (several, else one, and a
     * tail in each split it bounds), the others at the base */
    int64_t several = 33;
    SizeSet base;
    bool has_base = point_of(near(allowed, ns, IR_SIZE_BASE), ns, &base);
    for (int i = 0; has_base && i < ns; i++) {
      int64_t at[IR_MAX_SIZES] = {0};
      memcpy(at, base.val, sizeof at);
      at[i] = tail_value(&ts, at, i, 33, 3);
      several = at[i] > several ? at[i] : several;
      if (add_within(k, out, &n, max, least_from(allowed, ns, at), budget)) continue;
      at[i] = tail_value(&ts, at, i, IR_SIZE_BASE + 1, 1); /* run even past the budget: the check says when it cannot */
      add_within(k, out, &n, max, least_from(allowed, ns, at), 0);
    }
    /* every size at once, where the kernel's work allows */
    const int64_t wide[] = {33, 64, several, 257};
    for (size_t t = 0; t < sizeof wide / sizeof wide[0]; t++)
      add_within(k, out, &n, max, near(allowed, ns, wide[t]), budget);
    add_largest(k, out, &n, max, allowed, budget);
  }
  isl_set_free(allowed);
  aff_free(&c);
  isl_ctx_free(ctx);
  return n;
}

int ir_size_sets_and_largest(const Kernel *k, SizeSet *out, int max) { return size_sets(k, out, max, true); }

/* Is the point of set in the current domain of c? */
static bool holds(AffCtx *c, const SizeSet *set) {
  isl_set *d = aff_domain(c);
  for (int i = 0; d && i < c->k->nsizes; i++)
    d = isl_set_fix_val(d, isl_dim_set, (unsigned)i, isl_val_int_from_si(c->ctx, (long)set->val[i]));
  bool in = d && isl_set_is_empty(d) == isl_bool_false;
  isl_set_free(d);
  return in;
}

int ir_size_set_breaks(const Kernel *k, const SizeSet *set) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, k);
  char why[300];
  int broken = -1;
  if (!aff_push_size_dims(&c, why, sizeof why) || !holds(&c, set)) broken = k->nassume;
  for (int i = 0; broken < 0 && i < k->nassume; i++)
    if (!aff_push_assumption(&c, i, why, sizeof why) || !holds(&c, set)) broken = i;
  aff_free(&c);
  isl_ctx_free(ctx);
  return broken;
}

bool ir_size_expr_max(const Kernel *k, const Expr *e, int64_t *max) {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  AffCtx c;
  aff_init(&c, ctx, k);
  char why[300];
  int64_t lo;
  bool exact = false, empty = false;
  bool ok = aff_push_sizes(&c, why, sizeof why) && aff_range(&c, e, &lo, max, &exact, &empty) && !empty;
  aff_free(&c);
  isl_ctx_free(ctx);
  return ok;
}
