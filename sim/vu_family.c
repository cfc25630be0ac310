/* The VU's op families (npu_intrinsics/npu_vu_families.def): each row's
 * entry point is its FORM's template below, instantiated with the row's
 * element type and SIM expression. A form fixes the operands, their
 * regions (the hazard and scope checks of sim_vu_issue) and the cost:
 * overhead + ceil(bytes of the widest operand / vector_bytes), for a
 * window the bytes of a's box (the rows and columns the windows cover). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/internal.h"

typedef int8_t vu_i8;
typedef int32_t vu_i32;
typedef float vu_f32;

static uint32_t f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static float f32_quiet(float x) {
  uint32_t u = f32_bits(x) | 0x00400000u;
  memcpy(&x, &u, sizeof x);
  return x;
}

static bool f32_signaling(float x) { return x != x && !(f32_bits(x) & 0x00400000u); }

/* C's fmaxf and fminf as glibc computes them on x86-64 (maxss / minss):
 * two operands that compare equal (+0 and -0) give the second; a quiet NaN
 * gives the other operand; a signaling NaN gives the first NaN operand,
 * quieted. The choice for +0 and -0 is the C library's; tensorize matches
 * fmaxf only where the check's C library makes the same one. */
static float vu_fmax(float x, float y) {
  if (f32_signaling(x) || f32_signaling(y)) return f32_quiet(x != x ? x : y);
  if (y != y) return x;
  if (x != x) return y;
  return x > y ? x : y;
}

static float vu_fmin(float x, float y) {
  if (f32_signaling(x) || f32_signaling(y)) return f32_quiet(x != x ? x : y);
  if (y != y) return x;
  if (x != x) return y;
  return x < y ? x : y;
}

#define VU_ARG(name, p, T, mode) {name, p, (int64_t)n * (int64_t)sizeof(T), 1, 0, (int)sizeof(T), mode}
#define VU_MASK_ARG(p) {"m", p, (int64_t)n, 1, 0, 1, OP_READ}
#define VU_WORK(T) ((uint64_t)n * sizeof(T))

/* vv: dst[i] = a[i] OP b[i] */
#define VU_FORM_vv(NAME, T, SIM)                                                                \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *b, int n) {           \
    VuArg v[3] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("a", a, T, OP_READ), VU_ARG("b", b, T, OP_READ)}; \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 3, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[i], y = b[i];                                                                     \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* vs: dst[i] = a[i] OP s */
#define VU_FORM_vs(NAME, T, SIM)                                                                \
  void NAME##_at(const char *file, int line, T *dst, const T *a, int n, T s) {                 \
    VuArg v[2] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("a", a, T, OP_READ)};                 \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 2, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[i], y = s;                                                                        \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* un: dst[i] = OP a[i] */
#define VU_FORM_un(NAME, T, SIM)                                                                \
  void NAME##_at(const char *file, int line, T *dst, const T *a, int n) {                      \
    VuArg v[2] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("a", a, T, OP_READ)};                 \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 2, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[i];                                                                               \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* cmp: dst[i] = a[i] OP b[i], a byte mask of 0 and 1 (C's compare: false
 * for a NaN) */
#define VU_FORM_cmp(NAME, T, SIM)                                                               \
  void NAME##_at(const char *file, int line, uint8_t *dst, const T *a, const T *b, int n) {    \
    VuArg v[3] = {{"dst", dst, (int64_t)n, 1, 0, 1, OP_WRITE}, VU_ARG("a", a, T, OP_READ),      \
                  VU_ARG("b", b, T, OP_READ)};                                                  \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 3, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[i], y = b[i];                                                                     \
      dst[i] = (uint8_t)(SIM);                                                                  \
    }                                                                                           \
  }

/* sel: dst[i] = m[i] ? a[i] : b[i] (b may be dst: a masked store) */
#define VU_FORM_sel(NAME, T, SIM)                                                               \
  void NAME##_at(const char *file, int line, T *dst, const uint8_t *mk, const T *a, const T *b, int n) { \
    VuArg v[4] = {VU_ARG("dst", dst, T, OP_WRITE), VU_MASK_ARG(mk), VU_ARG("a", a, T, OP_READ), \
                  VU_ARG("b", b, T, OP_READ)};                                                  \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 4, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      uint8_t m = mk[i];                                                                        \
      T x = a[i], y = b[i];                                                                     \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* mask: dst[i] = m[i] ? a[i] OP b[i] : c[i] (c may be dst: an update under
 * a mask) */
