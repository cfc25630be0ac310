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
  fclose(f);
  return buf;
}
