/* The simulator object: on-chip memory, the thread's current simulator,
 * errors, call sites, scope addresses, barrier and end of run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

/* The library's one piece of mutable global state (see npusim.h): emitted
 * code calls intrinsics without a context argument. */
static _Thread_local NpuSim *current;

void npusim_bind(NpuSim *sim) { current = sim; }
void npusim_unbind(void) { current = NULL; }
NpuSim *npusim_current(void) { return current; }

/* An intrinsic called with no simulator bound would do nothing and return
 * 0 or NULL, so a caller that forgot npusim_bind reads zeros as results or
 * dereferences a NULL scope base: it stops here instead, naming the call. */
void sim_require_bound(const char *file, int line, const char *op) {
  if (current) return;
  fprintf(stderr, "%s:%d: %s: called with no simulator bound on this thread "
          "(npusim_new and npusim_bind first; sim/npusim.h)\n", file ? file : "?", line, op);
  abort();
}

NpuSim *sim_enter(const char *file, int line, const char *op, Site *site) {
  sim_require_bound(file, line, op);
  NpuSim *s = current;
  if (s->failed) return NULL;
  *site = sim_site(s, file, line);
  /* the step budget: a run that would go on past it stops here */
  if (++s->calls > s->step_budget) {
    sim_fail(s, *site, "npusim", "the run exceeded its step budget of %llu intrinsic calls "
             "(npusim_set_step_budget)", (unsigned long long)s->step_budget);
    return NULL;
  }
  return s;
}

void npusim_set_step_budget(NpuSim *s, uint64_t calls) { s->step_budget = calls; }

static uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

NpuSim *npusim_new(const NpuTarget *t) {
  char err[256];
  if (npusim_target_check(t, err, sizeof err)) return NULL;
  NpuSim *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->t = *t;
  const int64_t caps[4] = {t->dm_size, t->nu_ib_size, t->nu_wb_size, t->nu_ob_size};
  const int scopes[4] = {NPU_DM, NPU_NU_IB, NPU_NU_WB, NPU_NU_OB};
  s->nslots = SLOT_VM0 + (int)t->vu_count;
  uint64_t total = 0;
  for (int i = 0; i < s->nslots; i++) {
    Slot *sl = &s->slots[i];
    sl->cap = (uint64_t)(i < SLOT_VM0 ? caps[i] : t->vu_vm_size);
    sl->scope = i < SLOT_VM0 ? scopes[i] : NPU_VU_VM;
    sl->core = i < SLOT_VM0 ? 0 : i - SLOT_VM0;
    /* A guard as large as the scope after it: an address there is reported
     * as "beyond capacity" instead of being mistaken for a host pointer. */
    sl->span = round_up(sl->cap, 4096) * 2;
    total += sl->span;
  }
  s->mem_raw = calloc(1, total + 64);
  int depth = (int)t->cu_queue_depth;
  for (int i = 1; i < sim_ntracks(s) && s->mem_raw; i++) {
    s->tl[i].ring = calloc((size_t)depth, sizeof(uint64_t));
    if (!s->tl[i].ring) {
      npusim_free(s);
      return NULL;
    }
  }
  s->pending = calloc((size_t)t->dma_max_tokens, sizeof *s->pending);
  if (!s->mem_raw || !s->pending) {
    npusim_free(s);
    return NULL;
  }
  uintptr_t p = round_up((uintptr_t)s->mem_raw, 64);
  s->mem_lo = p;
  for (int i = 0; i < s->nslots; i++) {
    s->slots[i].base = (unsigned char *)p;
    p += s->slots[i].span;
  }
  s->mem_hi = p;
  s->next_token = 1;
  s->step_budget = NPUSIM_DEFAULT_STEP_BUDGET;
  return s;
}

void npusim_free(NpuSim *s) {
  if (!s) return;
  if (current == s) current = NULL;
  for (size_t i = 0; i < sizeof s->tl / sizeof s->tl[0]; i++) free(s->tl[i].ring);
  for (int i = 0; i < s->nfiles; i++) free(s->files[i]);
  for (int i = 0; i < s->nddr; i++) free(s->ddr[i].name);
  free(s->files);
  free(s->ddr);
  free(s->pending);
  free(s->ddr_port.v);
  free(s->dm_port.v);
  free(s->inflight);
  free(s->ev);
  free(s->mem_raw);
  free(s);
}

void npusim_set_trace(NpuSim *s, bool on) { s->tracing = on; }

void npusim_add_ddr(NpuSim *s, const void *addr, size_t bytes, const char *name) {
  /* an array declared in a loop is declared again each iteration, most
   * often at the same address: one entry */
  for (int i = s->nddr - 1; i >= 0; i--)
    if (s->ddr[i].lo == (uintptr_t)addr && s->ddr[i].hi == (uintptr_t)addr + bytes &&
        !strcmp(s->ddr[i].name, name ? name : "array"))
      return;
  DdrArray *d = realloc(s->ddr, (size_t)(s->nddr + 1) * sizeof *d);
  if (!d) return;
  s->ddr = d;
  d[s->nddr].lo = (uintptr_t)addr;
  d[s->nddr].hi = (uintptr_t)addr + bytes;
  d[s->nddr].name = strdup(name ? name : "array");
  if (!d[s->nddr].name) return;
  s->nddr++;
}

