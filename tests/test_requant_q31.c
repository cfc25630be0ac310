/* TFLite's integer requantisation on the VU (npu_vu_requant_q31_i8 and
 * npu_vu_requant_q31_pc_i8): the simulator against the semantics kernels
 * over Q31 multipliers in [2^30, 2^31) and every shift in [-31, 0], values
 * worked by hand, and the plain C of TFLite's reference kernels (int64
 * arithmetic, the multiplier and shift as the kernel's parameters or
 * per-channel arrays) reaching the instruction through tensorize, checked
 * by execution. The old npu_vu_requant_i8 took multipliers up to 2^21 and
 * ran the nest on the host for a real TFLite multiplier. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "npu_intrinsics.h"
#include "test_sched_util.h"
#include "test_sim_util.h"

typedef void (*SemTensor)(int8_t *, const int32_t *, int32_t, int, int32_t);
typedef void (*SemChannel)(int8_t *, const int32_t *, const int32_t *, const int32_t *, int32_t);

enum { RQ_N = 256 };
/* multipliers per tensor, each at all 32 shifts: 7 fixed, then random ones
 * (the ASan+UBSan build's share: the fixed and 3 random, for make test's
 * CPU budget; a simulator per case is its cost there) */
#if defined(__SANITIZE_ADDRESS__)
enum { RQ_MULTIPLIERS = 10 };
#else
enum { RQ_MULTIPLIERS = 40 };
#endif

static void *rq_kernel(TccUnit **unit, const char *name) {
  const char *defs[] = {"N=256", NULL};
  char *src = simt_kernel_source(name, defs);
  *unit = simt_compile(src, name);
  free(src);
  void *fn = tcc_unit_symbol(*unit, name);
  cr_assert_not_null(fn);
  return fn;
}

/* a: the int32 extremes and their neighbours, then seeded values of every
 * magnitude. */
static void rq_values(SimtRng *r, int32_t *a) {
  const int32_t ends[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX, -3, 3, 1 << 30, -(1 << 30)};
  for (int i = 0; i < RQ_N; i++) {
    int bits = simt_range(r, 1, 31); /* a magnitude below 2^bits */
    int32_t v = (int32_t)(simt_next(r) >> (64 - bits));
    a[i] = i < (int)(sizeof ends / 4) ? ends[i] : i % 2 ? v : -v;
  }
}

/* A zero point that r + zero_point cannot overflow with: at shift 0, |r|
 * reaches 2^31 - 1 (the kernel's own int32 sum would be undefined). */
static int32_t rq_zero_point(int shift, int k) {
  const int32_t zps[] = {-128, 0, 127, -5};
  return shift == 0 ? 0 : zps[k % 4];
}

Test(requant_q31, per_tensor_simulator_matches_semantics) {
  TccUnit *u;
  SemTensor sem = (SemTensor)rq_kernel(&u, "npu_vu_requant_q31_i8");
  SimtRng r;
  simt_seed(&r, 31);
  int32_t a[RQ_N];
  int8_t want[RQ_N];
  rq_values(&r, a);
  const int32_t fixed[] = {1 << 30, (1 << 30) + 1, INT32_MAX, 1518500250, INT32_MIN, 0, -1073741824};
  for (int k = 0; k < RQ_MULTIPLIERS; k++) {
    int32_t m = k < (int)(sizeof fixed / 4) ? fixed[k] : simt_range(&r, 1 << 30, INT32_MAX);
    for (int shift = -31; shift <= 0; shift++) {
      int32_t zp = rq_zero_point(shift, k);
      sem(want, a, m, shift, zp);
      NpuSim *s = simt_new();
      int32_t *va = npu_scope_base(NPU_VU_VM, 0);
      int8_t *vd = (int8_t *)(va + RQ_N);
      memcpy(va, a, sizeof a);
      npu_vu_requant_q31_i8(vd, va, RQ_N, m, shift, zp);
      npusim_finish(s);
      cr_assert(!npusim_failed(s), "%s", npusim_error(s));
      for (int i = 0; i < RQ_N; i++)
        cr_assert_eq(vd[i], want[i], "a=%d multiplier=%d shift=%d zp=%d: simulator %d, semantics %d", a[i], m, shift,
                     zp, vd[i], want[i]);
      simt_free(s);
    }
  }
  tcc_unit_free(u);
}

