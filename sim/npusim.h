/* libnpusim: the NPU simulator. Depends on nothing of the generator; its only
 * shared header is npu_intrinsics.h (the ABI it implements).
 *
 * Typical run:
 *   NpuTarget t;  npusim_target_default(&t);   // or npusim_target_load()
 *   NpuSim *sim = npusim_new(&t);
 *   npusim_bind(sim);            // intrinsics called on this thread use sim
 *   kernel(A, B, C);             // emitted code calling npu_* intrinsics
 *   npusim_finish(sim);          // end of run: checks every DMA was waited
 *   npusim_unbind();
 *   if (npusim_failed(sim)) puts(npusim_error(sim));
 *   NpuSimReport r; npusim_report(sim, &r);
 *   npusim_free(sim);
 *
 * The one piece of global state: emitted code calls intrinsics as plain
 * functions with no context argument, so each thread has a "current
 * simulator" set by npusim_bind(). Everything else lives in the NpuSim.
 * An intrinsic called with no simulator bound prints "file:line: intrinsic:
 * called with no simulator bound ..." on stderr and aborts (its result
 * would not exist; docs/npu-model.md).
 */
#ifndef NPUSIM_H
#define NPUSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One intrinsic symbol the JIT binds for emitted code. */
typedef struct {
  const char *name;
  const void *addr;
} NpuSimSymbol;

/* The table of every intrinsic symbol libnpusim implements (the `_at`
 * functions of npu_intrinsics.h). */
const NpuSimSymbol *npusim_symbols(size_t *count);

/* ---- target description (an INI file under targets/) ---- */
#define NPUSIM_MAX_VU 16
#define NPUSIM_MAX_DMA 16
/* A target file larger than this is refused (a device such as /dev/zero
 * never ends): the same 16 MiB as a kernel file. */
#define NPUSIM_MAX_TARGET_BYTES (16 << 20)

typedef struct {
  char name[64];
  /* memory levels: bandwidth in bytes/cycle, latency in cycles */
  int64_t ddr_bandwidth, ddr_latency;
  int64_t dm_size, dm_bandwidth, dm_latency;
  /* NU */
  int64_t nu_ib_size, nu_wb_size, nu_ob_size;
  int64_t nu_macs_int8, nu_macs_fp32; /* MACs per cycle */
  int64_t nu_overhead;                /* cycles per instruction */
  /* VU */
  int64_t vu_count, vu_vm_size, vu_vector_bytes, vu_overhead;
  /* DMA */
  int64_t dma_channels, dma_max_tokens;
  /* CU */
  int64_t cu_issue_cycles, cu_queue_depth;
  int64_t cu_access_cycles; /* per element host code reads or writes (npu_cu_access) */
} NpuTarget;

/* The built-in default target: identical to targets/default.ini. */
void npusim_target_default(NpuTarget *t);
/* Reads an INI target file (at most NPUSIM_MAX_TARGET_BYTES, no NUL byte).
 * Every key must be present once; unknown keys, missing keys and absurd
 * values are errors "path:line: message" written to err. Returns 0 on
 * success, -1 on error (t is then unspecified). */
int npusim_target_load(NpuTarget *t, const char *path, char *err, size_t err_size);
/* Checks a target built in code (ranges as for files); 0 or -1 and err. */
int npusim_target_check(const NpuTarget *t, char *err, size_t err_size);
/* The same from text in memory; `name` is used in messages. */
int npusim_target_parse(NpuTarget *t, const char *text, const char *name, char *err,
                        size_t err_size);

/* ---- simulator ---- */
typedef struct NpuSim NpuSim;

/* The target is copied. NULL on out-of-memory or if the target fails
 * npusim_target_check. */
NpuSim *npusim_new(const NpuTarget *t);
void npusim_free(NpuSim *sim);
/* Records trace events from now on (off by default; costs memory per op).
 * At most NPUSIM_MAX_TRACE_EVENTS are kept; the trace says how many more
 * there were. */
enum { NPUSIM_MAX_TRACE_EVENTS = 1 << 20 };
void npusim_set_trace(NpuSim *sim, bool on);
/* The most intrinsic calls a run may make; the call past it fails the run
 * ("exceeded its step budget"). Default NPUSIM_DEFAULT_STEP_BUDGET. */