bool npusim_failed(const NpuSim *s) { return s->failed; }
const char *npusim_error(const NpuSim *s) { return s->err; }

Site sim_site(NpuSim *s, const char *file, int line) {
  Site site = {"?", line};
  if (!file) return site;
  if (s->last_file_key == file && !strcmp(s->last_file, file)) {
    site.file = s->last_file;
    return site;
  }
  for (int i = 0; i < s->nfiles; i++)
    if (!strcmp(s->files[i], file)) {
      site.file = s->last_file = s->files[i];
      s->last_file_key = file;
      return site;
    }
  char **f = realloc(s->files, (size_t)(s->nfiles + 1) * sizeof *f);
  if (!f) return site;
  s->files = f;
  char *copy = strdup(file);
  if (!copy) return site;
  f[s->nfiles++] = copy;
  site.file = s->last_file = copy;
  s->last_file_key = file;
  return site;
}

void sim_fail(NpuSim *s, Site site, const char *op, const char *fmt, ...) {
  if (s->failed) return;
  s->failed = true;
  int n = snprintf(s->err, sizeof s->err, "%s:%d: %s: ", site.file, site.line, op);
  if (n < 0 || (size_t)n >= sizeof s->err) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err + n, sizeof s->err - (size_t)n, fmt, ap);
  va_end(ap);
}

const char *scope_name(int scope) {
  static const char *const names[] = {"ddr", "dm", "nu_ib", "nu_wb", "nu_ob", "vu_vm"};
  return scope >= 0 && scope < NPU_SCOPE_COUNT ? names[scope] : "?";
}

const char *npusim_level_name(int level) { return scope_name(level); }

int slot_level(const NpuSim *s, int slot) { return slot < 0 ? NPUSIM_LEVEL_DDR : s->slots[slot].scope; }

static int find_slot(NpuSim *s, Site site, const char *op, int scope, int core) {
  if (scope == NPU_VU_VM) {
    if (core < 0 || core >= s->t.vu_count) {
      sim_fail(s, site, op, "VU core %d does not exist (the target has %lld)", core,
               (long long)s->t.vu_count);
      return -1;
    }
    return SLOT_VM0 + core;
  }
  if (scope <= NPU_DDR || scope >= NPU_SCOPE_COUNT) {
    sim_fail(s, site, op, "scope %d is not an on-chip scope (dm=%d, nu_ib=%d, nu_wb=%d, "
             "nu_ob=%d, vu_vm=%d)", scope, NPU_DM, NPU_NU_IB, NPU_NU_WB, NPU_NU_OB, NPU_VU_VM);
    return -1;
  }
  if (core != 0) {
    sim_fail(s, site, op, "core must be 0 for scope %s", scope_name(scope));
    return -1;
  }
  return scope - NPU_DM + SLOT_DM;
}

void *npu_scope_base_at(const char *file, int line, int scope, int core) {
  Site site;
  NpuSim *s = sim_enter(file, line, "npu_scope_base", &site);
  if (!s) return NULL;
  int slot = find_slot(s, site, "npu_scope_base", scope, core);
  return slot < 0 ? NULL : s->slots[slot].base;
}

size_t npu_scope_size_at(const char *file, int line, int scope, int core) {
  Site site;
  NpuSim *s = sim_enter(file, line, "npu_scope_size", &site);
  if (!s) return 0;
  int slot = find_slot(s, site, "npu_scope_size", scope, core);
  return slot < 0 ? 0 : (size_t)s->slots[slot].cap;
}

uint64_t sim_idle_at(const NpuSim *s) {
  uint64_t t = s->cu_time;
  for (int i = 1; i < sim_ntracks(s); i++)
    if (s->tl[i].free_at > t) t = s->tl[i].free_at;
  return t;
}

void npu_barrier_at(const char *file, int line) {
  Site site;
  NpuSim *s = sim_enter(file, line, "npu_barrier", &site);
  if (!s) return;
  cu_issue_sync(s);
  cu_wait_until(s, sim_idle_at(s), site, "npu_barrier");
  s->npending = 0;
  inflight_prune(s);
}

int npusim_finish(NpuSim *s) {
  if (s->failed) return -1;
  if (s->npending) {
    const PendingDma *p = &s->pending[0];
    char buf[160];
    sim_fail(s, p->site, p->op,
             "DMA token %d (to %s) was never waited for before the end of the run",
             (int)p->token, region_str(s, &p->dst, buf, sizeof buf));
    return -1;
  }
  uint64_t t = sim_idle_at(s);
  if (t > s->cu_time) s->cu_time = t;
  inflight_prune(s);
  return 0;
}
