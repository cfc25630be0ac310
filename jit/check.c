#include "jit/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/guard.h"
#include "jit/kernel_bound.h"

char *check_thunk_text(const Kernel *k, const char *fn, const char *thunk) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "\nvoid %s(void **npg_args) {\n  %s(", thunk, fn);
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++) {
    if (i) sb_puts(&sb, ", ");
    if (p->buf)
      sb_printf(&sb, "npg_args[%d]", i);
    else
      sb_printf(&sb, "*(%s *)npg_args[%d]", p->var->type->name, i);
  }
  sb_puts(&sb, ");\n}\n");
  return sb_take(&sb);
}

TccUnit *check_compile_reference(const Module *m, char *err, size_t err_size) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, m->src);
  sb_puts(&sb, "\n#include <stdint.h>\n");
  for (const Kernel *k = m->kernels; k; k = k->next) {
    char thunk[300];
    snprintf(thunk, sizeof thunk, "npg_ref_%s", k->name);
    char *t = check_thunk_text(k, k->name, thunk);
    sb_puts(&sb, t);
    free(t);
  }
  TccUnit *u = tcc_unit_compile(sb.data, m->file, err, err_size);
  sb_free(&sb);
  return u;
}

TccUnit *check_compile_variant(const Kernel *k, const char *variant_src, const char *fn,
                               char *err, size_t err_size) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, variant_src);
  sb_puts(&sb, "\n#include <stdint.h>\n");
  char thunk[300];
  snprintf(thunk, sizeof thunk, "npg_call_%s", fn);
  char *t = check_thunk_text(k, fn, thunk);
  sb_puts(&sb, t);
  free(t);
  /* npg_pack_BUF / npg_unpack_BUF: the emitted layout helpers, by thunk */
  for (const Param *p = k->params; p; p = p->next)
    if (p->buf && p->buf->layout)
      for (int pack = 0; pack < 2; pack++)
        sb_printf(&sb, "void npg_%s_%s(void **a) { %s_%s_%s(a[0], a[1]); }\n", pack ? "pack" : "unpack", p->buf->name, fn,
                  pack ? "pack" : "unpack", p->buf->name);
  char name[300];
  snprintf(name, sizeof name, "%s.c", fn);
  TccUnit *u = tcc_unit_compile(sb.data, name, err, err_size);
  sb_free(&sb);
  return u;
}

static double load(const void *p, const Type *t, int64_t *iv) {
  switch (t->kind) {
  case TY_CHAR: case TY_SCHAR: *iv = *(const int8_t *)p; break;
  case TY_UCHAR: *iv = *(const uint8_t *)p; break;
  case TY_SHORT: *iv = *(const int16_t *)p; break;
  case TY_USHORT: *iv = *(const uint16_t *)p; break;
  case TY_INT: *iv = *(const int32_t *)p; break;
  case TY_UINT: *iv = *(const uint32_t *)p; break;
  case TY_LONG: case TY_LLONG: *iv = *(const int64_t *)p; break;
  case TY_ULONG: case TY_ULLONG: *iv = (int64_t) * (const uint64_t *)p; break;
  case TY_FLOAT: return *(const float *)p;
  case TY_DOUBLE: return *(const double *)p;
  case TY_VOID: break;
  }
  return (double)*iv;
}

/* ---------------- run and compare ---------------- */

static void index_text(char *out, size_t n, const Buffer *b, int64_t flat) {
  int64_t idx[IR_MAX_DIMS];
  for (int d = b->ndim - 1; d >= 0; d--) {
    idx[d] = flat % b->shape[d];
    flat /= b->shape[d];
  }
  size_t len = 0;
  for (int d = 0; d < b->ndim && len < n; d++)
    len += (size_t)snprintf(out + len, n - len, "[%lld]", (long long)idx[d]);
}

