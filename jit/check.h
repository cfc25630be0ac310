/* Differential check: the kernel as written (the reference) and an emitted
 * variant, both JIT-compiled with libtcc, run on the same seeded random inputs;
 * every output element compared. */
#ifndef NPG_CHECK_H
#define NPG_CHECK_H

#include <stdint.h>

#include "emit/emit.h"
#include "ir/ir.h"
#include "jit/tcc_unit.h"
#include "sim/npusim.h"

/* Input value ranges (docs/check.md): small enough that the suite's integer
 * kernels never overflow. */
#define CHECK_SIGNED_MAX 8   /* signed integers: [-8, 8] */
#define CHECK_UNSIGNED_MAX 16 /* unsigned integers: [0, 16] */
/* Float comparison: |a - b| <= ATOL + RTOL * max(|a|, |b|). */
#define CHECK_RTOL_FLOAT 1e-5
#define CHECK_ATOL_FLOAT 1e-6
#define CHECK_RTOL_DOUBLE 1e-12
#define CHECK_ATOL_DOUBLE 1e-12

/* What one check run may take (docs/limits.md): steps are loop iterations
 * plus statement instances, bounded before the run (ir_count_steps), and
 * intrinsic calls in the simulator; bytes are the arrays check allocates. */
#define CHECK_DEFAULT_MAX_STEPS (1ull << 32)
#define CHECK_DEFAULT_MAX_BYTES (1ull << 30)

typedef struct {
  uint64_t seed;
  const NpuTarget *target;        /* NULL: the default target */
  const char *trace_path;         /* the simulator's timeline goes here; NULL: none */
  uint64_t max_steps, max_bytes;  /* 0: the defaults above */
} CheckOptions;

typedef struct {
  bool pass;
  bool not_run;        /* past the limits: not run, so neither passed nor failed */
  bool exact;          /* every element bit-identical */
  double max_error;    /* max |ref - got| over compared elements */
  long compared;       /* output elements compared */
  char message[1024];  /* why it failed, or "" */
  /* The variant's run in libnpusim. */
  uint64_t sim_cycles, sim_macs, dma_bytes, onchip_peak;
  double nu_utilization;
  char bound[4];             /* NpuSimReport's: the unit busy longest */
  double bound_utilization, roofline;
  uint64_t host_onchip, host_ddr; /* elements host code touched (the check's hooks) */
  char summary[400];         /* check_summary's line */
  EmitOrder order;     /* check_run_orders: the order of the marked loops in the run described */
} CheckResult;

/* The C text of a thunk `void THUNK(void **a)` that calls FN with the
 * kernel's parameters unpacked from a[]. */
char *check_thunk_text(const Kernel *k, const char *fn, const char *thunk);

/* Compiles the module's own source plus one reference thunk per kernel
 * ("npg_ref_<kernel>"). */
TccUnit *check_compile_reference(const Module *m, char *err, size_t err_size);

/* Compiles emitted C (`variant_src`, defining function `fn`) plus its thunk
 * "npg_call_<fn>". */
TccUnit *check_compile_variant(const Kernel *k, const char *variant_src, const char *fn,
                               char *err, size_t err_size);

/* The check, in parts, for several runs of variants against one run of the
 * reference: the limits (false, r says why, when past them: the run is not
 * started), reference kernel k's run (from ref) on o->seed's inputs (false
 * with r->message when it fails), and variant fn's run (from var, whose IR
 * is `ir`) on the same inputs, compared with it. Parameters with a new
 * layout are packed with the variant's own VARIANT_pack_BUF before its run
 * and unpacked after it, so outputs are compared logically; the variant
 * runs bound to a simulator of o->target. */
typedef struct {
  void **args; /* the reference's arguments after its run */
  int n;
} CheckReference;
bool check_within_limits(const Kernel *k, const Kernel *ir, const CheckOptions *o, CheckResult *r);
bool check_reference_run(const Kernel *k, TccUnit *ref, const CheckOptions *o, CheckReference *out, CheckResult *r);
void check_variant_run(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                       const CheckOptions *o, CheckResult *r);
void check_reference_free(CheckReference *c);

/* jit/check_report.c: r's run in one line for a reader (r->summary): the
 * cycles, the unit that bounds them and the roofline, what host code did
 * and what the figure leaves out; or that a variant without intrinsics has
 * no cycle figure. `ir` is the variant's IR. */
void check_summary(const Kernel *ir, CheckResult *r);

/* jit/check_orders.c. Orders as bits: 1u << EmitOrder. */
#define CHECK_ORDERS_ALL ((1u << EMIT_ORDERS) - 1)
/* Checks unit u's variant (of reference kernel k) once per order in
 * `orders` (0: the source order alone), emitting its C in each, with the
 * check's hooks on host code's accesses (EmitUnit.cu_hooks). An order whose
 * C is the same as one run already (no marked loop was permuted) is not
 * run again. Stops at the first run that fails or is not run, and r is
 * that run's (its message names a permuted order); else r is the first
 * run's, the one that writes o->trace_path. */
void check_run_orders(const Kernel *k, const EmitUnit *u, TccUnit *ref, unsigned orders,
                      const CheckOptions *o, CheckResult *r);

#endif
