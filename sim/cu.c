/* Host code's own accesses (npu_cu_access, emitted only for the check): a
 * loop the control unit runs itself over on-chip memory is timed and held
 * to the same token discipline as an intrinsic's operands. Without it such
 * a loop would cost nothing and could read a DMA's destination before the
 * wait. */
#include "sim/internal.h"

void *npu_cu_access_at(const char *file, int line, const void *p, int bytes, int mode) {
  /* not counted against the step budget: the check bounds statement
   * instances before the run, and an instance makes a few of these calls */
  sim_require_bound(file, line, "npu_cu_access");
  NpuSim *s = npusim_current();
  if (s->failed) return (void *)p;
  /* Called for every element the host code touches on chip: the site is
   * interned (sim_site) only where it is kept, a stall in the trace; a
   * failure's message is written here and now. */
  Site site = {file ? file : "?", line};
  const char *op = "host code";
  const char *what = mode == NPU_CU_READ ? "read" : mode == NPU_CU_WRITE ? "written" : "updated";
  if (bytes <= 0 || mode < NPU_CU_READ || mode > NPU_CU_UPDATE) {
    sim_fail(s, site, op, "an access of %d bytes in mode %d", bytes, mode);
    return (void *)p;
  }
  Region *r = &s->cu_access;
  int align = bytes <= 8 ? bytes : 1;
  if (!region_make(s, site, op, what, p, bytes, 1, bytes, 1, bytes, -1, -1, align, r)) return (void *)p;
  bool reads = mode & NPU_CU_READ, writes = mode & NPU_CU_WRITE;
  if ((reads && !hazard_check_read(s, site, op, what, r)) || (writes && !hazard_check_write(s, site, op, what, r)))
    return (void *)p;
  /* a unit still running on these bytes: the hardware interlock holds the CU */
  uint64_t ready = interlock_ready(s, r, reads, r, writes);
  if (ready > s->cu_time) cu_wait_until(s, ready, sim_site(s, file, line), "host access");
  s->cu_time += (uint64_t)s->t.cu_access_cycles;
  s->cu_busy += (uint64_t)s->t.cu_access_cycles;
  s->host_access[r->slot < 0]++;
  return (void *)p;
}

void npu_cu_fallback_at(const char *file, int line, const char *intrinsic) {
  sim_require_bound(file, line, "npu_cu_fallback");
  NpuSim *s = npusim_current();
  if (s->failed) return;
  if (!s->fallbacks++) {
    snprintf(s->fallback_op, sizeof s->fallback_op, "%s", intrinsic ? intrinsic : "an intrinsic");
    s->fallback_line = line;
  }
}