static bool compare(const Buffer *b, const unsigned char *ref, const unsigned char *got,
                    CheckResult *r) {
  const Type *t = b->elem;
  int64_t n = buffer_elems(b);
  bool is_f = type_is_float(t);
  double rtol = t->kind == TY_FLOAT ? CHECK_RTOL_FLOAT : CHECK_RTOL_DOUBLE;
  double atol = t->kind == TY_FLOAT ? CHECK_ATOL_FLOAT : CHECK_ATOL_DOUBLE;
  for (int64_t i = 0; i < n; i++) {
    int64_t ri = 0, gi = 0;
    double rv = load(ref + i * t->size, t, &ri), gv = load(got + i * t->size, t, &gi);
    r->compared++;
    bool ok;
    double err;
    if (is_f) {
      r->nonfinite += !isfinite(rv);
      if (isnan(rv) || isnan(gv)) {
        ok = isnan(rv) && isnan(gv);
        err = ok ? 0 : INFINITY;
      } else if (isinf(rv) || isinf(gv)) {
        ok = rv == gv;
        err = ok ? 0 : INFINITY;
      } else {
        err = fabs(rv - gv);
        double mag = fabs(rv) > fabs(gv) ? fabs(rv) : fabs(gv);
        ok = err <= atol + rtol * mag;
      }
      if (memcmp(ref + i * t->size, got + i * t->size, (size_t)t->size)) r->exact = false;
    } else {
      ok = ri == gi;
      err = fabs((double)ri - (double)gi);
      if (!ok) r->exact = false;
    }
    if (err > r->max_error) r->max_error = err;
    if (!ok && r->pass) {
      char ix[128];
      index_text(ix, sizeof ix, b, i);
      if (is_f)
        snprintf(r->message, sizeof r->message, "%s%s: expected %.9g, got %.9g", b->name, ix, rv, gv);
      else
        snprintf(r->message, sizeof r->message, "%s%s: expected %lld, got %lld", b->name, ix,
                 (long long)ri, (long long)gi);
      r->pass = false;
    }
  }
  return r->pass;
}

/* Runs the variant bound to a fresh simulator; false with r->message when the
 * simulator stopped it (a hazard, an operand out of its scope, ...). */
static bool run_simulated(const Kernel *k, const Kernel *ir, ThunkFn var_fn, void **args, const CheckOptions *o,
                          uint64_t max_steps, CheckResult *r) {
  const NpuTarget *target = o->target;
  const char *trace_path = o->trace_path;
  NpuTarget def;
  if (!target) {
    npusim_target_default(&def);
    target = &def;
  }
  NpuSim *sim = npusim_new(target);
  if (!sim) {
    snprintf(r->message, sizeof r->message, "the simulator rejects the target");
    return false;
  }
  if (trace_path) npusim_set_trace(sim, true);
  npusim_set_step_budget(sim, max_steps);
  int i = 0;
  for (const Param *p = ir->params; p; p = p->next, i++)
    if (p->buf)
      npusim_add_ddr(sim, args[i], (size_t)buffer_elems(p->buf) * (size_t)p->buf->elem->size,
                     p->buf->name);
  char err[256];
  npusim_bind(sim);
  bool ran = guarded_call_limited(var_fn, args, CHECK_CPU_SECONDS(o), err, sizeof err);
  if (ran) npusim_finish(sim);
  npusim_unbind();
  bool ok = ran && !npusim_failed(sim);
  /* after a simulator error the intrinsics return NULL, so control code
   * may crash on it: the error is the cause worth showing */
  if (!ran && npusim_failed(sim))
    snprintf(r->message, sizeof r->message, "simulator: %.700s (then the code crashed: %.100s)", npusim_error(sim), err);
  else if (!ran)
    snprintf(r->message, sizeof r->message, "emitted '%s': %s", k->name, err);
  else if (!ok)
    snprintf(r->message, sizeof r->message, "simulator: %.900s", npusim_error(sim));
  NpuSimReport rep;
  npusim_report(sim, &rep);
  r->sim_cycles = rep.total_cycles;
  r->sim_macs = rep.macs;
  for (int l = 0; l < NPUSIM_LEVELS; l++) {
    r->dma_bytes += rep.bytes_read[l];
    if (l == NPUSIM_LEVEL_DDR) r->ddr_bytes += rep.bytes_read[l] + rep.bytes_written[l];
    if (l != NPUSIM_LEVEL_DDR) r->onchip_peak += rep.peak[l];
  }
  for (int u = 0; u < rep.unit_count; u++) {
    if (!strcmp(rep.units[u].name, "nu")) r->nu_utilization = rep.units[u].utilization;
    if (!strcmp(rep.units[u].name, "cu")) r->cu_utilization = rep.units[u].utilization;
  }
  memcpy(r->bound, rep.bound, sizeof r->bound);
  r->bound_utilization = rep.bound_utilization;
  /* against the kernel's own bound, never the variant's own work: a
   * variant that leaves work on the CU or moves data twice is measured
   * against what the kernel needs */
  r->ideal_cycles = kernel_bound(k, target, r->ideal_unit, sizeof r->ideal_unit);
  r->roofline = rep.total_cycles ? (double)r->ideal_cycles / (double)rep.total_cycles : 0;
  r->host_onchip = rep.host_onchip;
  r->host_ddr = rep.host_ddr;
  r->fallbacks = rep.fallbacks;
  memcpy(r->fallback_op, rep.fallback_op, sizeof r->fallback_op);
  r->fallback_line = rep.fallback_line;
  if (trace_path && npusim_write_trace(sim, trace_path, err, sizeof err) && ok) {
    snprintf(r->message, sizeof r->message, "cannot write the trace: %s", err);
    ok = false;
  }
  npusim_free(sim);
  return ok;
}

