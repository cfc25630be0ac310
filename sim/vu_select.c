/* The VU's selects: a compare of each element of m with a scalar t picks
 * an element of a where it holds, else an element of b (or the scalar e):
 * a mask and a predicated move in one instruction. Cycles: overhead +
 * ceil(bytes of one operand / vector_bytes), like every element-wise op. */
#include "sim/internal.h"

void npu_vu_select_gt_f32_at(const char *file, int line, float *dst, const float *m, const float *a, const float *b,
                             int n, float t) {
  int64_t len = (int64_t)n * 4;
  VuArg v[4] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"m", m, len, 1, 0, 4, OP_READ},
                {"a", a, len, 1, 0, 4, OP_READ},      {"b", b, len, 1, 0, 4, OP_READ}};
  if (!sim_vu_n_issue(file, line, "npu_vu_select_gt_f32", n, v, 4, (uint64_t)len)) return;
  for (int i = 0; i < n; i++) dst[i] = m[i] > t ? a[i] : b[i];
}

void npu_vu_select_gts_f32_at(const char *file, int line, float *dst, const float *m, const float *a, int n, float t,
                              float e) {
  int64_t len = (int64_t)n * 4;
  VuArg v[3] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"m", m, len, 1, 0, 4, OP_READ}, {"a", a, len, 1, 0, 4, OP_READ}};
  if (!sim_vu_n_issue(file, line, "npu_vu_select_gts_f32", n, v, 3, (uint64_t)len)) return;
  for (int i = 0; i < n; i++) dst[i] = m[i] > t ? a[i] : e;
}

/* Under a byte mask (uint8_t, one per element, not 0 = keep a) with a
 * scalar e (npu_vu_select_u8_f32 is a family member: sim/vu_family.c);
 * the cost is the fp32 operands' vectors, as above. */
void npu_vu_select_u8s_f32_at(const char *file, int line, float *dst, const uint8_t *m, const float *a, int n,
                              float e) {
  int64_t len = (int64_t)n * 4;
  VuArg v[3] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"m", m, (int64_t)n, 1, 0, 1, OP_READ},
                {"a", a, len, 1, 0, 4, OP_READ}};
  if (!sim_vu_n_issue(file, line, "npu_vu_select_u8s_f32", n, v, 3, (uint64_t)len)) return;
  for (int i = 0; i < n; i++) dst[i] = m[i] ? a[i] : e;
}
