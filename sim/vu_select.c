/* The VU's selects: a compare of each element of m with a scalar t picks
 * an element of a where it holds, else an element of b (or the scalar e):
 * a mask and a predicated move in one instruction. Cycles: overhead +
 * ceil(bytes of one operand / vector_bytes), like every element-wise op. */
#include <stdio.h>

#include "sim/internal.h"

/* Entered and issued over n f32 elements per operand; false when the
 * simulator stopped it (or none is bound), and then it computes nothing. */
static bool select_issue(const char *file, int line, const char *op, int n, VuArg *v, int nv) {
  Site site;
  char d[32] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return false;
  for (int i = 0; i < nv; i++) v[i].len = (int64_t)n * 4;
  if (s->tracing) snprintf(d, sizeof d, "n=%d", n);
  return sim_vu_issue(s, site, op, v, nv, (uint64_t)n * 4, d);
}

void npu_vu_select_gt_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b,
                             int n, float t) {
  VuArg v[4] = {{"dst", dst, 0, 1, 0, 4, OP_WRITE}, {"m", m, 0, 1, 0, 4, OP_READ},
                {"a", a, 0, 1, 0, 4, OP_READ},      {"b", b, 0, 1, 0, 4, OP_READ}};
  if (!select_issue(file, line, "npu_vu_select_gt_f32", n, v, 4)) return;
  for (int i = 0; i < n; i++) dst[i] = m[i] > t ? a[i] : b[i];
}

void npu_vu_select_gts_f32_at(const char *file, int line, float *dst, const float *m, const float *a, int n, float t,
                              float e) {
  VuArg v[3] = {{"dst", dst, 0, 1, 0, 4, OP_WRITE}, {"m", m, 0, 1, 0, 4, OP_READ}, {"a", a, 0, 1, 0, 4, OP_READ}};
  if (!select_issue(file, line, "npu_vu_select_gts_f32", n, v, 3)) return;
  for (int i = 0; i < n; i++) dst[i] = m[i] > t ? a[i] : e;
}
