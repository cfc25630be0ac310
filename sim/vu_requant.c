/* TFLite's integer requantisation on the VU (npu_vu_requant_q31_i8 and its
 * per-channel form, and both with the activation bounds: _range_):
 * gemmlowp's SaturatingRoundingDoublingHighMul by a Q31 multiplier,
 * RoundingDivideByPOT, the zero point and the clamp (to int8's range, or
 * to [act_min, act_max] as max then min), in exact integer arithmetic (int64 where C's int32 would overflow: the
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

/* The requantised value clamped as TFLite does, std::max(q, lo) then
 * std::min(., hi), and converted to int8 (wrapping, as the semantics'
 * cast does, where the bounds lie outside int8's range). */
static int8_t requant(int32_t a, int32_t m, int shift, int32_t zp, int32_t lo, int32_t hi) {
  int64_t q = (int64_t)rounding_shift(high_mul(a, m), -shift) + zp;
  q = q > lo ? q : lo;
  return (int8_t)(q < hi ? q : hi);
}

/* The clamp's bounds: int8's own, or the op's act_min and act_max. */
typedef struct {
  bool act; /* a _range_ op: the bounds are its operands (traced) */
  int32_t lo, hi;
} Bounds;

static const Bounds int8_range = {false, -128, 127};

static void per_tensor(const char *file, int line, const char *op, int8_t *dst, const int32_t *a, int n,
                       int32_t multiplier, int shift, int32_t zero_point, Bounds b) {
  Site site;
  char d[112] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return;
  if (shift < -31 || shift > 0) {
    sim_fail(s, site, op, "bad operand: shift=%d (limits: -31 <= shift <= 0, a right shift)", shift);
    return;
  }
  VuArg v[2] = {{"dst", dst, n, 1, 0, 1, OP_WRITE}, {"a", a, (int64_t)n * 4, 1, 0, 4, OP_READ}};
  if (s->tracing) {
    int k = snprintf(d, sizeof d, "n=%d multiplier=%d shift=%d zp=%d", n, (int)multiplier, shift, (int)zero_point);
    if (b.act) snprintf(d + k, sizeof d - (size_t)k, " act=[%d, %d]", (int)b.lo, (int)b.hi);
  }
  if (!sim_vu_issue(s, site, op, v, 2, (uint64_t)n * 4, d)) return;
  for (int i = 0; i < n; i++) dst[i] = requant(a[i], multiplier, shift, zero_point, b.lo, b.hi);
}

static void per_channel(const char *file, int line, const char *op, int8_t *dst, const int32_t *a,
                        const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point, Bounds b) {
  Site site;
  char d[80] = "";
  NpuSim *s = sim_vu_enter(file, line, op, n, &site);
  if (!s) return;
  int64_t len = (int64_t)n * 4;
  VuArg v[4] = {{"dst", dst, n, 1, 0, 1, OP_WRITE}, {"a", a, len, 1, 0, 4, OP_READ},
                {"multiplier", multiplier, len, 1, 0, 4, OP_READ}, {"shift", shift, len, 1, 0, 4, OP_READ}};
  if (s->tracing) {
    int k = snprintf(d, sizeof d, "n=%d zp=%d", n, (int)zero_point);
    if (b.act) snprintf(d + k, sizeof d - (size_t)k, " act=[%d, %d]", (int)b.lo, (int)b.hi);
  }
  if (!sim_vu_issue(s, site, op, v, 4, (uint64_t)len, d)) return;
  for (int i = 0; i < n; i++)
    if (shift[i] < -31 || shift[i] > 0) {
      sim_fail(s, site, op, "bad operand: shift[%d]=%d (limits: -31 <= shift <= 0, a right shift)", i, (int)shift[i]);
      return;
    }
  for (int i = 0; i < n; i++) dst[i] = requant(a[i], multiplier[i], (int)shift[i], zero_point, b.lo, b.hi);
}

void npu_vu_requant_q31_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n, int32_t multiplier,
                              int shift, int32_t zero_point) {
  per_tensor(file, line, "npu_vu_requant_q31_i8", dst, a, n, multiplier, shift, zero_point, int8_range);
}

void npu_vu_requant_q31_pc_i8_at(const char *file, int line, int8_t *dst, const int32_t *a,
                                 const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point) {
  per_channel(file, line, "npu_vu_requant_q31_pc_i8", dst, a, multiplier, shift, n, zero_point, int8_range);
}

void npu_vu_requant_q31_range_i8_at(const char *file, int line, int8_t *dst, const int32_t *a, int n,
                                    int32_t multiplier, int shift, int32_t zero_point, int32_t act_min,
                                    int32_t act_max) {
  per_tensor(file, line, "npu_vu_requant_q31_range_i8", dst, a, n, multiplier, shift, zero_point,
             (Bounds){true, act_min, act_max});
}

void npu_vu_requant_q31_pc_range_i8_at(const char *file, int line, int8_t *dst, const int32_t *a,
                                       const int32_t *multiplier, const int32_t *shift, int n, int32_t zero_point,
                                       int32_t act_min, int32_t act_max) {
  per_channel(file, line, "npu_vu_requant_q31_pc_range_i8", dst, a, multiplier, shift, n, zero_point,
              (Bounds){true, act_min, act_max});
}
