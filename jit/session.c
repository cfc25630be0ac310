/* The public API (include/npugen.h): glue over frontend, emit and jit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jit/c_text.h"
#include "frontend/frontend.h"
#include "ir/sizes.h"
#include "ir/suggest.h"
#include "ir/uninit.h"
#include "jit/check.h"
#include "lower/variant_promote.h"
#include "jit/guard.h"
#include "jit/session.h"
#include "jit/session_ir.h"
#include "schedule/tensorize.h"
#include "npugen.h"

_Static_assert(NPG_MAX_INPUT_BYTES == FE_MAX_SOURCE_BYTES && NPG_MAX_INPUT_BYTES == NPUSIM_MAX_TARGET_BYTES,
               "one documented input limit");

struct NpgJit {
  TccUnit *unit;
  const Kernel *k;
  char thunk[300];
  char error[4096];
  bool npu;          /* the variant's C calls intrinsics */
  NpuTarget target;  /* the session's, for a simulator of its own */
  uint64_t cycles;   /* the last run's, in that simulator */
};

/* One variant per kernel as written, then one per schedule; none when a
 * kernel certainly reads a local before writing it. */
static void build_variants(NpgSession *s) {
  bool ok = true;
  for (Kernel *k = s->m->kernels; k; k = k->next) ok &= ir_check_uninit(k, &s->diags, s->m->file, s->m->src);
  if (!ok) return;
  for (Kernel *k = s->m->kernels; k; k = k->next) {
    if (!ir_verify_kernel(k, &s->diags, s->m->file)) return;
    ir_map_put(&s->kernels, k->name, k);
    const char *twin = session_case_twin(s, k->name);
    if (twin) {
      diag_error(&s->diags, s->m->file, s->m->src, k->loc.line, k->loc.col,
                 "the kernel name '%s' differs from kernel '%s' only in case: their headers' guards would be the same, "
                 "and so would their files on a case-insensitive file system", k->name, twin);
      continue;
    }
    session_add_variant(s, k, k, k->name, NULL, NULL, s->m->file, s->m->src, k->loc);
  }
  session_apply_programs(s, s->m->schedules);
}

/* A session for `path`, with its target loaded (an error when it cannot be). */
static NpgSession *session_new(const char *path, const char *target_ini) {
  NpgSession *s = calloc(1, sizeof *s);
  s->path = strdup(path);
  diag_init(&s->diags);
  ir_map_init(&s->names, NULL);
  ir_map_init(&s->kernels, NULL);
  ir_map_init(&s->guards, NULL);
  npusim_target_default(&s->target);
  char err[1024];
  if (target_ini && npusim_target_load(&s->target, target_ini, err, sizeof err))
    diag_error(&s->diags, NULL, NULL, 0, 0, "%s", err);
  return s;
}

/* Parses the kernel file into s and builds its variants. */
static void session_parse(NpgSession *s, const char *src, size_t len, bool intrinsic) {
  s->m = (intrinsic ? frontend_parse_intrinsic : frontend_parse)(s->path, src, len, &s->diags);
  if (!s->m) return;
  session_add_defines(s);
  build_variants(s);
  session_strict_diags(s);
}

/* A semantics kernel of npugen's own npu_intrinsics/ (its kernel is named
 * after its intrinsic, which other kernels cannot be). */