Test(requant_q31, per_channel_simulator_matches_semantics) {
  TccUnit *u;
  SemChannel sem = (SemChannel)rq_kernel(&u, "npu_vu_requant_q31_pc_i8");
  SimtRng r;
  simt_seed(&r, 32);
  int32_t a[RQ_N], m[RQ_N], sh[RQ_N];
  int8_t want[RQ_N];
  for (int k = 0; k < 8; k++) {
    rq_values(&r, a);
    for (int i = 0; i < RQ_N; i++) {
      m[i] = i % 7 == 0 ? INT32_MAX : i % 7 == 1 ? 1 << 30 : simt_range(&r, 1 << 30, INT32_MAX);
      sh[i] = -((i + k) % 32);
      if (sh[i] == 0) a[i] = a[i] / 2; /* keep r + zero_point in int32 */
    }
    int32_t zp = k % 2 ? -128 : 127;
    sem(want, a, m, sh, zp);
    NpuSim *s = simt_new();
    int32_t *va = npu_scope_base(NPU_VU_VM, 0), *vm = va + RQ_N, *vs = vm + RQ_N;
    int8_t *vd = (int8_t *)(vs + RQ_N);
    memcpy(va, a, sizeof a), memcpy(vm, m, sizeof m), memcpy(vs, sh, sizeof sh);
    npu_vu_requant_q31_pc_i8(vd, va, vm, vs, RQ_N, zp);
    npusim_finish(s);
    cr_assert(!npusim_failed(s), "%s", npusim_error(s));
    for (int i = 0; i < RQ_N; i++)
      cr_assert_eq(vd[i], want[i], "a=%d multiplier=%d shift=%d: simulator %d, semantics %d", a[i], m[i], sh[i], vd[i],
                   want[i]);
    simt_free(s);
  }
  tcc_unit_free(u);
}

/* Worked by hand from gemmlowp's definitions: high = (a*m + nudge) / 2^31
 * truncated, nudge 2^30 (or 1 - 2^30 below 0); then / 2^-shift, ties away
 * from zero. */
Test(requant_q31, by_hand) {
  struct {
    int32_t a, m;
    int shift;
    int32_t zp;
    int8_t want;
  } cases[] = {
      {100, 1 << 30, -1, 0, 25},    /* 100 * 0.5 = 50, / 2 = 25 */
      {3, 1 << 30, 0, 0, 2},        /* 1.5: (3*2^30 + 2^30) / 2^31 = 2 */
      {-3, 1 << 30, 0, 0, -1},      /* -1.5: (-3*2^30 + 1 - 2^30) / 2^31 = -1.99.. truncated to -1 */
      {5, INT32_MAX, -1, 0, 3},     /* high 5 (5 * (1 - 2^-31)), 2.5 away from zero: 3 */
      {-5, INT32_MAX, -1, 0, -3},   /* high -5, -2.5 away from zero: -3 */
      {1000, 1 << 30, -2, 10, 127}, /* 500 / 4 = 125, + 10 clamps */
      {-1000, 1 << 30, -2, -10, -128},
      {INT32_MIN, INT32_MIN, -31, 0, 1}, /* the saturated high INT32_MAX, / 2^31 rounds to 1 */
      {INT32_MAX, INT32_MAX, -31, 0, 1},
      {123456789, 1518500250, -20, 3, 86}, /* high 87297133 (123456789 * 0.70710678), / 2^20 = 83.25: 83, + 3 */
  };
  NpuSim *s = simt_new();
  int32_t *va = npu_scope_base(NPU_VU_VM, 0);
  int8_t *vd = (int8_t *)(va + 16);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    va[0] = cases[k].a;
    npu_vu_requant_q31_i8(vd, va, 1, cases[k].m, cases[k].shift, cases[k].zp);
    npusim_finish(s);
    cr_assert_eq(vd[0], cases[k].want, "case %zu: a=%d m=%d shift=%d zp=%d gives %d, not %d", k, cases[k].a,
                 cases[k].m, cases[k].shift, cases[k].zp, vd[0], cases[k].want);
  }
  cr_assert(!npusim_failed(s), "%s", npusim_error(s));
  simt_free(s);
}

