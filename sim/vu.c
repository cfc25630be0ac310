/* The VU cores: how an op issues (sim_vu_issue, and sim_vu_box_issue for a
 * 2-D box), and requantize, which is not a row of npu_vu_families.def
 * (docs/architecture.md says why). The rows are sim/vu_family.c. Every
 * operand lies in the VM of one core, which runs the op. Cycles per
 * instruction: overhead + ceil(bytes of the widest operand /
 * vector_bytes). */
#include <math.h>
#include <stdio.h>

#include "sim/internal.h"

bool sim_vu_issue(NpuSim *s, Site site, const char *op, const VuArg *v, int nv, uint64_t work_bytes,
                  const char *detail) {
  Operand o[5]; /* at most dst and four sources (a select under a compare of two arrays) */
  int core = -1;
  for (int i = 0; i < nv; i++) {
    o[i].name = v[i].name;
    o[i].mode = v[i].mode;
    if (!region_make(s, site, op, v[i].name, v[i].p, v[i].len, v[i].rows, v[i].s1, 1, 0,
                     NPU_VU_VM, core, v[i].esz, &o[i].r))
      return false;
    if (core < 0 && !region_empty(&o[i].r)) core = region_core(s, &o[i].r);
  }
  if (core < 0) core = 0; /* nothing touched: book the issue on core 0 */
  uint64_t dur = (uint64_t)s->t.vu_overhead + ceil_div_u64(work_bytes, (uint64_t)s->t.vu_vector_bytes);
  if (!unit_exec(s, site, op, TRACK_VU(s, core), o, nv, dur, detail)) return false;
  s->vu_work += dur - (uint64_t)s->t.vu_overhead;
  return true;
}

NpuSim *sim_vu_enter(const char *file, int line, const char *op, int n, Site *site) {
  NpuSim *s = sim_enter(file, line, op, site);
  if (!s) return NULL;
  if (n < 0) {
    sim_fail(s, *site, op, "negative shape: n=%d", n);
    return NULL;
  }
  return s;
}

/* A 1-D op over n elements (work_bytes of work): entered and its operands
 * issued; false when the simulator stopped it (or none is bound), and
 * then the op computes nothing. */
bool sim_vu_n_issue(const char *file, int line, const char *op, int n, const VuArg *v, int nv, uint64_t work_bytes) {
  Site site;
  char d[32] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return false;
  if (s->tracing) snprintf(d, sizeof d, "n=%d", n);
  return sim_vu_issue(s, site, op, v, nv, work_bytes, d);
}

void npu_vu_requant_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n,
                          int32_t multiplier, int shift, int zero_point) {
  const char *op = "npu_vu_requant_i8";
  Site site;
  char d[64] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return;
  if (multiplier > (1 << 21) || multiplier < -(1 << 21) || shift < 0 || shift > 47 ||
      zero_point < -128 || zero_point > 127) {
    sim_fail(s, site, op, "bad operand: multiplier=%d shift=%d zero_point=%d (limits: "
             "|multiplier| <= 2^21, 0 <= shift <= 47, -128 <= zero_point <= 127)",
             (int)multiplier, shift, zero_point);
    return;
  }
  VuArg v[2] = {{"dst", dst, n, 1, 0, 1, OP_WRITE}, {"a", a, (int64_t)n * 4, 1, 0, 4, OP_READ}};
  if (s->tracing) snprintf(d, sizeof d, "n=%d multiplier=%d shift=%d zp=%d", n, (int)multiplier,
                           shift, zero_point);
  if (!sim_vu_issue(s, site, op, v, 2, (uint64_t)n * 4, d)) return;
  int64_t half = shift ? (int64_t)1 << (shift - 1) : 0;
  for (int i = 0; i < n; i++) {
    /* |a * multiplier| <= 2^52: exact in int64. >> of a negative value is an
     * arithmetic shift on every compiler libnpusim supports (floor division). */
    int64_t r = (((int64_t)a[i] * multiplier + half) >> shift) + zero_point;
    dst[i] = (int8_t)(r > 127 ? 127 : r < -128 ? -128 : r);
  }
}

/* cols >= min_cols, and both leading dimensions >= cols when rows > 1. */
static bool box_ok(NpuSim *s, Site site, const char *op, const VuBox *b) {
  if (b->cols >= b->min_cols && (b->rows <= 1 || (b->ld1 >= b->cols && b->ld2 >= b->cols))) return true;
  sim_fail(s, site, op, "%s shape: rows=%d cols=%d %s=%d %s=%d (cols >= %d, %s and %s >= cols)",
           b->cols < b->min_cols ? "bad" : "misaligned", b->rows, b->cols, b->n1, b->ld1, b->n2, b->ld2, b->min_cols,
           b->n1, b->n2);
  return false;
}

bool sim_vu_box_issue(const char *file, int line, const char *op, const VuBox *b, const VuArg *v, int nv) {
  Site site;
  char d[64] = "";
  NpuSim *s = sim_vu_enter(file, line, op, b->rows, &site);
  if (!s || !box_ok(s, site, op, b)) return false;
  if (s->tracing) snprintf(d, sizeof d, "rows=%d cols=%d %s=%d %s=%d", b->rows, b->cols, b->n1, b->ld1, b->n2, b->ld2);
  return sim_vu_issue(s, site, op, v, nv, (uint64_t)b->rows * (uint64_t)b->cols * 4, d);
}