static bool intrinsics_file(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  if (n >= sizeof dir) return false;
  memcpy(dir, path, n);
  dir[n] = 0;
  struct stat a, b;
  return stat(slash ? (n ? dir : "/") : ".", &a) == 0 && stat(NPG_INTRINSICS_INCLUDE_DIR, &b) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool session_null(NpgSession *s, const char *fn, const char *arg) {
  if (s) diag_error(&s->diags, NULL, NULL, 0, 0, "%s: %s is NULL", fn, arg);
  return false;
}

NpgSession *npg_open_string_for_target(const char *name, const char *src, size_t len, const char *target_ini) {
  NpgSession *s = session_new(name ? name : "<string>", target_ini);
  if (!name || !src) session_null(s, "npg_open_string", !name ? "name" : "src");
  else if (!s->diags.errors) session_parse(s, src, len, false);
  return s;
}

NpgSession *npg_open_file_for_target(const char *path, const char *target_ini) {
  NpgSession *s = session_new(path ? path : "<file>", target_ini);
  if (!path) session_null(s, "npg_open_file", "path");
  if (s->diags.errors) return s;
  size_t len;
  char *src = ir_read_input(path, FE_MAX_SOURCE_BYTES, &len);
  if (!src) frontend_read_error(path, errno, &s->diags);
  else session_parse(s, src, len, intrinsics_file(path));
  free(src);
  return s;
}

NpgSession *npg_open_string(const char *name, const char *src, size_t len) {
  return npg_open_string_for_target(name, src, len, NULL);
}

NpgSession *npg_open_file(const char *path) { return npg_open_file_for_target(path, NULL); }

void npg_close(NpgSession *s) {
  if (!s) return;
  session_free_scheds(s);
  sem_cache_free(s->sems); /* after the schedules that read it */
  for (int i = 0; i < s->nv; i++) {
    free(s->v[i].source);
    free(s->v[i].header);
    free(s->v[i].dump);
    free(s->v[i].lowered);
    free(s->v[i].schedule);
    free(s->v[i].steps);
  }
  free(s->v);
  check_refs_free(s->refs);
  ir_map_free(&s->names);
  ir_map_free(&s->kernels);
  for (size_t i = 0; i < s->guards.cap; i++) free((char *)s->guards.e[i].key);
  ir_map_free(&s->guards);
  free(s->trace_path);
  module_free(s->m);
  diag_free(&s->diags);
  free(s->rendered);
  free(s->path);
  free(s);
}

/* A NULL session counts as one error, which npg_errors names. */
int npg_error_count(const NpgSession *s) { return s ? s->diags.errors : 1; }

const char *npg_errors(NpgSession *s) {
  if (!s) return "error: the session is NULL\n";
  free(s->rendered);
  s->rendered = diag_render(&s->diags);
  return s->rendered;
}

/* Variants that were refused are not counted; the others stay usable. */
int npg_variant_count(const NpgSession *s) { return s && s->m ? s->nv : 0; }

const char *npg_variant_name(const NpgSession *s, int i) {
  return i >= 0 && i < npg_variant_count(s) ? s->v[i].name : NULL;
}

int npg_variant_index(const NpgSession *s, const char *name) {
  if (!name) return -1;
  for (int i = 0; i < npg_variant_count(s); i++)
    if (!strcmp(s->v[i].name, name)) return i;
  return -1;
}

void npg_variant_unknown(const NpgSession *s, const char *name, char *msg, size_t n) {
  if (!msg || !n) return;
  if (!s || !name) {
    snprintf(msg, n, "npg_variant_unknown: %s is NULL", !s ? "the session" : "name");
    return;
  }
  StrBuf all;
  sb_init(&all);
  IrSuggest near = ir_suggest_start(name);
  for (int i = 0; i < npg_variant_count(s); i++) {
    sb_printf(&all, "%s%s", i ? ", " : "", s->v[i].name);
    ir_suggest_add(&near, s->v[i].name);
  }
  char dym[160];
  snprintf(msg, n, "no variant named '%s' in %s (variants: %s)%s", name, s->m ? s->m->file : "the session",
           all.len ? all.data : "none", ir_suggest_text(&near, dym, sizeof dym));
  sb_free(&all);
}

const Module *session_module(const NpgSession *s) { return s->m; }

const NpuTarget *session_target(const NpgSession *s) { return &s->target; }

bool session_fix_sizes(NpgSession *s, const char *kernel, const SizeSet *set, char *why, size_t n) {
  Kernel *k = s->m ? (Kernel *)module_kernel(s->m, kernel) : NULL;
  if (!k || !k->nsizes) return snprintf(why, n, "kernel '%s' has no symbolic sizes", kernel) < 0;
  int broken = ir_size_set_breaks(k, set);
  if (broken >= 0) {
    char at[200];
    ir_size_set_text(k, set, at, sizeof at);
    if (broken == k->nassume) return snprintf(why, n, "%s gives an extent of kernel %s below 1", at, kernel) < 0;
    StrBuf t;
    sb_init(&t);
    ir_print_expr(&t, k->assume[broken]);
    if (k->assume_why[broken])
      snprintf(why, n, "%s breaks the precondition '%s' of kernel %s (%s)", at, t.data, kernel, k->assume_why[broken]);
    else
      snprintf(why, n, "%s breaks the assumption '%s' of kernel %s", at, t.data, kernel);
    sb_free(&t);
    return false;
  }
  k->size_sets[0] = *set;
  k->nsize_sets = 1;
  return true;
}

const Kernel *session_variant_ir(const NpgSession *s, int i) {
  return i >= 0 && i < npg_variant_count(s) ? s->v[i].ir : NULL;
}

LowerUnit session_unit(const NpgSession *s, int i) {
  return (LowerUnit){.m = s->m, .k = s->v[i].ir, .name = s->v[i].name, .schedule = s->v[i].schedule,
                    .target = &s->target, .order = EMIT_ORDER_SOURCE, .lowered = s->v[i].low,
                    .assume_no_alias = s->assume_no_alias};
}

void npg_set_assume_no_alias(NpgSession *s, bool on) {
  if (!s) return;
  s->assume_no_alias = on;
  for (int i = 0; i < npg_variant_count(s); i++) { /* emitted before: stale */
    free(s->v[i].source);
    free(s->v[i].header);
    s->v[i].source = s->v[i].header = NULL;
  }
}

/* Variant i's .c and .h, made together from one lowering (the pair
 * npugen emit writes), each kept where not kept already. */
static void emit_files(NpgSession *s, int i) {
  LowerUnit u = session_unit(s, i);
  u.own_header = true;
  char *source, *header;
  jit_c_files(&u, &source, &header);
  if (!s->v[i].source) s->v[i].source = source;
  else free(source);
  if (!s->v[i].header) s->v[i].header = header;
  else free(header);
}

const char *npg_emit_source(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  if (!s->v[i].source) emit_files(s, i);
  return s->v[i].source;
}

const char *npg_emit_header(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  if (!s->v[i].header) emit_files(s, i);
  return s->v[i].header;
}

const char *npg_dump_ir(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  if (!s->v[i].dump) {
    StrBuf sb;
    sb_init(&sb);
    ir_print_kernel(&sb, s->v[i].ir);
    s->v[i].dump = sb_take(&sb);
  }
  return s->v[i].dump;
}

const char *npg_dump_ir_lowered(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  if (!s->v[i].lowered) { /* the module npg_emit_source prints */
    LowerUnit u = session_unit(s, i);
    u.own_header = true;
    LoweredModule m;
    lower_module(&u, &m);
    StrBuf sb;
    sb_init(&sb);
    ir_print_lowered_module(&sb, &m);
    lower_module_free(&m);
    s->v[i].lowered = sb_take(&sb);
  }
  return s->v[i].lowered;
}

/* The NPG_ORDER_* bits are CheckResult's order bits. */
_Static_assert(NPG_ORDER_SOURCE == 1u << EMIT_ORDER_SOURCE && NPG_ORDER_REVERSED == 1u << EMIT_ORDER_REVERSED &&
                   NPG_ORDER_ODD_EVEN == 1u << EMIT_ORDER_ODD_EVEN && NPG_ORDER_ALL == CHECK_ORDERS_ALL,
               "NPG_ORDER_* and EmitOrder agree");

bool npg_check_orders(NpgSession *s, int i, uint64_t seed, unsigned orders, NpgCheckResult *out) {
  if (!out) return session_null(s, "npg_check", "the result");
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= npg_variant_count(s)) {
    snprintf(out->message, sizeof out->message, s ? "no variant %d" : "the session is NULL", i);
    return false;
  }
  if (!s->refs) s->refs = check_refs_new(s->m);
  CheckResult r;
  CheckOptions o = {.seed = seed, .target = &s->target, .trace_path = s->trace_path,
                    .max_steps = s->max_steps, .max_bytes = s->max_bytes, .max_cpu_seconds = s->max_cpu_seconds,
                    .by_reference = s->as_written_by_reference && !s->v[i].schedule && s->v[i].ir == s->v[i].kernel &&
                                    !s->v[i].kernel->nsizes};
  LowerUnit u = session_unit(s, i);
  if (!s->v[i].check_low) s->v[i].check_low = lower_check_promote(&s->m->arena, s->v[i].ir, s->v[i].low);
  u.lowered = s->v[i].check_low; /* the check's text: lower/variant_promote.c */
  u.tcc = true;                  /* tcc's C: a callee's arrays with sizes too */
  if (s->v[i].kernel->nsizes) check_run_sizes(s->m, s->v[i].kernel, &u, orders, &o, &r);
  else check_run_orders(s->v[i].kernel, &u, s->refs, orders, &o, &r);
  out->pass = r.pass;
  out->exact = r.exact;
  out->max_error = r.max_error;
  out->compared = r.compared;
  out->nonfinite = r.nonfinite;
  out->size_sets_not_run = r.sets_not_run;
  out->not_run = r.not_run;
  out->by_reference = r.by_reference;
  memcpy(out->message, r.message, sizeof out->message);
  out->sim_cycles = r.sim_cycles;
  out->nu_utilization = r.nu_utilization;
  out->dma_bytes = r.dma_bytes;
  out->ddr_bytes = r.ddr_bytes;
  out->onchip_peak = r.onchip_peak;
  memcpy(out->summary, r.summary, sizeof out->summary);
  out->fallbacks = r.fallbacks;
  memcpy(out->fallback_op, r.fallback_op, sizeof out->fallback_op);
  out->order = 1u << r.order;
  return r.pass;
}

