/* The VU's masks beyond a byte array: index masks and a select on a
 * suffix of the loop (the compares and selects are rows of
 * npu_vu_families.def: sim/vu_family.c).
 *
 * An index mask keeps lane i where (s + i) % m == r: s is the first lane's
 * index in the loop the instruction stands for (a tile's start), so the
 * mask is the user's `i % m == r` across tiles; the VU builds it from the
 * lane counter, nothing is loaded for it. Its operands other than a full
 * destination are read and written on kept lanes alone (a predicated
 * access), so their boxes are the kept lanes' hull: a cache of only the
 * elements the loop touches holds them. The modulus is checked: m in [1,
 * 65536] (the DSL's domain). The index is computed in 64 bits with C's %
 * (a negative s + i has a remainder <= 0), exact for every int s.
 *
 * Cycles: overhead + ceil(bytes of the widest operand / vector_bytes) over
 * all n lanes, like every element-wise op (a byte mask is a quarter of an
 * fp32 operand's bytes). */
#include "sim/internal.h"

static bool lane_kept(int s, int i, int m, int r) { return ((int64_t)s + i) % m == r; }

/* The first kept lane and one past the last ([0, 0) when none): at most m
 * lanes scanned from each end, since kept lanes of one sign of s + i are m
 * apart and a sign change keeps nothing on one side (r != 0) or stays m
 * apart (r == 0). */
static void kept_hull(int s, int n, int m, int r, int *lo, int *hi) {
  int a = 0, b = n;
  while (a < n && a < m + (s < 0 ? -(int64_t)s : 0) && !lane_kept(s, a, m, r)) a++;
  if (a >= n || !lane_kept(s, a, m, r)) {
    *lo = *hi = 0;
    return;
  }
  while (b - 1 > a && !lane_kept(s, b - 1, m, r)) b--;
  *lo = a, *hi = b;
}

/* Entered, the modulus checked, the hull found, operands issued (those
 * flagged `kept` over the hull alone); false when the op must not compute
 * (the simulator stopped it or none is bound). */
static bool lane_issue(const char *file, int line, const char *op, int n, int s, int m, int r, VuArg *v,
                       const bool *kept, int nv) {
  Site site;
  NpuSim *sim = sim_vu_enter(file, line, op, n, &site);
  if (!sim) return false;
  if (m < 1 || m > 65536) {
    sim_fail(sim, site, op, "bad lane modulus m=%d (1 <= m <= 65536)", m);
    return false;
  }
  int lo, hi;
  kept_hull(s, n, m, r, &lo, &hi);
  for (int i = 0; i < nv; i++)
    if (kept[i]) {
      v[i].p = (const char *)v[i].p + (int64_t)lo * v[i].esz;
      v[i].len = (int64_t)(hi - lo) * v[i].esz;
    }
  int widest = 1; /* the work follows the widest operand (npu_intrinsics.h): 1 byte a lane for a byte mask */
  for (int i = 0; i < nv; i++) widest = v[i].esz > widest ? v[i].esz : widest;
  char d[48] = "";
  if (sim->tracing) snprintf(d, sizeof d, "n=%d m=%d kept=[%d,%d)", n, m, lo, hi);
  return sim_vu_issue(sim, site, op, v, nv, (uint64_t)n * (uint64_t)widest, d);
}

void npu_vu_lane_mask_u8_at(const char *file, int line, uint8_t *dst, int n, int s, int m, int r) {
  VuArg v[1] = {{"dst", dst, (int64_t)n, 1, 0, 1, OP_WRITE}};
  const bool kept[1] = {false};
  if (!lane_issue(file, line, "npu_vu_lane_mask_u8", n, s, m, r, v, kept, 1)) return;
  for (int i = 0; i < n; i++) dst[i] = lane_kept(s, i, m, r);
}

void npu_vu_store_lane_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r) {
  int64_t len = (int64_t)n * 4;
  VuArg v[2] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"a", a, len, 1, 0, 4, OP_READ}};
  const bool kept[2] = {true, true};
  if (!lane_issue(file, line, "npu_vu_store_lane_f32", n, s, m, r, v, kept, 2)) return;
  for (int i = 0; i < n; i++)
    if (lane_kept(s, i, m, r)) dst[i] = a[i];
}

void npu_vu_select_lanes_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r,
                                float e) {
  int64_t len = (int64_t)n * 4;
  VuArg v[2] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"a", a, len, 1, 0, 4, OP_READ}};
  const bool kept[2] = {false, true};
  if (!lane_issue(file, line, "npu_vu_select_lanes_f32", n, s, m, r, v, kept, 2)) return;
  for (int i = 0; i < n; i++) dst[i] = lane_kept(s, i, m, r) ? a[i] : e;
}

void npu_vu_muls_lane_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int m, int r,
                             float c) {
  int64_t len = (int64_t)n * 4;
  VuArg v[2] = {{"dst", dst, len, 1, 0, 4, OP_WRITE}, {"a", a, len, 1, 0, 4, OP_READ}};
  const bool kept[2] = {true, true};
  if (!lane_issue(file, line, "npu_vu_muls_lane_f32", n, s, m, r, v, kept, 2)) return;
  for (int i = 0; i < n; i++)
    if (lane_kept(s, i, m, r)) dst[i] = a[i] * c;
}

/* A ?: on a suffix of the loop: lanes from lo - s take a (read there
 * alone), the others e. */
void npu_vu_select_from_f32_at(const char *file, int line, float *dst, const float *a, int n, int s, int lo, float e) {
  int64_t first = (int64_t)lo - s;
  int k = first < 0 ? 0 : first > n ? n : (int)first;
  VuArg v[2] = {{"dst", dst, (int64_t)n * 4, 1, 0, 4, OP_WRITE}, {"a", a + k, (int64_t)(n - k) * 4, 1, 0, 4, OP_READ}};
  if (!sim_vu_n_issue(file, line, "npu_vu_select_from_f32", n, v, 2, (uint64_t)n * 4)) return;
  for (int i = 0; i < n; i++) dst[i] = i >= k ? a[i] : e;
}
