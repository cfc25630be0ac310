/* The VU's window reductions over a plane (max and average pooling): the
 * KH x KW window of `a` at row r*sh, column c*sw, for each dst element
 * (r, c). Cycles: overhead + ceil(bytes of a's box / vector_bytes), like
 * every VU op (its widest operand). */
#include <stdio.h>

#include "sim/internal.h"

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

/* Entered, shape checked, operands issued; false when the simulator
 * stopped the op (or none is bound), and then it computes nothing. */
static bool window_issue(const char *file, int line, const char *op, const Window *w, const float *dst,
                         const float *a) {
  Site site;
  char d[96] = "";
  NpuSim *s = sim_vu_enter(file, line, op, w->rows, &site);
  if (!s || !window_ok(s, site, op, w)) return false;
  int64_t ar = window_rows(w), aw = window_width(w);
  VuArg v[2] = {{"dst", dst, (int64_t)w->cols * 4, w->rows, (int64_t)w->ldd * 4, 4, OP_WRITE},
                {"a", a, aw * 4, ar, (int64_t)w->lda * 4, 4, OP_READ}};
  if (s->tracing)
    snprintf(d, sizeof d, "rows=%d cols=%d window=%dx%d step=%dx%d ldd=%d lda=%d", w->rows, w->cols, w->kh, w->kw,
             w->sh, w->sw, w->ldd, w->lda);
  return sim_vu_issue(s, site, op, v, 2, (uint64_t)(ar * aw) * 4, d);
}

static const float *window_at(const float *a, const Window *w, int r, int c, int p, int q) {
  return a + ((ptrdiff_t)r * w->sh + p) * w->lda + (ptrdiff_t)c * w->sw + q;
}

void npu_vu_window_max_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh,
                              int kw, int sh, int sw, int ldd, int lda) {
  const Window w = {rows, cols, kh, kw, sh, sw, ldd, lda};
  if (!window_issue(file, line, "npu_vu_window_max_f32", &w, dst, a)) return;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float m = *window_at(a, &w, r, c, 0, 0);
      for (int p = 0; p < kh; p++)
        for (int q = 0; q < kw; q++) {
          float x = *window_at(a, &w, r, c, p, q);
          m = x > m ? x : m;
        }
      dst[(ptrdiff_t)r * ldd + c] = m;
    }
}

void npu_vu_window_avg_f32_at(const char *file, int line, float *dst, const float *a, int rows, int cols, int kh,
                              int kw, int sh, int sw, int ldd, int lda, float s) {
  const Window w = {rows, cols, kh, kw, sh, sw, ldd, lda};
  if (!window_issue(file, line, "npu_vu_window_avg_f32", &w, dst, a)) return;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float sum = 0.0f;
      for (int p = 0; p < kh; p++)
        for (int q = 0; q < kw; q++) sum = sum + *window_at(a, &w, r, c, p, q);
      dst[(ptrdiff_t)r * ldd + c] = sum / s;
    }
}