bool npg_check(NpgSession *s, int i, uint64_t seed, NpgCheckResult *out) {
  return npg_check_orders(s, i, seed, s && s->check_orders ? s->check_orders : NPG_ORDER_ALL, out) &&
         session_strict_verdict(s, i, out);
}

void npg_set_as_written_by_reference(NpgSession *s, bool on) {
  if (s) s->as_written_by_reference = on;
}

void npg_set_check_orders(NpgSession *s, unsigned orders) {
  if (s) s->check_orders = orders & NPG_ORDER_ALL;
}

/* Where two targets differ in what a schedule is planned for (scope sizes,
 * VU cores, DMA channels) or relies on (the DMAs in flight at once); false
 * when they do not. */
static bool plan_differs(const NpuTarget *a, const NpuTarget *b, char *what, size_t n) {
  const struct {
    const char *name;
    int64_t x, y;
  } keys[] = {
      {"dm size", a->dm_size, b->dm_size},          {"nu_ib size", a->nu_ib_size, b->nu_ib_size},
      {"nu_wb size", a->nu_wb_size, b->nu_wb_size}, {"nu_ob size", a->nu_ob_size, b->nu_ob_size},
      {"VU cores", a->vu_count, b->vu_count},       {"vu_vm size", a->vu_vm_size, b->vu_vm_size},
      {"DMA channels", a->dma_channels, b->dma_channels},
      {"DMA tokens", a->dma_max_tokens, b->dma_max_tokens},
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (keys[i].x != keys[i].y) {
      snprintf(what, n, "%s (%lld against %lld)", keys[i].name, (long long)keys[i].x, (long long)keys[i].y);
      return true;
    }
  return false;
}

bool npg_set_target(NpgSession *s, const char *path) {
  if (!s || !path) return session_null(s, "npg_set_target", "path");
  char err[1024];
  NpuTarget t;
  if (npusim_target_load(&t, path, err, sizeof err)) {
    diag_error(&s->diags, NULL, NULL, 0, 0, "%s", err);
    return false;
  }
  bool scheduled = false;
  for (int i = 0; i < s->nv; i++) scheduled |= s->v[i].schedule != NULL;
  char what[160];
  if (scheduled && plan_differs(&t, &s->target, what, sizeof what)) {
    diag_error(&s->diags, NULL, NULL, 0, 0,
               "%s: target '%s' differs in %s from target '%s', which the variants are scheduled for; "
               "open the kernel file with it (npugen --target) to schedule for it",
               path, t.name, what, s->target.name);
    return false;
  }
  s->target = t;
  return true;
}

const char *npg_target_name(const NpgSession *s) { return s ? s->target.name : NULL; }

void npg_set_check_cpu_limit(NpgSession *s, double seconds) {
  if (s) s->max_cpu_seconds = seconds > 0 ? seconds : 0;
}

void npg_set_check_limits(NpgSession *s, uint64_t max_steps, uint64_t max_bytes) {
  if (!s) return;
  s->max_steps = max_steps;
  s->max_bytes = max_bytes;
}

void npg_set_trace(NpgSession *s, const char *path) {
  if (!s) return;
  free(s->trace_path);
  s->trace_path = path ? strdup(path) : NULL;
}

static NpgJit *jit_new(const Kernel *k) {
  NpgJit *j = calloc(1, sizeof *j);
  j->k = k;
  return j;
}

static bool npu_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  bool *npu = ctx;
  if ((st->kind == ST_DECL && st->buf && buffer_onchip(st->buf)) || (st->kind == ST_FOR && st->intrin)) *npu = true;
  return !*npu;
}