Test(requant_q31, shifts_outside_their_range_stop_the_op) {
  NpuSim *s = simt_new();
  int32_t *va = npu_scope_base(NPU_VU_VM, 0);
  int8_t *vd = (int8_t *)(va + 16);
  npu_vu_requant_q31_i8(vd, va, 4, 1 << 30, 1, 0);
  cr_assert(npusim_failed(s));
  cr_expect(strstr(npusim_error(s), "bad operand: shift=1 (limits: -31 <= shift <= 0, a right shift)"), "%s",
            npusim_error(s));
  simt_free(s);
}

/* The per-tensor requantisation of TFLite's reference kernels, in plain C
 * with int64 arithmetic (the locals inlined by the schedule). */
static const char *tflite_kernel =
    "#include <stdint.h>\n"
    "void k(const int32_t X[4][128], int8_t Y[4][128], int32_t multiplier, int shift, int32_t zp) {\n"
    "  for (int r = 0; r < 4; r++)\n"
    "    for (int c = 0; c < 128; c++) {\n"
    "      int64_t ab = (int64_t)X[r][c] * multiplier;\n"
    "      int32_t high = X[r][c] == (-2147483647 - 1) && multiplier == (-2147483647 - 1) ? 2147483647\n"
    "                     : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));\n"
    "      int32_t mask = (int32_t)(((int64_t)1 << -shift) - 1);\n"
    "      int32_t q = (high >> -shift) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0) + zp;\n"
    "      Y[r][c] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);\n"
    "    }\n"
    "}\n"
    "#pragma npu inputs(k, multiplier, 1073741824, 2147483647)\n"
    "#pragma npu inputs(k, shift, -31, -1)\n"
    "#pragma npu inputs(k, zp, -128, 127)\n";

static const char *tflite_schedule =
    "#pragma npu schedule(k, v)\n"
    "#pragma npu compute_inline(s1)\n"
    "#pragma npu compute_inline(s2)\n"
    "#pragma npu compute_inline(s3)\n"
    "#pragma npu compute_inline(s4)\n"
    "#pragma npu split(c, 64, co, ci)\n"
    "#pragma npu cache_read(X, vu_vm, co, X_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, co, Y_vm)\n"
    "#pragma npu tensorize(ci, npu_vu_requant_q31_i8)\n";

Test(requant_q31, tflite_c_reaches_the_instruction) {
  NpgSession *s = open_ok(tflite_kernel, tflite_schedule);
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  has(c, "npu_vu_requant_q31_i8(&Y_vm[0][0], &X_vm[0][0], /*n=*/64, multiplier, shift, zp);");
  NpgCheckResult r;
  for (uint64_t seed = 3; seed < 6; seed++) {
    cr_assert(npg_check(s, v, seed, &r), "%s", r.message);
    cr_expect(r.sim_cycles > 0, "%s", r.summary);
  }
  npg_close(s);
}

/* Per channel: a pointwise convolution's int32 outputs, channels last, each
 * channel with its own multiplier and shift (TFLite's per-axis
 * quantisation). */
static const char *per_channel_kernel =
    "#include <stdint.h>\n"
    "void k(const int32_t X[16][64], const int32_t M[64], const int32_t S[64], int8_t Y[16][64], int32_t zp) {\n"
    "  for (int p = 0; p < 16; p++)\n"
    "    for (int c = 0; c < 64; c++) {\n"
    "      int64_t ab = (int64_t)X[p][c] * M[c];\n"
    "      int32_t high = X[p][c] == (-2147483647 - 1) && M[c] == (-2147483647 - 1) ? 2147483647\n"
    "                     : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));\n"
    "      int32_t mask = (int32_t)(((int64_t)1 << -S[c]) - 1);\n"
    "      int32_t r = (high >> -S[c]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);\n"
    "      int32_t q = r + zp;\n"
    "      Y[p][c] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);\n"
    "    }\n"
    "}\n"
    "#pragma npu inputs(k, M, 1073741824, 2147483647)\n"
    "#pragma npu inputs(k, S, -31, -1)\n"
    "#pragma npu inputs(k, zp, -128, 127)\n";

