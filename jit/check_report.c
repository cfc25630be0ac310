/* The check's line for a reader about a variant's run: what the cycle figure
 * is, what bounds it, and what it leaves out, so that nobody takes a figure
 * for the kernel's time when part of the work is not in it. */
#include <stdio.h>
#include <string.h>

#include "jit/check.h"

/* What the kernel's bound is made of, by its unit (jit/kernel_bound.c). */
static const char *bound_what(const char *unit) {
  if (!strcmp(unit, "nu")) return "its MACs on the NU";
  if (!strcmp(unit, "ddr")) return "its arrays through DDR once";
  return "unknown";
}

void check_summary(const Kernel *ir, CheckResult *r) {
  StrBuf sb;
  sb_init(&sb);
  if (!r->sim_cycles) {
    sb_puts(&sb, "no cycle figure: the variant calls no intrinsic, so all of it runs on the host");
  } else {
    sb_printf(&sb, "sim: %llu cycles, bound by %s (busy %.1f%%), roofline %.1f%% (the kernel's bound: %llu cycles, %s), DMA %llu bytes (%llu to or from DDR), on-chip peak %llu bytes",
              (unsigned long long)r->sim_cycles, r->bound, 100.0 * r->bound_utilization, 100.0 * r->roofline,
              (unsigned long long)r->ideal_cycles, bound_what(r->ideal_unit),
              (unsigned long long)r->dma_bytes, (unsigned long long)r->ddr_bytes, (unsigned long long)r->onchip_peak);
    /* work left on the CU (past issuing), where it is not what bounds the run */
    if (strcmp(r->bound, "cu") && r->cu_utilization >= 0.05)
      sb_printf(&sb, "; the CU busy %.1f%% of the cycles", 100.0 * r->cu_utilization);
    if (r->host_onchip || r->host_ddr)
      sb_printf(&sb, "; host code touched %llu on-chip and %llu ddr elements itself (in the figure)",
                (unsigned long long)r->host_onchip, (unsigned long long)r->host_ddr);
    if (r->fallbacks)
      sb_printf(&sb, "; %llu call%s of %s ran the nest as written instead (operands outside its domain: a fallback)",
                (unsigned long long)r->fallbacks, r->fallbacks == 1 ? "" : "s", r->fallback_op);
    int packed = 0;
    for (const Param *p = ir->params; p; p = p->next)
      if (p->buf && p->buf->layout) sb_printf(&sb, "%s%s", packed++ ? ", " : "; leaves out packing ", p->buf->name);
    if (packed) sb_printf(&sb, " into %s (the caller's %s_pack_*)", packed > 1 ? "their layouts" : "its layout", ir->name);
  }
  snprintf(r->summary, sizeof r->summary, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
}