/* True when the variant's C calls intrinsics: an on-chip buffer (its DMAs)
 * or a tensorized nest. */
static bool calls_npu(const Kernel *ir) {
  bool npu = false;
  ir_walk_stmts(ir->body, npu_visit, &npu);
  return npu;
}

NpgJit *npg_jit_variant(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  NpgJit *j = jit_new(s->v[i].ir);
  j->npu = calls_npu(s->v[i].ir);
  j->target = s->target;
  snprintf(j->thunk, sizeof j->thunk, "npg_call_%s", s->v[i].name);
  LowerUnit u = session_unit(s, i); /* npg_emit_source's C without its #include of the .h: tcc has no file */
  u.tcc = true;
  char *text = jit_c_source(&u);
  j->unit = check_compile_variant(s->v[i].ir, text, s->v[i].name, j->error, sizeof j->error);
  free(text);
  if (j->unit) j->error[0] = 0; /* tcc's warnings are not errors */
  return j;
}

NpgJit *npg_jit_reference(NpgSession *s, int i) {
  if (i < 0 || i >= npg_variant_count(s)) return NULL;
  NpgJit *j = jit_new(s->v[i].kernel);
  snprintf(j->thunk, sizeof j->thunk, "npg_ref_%s", s->v[i].kernel->name);
  for (const Kernel *k = s->m->kernels; k; k = k->next)
    if (k->nsizes) { /* tcc 0.9.27 refuses `float A[n]` after `int n` */
      snprintf(j->error, sizeof j->error,
               "kernel %s has symbolic sizes, which tcc cannot compile as written; JIT the kernel's own variant "
               "(npg_jit_variant), whose C takes them",
               k->name);
      return j;
    }
  j->unit = check_compile_reference(s->m, j->error, sizeof j->error);
  if (j->unit) j->error[0] = 0;
  return j;
}