#define NPUSIM_DEFAULT_STEP_BUDGET (1ull << 32)
void npusim_set_step_budget(NpuSim *sim, uint64_t calls);
/* Optional: declares a host array. Once any is declared, every DDR operand
 * must lie inside a declared array, and messages name it ("ddr A+0x40"). */
void npusim_add_ddr(NpuSim *sim, const void *addr, size_t bytes, const char *name);

/* The calling thread's current simulator (an intrinsic with none aborts). */
void npusim_bind(NpuSim *sim);
void npusim_unbind(void);
NpuSim *npusim_current(void);

/* End of a run: the control unit waits for all units; a DMA token that was
 * never waited for is an error. Returns 0, or -1 if the simulator failed. */
int npusim_finish(NpuSim *sim);

/* The first error stops the simulation; later intrinsic calls do nothing. */
bool npusim_failed(const NpuSim *sim);
/* "file:line: npu_dma_2d: message", or "" when there was no error. */
const char *npusim_error(const NpuSim *sim);

/* ---- report ---- */
enum { NPUSIM_LEVEL_DDR, NPUSIM_LEVEL_DM, NPUSIM_LEVEL_NU_IB, NPUSIM_LEVEL_NU_WB,
       NPUSIM_LEVEL_NU_OB, NPUSIM_LEVEL_VU_VM, NPUSIM_LEVELS };

typedef struct {
  char name[16];      /* "cu", "nu", "vu0".., "dma0".. */
  uint64_t busy;      /* cycles the unit/channel was working */
  uint64_t ops;       /* instructions / transfers run */
  double utilization; /* busy / total_cycles (0 when total is 0) */
} NpuSimUnitStats;

typedef struct {
  uint64_t total_cycles;
  int unit_count;
  NpuSimUnitStats units[2 + NPUSIM_MAX_VU + NPUSIM_MAX_DMA];
  /* DMA bytes read from / written to each memory level (VU_VM: all cores) */
  uint64_t bytes_read[NPUSIM_LEVELS], bytes_written[NPUSIM_LEVELS];
  /* peak use: highest byte offset touched + 1, per on-chip scope */
  uint64_t peak[NPUSIM_LEVELS];                /* VU_VM: max over cores */
  uint64_t peak_vm[NPUSIM_MAX_VU];
  uint64_t capacity[NPUSIM_LEVELS];            /* DDR: 0 */
  uint64_t macs;                               /* NU multiply-accumulates */
  uint64_t dma_transfers;
  /* elements that host code read or wrote itself, in on-chip scopes and in
   * ddr (npu_cu_access: only code emitted for the check reports them) */
  uint64_t host_onchip, host_ddr;
  /* calls that ran the nest as written instead of an intrinsic (its
   * operands outside its domain: npu_cu_fallback), and the first one's */
  uint64_t fallbacks;
  char fallback_op[64];
  int fallback_line;
  /* What bounds the run: of "nu", "vu" (its busiest core), "dma" (its
   * busiest channel, or port when one is booked longer) and "cu", the one
   * busy longest ("" when nothing ran), and its busy share of total_cycles. */
  char bound[4];
  double bound_utilization;
  /* The run's own work: the fewest cycles this work could take on the target,
   * the largest of the NU's MAC cycles, the VU cycles over all cores and
   * the DDR port's and the on-chip fabric's transfer cycles, without
   * overheads and latencies; roofline = ideal_cycles / total_cycles. The
   * CU's own cycles are no term: work left on the CU is the variant's
   * choice, shown as the "cu" unit's share (units[], bound). The
   * simulator knows the run, not the kernel: npugen's check and tune
   * measure a variant against the kernel's own bound instead (work the
   * variant moves twice or leaves on the CU counts against it there). */
  uint64_t ideal_cycles;
  double roofline;
} NpuSimReport;

void npusim_report(const NpuSim *sim, NpuSimReport *r);
/* Human-readable table of the report; returns malloc'ed text. */
char *npusim_report_text(const NpuSimReport *r);
/* Name of a level ("ddr", "dm", "nu_ib", ...). */
const char *npusim_level_name(int level);

/* ---- trace: Chrome trace-event JSON (opens in Perfetto / chrome://tracing).
 * One track per unit and DMA channel; 1 cycle is shown as 1 microsecond. */
int npusim_write_trace_file(const NpuSim *sim, FILE *f);
/* Writes to path; 0 or -1 with a message in err. */
int npusim_write_trace(const NpuSim *sim, const char *path, char *err, size_t err_size);

#endif