Test(requant_q31, per_channel_tflite_c_reaches_the_instruction) {
  NpgSession *s = open_ok(per_channel_kernel,
                          "#pragma npu schedule(k, v)\n"
                          "#pragma npu compute_inline(s1)\n"
                          "#pragma npu compute_inline(s2)\n"
                          "#pragma npu compute_inline(s3)\n"
                          "#pragma npu compute_inline(s4)\n"
                          "#pragma npu compute_inline(s5)\n"
                          "#pragma npu cache_read(X, vu_vm, p, X_vm)\n"
                          "#pragma npu cache_read(M, vu_vm, p, M_vm)\n"
                          "#pragma npu cache_read(S, vu_vm, p, S_vm)\n"
                          "#pragma npu cache_write(Y, vu_vm, p, Y_vm)\n"
                          "#pragma npu tensorize(c, npu_vu_requant_q31_pc_i8)\n");
  int v = checked(s, "v");
  has(npg_emit_source(s, v), "npu_vu_requant_q31_pc_i8(&Y_vm[0][0], &X_vm[0][0], &M_vm[0], &S_vm[0], /*n=*/64, zp);");
  npg_close(s);
}

/* With TFLite's activation bounds (npu_vu_requant_q31_range_i8 and its
 * per-channel form): the simulator against the semantics kernels over Q31
 * multipliers, every shift, and bounds as TFLite sets them (ReLU6's [zp,
 * zp + 96], the whole int8 range, one value), crossed (act_min > act_max:
 * max then min gives act_max) and outside int8 (the conversion wraps). */
typedef void (*SemTensorRange)(int8_t *, const int32_t *, int32_t, int, int32_t, int32_t, int32_t);
typedef void (*SemChannelRange)(int8_t *, const int32_t *, const int32_t *, const int32_t *, int32_t, int32_t,
                                int32_t);

static const int32_t act_bounds[][2] = {{-5, 91}, {-128, 127}, {0, 0}, {40, -40}, {-300, 300}, {100, 200}};
enum { NBOUNDS = sizeof act_bounds / sizeof act_bounds[0] };

static void per_tensor_with_bounds(void) {
  TccUnit *u;
  SemTensorRange sem = (SemTensorRange)rq_kernel(&u, "npu_vu_requant_q31_range_i8");
  SimtRng r;
  simt_seed(&r, 33);
  int32_t a[RQ_N];
  int8_t want[RQ_N];
  rq_values(&r, a);
  const int32_t fixed[] = {1 << 30, INT32_MAX, 1518500250, INT32_MIN};
  for (int k = 0; k < 6; k++) {
    int32_t m = k < (int)(sizeof fixed / 4) ? fixed[k] : simt_range(&r, 1 << 30, INT32_MAX);
    for (int shift = -31; shift <= 0; shift++) {
      int32_t zp = rq_zero_point(shift, k), lo = act_bounds[(k - shift) % NBOUNDS][0],
              hi = act_bounds[(k - shift) % NBOUNDS][1];
      sem(want, a, m, shift, zp, lo, hi);
      NpuSim *s = simt_new();
      int32_t *va = npu_scope_base(NPU_VU_VM, 0);
      int8_t *vd = (int8_t *)(va + RQ_N);
      memcpy(va, a, sizeof a);
      npu_vu_requant_q31_range_i8(vd, va, RQ_N, m, shift, zp, lo, hi);
      npusim_finish(s);
      cr_assert(!npusim_failed(s), "%s", npusim_error(s));
      for (int i = 0; i < RQ_N; i++)
        cr_assert_eq(vd[i], want[i], "a=%d multiplier=%d shift=%d zp=%d act [%d, %d]: simulator %d, semantics %d",
                     a[i], m, shift, zp, lo, hi, vd[i], want[i]);
      simt_free(s);
    }
  }
  tcc_unit_free(u);
}

