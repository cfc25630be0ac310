/* npg_simulate: a variant's run in the simulator alone, for a cost (npugen
 * tune): the emitted C compiled and run on seeded inputs, without the
 * reference and without comparing; the outputs are not looked at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "jit/check.h"
#include "jit/session.h"
#include "npugen.h"

bool npg_simulate(NpgSession *s, int i, uint64_t seed, NpgSimResult *out) {
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= npg_variant_count(s)) {
    snprintf(out->message, sizeof out->message, "no variant %d", i);
    return false;
  }
  CheckResult r;
  memset(&r, 0, sizeof r);
  CheckOptions o = {.seed = seed, .target = &s->target, .max_steps = s->max_steps, .max_bytes = s->max_bytes};
  const Variant *v = &s->v[i];
  if (!check_within_limits(v->kernel, v->ir, &o, &r)) {
    memcpy(out->message, r.message, sizeof out->message);
    return false;
  }
  /* with the check's hooks, so host code's accesses count as they do in
   * the check's figure */
  EmitUnit u = session_unit(s, i);
  u.cu_hooks = true;
  u.tcc = true;
  char *text = emit_c_source(&u);
  char err[4096];
  TccUnit *var = text ? check_compile_variant(v->ir, text, v->name, err, sizeof err) : NULL;
  free(text);
  if (!var) {
    snprintf(out->message, sizeof out->message, "internal error: emitted C does not compile: %.800s", err);
    return false;
  }
  check_variant_simulate(v->kernel, v->ir, s->m->check_specs, var, v->name, &o, &r);
  tcc_unit_free(var);
  check_summary(v->ir, &r);
  out->ran = r.pass;
  memcpy(out->message, r.message, sizeof out->message);
  memcpy(out->summary, r.summary, sizeof out->summary);
  out->sim_cycles = r.sim_cycles;
  out->ideal_cycles = r.roofline > 0 ? (uint64_t)((double)r.sim_cycles * r.roofline + 0.5) : 0;
  out->roofline = r.roofline;
  memcpy(out->bound, r.bound, sizeof out->bound);
  out->bound_utilization = r.bound_utilization;
  out->nu_utilization = r.nu_utilization;
  out->dma_bytes = r.dma_bytes;
  out->onchip_peak = r.onchip_peak;
  out->macs = r.sim_macs;
  return r.pass;
}
