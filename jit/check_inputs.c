/* The check's seeded inputs (docs/check.md): one draw per element of every
 * array and per scalar, in parameter order, so a parameter's range never
 * changes another parameter's values. Without a spec the values are small,
 * so that kernels within the language rarely overflow; `#pragma npu inputs`
 * gives a parameter its own range, or symmetric positive definite
 * matrices (ir/check_spec.h). */
#include <stdlib.h>

#include "ir/check_spec.h"
#include "jit/check.h"

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void store(void *p, const Type *t, int64_t iv, double fv) {
  switch (t->kind) {
  case TY_CHAR: case TY_SCHAR: *(int8_t *)p = (int8_t)iv; break;
  case TY_UCHAR: *(uint8_t *)p = (uint8_t)iv; break;
  case TY_SHORT: *(int16_t *)p = (int16_t)iv; break;
  case TY_USHORT: *(uint16_t *)p = (uint16_t)iv; break;
  case TY_INT: *(int32_t *)p = (int32_t)iv; break;
  case TY_UINT: *(uint32_t *)p = (uint32_t)iv; break;
  case TY_LONG: case TY_LLONG: *(int64_t *)p = iv; break;
  case TY_ULONG: case TY_ULLONG: *(uint64_t *)p = (uint64_t)iv; break;
  case TY_FLOAT: *(float *)p = (float)fv; break;
  case TY_DOUBLE: *(double *)p = fv; break;
  case TY_VOID: break;
  }
}

static double unit(uint64_t r) { return (double)(r >> 11) / 9007199254740992.0; } /* [0, 1) */

/* lo + (hi - lo) * u, where hi - lo may pass DBL_MAX (-9e307 to 9e307): a
 * weighted mean, which cannot, kept in [lo, hi] against rounding. */
static double in_range(double lo, double hi, double u) {
  double v = lo * (1.0 - u) + hi * u;
  return v < lo ? lo : v > hi ? hi : v;
}

/* One value of type t from draw r: in the spec's range, or the default's;
 * an integer scalar without a range at its type's maximum when `ends`. */
static void value(uint64_t r, const Type *t, bool scalar, const CheckSpec *range, bool ends, void *out) {
  if (scalar && !range && ends && type_is_integer(t)) {
    int64_t lo;
    uint64_t hi;
    type_int_range(t, &lo, &hi);
    store(out, t, (int64_t)hi, 0); /* store converts to t: an unsigned maximum too */
  } else if (type_is_float(t)) {
    double u = unit(r);
    store(out, t, 0, range ? in_range(range->flo, range->fhi, u) : scalar ? 0.5 + u : 2.0 * u - 1.0);
  } else if (range) {
    uint64_t span = (uint64_t)range->ihi - (uint64_t)range->ilo + 1; /* 0: all 2^64 values */
    store(out, t, (int64_t)((uint64_t)range->ilo + (span ? r % span : r)), 0);
  } else if (type_is_integer(t) && t->rank == 0) { /* _Bool: C defines only 0 and 1 in its byte */
    store(out, t, (int64_t)(r % 2), 0);
  } else if (scalar) {
    store(out, t, (int64_t)(1 + r % 8), 0); /* [1, 8] */
  } else if (t->is_signed) {
    store(out, t, (int64_t)(r % (2 * CHECK_SIGNED_MAX + 1)) - CHECK_SIGNED_MAX, 0);
  } else {
    store(out, t, (int64_t)(r % (CHECK_UNSIGNED_MAX + 1)), 0);
  }
}

static double element(const void *p, const Type *t, int64_t i) {
  return t->kind == TY_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

/* Each trailing n x n matrix symmetric, off the diagonal in [-1, 1) and on
 * it n + [0, 1): strictly diagonally dominant with a positive diagonal, so
 * positive definite. The draws of the lower triangle are spent unused. */
static void spd(uint64_t *s, const Buffer *b, void *out) {
  int64_t n = b->shape[b->ndim - 1], elems = buffer_elems(b);
  for (int64_t e = 0; e < elems; e++) {
    int64_t i = e / n % n, j = e % n;
    uint64_t r = splitmix(s);
    double v = i == j ? (double)n + unit(r) : i < j ? 2.0 * unit(r) - 1.0 : element(out, b->elem, e - (i - j) * (n - 1));
    store((unsigned char *)out + e * b->elem->size, b->elem, 0, v);
  }
}

void check_free_args(void **args, int n) {
  for (int i = 0; args && i < n; i++) free(args[i]);
  free(args);
}

void **check_make_inputs(const Kernel *k, const CheckSpec *specs, uint64_t seed, bool scalar_ends) {
  int n = k->nparams, i = 0;
  void **args = calloc((size_t)n + 1, sizeof(void *));
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + 1;
  for (const Param *p = k->params; args && p; p = p->next, i++) {
    size_t bytes = p->buf ? (size_t)buffer_elems(p->buf) * (size_t)p->buf->elem->size : 16;
    if (!(args[i] = p->buf ? malloc(bytes) : calloc(1, bytes))) {
      check_free_args(args, n);
      return NULL;
    }
    const char *name = p->buf ? p->buf->name : p->var->name;
    const CheckSpec *range = ir_spec_find(specs, k, SPEC_RANGE, name);
    if (!p->buf) value(splitmix(&s), p->var->type, true, range, scalar_ends, args[i]);
    else if (ir_spec_find(specs, k, SPEC_SPD, name)) spd(&s, p->buf, args[i]);
    else
      for (int64_t e = 0; e < buffer_elems(p->buf); e++)
        value(splitmix(&s), p->buf->elem, false, range, false, (unsigned char *)args[i] + e * p->buf->elem->size);
  }
  return args;
}