/* The i-th parameter's buffer of the variant (its physical layout). */
static const Buffer *variant_buffer(const Kernel *ir, int i) {
  const Param *p = ir->params;
  while (p && i--) p = p->next;
  return p ? p->buf : NULL;
}

static ThunkFn layout_thunk(TccUnit *var, const char *what, const Buffer *b) {
  char name[300];
  snprintf(name, sizeof name, "npg_%s_%s", what, b->name);
  return (ThunkFn)tcc_unit_symbol(var, name);
}

uint64_t check_run_bytes(const Kernel *k, const Kernel *ir) {
  uint64_t total = 0;
  int i = 0;
  for (const Param *p = k->params; p; p = p->next, i++) {
    if (!p->buf) continue;
    uint64_t bytes = (uint64_t)buffer_elems(p->buf) * (uint64_t)p->buf->elem->size;
    const Buffer *vb = variant_buffer(ir, i);
    total += 2 * bytes;
    if (vb && vb->layout) total += (uint64_t)buffer_elems(vb) * (uint64_t)vb->elem->size;
  }
  return total;
}

static bool npu_leaf(Stmt *s, int depth, void *ctx) {
  (void)depth;
  bool *npu = ctx;
  if (stmt_uses_npu(s)) *npu = true;
  return !*npu;
}

/* False with r->message when the run would go past o's limits. A
 * variant that uses the NPU runs its host code's every array access
 * through the simulator (npu_cu_access): each counts CHECK_CU_ACCESS_STEPS
 * steps, what it costs against a plain access. */
static bool within_limits(const Kernel *k, const Kernel *ir, bool reference, uint64_t max_steps, uint64_t max_bytes,
                          CheckResult *r) {
  bool npu = false;
  ir_walk_stmts(ir->body, npu_leaf, &npu);
  uint64_t steps = reference ? ir_count_steps(k) : 0, vsteps = ir_count_steps_weighted(ir, npu ? CHECK_CU_ACCESS_STEPS : 0);
  if (vsteps > steps) steps = vsteps;
  uint64_t bytes = check_run_bytes(k, ir);
  char weighed[96] = "";
  if (npu && vsteps == steps)
    snprintf(weighed, sizeof weighed, ", each array access of host code, which the simulator sees, as %d",
             CHECK_CU_ACCESS_STEPS);
  if (steps > max_steps)
    snprintf(r->message, sizeof r->message,
             "not run: a run takes up to %.3g steps (loop iterations plus statement instances%s), past the "
             "step budget of %llu; shrink the problem or raise the budget (npugen check --max-steps N)",
             (double)steps, weighed, (unsigned long long)max_steps);
  else if (bytes > max_bytes)
    snprintf(r->message, sizeof r->message,
             "not run: the check needs %llu MiB for its copies of the arrays, past the limit of %llu MiB; "
             "shrink the arrays or raise the limit (npugen check --max-memory MIB)",
             (unsigned long long)(bytes >> 20), (unsigned long long)(max_bytes >> 20));
  else
    return true;
  r->pass = false;
  r->not_run = true;
  return false;
}

bool check_within_limits(const Kernel *k, const Kernel *ir, const CheckOptions *o, CheckResult *r) {
  uint64_t max_steps = o->max_steps ? o->max_steps : CHECK_DEFAULT_MAX_STEPS;
  uint64_t max_bytes = o->max_bytes ? o->max_bytes : CHECK_DEFAULT_MAX_BYTES;
  return within_limits(k, ir ? ir : k, true, max_steps, max_bytes, r);
}

bool check_variant_within_limits(const Kernel *k, const Kernel *ir, const CheckOptions *o, CheckResult *r) {
  uint64_t max_steps = o->max_steps ? o->max_steps : CHECK_DEFAULT_MAX_STEPS;
  uint64_t max_bytes = o->max_bytes ? o->max_bytes : CHECK_DEFAULT_MAX_BYTES;
  return within_limits(k, ir, false, max_steps, max_bytes, r);
}

void check_reference_free(CheckReference *c) {
  check_free_args(c->args, c->n);
  c->args = NULL;
}

/* The variant's arguments: the seeded inputs, each parameter with a new
 * layout packed into it by the variant's own helper (its logical copy
 * kept in logical[]). False with r->message when one cannot be made. */