static void per_channel_with_bounds(void) {
  TccUnit *u;
  SemChannelRange sem = (SemChannelRange)rq_kernel(&u, "npu_vu_requant_q31_pc_range_i8");
  SimtRng r;
  simt_seed(&r, 34);
  int32_t a[RQ_N], m[RQ_N], sh[RQ_N];
  int8_t want[RQ_N];
  for (int k = 0; k < NBOUNDS; k++) {
    rq_values(&r, a);
    for (int i = 0; i < RQ_N; i++) {
      m[i] = i % 7 == 0 ? INT32_MAX : i % 7 == 1 ? 1 << 30 : simt_range(&r, 1 << 30, INT32_MAX);
      sh[i] = -((i + k) % 32);
      if (sh[i] == 0) a[i] = a[i] / 2; /* keep r + zero_point in int32 */
    }
    int32_t zp = k % 2 ? -128 : 127, lo = act_bounds[k][0], hi = act_bounds[k][1];
    sem(want, a, m, sh, zp, lo, hi);
    NpuSim *s = simt_new();
    int32_t *va = npu_scope_base(NPU_VU_VM, 0), *vm = va + RQ_N, *vs = vm + RQ_N;
    int8_t *vd = (int8_t *)(vs + RQ_N);
    memcpy(va, a, sizeof a), memcpy(vm, m, sizeof m), memcpy(vs, sh, sizeof sh);
    npu_vu_requant_q31_pc_range_i8(vd, va, vm, vs, RQ_N, zp, lo, hi);
    npusim_finish(s);
    cr_assert(!npusim_failed(s), "%s", npusim_error(s));
    for (int i = 0; i < RQ_N; i++)
      cr_assert_eq(vd[i], want[i], "a=%d multiplier=%d shift=%d act [%d, %d]: simulator %d, semantics %d", a[i], m[i],
                   sh[i], lo, hi, vd[i], want[i]);
    simt_free(s);
  }
  tcc_unit_free(u);
}

/* one test process for both (each is a few ms of work) */
Test(requant_q31, with_bounds_simulator_matches_semantics) {
  per_tensor_with_bounds();
  per_channel_with_bounds();
}

/* A pointwise convolution's epilogue as TFLite's reference kernels (and
 * examples/conv_pw_tflite.c) write it, per channel: the requantisation
 * into the accumulator, the output offset, then the activation clamp to
 * the scalar parameters act_min and act_max, each a reassignment (folded
 * into the store, the locals inlined), is one npu_vu_requant_q31_pc_range_i8
 * per row, chosen by vectorize and bit-exact with the kernel as written.
 * (A clamp to the constants [-128, 127] stays the op without bounds:
 * examples/emitted/conv_pw_tflite, which make examples-fresh keeps, calls
 * npu_vu_requant_q31_pc_i8 from the same vectorize.)
 * Before: no VU instruction computed the clamp to parameters ("nearest
 * npu_vu_max_i8: the expressions differ: 'act_max'"), so the whole
 * epilogue ran on the CU. */
