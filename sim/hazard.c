/* Hazards: the token discipline against DMAs not yet waited for (RAW, WAW,
 * WAR errors), and the hardware interlocks between compute ops (timing only).
 * Work is per region and per outstanding DMA / in-flight op, never per byte. */
#include <stdlib.h>

#include "sim/internal.h"

static void report(NpuSim *s, Site site, const char *op, const char *kind, const char *what,
                   const Region *r, const char *verb, const PendingDma *p, const Region *pr) {
  char a[160], b[160];
  sim_fail(s, site, op,
           "%s hazard: operand %s %s overlaps %s, which DMA token %d (%s at %s:%d, channel %d) "
           "%s and which has not been waited for (npu_dma_wait(%d) is missing)",
           kind, what, region_str(s, r, a, sizeof a), region_str(s, pr, b, sizeof b),
           (int)p->token, p->op, p->site.file, p->site.line, p->ch, verb, (int)p->token);
}

bool hazard_check_read(NpuSim *s, Site site, const char *op, const char *what, const Region *r) {
  for (int i = 0; i < s->npending; i++) {
    const PendingDma *p = &s->pending[i];
    if (region_overlap(r, &p->dst)) {
      report(s, site, op, "RAW", what, r, "still writes", p, &p->dst);
      return false;
    }
  }
  return true;
}

bool hazard_check_write(NpuSim *s, Site site, const char *op, const char *what,
                        const Region *r) {
  for (int i = 0; i < s->npending; i++) {
    const PendingDma *p = &s->pending[i];
    if (region_overlap(r, &p->src)) {
      report(s, site, op, "WAR", what, r, "still reads", p, &p->src);
      return false;
    }
    if (region_overlap(r, &p->dst)) {
      report(s, site, op, "WAW", what, r, "still writes", p, &p->dst);
      return false;
    }
  }
  return true;
}

uint64_t interlock_ready(NpuSim *s, const Region *reads, int nreads, const Region *writes,
                         int nwrites) {
  uint64_t now = s->cu_time, t = now;
  int k = 0;
  for (int i = 0; i < s->ninflight; i++) {
    const Inflight *e = &s->inflight[i];
    if (e->end <= now) continue; /* ended: cannot delay an op issued now or later; dropped */
    if (k != i) s->inflight[k] = *e;
    e = &s->inflight[k++];
    if (e->end <= t) continue;
    bool hit = false;
    for (int j = 0; j < nwrites && !hit; j++) hit = region_overlap(&e->r, &writes[j]);
    for (int j = 0; j < nreads && !hit && e->write; j++) hit = region_overlap(&e->r, &reads[j]);
    if (hit) t = e->end;
  }
  s->ninflight = k;
  return t;
}

void inflight_add(NpuSim *s, const Region *r, bool write, uint64_t end) {
  if (region_empty(r) || r->slot < 0 || end <= s->cu_time) return;
  if (s->ninflight == s->inflight_cap) {
    int cap = s->inflight_cap ? s->inflight_cap * 2 : 64;
    Inflight *n = realloc(s->inflight, (size_t)cap * sizeof *n);
    if (!n) return; /* only timing precision is lost */
    s->inflight = n;
    s->inflight_cap = cap;
  }
  s->inflight[s->ninflight++] = (Inflight){*r, write, end};
}

void inflight_prune(NpuSim *s) {
  int k = 0;
  for (int i = 0; i < s->ninflight; i++)
    if (s->inflight[i].end > s->cu_time) s->inflight[k++] = s->inflight[i];
  s->ninflight = k;
}
