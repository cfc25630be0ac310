/* npg_simulate: a variant's run in the simulator alone, for a cost (npugen
 * tune): the emitted C compiled and run on seeded inputs, without the
 * reference and without comparing; the outputs are not looked at. A
 * variant that calls no intrinsic (the kernel as written) is timed too:
 * its every array access goes through the CU's hook, so its figure is
 * the CU's cycles, where the check has none for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/c_text.h"
#include "ir/sizes.h"
#include "jit/check.h"
#include "jit/session.h"
#include "npugen.h"

/* A variant that calls no intrinsic runs on the CU alone, its every
 * array access through the hook (about 70 ns each): it is simulated up to
 * this many steps (about a million accesses, a tenth of a second), never
 * for the seconds the check's budget allows. */
enum { CU_ONLY_STEPS = 1 << 25 };

static bool npu_stmt(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *npu = ctx;
  if (stmt_uses_npu(s)) *npu = true;
  return !*npu;
}

/* The check weighs host code's accesses only in a variant that calls an
 * intrinsic (check_variant_within_limits); here every variant's go
 * through the hook, so in one without an intrinsic each weighs
 * CHECK_CU_ACCESS_STEPS too, within CU_ONLY_STEPS. False with r->message
 * past it. */
static bool hooked_within_limits(const Kernel *ir, const CheckOptions *o, CheckResult *r) {
  bool npu = false;
  ir_walk_stmts(ir->body, npu_stmt, &npu);
  if (npu) return true; /* weighed so by the check's count */
  uint64_t max_steps = o->max_steps ? o->max_steps : CHECK_DEFAULT_MAX_STEPS;
  if (max_steps > CU_ONLY_STEPS) max_steps = CU_ONLY_STEPS;
  uint64_t steps = ir_count_steps_weighted(ir, CHECK_CU_ACCESS_STEPS);
  if (steps <= max_steps) return true;
  snprintf(r->message, sizeof r->message,
           "not simulated: no intrinsic, so the CU runs it all, each array access a simulator call: up to %.3g "
           "steps (an access as %d), past the %llu a variant on the CU alone is simulated for",
           (double)steps, CHECK_CU_ACCESS_STEPS, (unsigned long long)max_steps);
  return false;
}

bool npg_simulate(NpgSession *s, int i, uint64_t seed, NpgSimResult *out) {
  if (!out) return session_null(s, "npg_simulate", "the result");
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= npg_variant_count(s)) {
    snprintf(out->message, sizeof out->message, s ? "no variant %d" : "the session is NULL", i);
    return false;
  }
  CheckResult r;
  memset(&r, 0, sizeof r);
  CheckOptions o = {.seed = seed, .target = &s->target, .max_steps = s->max_steps, .max_bytes = s->max_bytes,
                    .max_cpu_seconds = s->max_cpu_seconds};
  const Variant *v = &s->v[i];
  /* a kernel with sizes runs at its first size set (npugen tune --size
   * makes it the only one): the kernel and the variant with the values put
   * in for the sizes allocate and limit the run, which passes the sizes as
   * its scalar arguments (as jit/check_sizes.c) */
  Arena a;
  arena_init(&a, 0);
  const Kernel *k = v->kernel, *ir = v->ir;
  const CheckSpec *specs = s->m->check_specs;
  CheckSpec fixed[IR_MAX_SIZES];
  if (k->nsizes) {
    SizeSet set;
    char why[300] = "no sizes satisfy the kernel's assumptions";
    k = ir_size_sets(v->kernel, &set, 1) ? ir_instantiate(&a, v->kernel, &set, why, sizeof why) : NULL;
    ir = k ? ir_instantiate(&a, v->ir, &set, why, sizeof why) : NULL;
    if (!ir) {
      snprintf(out->message, sizeof out->message, "%s", why);
      arena_free(&a);
      return false;
    }
    specs = check_size_specs(v->kernel, &set, specs, fixed);
  }
  /* the variant's own work: the kernel as written does not run */
  if (!check_variant_within_limits(k, ir, &o, &r) || !hooked_within_limits(ir, &o, &r)) {
    memcpy(out->message, r.message, sizeof out->message);
    arena_free(&a);
    return false;
  }
  /* with the check's hooks, so host code's accesses count as they do in
   * the check's figure; in a variant without an intrinsic too */
  LowerUnit u = session_unit(s, i);
  u.cu_hooks = true;
  u.cu_hooks_host = true;
  u.tcc = true;
  char *text = jit_c_source(&u);
  char err[4096];
  TccUnit *var = text ? check_compile_variant(v->ir, text, v->name, err, sizeof err) : NULL;
  free(text);
  if (!var) {
    snprintf(out->message, sizeof out->message, "internal error: emitted C does not compile: %.800s", err);
    arena_free(&a);
    return false;
  }
  check_variant_simulate(k, ir, specs, var, v->name, &o, &r);
  tcc_unit_free(var);
  check_summary(ir, &r);
  arena_free(&a);
  out->ran = r.pass;
  memcpy(out->message, r.message, sizeof out->message);
  memcpy(out->summary, r.summary, sizeof out->summary);
  out->sim_cycles = r.sim_cycles;
  out->ideal_cycles = r.ideal_cycles;
  out->roofline = r.roofline;
  memcpy(out->bound, r.bound, sizeof out->bound);
  out->bound_utilization = r.bound_utilization;
  out->nu_utilization = r.nu_utilization;
  out->dma_bytes = r.dma_bytes;
  out->ddr_bytes = r.ddr_bytes;
  out->onchip_peak = r.onchip_peak;
  out->macs = r.sim_macs;
  return r.pass;
}