#define VU_FORM_mask(NAME, T, SIM)                                                              \
  void NAME##_at(const char *file, int line, T *dst, const uint8_t *mk, const T *a, const T *b, const T *c, \
                 int n) {                                                                       \
    VuArg v[5] = {VU_ARG("dst", dst, T, OP_WRITE), VU_MASK_ARG(mk), VU_ARG("a", a, T, OP_READ), \
                  VU_ARG("b", b, T, OP_READ), VU_ARG("c", c, T, OP_READ)};                      \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 5, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[i], y = b[i];                                                                     \
      dst[i] = mk[i] ? (T)(SIM) : c[i];                                                         \
    }                                                                                           \
  }

/* The selects with a compare in the instruction (C's compare: false for a
 * NaN): SIM over the compared m (or p and q), the moved x = a[i] and
 * y = b[i], and the scalars t, e and c. */
/* sel_t: dst[i] = SIM over m[i], a[i], b[i] and t */
#define VU_FORM_sel_t(NAME, T, SIM)                                                             \
  void NAME##_at(const char *file, int line, T *dst, const T *mv, const T *a, const T *b, int n, T t) { \
    VuArg v[4] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("m", mv, T, OP_READ), VU_ARG("a", a, T, OP_READ), \
                  VU_ARG("b", b, T, OP_READ)};                                                  \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 4, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T m = mv[i], x = a[i], y = b[i];                                                          \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* sel_te: dst[i] = SIM over m[i], a[i] and the scalars t, e */
#define VU_FORM_sel_te(NAME, T, SIM)                                                            \
  void NAME##_at(const char *file, int line, T *dst, const T *mv, const T *a, int n, T t, T e) { \
    VuArg v[3] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("m", mv, T, OP_READ), VU_ARG("a", a, T, OP_READ)}; \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 3, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T m = mv[i], x = a[i];                                                                    \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* sel_e: dst[i] = SIM over the byte mask m[i], a[i] and the scalar e; it
 * costs the element operands' bytes */
#define VU_FORM_sel_e(NAME, T, SIM)                                                             \
  void NAME##_at(const char *file, int line, T *dst, const uint8_t *mk, const T *a, int n, T e) { \
    VuArg v[3] = {VU_ARG("dst", dst, T, OP_WRITE), VU_MASK_ARG(mk), VU_ARG("a", a, T, OP_READ)}; \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 3, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      uint8_t m = mk[i];                                                                        \
      T x = a[i];                                                                               \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* sel_pq: dst[i] = SIM over p[i], q[i] (compared), a[i] and b[i] */
#define VU_FORM_sel_pq(NAME, T, SIM)                                                            \
  void NAME##_at(const char *file, int line, T *dst, const T *pv, const T *qv, const T *a, const T *b, int n) { \
    VuArg v[5] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("p", pv, T, OP_READ), VU_ARG("q", qv, T, OP_READ), \
                  VU_ARG("a", a, T, OP_READ), VU_ARG("b", b, T, OP_READ)};                      \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 5, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T p = pv[i], q = qv[i], x = a[i], y = b[i];                                               \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* sel_tc: dst[i] = SIM over m[i], a[i], b[i] and the scalars t, c (a leaky
 * ReLU: one branch scaled) */
