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
  int64_t at[IR_MAX_SIZES];
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
