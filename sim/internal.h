/* libnpusim internals shared by the sim/ sources. Not installed. */
#ifndef NPUSIM_INTERNAL_H
#define NPUSIM_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "npu_intrinsics.h"
#include "sim/npusim.h"

/* A strided byte region: planes x rows x len bytes; row r of plane p starts at
 * base + p*s2 + r*s1 (strides are >= 0). [base, hi) is its bounding box. Empty
 * when base == hi. */
typedef struct {
  uintptr_t base, hi;
  int64_t len, rows, s1, planes, s2;
  int slot; /* on-chip slot index, or -1 for DDR */
} Region;

/* A call site; file is interned in the simulator (outlives the caller's unit). */
typedef struct {
  const char *file;
  int line;
} Site;

/* An issued DMA whose token has not been waited for. */
typedef struct {
  npu_token_t token;
  int ch;
  Region src, dst;
  uint64_t end;
  Site site;
  const char *op;
} PendingDma;

/* A shared transfer port (DDR, or the on-chip fabric): the cycles it is
 * booked, as sorted disjoint [lo, hi) windows. A transfer takes the
 * earliest free window from when it can start, so one that waits (for an
 * interlock) does not hold back a later one on another channel. */
typedef struct {
  uint64_t lo, hi;
} Busy;
typedef struct {
  Busy *v;
  int n, cap;
} Port;

/* An on-chip access of a compute op that may still be running (interlocks). */
typedef struct {
  Region r;
  bool write;
  uint64_t end;
} Inflight;

/* One unit's or DMA channel's timeline. ring holds the end times of its last
 * queue_depth instructions (in order, so non-decreasing). */
typedef struct {
  uint64_t free_at, busy, ops;
  uint64_t *ring;
  int ring_n, ring_head;
} Timeline;

typedef struct {
  int track;
  uint64_t start, dur;
  const char *name;
  Site site;
  char detail[120];
} TraceEvent;

typedef struct {
  uintptr_t lo, hi;
  char *name;
} DdrArray;

/* On-chip slots: dm, nu_ib, nu_wb, nu_ob, then vu_vm of each core. */
enum { SLOT_DM, SLOT_IB, SLOT_WB, SLOT_OB, SLOT_VM0 };

typedef struct {
  unsigned char *base;
  uint64_t cap, span; /* span = cap + guard: addresses in the guard are "beyond capacity" */
  uint64_t peak;
  int scope, core;
} Slot;

/* Tracks: 0 = cu, 1 = nu, 2 .. 2+vu_count-1 = vu cores, then DMA channels. */
#define TRACK_CU 0
#define TRACK_NU 1
#define TRACK_VU(s, c) (2 + (c))
#define TRACK_DMA(s, ch) (2 + (int)(s)->t.vu_count + (ch))

struct NpuSim {
  NpuTarget t;
  unsigned char *mem_raw;
  uintptr_t mem_lo, mem_hi;
  Slot slots[SLOT_VM0 + NPUSIM_MAX_VU];
  int nslots;

  uint64_t cu_time, cu_busy, cu_ops;
  uint64_t host_access[2]; /* elements host code touched (npu_cu_access): [0] on-chip, [1] ddr */
  /* npu_cu_access's region: here, not on its stack, where ASan set up and
   * cleared its shadow at every one of millions of calls */
  Region cu_access;
  uint64_t fallbacks;      /* npu_cu_fallback calls, and the first one's intrinsic and line */
  char fallback_op[64];
  int fallback_line;
  /* the work itself, without overheads and latencies: the roofline's terms */
  uint64_t nu_work, vu_work, ddr_work, dm_work;
  Timeline tl[2 + NPUSIM_MAX_VU + NPUSIM_MAX_DMA]; /* indexed by track; [0] unused */
  Port ddr_port, dm_port;

  PendingDma *pending;
  int npending;
  npu_token_t next_token;

  Inflight *inflight;
  int ninflight, inflight_cap;

  bool failed;
  char err[1024];
  uint64_t calls, step_budget; /* intrinsic calls so far, and the most allowed */

  char **files;
  int nfiles;
  const char *last_file_key;
  const char *last_file;

  bool tracing;
  TraceEvent *ev;
  size_t nev, ev_cap;
  uint64_t ev_dropped; /* events past NPUSIM_MAX_TRACE_EVENTS, or lost to out-of-memory */

  DdrArray *ddr;
  int nddr;

  uint64_t bytes_read[NPUSIM_LEVELS], bytes_written[NPUSIM_LEVELS];
  uint64_t macs, transfers;
};

/* slot_level and npusim_level_name use a scope as a level. */
_Static_assert((int)NPUSIM_LEVEL_DDR == (int)NPU_DDR &&
                   (int)NPUSIM_LEVEL_VU_VM == (int)NPU_VU_VM &&
                   (int)NPUSIM_LEVELS == (int)NPU_SCOPE_COUNT,
               "levels are scopes");

/* Tracks in use: cu, nu, the VU cores, the DMA channels. */
static inline int sim_ntracks(const NpuSim *s) {
  return 2 + (int)s->t.vu_count + (int)s->t.dma_channels;
}

/* sim.c */
/* Stops the program (stderr + abort) when no simulator is bound: intrinsic
 * op, called at file:line, has nothing to run in (docs/npu-model.md). */