const char *npg_jit_error(const NpgJit *j) {
  if (!j) return "the JIT handle is NULL";
  return j->unit && !j->error[0] ? NULL : j->error;
}

/* An NPU variant run with no simulator bound: without one the first
 * intrinsic aborts (sim_require_bound), so the run binds its own, on the session's target, with
 * the arrays declared (an overrun is an error), and fails with the
 * simulator's message. */
static bool run_in_own_simulator(NpgJit *j, ThunkFn fn, void **args) {
  NpuSim *sim = npusim_new(&j->target);
  if (!sim) {
    snprintf(j->error, sizeof j->error, "the simulator rejects the session's target '%s'", j->target.name);
    return false;
  }
  int i = 0;
  for (const Param *p = j->k->params; p; p = p->next, i++)
    if (p->buf) npusim_add_ddr(sim, args[i], (size_t)buffer_elems(p->buf) * (size_t)p->buf->elem->size, p->buf->name);
  npusim_bind(sim);
  char err[1024];
  bool ran = guarded_call(fn, args, err, sizeof err);
  if (ran) npusim_finish(sim);
  npusim_unbind();
  bool ok = ran && !npusim_failed(sim);
  if (npusim_failed(sim)) snprintf(j->error, sizeof j->error, "simulator: %.3000s", npusim_error(sim));
  else if (!ran) snprintf(j->error, sizeof j->error, "%s", err);
  NpuSimReport r;
  npusim_report(sim, &r);
  j->cycles = r.total_cycles;
  npusim_free(sim);
  return ok;
}

bool npg_jit_run(NpgJit *j, void **args) {
  if (!j || !j->unit) return false;
  if (!args) {
    snprintf(j->error, sizeof j->error, "npg_jit_run: args is NULL");
    return false;
  }
  ThunkFn fn = (ThunkFn)tcc_unit_symbol(j->unit, j->thunk);
  if (!fn) {
    snprintf(j->error, sizeof j->error, "internal error: missing thunk %s", j->thunk);
    return false;
  }
  j->error[0] = 0;
  j->cycles = 0;
  if (j->npu && !npusim_current()) return run_in_own_simulator(j, fn, args);
  return guarded_call(fn, args, j->error, sizeof j->error);
}

uint64_t npg_jit_sim_cycles(const NpgJit *j) { return j ? j->cycles : 0; }

void npg_jit_free(NpgJit *j) {
  if (!j) return;
  tcc_unit_free(j->unit);
  free(j);
}