static const char *act_kernel(const char *lo, const char *hi) {
  static char src[2048];
  snprintf(src, sizeof src,
           "#include <stdint.h>\n"
           "void k(const int32_t X[4][64], const int32_t M[64], const int32_t S[64], int8_t Y[4][64], int32_t zp,\n"
           "       int32_t act_min, int32_t act_max) {\n"
           "  for (int p = 0; p < 4; p++)\n"
           "    for (int c = 0; c < 64; c++) {\n"
           "      int32_t acc = X[p][c];\n"
           "      int64_t ab = (int64_t)acc * M[c];\n"
           "      int32_t high = acc == (-2147483647 - 1) && M[c] == (-2147483647 - 1) ? 2147483647\n"
           "                     : (int32_t)((ab + (ab >= 0 ? (1 << 30) : 1 - (1 << 30))) / ((int64_t)1 << 31));\n"
           "      int32_t mask = (int32_t)(((int64_t)1 << -S[c]) - 1);\n"
           "      acc = (high >> -S[c]) + ((high & mask) > (mask >> 1) + (high < 0 ? 1 : 0) ? 1 : 0);\n"
           "      acc += zp;\n"
           "      acc = acc > %s ? acc : %s;\n"
           "      acc = acc < %s ? acc : %s;\n"
           "      Y[p][c] = (int8_t)acc;\n"
           "    }\n"
           "}\n"
           "#pragma npu inputs(k, M, 1073741824, 2147483647)\n"
           "#pragma npu inputs(k, S, -12, -1)\n"
           "#pragma npu inputs(k, zp, -16, 16)\n"
           "#pragma npu inputs(k, act_min, -16, 16)\n"
           "#pragma npu inputs(k, act_max, 40, 111)\n"
           "#pragma npu schedule(k, v)\n"
           "#pragma npu compute_inline(s2)\n"
           "#pragma npu compute_inline(s3)\n"
           "#pragma npu compute_inline(s4)\n"
           "#pragma npu fold(s5)\n"
           "#pragma npu compute_inline(s1)\n"
           "#pragma npu cache_read(X, vu_vm, p, X_vm)\n"
           "#pragma npu cache_read(M, vu_vm, p, M_vm)\n"
           "#pragma npu cache_read(S, vu_vm, p, S_vm)\n"
           "#pragma npu cache_write(Y, vu_vm, p, Y_vm)\n"
           "#pragma npu vectorize(c)\n",
           lo, lo, hi, hi);
  return src;
}

Test(requant_q31, tflite_requantisation_and_activation_clamp_are_one_op) {
  NpgSession *s = open_ok(act_kernel("act_min", "act_max"), "");
  const char *c = npg_emit_source(s, checked_once(s, "v"));
  has(c, "npu_vu_requant_q31_pc_range_i8(&Y_vm[0][0], &X_vm[0][0], &M_vm[0], &S_vm[0], /*n=*/64, zp, act_min, "
         "act_max);");
  lacks(c, "stays a hint");
  npg_close(s);
}

/* The same as gemmlowp and <stdint.h> spell it: INT32_MIN and INT32_MAX,
 * `1ll << 31` and `1ll << -S[c]` (long long where the semantics computes
 * in int64_t, of one width on LP64): one op (trial 40, D1 and D2: "the
 * expressions differ: '(-2147483647 - 1)'", "the types differ: '... /
 * (1ll << 31)'", and the epilogue stayed on the CU). */
Test(requant_q31, gemmlowps_spelling_is_the_same_op) {
  char src[2048];
  snprintf(src, sizeof src, "%s", act_kernel("act_min", "act_max"));
  const char *from[] = {"acc == (-2147483647 - 1) && M[c] == (-2147483647 - 1) ? 2147483647",
                        "((int64_t)1 << 31)", "((int64_t)1 << -S[c])"};
  const char *to[] = {"acc == INT32_MIN && M[c] == INT32_MIN ? INT32_MAX", "(1ll << 31)", "(1ll << -S[c])"};
  for (int i = 0; i < 3; i++) {
    char *at = strstr(src, from[i]);
    cr_assert(at, "%s", from[i]);
    char rest[2048];
    snprintf(rest, sizeof rest, "%s", at + strlen(from[i]));
    snprintf(at, sizeof src - (size_t)(at - src), "%s%s", to[i], rest);
  }
  NpgSession *s = open_ok(src, "");
  lacks(npg_errors(s), "stays a hint");
  has(npg_emit_source(s, checked_once(s, "v")), "npu_vu_requant_q31_pc_range_i8(&Y_vm[0][0], &X_vm[0][0], &M_vm[0], "
                                                 "&S_vm[0], /*n=*/64, zp, act_min, act_max);");
  npg_close(s);
}