#define VU_FORM_sel_tc(NAME, T, SIM)                                                            \
  void NAME##_at(const char *file, int line, T *dst, const T *mv, const T *a, const T *b, int n, T t, T c) { \
    VuArg v[4] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("m", mv, T, OP_READ), VU_ARG("a", a, T, OP_READ), \
                  VU_ARG("b", b, T, OP_READ)};                                                  \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 4, VU_WORK(T))) return;                       \
    for (int i = 0; i < n; i++) {                                                               \
      T m = mv[i], x = a[i], y = b[i];                                                          \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* from_S: dst[i] = a[i] converted, a of the type S (a cast); it costs the
 * wider operand's bytes */
#define VU_FORM_from(NAME, T, S, SIM)                                                           \
  void NAME##_at(const char *file, int line, T *dst, const S *a, int n) {                      \
    VuArg v[2] = {VU_ARG("dst", dst, T, OP_WRITE), VU_ARG("a", a, S, OP_READ)};                 \
    uint64_t w = sizeof(T) > sizeof(S) ? sizeof(T) : sizeof(S);                                 \
    if (!sim_vu_n_issue(file, line, #NAME, n, v, 2, (uint64_t)n * w)) return;                  \
    for (int i = 0; i < n; i++) {                                                               \
      S x = a[i];                                                                               \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }
#define VU_FORM_from_i8(NAME, T, SIM) VU_FORM_from(NAME, T, vu_i8, SIM)
#define VU_FORM_from_i32(NAME, T, SIM) VU_FORM_from(NAME, T, vu_i32, SIM)
#define VU_FORM_from_f32(NAME, T, SIM) VU_FORM_from(NAME, T, vu_f32, SIM)

/* A box operand: rows rows of cols elements, ld apart. */
#define VU_BOX_ARG(name, p, T, ld, mode) \
  {name, p, (int64_t)cols * (int64_t)sizeof(T), rows, (int64_t)(ld) * (int64_t)sizeof(T), (int)sizeof(T), mode}

/* rows: dst[r][c] = a[r][c] OP b[r], one b per row (read only when there
 * is work) */
#define VU_FORM_rows(NAME, T, SIM)                                                              \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *b, int rows, int cols, int ldd, int lda) { \
    const VuBox box = {rows, cols, 0, "ldd", "lda", ldd, lda};                                  \
    VuArg v[3] = {VU_BOX_ARG("dst", dst, T, ldd, OP_WRITE), VU_BOX_ARG("a", a, T, lda, OP_READ), \
                  {"b", b, cols ? (int64_t)rows * (int64_t)sizeof(T) : 0, 1, 0, (int)sizeof(T), OP_READ}}; \
    if (!sim_vu_box_issue(file, line, #NAME, &box, v, 3)) return;                              \
    for (int r = 0; r < rows; r++) {                                                            \
      T y = cols ? b[r] : 0;                                                                    \
      for (int c = 0; c < cols; c++) {                                                          \
        T x = a[(ptrdiff_t)r * lda + c];                                                        \
        dst[(ptrdiff_t)r * ldd + c] = (T)(SIM);                                                 \
      }                                                                                         \
    }                                                                                           \
  }

/* box_un: dst[r][c] = OP a[r][c] */
#define VU_FORM_box_un(NAME, T, SIM)                                                            \
  void NAME##_at(const char *file, int line, T *dst, const T *a, int rows, int cols, int ldd, int lda) { \
    const VuBox box = {rows, cols, 0, "ldd", "lda", ldd, lda};                                  \
    VuArg v[2] = {VU_BOX_ARG("dst", dst, T, ldd, OP_WRITE), VU_BOX_ARG("a", a, T, lda, OP_READ)}; \
    if (!sim_vu_box_issue(file, line, #NAME, &box, v, 2)) return;                              \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) {                                                          \
        T x = a[(ptrdiff_t)r * lda + c];                                                        \
        dst[(ptrdiff_t)r * ldd + c] = (T)(SIM);                                                 \
      }                                                                                         \
  }

/* box_acc_S: dst[r][c] = SIM over its own y, x = a[r][c] and z = b[0], a
 * and b of the type S (a multiply-accumulate by one element: a depthwise
 * conv's tap); b is read only when there is work */
#define VU_FORM_box_acc(NAME, T, S, SIM)                                                        \
  void NAME##_at(const char *file, int line, T *dst, const S *a, const S *bv, int rows, int cols, int ldd, int lda) { \
    const VuBox box = {rows, cols, 0, "ldd", "lda", ldd, lda};                                  \
    int64_t nb = rows && cols ? (int64_t)sizeof(S) : 0;                                         \
    VuArg v[3] = {VU_BOX_ARG("dst", dst, T, ldd, OP_READ | OP_WRITE), VU_BOX_ARG("a", a, S, lda, OP_READ), \
                  {"b", bv, nb, 1, 0, (int)sizeof(S), OP_READ}};                                \
    if (!sim_vu_box_issue(file, line, #NAME, &box, v, 3)) return;                              \
    S z = bv && nb ? bv[0] : 0;                                                                 \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) {                                                          \
        T *p = dst + (ptrdiff_t)r * ldd + c, y = *p;                                            \
        S x = a[(ptrdiff_t)r * lda + c];                                                        \
        *p = (T)(SIM);                                                                          \
      }                                                                                         \
  }
#define VU_FORM_box_acc_i8(NAME, T, SIM) VU_FORM_box_acc(NAME, T, vu_i8, SIM)

/* cols2: dst[r][c] = SIM over x = a[r][c] and two operands with one value
 * per column, g = g[c] and y = b[c] (layernorm's gamma and beta), each read
 * only when there is a row */
#define VU_FORM_cols2(NAME, T, SIM)                                                             \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *gv, const T *bv, int rows, int cols, \
                 int ldd, int lda) {                                                            \
    const VuBox box = {rows, cols, 0, "ldd", "lda", ldd, lda};                                  \
    int64_t nc = rows ? (int64_t)cols * (int64_t)sizeof(T) : 0;                                 \
    VuArg v[4] = {VU_BOX_ARG("dst", dst, T, ldd, OP_WRITE), VU_BOX_ARG("a", a, T, lda, OP_READ), \
                  {"g", gv, nc, 1, 0, (int)sizeof(T), OP_READ}, {"b", bv, nc, 1, 0, (int)sizeof(T), OP_READ}}; \
    if (!sim_vu_box_issue(file, line, #NAME, &box, v, 4)) return;                              \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) {                                                          \
        T x = a[(ptrdiff_t)r * lda + c], g = gv[c], y = bv[c];                                  \
        dst[(ptrdiff_t)r * ldd + c] = (T)(SIM);                                                 \
      }                                                                                         \
  }

/* red2_zero: dst[r] = y from 0, then y = SIM over x = a[r][c] and
 * z = b[r][c] for c from 0 on in order (cols >= 1; a and b may be the same
 * rows: a sum of squares) */
#define VU_FORM_red2_zero(NAME, T, SIM)                                                         \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *bv, int rows, int cols, int lda, int ldb) { \
    const VuBox box = {rows, cols, 1, "lda", "ldb", lda, ldb};                                  \
    VuArg v[3] = {{"dst", dst, (int64_t)rows * (int64_t)sizeof(T), 1, 0, (int)sizeof(T), OP_WRITE}, \
                  VU_BOX_ARG("a", a, T, lda, OP_READ), VU_BOX_ARG("b", bv, T, ldb, OP_READ)};   \
    if (!sim_vu_box_issue(file, line, #NAME, &box, v, 3)) return;                              \
    for (int r = 0; r < rows; r++) {                                                            \
      T y = 0;                                                                                  \
      for (int c = 0; c < cols; c++) {                                                          \
        T x = a[(ptrdiff_t)r * lda + c], z = bv[(ptrdiff_t)r * ldb + c];                        \
        y = (T)(SIM);                                                                           \
      }                                                                                         \
      dst[r] = y;                                                                               \
    }                                                                                           \
  }

/* fill: dst[r][c] = SIM over the scalar value (an integer type: the trace
 * prints it as an int) */
#define VU_FORM_fill(NAME, T, SIM)                                                              \
  void NAME##_at(const char *file, int line, T *dst, int rows, int cols, int ldd, T value) {   \
    const char *op = #NAME;                                                                     \
    Site site;                                                                                  \
    char d[64] = "";                                                                            \
    NpuSim *s = sim_vu_enter(file, line, op, rows, &site);                                      \
    if (!s) return;                                                                             \
    if (cols < 0 || (rows > 1 && ldd < cols)) {                                                 \
      sim_fail(s, site, op, "%s shape: rows=%d cols=%d ldd=%d (cols >= 0, ldd >= cols)",        \
               cols < 0 ? "bad" : "misaligned", rows, cols, ldd);                               \
      return;                                                                                   \
    }                                                                                           \
    VuArg v[1] = {VU_BOX_ARG("dst", dst, T, ldd, OP_WRITE)};                                    \
    if (s->tracing) snprintf(d, sizeof d, "rows=%d cols=%d ldd=%d value=%d", rows, cols, ldd, (int)value); \
    if (!sim_vu_issue(s, site, op, v, 1, (uint64_t)rows * (uint64_t)cols * sizeof(T), d)) return; \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) dst[(ptrdiff_t)r * ldd + c] = (T)(SIM);                    \
  }

/* Entered, shape checked, operands issued for a row reduction; false when
 * the simulator stopped it. Cost: a's rows x cols elements. */
static bool reduce_issue(const char *file, int line, const char *op, int rows, int cols, int ld, const void *dst,
                         const void *a, int esz) {
  Site site;
  char d[64] = "";
  NpuSim *s = sim_vu_enter(file, line, op, rows, &site);
  if (!s) return false;
  if (cols < 1 || (rows > 1 && ld < cols)) {
    sim_fail(s, site, op, "%s shape: rows=%d cols=%d ld=%d (cols >= 1, ld >= cols)", cols < 1 ? "bad" : "misaligned",
             rows, cols, ld);
    return false;
  }
  VuArg v[2] = {{"dst", dst, (int64_t)rows * esz, 1, 0, esz, OP_WRITE},
                {"a", a, (int64_t)cols * esz, rows, (int64_t)ld * esz, esz, OP_READ}};
  if (s->tracing) snprintf(d, sizeof d, "rows=%d cols=%d ld=%d", rows, cols, ld);
  return sim_vu_issue(s, site, op, v, 2, (uint64_t)rows * (uint64_t)cols * (uint64_t)esz, d);
}

/* The row reduction: y from INIT, then y = SIM over x, the row's elements
 * from FIRST on in order. */
#define VU_REDUCE_BODY(NAME, T, INIT, FIRST, SIM)                                               \
  void NAME##_at(const char *file, int line, T *dst, const T *a, int rows, int cols, int ld) { \
    if (!reduce_issue(file, line, #NAME, rows, cols, ld, dst, a, (int)sizeof(T))) return;      \
    for (int r = 0; r < rows; r++) {                                                            \
      const T *row = a + (ptrdiff_t)r * ld;                                                     \
      T y = (INIT);                                                                             \
      for (int c = (FIRST); c < cols; c++) {                                                    \
        T x = row[c];                                                                           \
        y = (T)(SIM);                                                                           \
      }                                                                                         \
      dst[r] = y;                                                                               \
    }                                                                                           \
  }
#define VU_FORM_red_zero(NAME, T, SIM) VU_REDUCE_BODY(NAME, T, 0, 0, SIM)
#define VU_FORM_red_first(NAME, T, SIM) VU_REDUCE_BODY(NAME, T, row[0], 1, SIM)

/* The bytes a strided operand spans: n elements, s apart. */
static int64_t strided_span(int n, int s, int esz) { return n > 0 ? ((int64_t)(n - 1) * s + 1) * esz : 0; }

/* Entered, strides checked, operands issued; false when the simulator
 * stopped the op (or none is bound). Cost: the wider span. */
static bool strided_issue(const char *file, int line, const char *op, int n, int sa, int sb, const void *dst,
                          const void *a, const void *b, int esz) {
  Site site;
  char d[64] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return false;
  if (sa < 1 || sb < 1) {
    sim_fail(s, site, op, "bad strides: sa=%d sb=%d (each >= 1)", sa, sb);
    return false;
  }
  int64_t spa = strided_span(n, sa, esz), spb = strided_span(n, sb, esz);
  VuArg v[3] = {{"dst", dst, (int64_t)n * esz, 1, 0, esz, OP_WRITE}, {"a", a, spa, 1, 0, esz, OP_READ},
                {"b", b, spb, 1, 0, esz, OP_READ}};
  if (s->tracing) snprintf(d, sizeof d, "n=%d sa=%d sb=%d", n, sa, sb);
  return sim_vu_issue(s, site, op, v, 3, (uint64_t)(spa > spb ? spa : spb), d);
}

/* str: dst[i] = a[i*sa] OP b[i*sb] */
#define VU_FORM_str(NAME, T, SIM)                                                               \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *b, int n, int sa, int sb) { \
    if (!strided_issue(file, line, #NAME, n, sa, sb, dst, a, b, (int)sizeof(T))) return;        \
    for (int i = 0; i < n; i++) {                                                               \
      T x = a[(ptrdiff_t)i * sa], y = b[(ptrdiff_t)i * sb];                                     \
      dst[i] = (T)(SIM);                                                                        \
    }                                                                                           \
  }

/* A strided plane operand: rows rows, row r at r*rs*ld elements, cols
 * elements s apart in each. */
typedef struct {
  int rs, s, ld;
} PlaneStep;

static int64_t plane_span(int cols, int s) { return cols > 0 ? (int64_t)(cols - 1) * s + 1 : 0; }

/* Entered, shape checked, operands issued; false when the simulator
 * stopped the op. Cost: the larger box of a and b. */
static bool plane_issue(const char *file, int line, const char *op, int rows, int cols, int ldd, PlaneStep pa,
                        PlaneStep pb, const void *dst, const void *a, const void *b, int esz) {
  Site site;
  char d[96] = "";
  NpuSim *s = sim_vu_enter(file, line, op, rows, &site);
  if (!s) return false;
  int64_t spa = plane_span(cols, pa.s), spb = plane_span(cols, pb.s);
  if (cols < 0 || pa.rs < 1 || pa.s < 1 || pb.rs < 1 || pb.s < 1 ||
      (rows > 1 && (ldd < cols || pa.ld < spa || pb.ld < spb))) {
    sim_fail(s, site, op, "bad shape: rows=%d cols=%d ra=%d sa=%d rb=%d sb=%d ldd=%d lda=%d ldb=%d (steps >= 1; "
             "each row length at least what its row spans)", rows, cols, pa.rs, pa.s, pb.rs, pb.s, ldd, pa.ld, pb.ld);
    return false;
  }
  VuArg v[3] = {{"dst", dst, (int64_t)cols * esz, rows, (int64_t)ldd * esz, esz, OP_WRITE},
                {"a", a, spa * esz, rows, (int64_t)pa.rs * pa.ld * esz, esz, OP_READ},
                {"b", b, spb * esz, rows, (int64_t)pb.rs * pb.ld * esz, esz, OP_READ}};
  if (s->tracing) snprintf(d, sizeof d, "rows=%d cols=%d a=%dx%d b=%dx%d", rows, cols, pa.rs, pa.s, pb.rs, pb.s);
  int64_t box = (spa > spb ? spa : spb) * esz * rows;
  return sim_vu_issue(s, site, op, v, 3, (uint64_t)box, d);
}

/* str_plane: dst[r][c] = a[r*ra][c*sa] OP b[r*rb][c*sb], rows ld apart */
#define VU_FORM_str_plane(NAME, T, SIM)                                                         \
  void NAME##_at(const char *file, int line, T *dst, const T *a, const T *b, int rows, int cols, int ra, int sa, \
                 int rb, int sb, int ldd, int lda, int ldb) {                                   \
    const PlaneStep pa = {ra, sa, lda}, pb = {rb, sb, ldb};                                     \
    if (!plane_issue(file, line, #NAME, rows, cols, ldd, pa, pb, dst, a, b, (int)sizeof(T))) return; \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) {                                                          \
        T x = a[(ptrdiff_t)r * ra * lda + (ptrdiff_t)c * sa], y = b[(ptrdiff_t)r * rb * ldb + (ptrdiff_t)c * sb]; \
        dst[(ptrdiff_t)r * ldd + c] = (T)(SIM);                                                 \
      }                                                                                         \
  }

typedef struct {
  int rows, cols, kh, kw, sh, sw, ldd, lda;
} Window;

/* a's box: the rows and the row width (elements) the windows cover. */
static int64_t window_rows(const Window *w) { return w->rows ? (int64_t)(w->rows - 1) * w->sh + w->kh : 0; }
static int64_t window_width(const Window *w) { return w->cols ? (int64_t)(w->cols - 1) * w->sw + w->kw : 0; }

static bool window_ok(NpuSim *s, Site site, const char *op, const Window *w) {
  if (w->cols < 0 || w->kh < 1 || w->kw < 1 || w->sh < 1 || w->sw < 1) {
    sim_fail(s, site, op, "bad shape: cols=%d kh=%d kw=%d sh=%d sw=%d (cols >= 0, the window and its steps >= 1)",
             w->cols, w->kh, w->kw, w->sh, w->sw);
    return false;
  }
  int64_t ar = window_rows(w), aw = window_width(w);
  if (ar > INT32_MAX || aw > INT32_MAX) {
    sim_fail(s, site, op, "too large: the windows cover %lld rows of %lld elements", (long long)ar, (long long)aw);
    return false;
  }
  if ((w->rows > 1 && w->ldd < w->cols) || (ar > 1 && w->lda < aw)) {
    sim_fail(s, site, op, "misaligned shape: rows=%d cols=%d ldd=%d lda=%d (ldd >= cols, lda >= %lld: the windows' width)",
             w->rows, w->cols, w->ldd, w->lda, (long long)aw);
    return false;
  }
  return true;
}

/* Entered, shape checked, operands (elements of esz bytes) issued; false
 * when the simulator stopped the op (or none is bound), and then it
 * computes nothing. */
static bool window_issue(const char *file, int line, const char *op, const Window *w, const void *dst,
                         const void *a, int esz) {
  Site site;
  char d[96] = "";
  NpuSim *s = sim_vu_enter(file, line, op, w->rows, &site);
  if (!s || !window_ok(s, site, op, w)) return false;
  int64_t ar = window_rows(w), aw = window_width(w);
  VuArg v[2] = {{"dst", dst, (int64_t)w->cols * esz, w->rows, (int64_t)w->ldd * esz, esz, OP_WRITE},
                {"a", a, aw * esz, ar, (int64_t)w->lda * esz, esz, OP_READ}};
  if (s->tracing)
    snprintf(d, sizeof d, "rows=%d cols=%d window=%dx%d step=%dx%d ldd=%d lda=%d", w->rows, w->cols, w->kh, w->kw,
             w->sh, w->sw, w->ldd, w->lda);
  return sim_vu_issue(s, site, op, v, 2, (uint64_t)(ar * aw) * (uint64_t)esz, d);
}

static ptrdiff_t window_at(const Window *w, int r, int c, int p, int q) {
  return ((ptrdiff_t)r * w->sh + p) * w->lda + (ptrdiff_t)c * w->sw + q;
}

/* The window reduction at (r, c): y from INIT, then y = SIM over x, the
 * window's elements in row order. */
#define VU_WINDOW_BODY(NAME, T, INIT, SIM, FINISH, ...)                                          \
  void NAME##_at(const char *file, int line, T *dst, const T *a, int rows, int cols, int kh, int kw, int sh, \
                 int sw, int ldd, int lda __VA_ARGS__) {                                        \
    const Window w = {rows, cols, kh, kw, sh, sw, ldd, lda};                                    \
    if (!window_issue(file, line, #NAME, &w, dst, a, (int)sizeof(T))) return;                   \
    for (int r = 0; r < rows; r++)                                                              \
      for (int c = 0; c < cols; c++) {                                                          \
        T y = (INIT);                                                                           \
        for (int p = 0; p < kh; p++)                                                            \
          for (int q = 0; q < kw; q++) {                                                        \
            T x = a[window_at(&w, r, c, p, q)];                                                 \
            y = (T)(SIM);                                                                       \
          }                                                                                     \
        dst[(ptrdiff_t)r * ldd + c] = FINISH;                                                   \
      }                                                                                         \
  }
#define VU_FORM_win_first(NAME, T, SIM) VU_WINDOW_BODY(NAME, T, a[window_at(&w, r, c, 0, 0)], SIM, y, )
#define VU_FORM_win_zero(NAME, T, SIM) VU_WINDOW_BODY(NAME, T, 0, SIM, y, )
#define VU_FORM_win_avg(NAME, T, SIM) VU_WINDOW_BODY(NAME, T, 0, SIM, y / s, , T s)

#define NPU_VU_OP(NAME, OP, FORM, T, SIM, SEM) VU_FORM_##FORM(NAME, vu_##T, SIM)
#include "npu_vu_families.def"
#undef NPU_VU_OP