static bool variant_inputs(const Kernel *k, const Kernel *ir, TccUnit *var, const char *fn, const CheckReference *ref,
                           void **var_args, void **logical, CheckResult *r) {
  void **in = check_make_inputs(k, ref->specs, ref->seed, ref->scalar_ends);
  if (!in) {
    snprintf(r->message, sizeof r->message, "not run: out of memory for the arrays");
    return false;
  }
  int i = 0;
  bool ok = true;
  char err[256];
  for (const Param *p = k->params; p; p = p->next, i++) {
    const Buffer *vb = p->buf ? variant_buffer(ir, i) : NULL;
    if (!vb || !vb->layout) {
      var_args[i] = in[i];
      in[i] = NULL;
      continue;
    }
    logical[i] = in[i];
    in[i] = NULL;
    if (!ok) continue;
    void *pa[2] = {logical[i], var_args[i] = malloc((size_t)buffer_elems(vb) * (size_t)vb->elem->size)};
    ThunkFn pack = layout_thunk(var, "pack", vb);
    if (!var_args[i]) {
      snprintf(r->message, sizeof r->message, "not run: out of memory for the arrays");
      ok = false;
    } else if (!pack || !guarded_call(pack, pa, err, sizeof err)) {
      snprintf(r->message, sizeof r->message, "%s_pack_%s: %s", fn, vb->name, pack ? err : "missing");
      ok = false;
    }
  }
  free(in);
  return ok;
}

/* Compares every non-const array of the variant (unpacked to the logical
 * layout where it has another) with the reference's. */
static void compare_outputs(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                            void **var_args, void **logical, CheckResult *r) {
  int i = 0;
  char err[256];
  for (const Param *p = k->params; p; p = p->next, i++) {
    if (!p->buf || p->buf->is_const) continue;
    const Buffer *vb = variant_buffer(ir, i);
    void *got = var_args[i];
    if (vb && vb->layout) {
      void *ua[2] = {var_args[i], logical[i]};
      ThunkFn unpack = layout_thunk(var, "unpack", vb);
      if (!unpack || !guarded_call(unpack, ua, err, sizeof err)) {
        snprintf(r->message, sizeof r->message, "%s_unpack_%s: %s", fn, vb->name, unpack ? err : "missing");
        r->pass = false;
        return;
      }
      got = logical[i];
    }
    compare(p->buf, ref->args[i], got, r);
  }
}

void check_variant_exec(const Kernel *k, const Kernel *ir, const CheckReference *inputs, TccUnit *var, const char *fn,
                        const CheckOptions *o, CheckResult *r, VariantArrays *v) {
  memset(r, 0, sizeof *r);
  r->exact = true;
  if (!ir) ir = k;
  int n = k->nparams;
  *v = (VariantArrays){calloc((size_t)n + 1, sizeof(void *)), calloc((size_t)n + 1, sizeof(void *)), n};
  char name[300];
  snprintf(name, sizeof name, "npg_call_%s", fn);
  ThunkFn var_fn = (ThunkFn)tcc_unit_symbol(var, name);
  if (!var_fn) {
    snprintf(r->message, sizeof r->message, "internal error: a JIT thunk is missing");
  } else if (!v->args || !v->logical) {
    snprintf(r->message, sizeof r->message, "not run: out of memory");
  } else if (variant_inputs(k, ir, var, fn, inputs, v->args, v->logical, r)) {
    uint64_t max_steps = o->max_steps ? o->max_steps : CHECK_DEFAULT_MAX_STEPS;
    r->pass = run_simulated(k, ir, var_fn, v->args, o, max_steps, r);
  }
}

void check_variant_compare(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                           CheckResult *r, VariantArrays *v) {
  if (r->pass && ref && ref->args) compare_outputs(k, ir ? ir : k, ref, var, fn, v->args, v->logical, r);
  check_free_args(v->args, v->n);
  check_free_args(v->logical, v->n);
  *v = (VariantArrays){NULL, NULL, 0};
}

void check_variant_run(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                       const CheckOptions *o, CheckResult *r) {
  VariantArrays v;
  check_variant_exec(k, ir, ref, var, fn, o, r, &v);
  check_variant_compare(k, ir, ref, var, fn, r, &v);
}

void check_variant_simulate(const Kernel *k, const Kernel *ir, const CheckSpec *specs, TccUnit *var, const char *fn,
                            const CheckOptions *o, CheckResult *r) {
  /* no reference run: only the inputs' seed and ranges are needed */
  CheckReference inputs = {.args = NULL, .n = k->nparams, .seed = o->seed, .specs = specs, .scalar_ends = false};
  check_variant_run(k, ir, &inputs, var, fn, o, r);
}
