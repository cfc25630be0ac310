/* TFLite's integer requantisation on the VU (npu_vu_requant_q31_i8 and its
 * per-channel form): gemmlowp's SaturatingRoundingDoublingHighMul by a Q31
 * multiplier, RoundingDivideByPOT, the zero point and the int8 clamp, in
 * exact integer arithmetic (int64 where C's int32 would overflow: the
 * semantics' own int32 sum r + zero_point is defined wherever this one
 * differs from it). Cycles: one vector of work per vector of the int32
 * operand, as the other requantize. */
#include <stdio.h>

#include "sim/internal.h"

static int32_t high_mul(int32_t a, int32_t m) {
  if (a == INT32_MIN && m == INT32_MIN) return INT32_MAX;
  int64_t ab = (int64_t)a * m;
  int64_t nudge = ab >= 0 ? (1 << 30) : 1 - (1 << 30);
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31)); /* C's division truncates, as gemmlowp's */
}

/* x / 2^e rounded to nearest, ties away from zero; e in [0, 31]. >> of a
 * negative value is an arithmetic shift on every compiler libnpusim
 * supports. */
static int32_t rounding_shift(int32_t x, int e) {
  int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > threshold ? 1 : 0);
}

static int8_t requant(int32_t a, int32_t m, int shift, int32_t zp) {
  int64_t q = (int64_t)rounding_shift(high_mul(a, m), -shift) + zp;
  return (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
}

void npu_vu_requant_q31_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n, int32_t multiplier,
                              int shift, int32_t zero_point) {
  const char *op = "npu_vu_requant_q31_i8";
  Site site;
  char d[80] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return;
  if (shift < -31 || shift > 0) {
    sim_fail(s, site, op, "bad operand: shift=%d (limits: -31 <= shift <= 0, a right shift)", shift);
    return;
  }
  VuArg v[2] = {{"dst", dst, n, 1, 0, 1, OP_WRITE}, {"a", a, (int64_t)n * 4, 1, 0, 4, OP_READ}};
  if (s->tracing)
    snprintf(d, sizeof d, "n=%d multiplier=%d shift=%d zp=%d", n, (int)multiplier, shift, (int)zero_point);
  if (!sim_vu_issue(s, site, op, v, 2, (uint64_t)n * 4, d)) return;
  for (int i = 0; i < n; i++) dst[i] = requant(a[i], multiplier, shift, zero_point);
}

void npu_vu_requant_q31_pc_i8_at(const char *file, int line, int8_t *dst, const int32_t *a,
                                 const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point) {
  const char *op = "npu_vu_requant_q31_pc_i8";
  Site site;
  char d[48] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return;
  int64_t len = (int64_t)n * 4;
  VuArg v[4] = {{"dst", dst, n, 1, 0, 1, OP_WRITE}, {"a", a, len, 1, 0, 4, OP_READ},
                {"multiplier", multiplier, len, 1, 0, 4, OP_READ}, {"shift", shift, len, 1, 0, 4, OP_READ}};
  if (s->tracing) snprintf(d, sizeof d, "n=%d zp=%d", n, (int)zero_point);
  if (!sim_vu_issue(s, site, op, v, 4, (uint64_t)len, d)) return;
  for (int i = 0; i < n; i++)
    if (shift[i] < -31 || shift[i] > 0) {
      sim_fail(s, site, op, "bad operand: shift[%d]=%d (limits: -31 <= shift <= 0, a right shift)", i, (int)shift[i]);
      return;
    }
  for (int i = 0; i < n; i++) dst[i] = requant(a[i], multiplier[i], (int)shift[i], zero_point);
}