void sim_require_bound(const char *file, int line, const char *op);
/* The bound simulator (or the stop above), counting the call against the
 * step budget, with the call's site; NULL when it has failed. */
NpuSim *sim_enter(const char *file, int line, const char *op, Site *site);
Site sim_site(NpuSim *s, const char *file, int line);
void sim_fail(NpuSim *s, Site site, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *scope_name(int scope);
int slot_level(const NpuSim *s, int slot);
/* Every timeline's end: when everything issued so far has finished. */
uint64_t sim_idle_at(const NpuSim *s);

/* region.c */
/* Builds a region and checks it: inside one scope and its capacity, in scope
 * `want` (-1: any scope; NPU_VU_VM with want_core >= 0: that core), aligned to
 * `align` bytes. On error records it and returns false. */
bool region_make(NpuSim *s, Site site, const char *op, const char *what, const void *ptr,
                 int64_t len, int64_t rows, int64_t s1, int64_t planes, int64_t s2, int want,
                 int want_core, int align, Region *out);
bool region_empty(const Region *r);
bool region_overlap(const Region *a, const Region *b);
/* "nu_ib[0x40, 0x80)" or "ddr A[0x0, 0x400)" into buf. */
const char *region_str(const NpuSim *s, const Region *r, char *buf, size_t n);
int region_scope(const NpuSim *s, const Region *r);
int region_core(const NpuSim *s, const Region *r);

/* hazard.c: token discipline against un-waited DMAs, and interlock times */
bool hazard_check_read(NpuSim *s, Site site, const char *op, const char *what, const Region *r);
bool hazard_check_write(NpuSim *s, Site site, const char *op, const char *what,
                        const Region *r);
/* The earliest time an op with these reads/writes, issued at the CU's current
 * time, may start: that time or the end of an in-flight compute op it meets.
 * Drops the in-flight entries that ended by then on the way (no op issued later
 * can wait for them), so no separate pruning pass runs per intrinsic. */
uint64_t interlock_ready(NpuSim *s, const Region *reads, int nreads, const Region *writes,
                         int nwrites);
/* Records a compute op's access to r that lasts until `end`. */
void inflight_add(NpuSim *s, const Region *r, bool write, uint64_t end);
void inflight_prune(NpuSim *s); /* drops every entry that ended by the CU's time */

/* timeline.c */
/* The CU issues one instruction to timeline `track`: stalls while its queue is
 * full, then spends the issue cost. Returns the issue time. */
uint64_t cu_issue(NpuSim *s, int track, Site site);
void cu_issue_sync(NpuSim *s); /* issue cost of wait/barrier */
void cu_wait_until(NpuSim *s, uint64_t t, Site site, const char *what);
void tl_run(NpuSim *s, int track, uint64_t start, uint64_t end);
uint64_t ceil_div_u64(uint64_t a, uint64_t b);

/* A compute op's operand for unit_exec. */
enum { OP_READ = 1, OP_WRITE = 2 };
typedef struct {
  const char *name;
  Region r;
  int mode;
} Operand;
/* Checks hazards, issues the op to `track` and books `dur` cycles on it once
 * the unit is free and its operands are ready. False on a hazard (recorded). */
bool unit_exec(NpuSim *s, Site site, const char *op, int track, const Operand *ops, int n,
               uint64_t dur, const char *detail);

/* vu.c: a VU op's operands, each a box in the VM of the core that runs
 * the op: len bytes per row, rows rows, s1 bytes from row to row. */
typedef struct {
  const char *name;
  const void *p;
  int64_t len, rows, s1;
  int esz, mode;
} VuArg;
/* A 1-D op over n elements (work_bytes of work): entered and issued as
 * sim_vu_issue does, with the trace's "n=..." (sim/vu.c). */
bool sim_vu_n_issue(const char *file, int line, const char *op, int n, const VuArg *v, int nv, uint64_t work_bytes);
/* Issues a VU op of work_bytes of work (overhead + work / vector_bytes
 * cycles) on the core its operands are in; false on an error (recorded). */
bool sim_vu_issue(NpuSim *s, Site site, const char *op, const VuArg *v, int nv, uint64_t work_bytes,
                  const char *detail);
/* The bound simulator for VU op `op` with a size n >= 0; NULL when there
 * is none, it has failed, or n < 0 (recorded). */
NpuSim *sim_vu_enter(const char *file, int line, const char *op, int n, Site *site);
/* A 2-D box of rows x cols over two operands with leading dimensions
 * ld1, ld2 (named n1, n2 in messages and traces). */
typedef struct {
  int rows, cols, min_cols;
  const char *n1, *n2;
  int ld1, ld2;
} VuBox;
/* A 2-D box op (rows x cols elements of 4 bytes of work): entered, its
 * shape checked (cols >= min_cols, both leading dimensions >= cols when
 * rows > 1), its operands issued; false when the simulator stopped it (or
 * none is bound), and then the op computes nothing (sim/vu.c). */
bool sim_vu_box_issue(const char *file, int line, const char *op, const VuBox *b, const VuArg *v, int nv);

/* trace.c */
void trace_event(NpuSim *s, int track, uint64_t start, uint64_t dur, const char *name,
                 Site site, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* "cu", "nu", "vu<core>" or "dma<channel>" into buf. */
void track_name(const NpuSim *s, int track, char *buf, size_t n);

#endif
