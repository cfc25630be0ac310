/* The run's figures: cycles, busy time and utilization per unit and DMA
 * channel, DMA bytes per memory level, peak use per on-chip scope. */
#include <stdio.h>
#include <string.h>

#include "sim/internal.h"

void npusim_report(const NpuSim *s, NpuSimReport *r) {
  memset(r, 0, sizeof *r);
  int ntracks = sim_ntracks(s);
  uint64_t total = sim_idle_at(s);
  r->total_cycles = total;
  r->unit_count = ntracks;
  for (int i = 0; i < ntracks; i++) {
    NpuSimUnitStats *u = &r->units[i];
    track_name(s, i, u->name, sizeof u->name);
    u->busy = i == TRACK_CU ? s->cu_busy : s->tl[i].busy;
    u->ops = i == TRACK_CU ? s->cu_ops : s->tl[i].ops;
    u->utilization = total ? (double)u->busy / (double)total : 0.0;
  }
  memcpy(r->bytes_read, s->bytes_read, sizeof r->bytes_read);
  memcpy(r->bytes_written, s->bytes_written, sizeof r->bytes_written);
  for (int i = 0; i < s->nslots; i++) {
    const Slot *sl = &s->slots[i];
    if (sl->peak > r->peak[sl->scope]) r->peak[sl->scope] = sl->peak;
    if (sl->scope == NPU_VU_VM) r->peak_vm[sl->core] = sl->peak;
    r->capacity[sl->scope] = sl->cap;
  }
  r->macs = s->macs;
  r->dma_transfers = s->transfers;
  r->host_onchip = s->host_access[0];
  r->host_ddr = s->host_access[1];
  r->fallbacks = s->fallbacks;
  memcpy(r->fallback_op, s->fallback_op, sizeof r->fallback_op);
  r->fallback_line = s->fallback_line;

  uint64_t vu = 0, dma = 0;
  for (int c = 0; c < (int)s->t.vu_count; c++)
    if (s->tl[TRACK_VU(s, c)].busy > vu) vu = s->tl[TRACK_VU(s, c)].busy;
  for (int ch = 0; ch < (int)s->t.dma_channels; ch++)
    if (s->tl[TRACK_DMA(s, ch)].busy > dma) dma = s->tl[TRACK_DMA(s, ch)].busy;
  /* the channels share the ports: a port booked longer than any channel is the bound */
  if (s->ddr_work > dma) dma = s->ddr_work;
  if (s->dm_work > dma) dma = s->dm_work;
  const struct {
    const char *name;
    uint64_t busy;
  } units[] = {{"nu", s->tl[TRACK_NU].busy}, {"vu", vu}, {"dma", dma}, {"cu", s->cu_busy}};
  uint64_t most = 0;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (units[i].busy > most) {
      most = units[i].busy;
      snprintf(r->bound, sizeof r->bound, "%s", units[i].name);
    }
  r->bound_utilization = total ? (double)most / (double)total : 0.0;

  /* The units' own work, not the CU's: the CU's time is the variant's
   * choice to leave work on it (work the NU or VU would do faster), so a
   * variant that computes on the CU is measured against its data's
   * movement, not against itself (its CU share is its "cu" unit's
   * utilization above). */
  uint64_t terms[] = {s->nu_work, ceil_div_u64(s->vu_work, (uint64_t)s->t.vu_count), s->ddr_work, s->dm_work};
  for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
    if (terms[i] > r->ideal_cycles) r->ideal_cycles = terms[i];
  r->roofline = total ? (double)r->ideal_cycles / (double)total : 0.0;
}

char *npusim_report_text(const NpuSimReport *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  fprintf(f, "total cycles: %llu\n", (unsigned long long)r->total_cycles);
  fprintf(f, "%-6s %12s %8s %7s\n", "unit", "busy", "ops", "util");
  for (int i = 0; i < r->unit_count; i++)
    fprintf(f, "%-6s %12llu %8llu %6.1f%%\n", r->units[i].name,
            (unsigned long long)r->units[i].busy, (unsigned long long)r->units[i].ops,
            100.0 * r->units[i].utilization);
  fprintf(f, "%-6s %12s %12s %12s %12s\n", "level", "dma read", "dma written", "peak", "capacity");
  for (int l = 0; l < NPUSIM_LEVELS; l++) {
    if (l == NPUSIM_LEVEL_DDR)
      fprintf(f, "%-6s %12llu %12llu %12s %12s\n", npusim_level_name(l),
              (unsigned long long)r->bytes_read[l], (unsigned long long)r->bytes_written[l], "-", "-");
    else
      fprintf(f, "%-6s %12llu %12llu %12llu %12llu\n", npusim_level_name(l),
              (unsigned long long)r->bytes_read[l], (unsigned long long)r->bytes_written[l],
              (unsigned long long)r->peak[l], (unsigned long long)r->capacity[l]);
  }
  fprintf(f, "NU MACs: %llu, DMA transfers: %llu\n", (unsigned long long)r->macs,
          (unsigned long long)r->dma_transfers);
  if (r->host_onchip || r->host_ddr)
    fprintf(f, "host code: %llu element accesses on-chip, %llu in ddr\n", (unsigned long long)r->host_onchip,
            (unsigned long long)r->host_ddr);
  if (r->bound[0])
    fprintf(f, "bound by %s (busy %.1f%%); its own work %.1f%% of the run (at best %llu cycles)\n", r->bound,
            100.0 * r->bound_utilization, 100.0 * r->roofline, (unsigned long long)r->ideal_cycles);
  fclose(f);
  return buf;
}
