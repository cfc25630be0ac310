/* The buffer side of the loop/buffer duality (TY-NNP pre-RFC): buffer_split,
 * buffer_fuse, buffer_reorder, storage_align and set_axis_separators. Each is
 * sugar for an index map over the buffer's current axes, applied (and
 * composed into the buffer's one layout) by schedule/layout.c. */
#include <string.h>

#include "schedule/layout.h"
#include "schedule/primitives.h"

static Expr *var(Sched *s, const IndexMap *m, int d) { return ir_var(s->a, m->in[d], (SrcLoc){0, 0}); }

static Expr *by(Sched *s, Op op, Expr *x, int64_t c) {
  return ir_binary(s->a, op, x, ir_int(s->a, c, &ty_int, (SrcLoc){0, 0}), &ty_int, (SrcLoc){0, 0});
}

/* An axis of b: 0 .. ndim-1. */
static bool read_axis(Sched *s, const SchedArg *a, const Buffer *b, int *axis) {
  int64_t v;
  if (!sched_int(s, a, &v)) return false;
  if (v < 0 || v >= b->ndim)
    return sched_error(s, a, "axis %lld is out of range: %s has axes 0 to %d", (long long)v, b->name, b->ndim - 1);
  *axis = (int)v;
  return true;
}

static void identity_outputs(Sched *s, IndexMap *m) {
  for (int d = 0; d < m->nin; d++) m->out[m->nout++] = var(s, m, d);
}

/* buffer_split(BUF, axis, factor[, pad_value]): axis -> (axis / factor, axis % factor). */
bool prim_buffer_split(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  int axis;
  int64_t f;
  if (!b || !read_axis(s, &st->args[1], b, &axis) || !sched_positive(s, &st->args[2], "factor", &f)) return false;
  if (b->ndim == IR_MAX_DIMS) return sched_error(s, &st->args[0], "%s already has %d dimensions, the most supported", b->name, IR_MAX_DIMS);
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  for (int d = 0; d < b->ndim; d++) {
    if (d != axis) {
      m.out[m.nout++] = var(s, &m, d);
      continue;
    }
    m.out[m.nout++] = by(s, OP_DIV, var(s, &m, d), f);
    m.out[m.nout++] = by(s, OP_MOD, var(s, &m, d), f);
  }
  if (st->nargs == 4) m.pad = &st->args[3];
  return layout_apply(s, b, &m, &st->args[0]);
}

/* buffer_fuse(BUF, a, a + 1): two adjacent axes -> a * extent(a + 1) + (a + 1). */
bool prim_buffer_fuse(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  int x, y;
  if (!b || !read_axis(s, &st->args[1], b, &x) || !read_axis(s, &st->args[2], b, &y)) return false;
  if (y != x + 1) return sched_error(s, &st->args[2], "buffer_fuse fuses adjacent axes: axis %d must follow axis %d", y, x);
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  for (int d = 0; d < b->ndim; d++) {
    if (d == y) continue;
    if (d == x) m.out[m.nout++] = ir_add(s->a, ir_mul_int(s->a, var(s, &m, x), b->shape[y], &ty_int), var(s, &m, y), &ty_int);
    else m.out[m.nout++] = var(s, &m, d);
  }
  return layout_apply(s, b, &m, &st->args[0]);
}

/* buffer_reorder(BUF, p0, p1, ...): new axis k is old axis p_k. */
bool prim_buffer_reorder(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  if (st->nargs - 1 != b->ndim)
    return sched_error(s, NULL, "%s has %d axes, so buffer_reorder takes %d axis numbers after it; got %d", b->name,
                       b->ndim, b->ndim, st->nargs - 1);
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  bool seen[IR_MAX_DIMS] = {false};
  for (int k = 0; k < b->ndim; k++) {
    int p;
    if (!read_axis(s, &st->args[k + 1], b, &p)) return false;
    if (seen[p]) return sched_error(s, &st->args[k + 1], "axis %d appears twice", p);
    seen[p] = true;
    m.out[m.nout++] = var(s, &m, p);
  }
  return layout_apply(s, b, &m, &st->args[0]);
}

/* buffer_pad(BUF, (e0, e1, ...), pad_value): grows each axis to the given
 * extent; the new elements are padding that holds pad_value. */
