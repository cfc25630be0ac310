/* Scalar operands of an intrinsic have domains ("domain:" in its semantics
 * file; npu_vu_requant_i8's multiplier within 2^21, shift 0..47, an int8
 * zero point). A constant outside is not matched; one that is a kernel's
 * parameter is tested where the call is, and the nest as written runs when
 * it lies outside, so a TFLite-style multiplier of 2^30 computes what the
 * kernel says instead of failing in the simulator. */
#include <criterion/criterion.h>
#include <string.h>

#include "npugen.h"
#include "sim/npusim.h"
#include "test_sched_util.h"

static const char *requant_kernel =
    "#include <stdint.h>\n#include <math.h>\n"
    "void k(const int32_t X[4][128], int8_t Y[4][128], int m, int sh, int zp) {\n"
    "  for (int r = 0; r < 4; r++)\n"
    "    for (int c = 0; c < 128; c++) {\n"
    "      double q = floor(ldexp((double)X[r][c] * (double)m, -sh) + 0.5) + zp;\n"
    "      Y[r][c] = (int8_t)(q > 127.0 ? 127.0 : q < -128.0 ? -128.0 : q);\n"
    "    }\n"
    "}\n";

static const char *requant_schedule =
    "#pragma npu schedule(k, v)\n"
    "#pragma npu compute_inline(s1)\n"
    "#pragma npu split(c, 64, co, ci)\n"
    "#pragma npu cache_read(X, dm, r, X_dm)\n"
    "#pragma npu cache_read(X_dm, vu_vm, co, X_vm)\n"
    "#pragma npu cache_write(Y, vu_vm, co, Y_vm)\n"
    "#pragma npu tensorize(ci, npu_vu_requant_i8)\n";

/* Runs reference and variant on the same X with scalars (m, sh, zp); the
 * variant in a simulator, which must not fail. */
static void same_result(NpgSession *s, int v, int m, int sh, int zp) {
  static int32_t X[4][128];
  int8_t want[4][128], got[4][128];
  for (int i = 0; i < 4 * 128; i++) X[i / 128][i % 128] = (i * 7919) % 4001 - 2000;
  void *ref_args[] = {X, want, &m, &sh, &zp}, *var_args[] = {X, got, &m, &sh, &zp};
  NpgJit *ref = npg_jit_reference(s, v), *var = npg_jit_variant(s, v);
  cr_assert_null(npg_jit_error(ref), "%s", npg_jit_error(ref));
  cr_assert_null(npg_jit_error(var), "%s", npg_jit_error(var));
  cr_assert(npg_jit_run(ref, ref_args));
  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *sim = npusim_new(&t);
  npusim_bind(sim);
  cr_assert(npg_jit_run(var, var_args));
  npusim_finish(sim);
  npusim_unbind();
  cr_assert(!npusim_failed(sim), "m=%d: %s", m, npusim_error(sim));
  cr_assert_eq(memcmp(want, got, sizeof want), 0, "m=%d sh=%d zp=%d: the variant differs", m, sh, zp);
  npusim_free(sim);
  npg_jit_free(ref);
  npg_jit_free(var);
}

Test(operand_domains, a_parameter_is_tested_where_the_call_is) {
  NpgSession *s = open_ok(requant_kernel, requant_schedule);
  int v = checked(s, "v");
  const char *c = npg_emit_source(s, v);
  cr_expect(strstr(c, "if (m >= -2097152 && m <= 2097152 && sh >= 0 && sh <= 47 && zp >= -128 && zp <= 127) {\n"
                      "        npu_vu_requant_i8(&Y_vm[0][0], &X_vm[0][0], /*n=*/64, m, sh, zp);\n"
                      "      } else { /* outside the operands npu_vu_requant_i8 is defined for: the nest as written */"),
            "%s", c);
  same_result(s, v, 1 << 20, 24, -3);      /* the intrinsic */
  same_result(s, v, 1 << 30, 40, 5);       /* a TFLite multiplier: the nest as written */
  same_result(s, v, -(1 << 30) - 7, 38, 0);
  same_result(s, v, 1 << 19, 50, 0);       /* a shift past 47 */
  same_result(s, v, 1 << 19, 20, 300);     /* a zero point past int8 */
  npg_close(s);
}

Test(operand_domains, a_constant_outside_is_not_matched) {
  /* the multiplier a constant 2^22, the rest as before */
  const char *kernel =
      "#include <stdint.h>\n#include <math.h>\n"
      "void k(const int32_t X[4][128], int8_t Y[4][128], int sh, int zp) {\n"
      "  for (int r = 0; r < 4; r++)\n"
      "    for (int c = 0; c < 128; c++) {\n"
      "      double q = floor(ldexp((double)X[r][c] * (double)4194304, -sh) + 0.5) + zp;\n"
      "      Y[r][c] = (int8_t)(q > 127.0 ? 127.0 : q < -128.0 ? -128.0 : q);\n"
      "    }\n"
      "}\n";
  refused(kernel, requant_schedule,
          "k.c:16:27: error: tensorize: the nest under ci does not match npu_vu_requant_i8: its operand multiplier "
          "would be 4194304, outside [-2097152, 2097152], where npu_vu_requant_i8 is defined");
}

/* The check's last run of a variant that calls intrinsics puts its integer
 * scalars at their types' maximum, where a scalar operand may leave its
 * intrinsic's domain: the requantize variant passes it through the nest as
 * written (without the guard the simulator would stop it: bad operand). */
Test(operand_domains, the_check_runs_scalars_at_their_maxima) {
  NpgSession *s = open_ok(requant_kernel, requant_schedule);
  int v = checked(s, "v");
  NpgCheckResult r;
  cr_assert(npg_check(s, v, 1, &r), "%s", r.message);
  cr_expect(!strstr(r.summary, "not compared"), "%s", r.summary);
  npg_close(s);
}
