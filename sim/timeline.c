/* The cycle model's timelines: the control unit (CU) issues in program order;
 * each unit and DMA channel runs its instructions in order, one at a time,
 * behind a queue of cu_queue_depth entries. */
#include "sim/internal.h"

uint64_t ceil_div_u64(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

void cu_wait_until(NpuSim *s, uint64_t t, Site site, const char *what) {
  if (t <= s->cu_time) return;
  trace_event(s, TRACK_CU, s->cu_time, t - s->cu_time, what, site, "stall");
  s->cu_time = t;
}

uint64_t cu_issue(NpuSim *s, int track, Site site) {
  Timeline *tl = &s->tl[track];
  if (tl->ring_n == (int)s->t.cu_queue_depth) {
    uint64_t oldest = tl->ring[tl->ring_head];
    cu_wait_until(s, oldest, site, "queue full");
  }
  cu_issue_sync(s);
  return s->cu_time;
}

void cu_issue_sync(NpuSim *s) {
  s->cu_time += (uint64_t)s->t.cu_issue_cycles;
  s->cu_busy += (uint64_t)s->t.cu_issue_cycles;
  s->cu_ops++;
}

void tl_run(NpuSim *s, int track, uint64_t start, uint64_t end) {
  Timeline *tl = &s->tl[track];
  int depth = (int)s->t.cu_queue_depth;
  if (tl->ring_n < depth) {
    tl->ring[(tl->ring_head + tl->ring_n) % depth] = end;
    tl->ring_n++;
  } else {
    tl->ring[tl->ring_head] = end;
    tl->ring_head = (tl->ring_head + 1) % depth;
  }
  tl->free_at = end;
  tl->busy += end - start;
  tl->ops++;
}

bool unit_exec(NpuSim *s, Site site, const char *op, int track, const Operand *ops, int n,
               uint64_t dur, const char *detail) {
  Region reads[4], writes[4];
  int nr = 0, nw = 0;
  for (int i = 0; i < n; i++) {
    if ((ops[i].mode & OP_READ) && !hazard_check_read(s, site, op, ops[i].name, &ops[i].r))
      return false;
    if ((ops[i].mode & OP_WRITE) && !hazard_check_write(s, site, op, ops[i].name, &ops[i].r))
      return false;
    if ((ops[i].mode & OP_READ) && nr < 4) reads[nr++] = ops[i].r;
    if ((ops[i].mode & OP_WRITE) && nw < 4) writes[nw++] = ops[i].r;
  }
  uint64_t t = cu_issue(s, track, site);
  uint64_t dep = interlock_ready(s, reads, nr, writes, nw);
  if (s->tl[track].free_at > t) t = s->tl[track].free_at;
  if (dep > t) t = dep;
  tl_run(s, track, t, t + dur);
  for (int i = 0; i < nr; i++) inflight_add(s, &reads[i], false, t + dur);
  for (int i = 0; i < nw; i++) inflight_add(s, &writes[i], true, t + dur);
  if (s->tracing) trace_event(s, track, t, dur, op, site, "%s", detail);
  return true;
}