bool prim_buffer_pad(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  const SchedArg *a = &st->args[1];
  int n = a->kind == SA_TUPLE ? a->nitems : 1;
  const SchedArg *items = a->kind == SA_TUPLE ? a->items : a;
  if (n != b->ndim)
    return sched_error(s, a, "%s has %d axes, so buffer_pad takes %d extents; got %d", b->name, b->ndim, b->ndim, n);
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  identity_outputs(s, &m);
  for (int d = 0; d < n; d++) {
    int64_t e;
    if (!sched_int(s, &items[d], &e)) return false;
    if (e < b->shape[d])
      return sched_error(s, &items[d], "extent %lld is smaller than axis %d of %s (%lld)", (long long)e, d, b->name,
                         (long long)b->shape[d]);
    m.extent[d] = e;
  }
  m.pad = &st->args[2];
  return layout_apply(s, b, &m, &st->args[0]);
}

/* The smallest e >= from with e * inner = off (mod f), solved as a linear
 * congruence (trying every e could take f, up to 2^31, steps). */
static bool smallest_extent(int64_t from, int64_t inner, int64_t f, int64_t off, int64_t *e) {
  int64_t a = inner % f, g = f, x = 0, x1 = 1, r = a; /* extended Euclid on (f, a): x * a = g (mod f) */
  while (r) {
    int64_t q = g / r, t = g - q * r;
    g = r, r = t;
    t = x - q * x1;
    x = x1, x1 = t;
  }
  if (off % g) return false;
  int64_t m = f / g;                                                    /* e is unique modulo m */
  int64_t base = (int64_t)((((__int128)(off / g) * x) % m + m) % m);  /* one solution in [0, m) */
  __int128 k = from <= base ? 0 : ((__int128)from - base + m - 1) / m;
  *e = (int64_t)(base + k * m);
  return true;
}

/* storage_align(BUF, axis, factor, offset): pads the next axis so that the
 * stride of `axis` (in elements) is factor * k + offset, as TVM's
 * storage_align does (to spread rows over memory banks). */
bool prim_storage_align(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  int axis;
  int64_t f, off;
  if (!b || !read_axis(s, &st->args[1], b, &axis) || !sched_positive(s, &st->args[2], "factor", &f) ||
      !sched_int(s, &st->args[3], &off))
    return false;
  if (off < 0 || off >= f)
    return sched_error(s, &st->args[3], "offset %lld must be in [0, %lld): the stride is factor * k + offset", (long long)off, (long long)f);
  if (axis == b->ndim - 1)
    return sched_error(s, &st->args[1], "axis %d is %s's innermost: its stride is 1 and cannot be padded", axis, b->name);
  int64_t inner = 1;
  for (int d = axis + 2; d < b->ndim; d++) inner *= b->shape[d];
  int64_t e;
  if (!smallest_extent(b->shape[axis + 1], inner, f, off, &e))
    return sched_error(s, &st->args[3], "no extent of axis %d gives a stride of %lld * k + %lld (the axes after it hold %lld elements)",
                       axis + 1, (long long)f, (long long)off, (long long)inner);
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  identity_outputs(s, &m);
  m.extent[axis + 1] = e;
  m.gaps = true;
  return layout_apply(s, b, &m, &st->args[0]);
}

/* set_axis_separators(BUF, a, b, ...): a new physical dimension starts at
 * each listed axis; the axes of each group are flattened row-major. */
bool prim_set_axis_separators(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  IndexMap m;
  layout_map_init(&m, s, b, NULL);
  identity_outputs(s, &m);
  int last = 0;
  for (int k = 1; k < st->nargs; k++) {
    int a;
    if (!read_axis(s, &st->args[k], b, &a)) return false;
    if (a == 0)
      return sched_error(s, &st->args[k], "a separator at axis 0 would start an empty dimension; separators are axes 1 to %d",
                         b->ndim - 1);
    if (a <= last) return sched_error(s, &st->args[k], "separators must be increasing: axis %d follows axis %d", a, last);
    m.group_end[m.ngroups++] = a;
    last = a;
  }
  m.group_end[m.ngroups++] = m.nout;
  return layout_apply(s, b, &m, &st->args[0]);
}
