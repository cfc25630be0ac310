/* Differential check: the kernel as written, with checked arithmetic (the
 * reference, jit/ref_run.c), and an emitted variant, both JIT-compiled
 * with libtcc, run on the same seeded random inputs; every output element
 * compared. */
#ifndef NPG_CHECK_H
#define NPG_CHECK_H

#include <stdint.h>

#include "jit/c_text.h"
#include "ir/check_spec.h"
#include "ir/ir.h"
#include "jit/tcc_unit.h"
#include "sim/npusim.h"

/* Input value ranges without `#pragma npu inputs` (docs/check.md): small
 * enough that the suite's integer kernels never overflow. */
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
/* Steps per array access of an NPU variant's host code (jit/check.c):
 * through npu_cu_access it costs some 16 to 50 plain ones (a 1000^3 host
 * matmul over a cache in NU memory: 150 s) */
#define CHECK_CU_ACCESS_STEPS 32
#define CHECK_DEFAULT_MAX_BYTES (1ull << 30)
/* CPU seconds one run (the reference's, a variant's) may use: the step
 * budget is counted before the run, and a loop that never ends (a counter
 * that wraps) would pass it. CPU time, not wall time: load stops no run. */
#define CHECK_DEFAULT_MAX_CPU_SECONDS 120.0
#define CHECK_CPU_SECONDS(o) ((o)->max_cpu_seconds > 0 ? (o)->max_cpu_seconds : CHECK_DEFAULT_MAX_CPU_SECONDS)

typedef struct {
  uint64_t seed;
  const NpuTarget *target;        /* NULL: the default target */
  const char *trace_path;         /* the simulator's timeline goes here; NULL: none */
  uint64_t max_steps, max_bytes;  /* 0: the defaults above */
  double max_cpu_seconds;         /* 0: the default above */
  bool scalar_ends;               /* integer scalars at their types' maximum (check_run_orders' last run) */
  /* The variant is the kernel as written: its code is the reference's
   * without the checks, so the reference's run stands for its run, and it
   * is compiled, not run a second time (npg_set_as_written_by_reference). */
  bool by_reference;
  /* A kernel with sizes runs at the check's own sets (which scale with
   * its work) even where it names sets: the random schedule tester's
   * choice, whose variants may leave the example's 1024 x 512 x 512
   * matmul on the CU (20 s a case at its named sets). */
  bool default_size_sets;
} CheckOptions;

typedef struct {
  bool pass;
  bool not_run;        /* past the limits: not run, so neither passed nor failed */
  bool exact;          /* every element bit-identical */
  double max_error;    /* max |ref - got| over compared elements */
  long compared;       /* output elements compared */
  long nonfinite;      /* of them, NaN or infinite in the reference (allow_nonfinite) */
  char message[1024];  /* why it failed, or "" */
  /* The variant's run in libnpusim. */
  uint64_t sim_cycles, sim_macs, dma_bytes, onchip_peak;
  uint64_t ddr_bytes; /* of dma_bytes, those read from or written to DDR */
  double nu_utilization, cu_utilization; /* cu: issuing, waiting aside, and host code's accesses */
  char bound[4];             /* NpuSimReport's: the unit busy longest */
  double bound_utilization;
  /* the kernel's own bound (jit/kernel_bound.c, the kernel as written at
   * this run's sizes), what bounds it ("nu": its MACs, "ddr": its least
   * traffic), and the roofline: ideal_cycles / sim_cycles */
  uint64_t ideal_cycles;
  char ideal_unit[4];
  double roofline;
  uint64_t host_onchip, host_ddr; /* elements host code touched (the check's hooks) */
  uint64_t fallbacks;        /* intrinsic calls whose nest as written ran instead (npu_cu_fallback) */
  char fallback_op[64];      /* the first one's intrinsic, and its line in the check's C */
  int fallback_line;
  char summary[1600];        /* check_summary's line */
  int sets_not_run;          /* check_run_sizes: default size sets over the step budget, listed and not run */
  bool by_reference;         /* CheckOptions.by_reference: compiled; the reference's run is its run */
  EmitOrder order;     /* check_run_orders: the order of the marked loops in the run described */
} CheckResult;

/* The C text of a thunk `void THUNK(void **a)` that calls FN with the
 * kernel's parameters unpacked from a[]. */
char *check_thunk_text(const Kernel *k, const char *fn, const char *thunk);

/* Compiles the module's own source plus one reference thunk per kernel
 * ("npg_ref_<kernel>"): the kernel as written, for npg_jit_reference. */
TccUnit *check_compile_reference(const Module *m, char *err, size_t err_size);

/* Compiles emitted C (`variant_src`, defining function `fn`) plus its thunk
 * "npg_call_<fn>". */
TccUnit *check_compile_variant(const Kernel *k, const char *variant_src, const char *fn,
                               char *err, size_t err_size);

/* jit/check_inputs.c: the seeded inputs of k's parameters (docs/check.md),
 * in the ranges `specs` give: an array or a pointer to the scalar's value
 * per parameter, and a last NULL slot. The same values at every call; NULL
 * when out of memory. check_free_args frees them. */
void **check_make_inputs(const Kernel *k, const CheckSpec *specs, uint64_t seed, bool scalar_ends);
void check_free_args(void **args, int n);

/* One run of a kernel's reference: its arguments after the run (outputs
 * included), on the inputs of `seed` within `specs`' ranges. */
typedef struct {
  void **args;
  int n;
  uint64_t seed;
  const CheckSpec *specs;
  bool scalar_ends; /* its integer scalars without a range at their types' maximum */
} CheckReference;
void check_reference_free(CheckReference *c);

/* jit/ref_run.c: the instrumented reference of each kernel of a module
 * (lower/ref_body.c), compiled on first use, and its runs, one per
 * kernel and seed, kept for every variant checked after. */
typedef struct CheckRefs CheckRefs;
CheckRefs *check_refs_new(const Module *m);
void check_refs_free(CheckRefs *c);
/* Kernel k's reference run on o->seed's inputs, from the kept ones or run
 * now. NULL with r->message when it failed: a check of the reference
 * stopped it (undefined behaviour, "FILE:LINE:COL: error: ... with inputs
 * of seed N"), or an output ended NaN or infinite where the kernel does
 * not allow it; a failure is kept too. Runs are kept while their arrays
 * take at most o->max_bytes together, the newest first. */
const CheckReference *check_refs_run(CheckRefs *c, const Kernel *k, const CheckOptions *o, CheckResult *r);
/* Starts the run check_refs_run(c, k, o, ...) would make, in a thread of
 * its own, unless it is kept; check_refs_run (any next call) waits for it.
 * The caller may run a variant meanwhile: the two are independent. */
void check_refs_start(CheckRefs *c, const Kernel *k, const CheckOptions *o);

/* The check of one variant against the reference's run, in parts: the
 * limits (false, r says why, when past them: the run is not started), and
 * variant fn's run (from var, whose IR is `ir`) on the reference's inputs,
 * compared with it. Parameters with a new layout are packed with the
 * variant's own VARIANT_pack_BUF before its run and unpacked after it, so
 * outputs are compared logically (not at all when ref->args is NULL: a
 * run for its figures, as check_variant_simulate's); the variant runs
 * bound to a simulator of o->target. */
bool check_within_limits(const Kernel *k, const Kernel *ir, const CheckOptions *o, CheckResult *r);
/* The same for a run of the variant alone (npg_simulate: no reference
 * runs): its own steps count, each intrinsic or DMA nest as one call. */
bool check_variant_within_limits(const Kernel *k, const Kernel *ir, const CheckOptions *o, CheckResult *r);
/* Bytes of the arrays a check of variant `ir` allocates, held against the
 * limit: each parameter for the reference and the variant, and a logical
 * copy for a new layout. */
uint64_t check_run_bytes(const Kernel *k, const Kernel *ir);
void check_variant_run(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                       const CheckOptions *o, CheckResult *r);

/* check_variant_run in two halves, so that the reference can run while the
 * variant does (jit/check_orders.c): check_variant_exec runs the variant on
 * the inputs `inputs` names (its args unused) and keeps its arrays in *v;
 * check_variant_compare compares them with ref's run when r still passes
 * (not at all when ref or ref->args is NULL) and frees them. */
typedef struct {
  void **args, **logical; /* the variant's arrays; a new layout's logical copy */
  int n;
} VariantArrays;
void check_variant_exec(const Kernel *k, const Kernel *ir, const CheckReference *inputs, TccUnit *var, const char *fn,
                        const CheckOptions *o, CheckResult *r, VariantArrays *v);
void check_variant_compare(const Kernel *k, const Kernel *ir, const CheckReference *ref, TccUnit *var, const char *fn,
                           CheckResult *r, VariantArrays *v);

/* check_variant_run on the seeded inputs (o->seed, within specs' ranges)
 * without the reference and without comparing:
 * r->pass says the run ended cleanly, r's sim figures say what it took
 * (npugen tune's cost). */
void check_variant_simulate(const Kernel *k, const Kernel *ir, const CheckSpec *specs, TccUnit *var, const char *fn,
                            const CheckOptions *o, CheckResult *r);

/* jit/check_report.c: r's run in one line for a reader (r->summary): the
 * cycles, the unit that bounds them and the roofline, what host code did
 * and what the figure leaves out; or that a variant without intrinsics has
 * no cycle figure. `ir` is the variant's IR. */
void check_summary(const Kernel *ir, CheckResult *r);

/* jit/check_orders.c. Orders as bits: 1u << EmitOrder. */
#define CHECK_ORDERS_ALL ((1u << EMIT_ORDERS) - 1)
/* Checks unit u's variant (of reference kernel k, whose runs refs keeps)
 * once per order in `orders` (0: the source order alone), emitting its C
 * in each, with the check's hooks on host code's accesses
 * (LowerUnit.cu_hooks). An order whose
 * C is the same as one run already (no marked loop was permuted) is not
 * run again. Stops at the first run that fails or is not run, and r is
 * that run's (its message names a permuted order); else r is the first
 * run's, the one that writes o->trace_path. */
/* The run's specs at size set `set` of kernel k: each size's value as a
 * range of one value (`inputs(K, n, v, v)`), in fixed, ahead of rest. */
const CheckSpec *check_size_specs(const Kernel *k, const SizeSet *set, const CheckSpec *rest,
                                  CheckSpec fixed[IR_MAX_SIZES]);
/* check_run_orders for a variant of kernel k (of module m) that has
 * symbolic sizes: at each of its size sets (jit/check_sizes.c). */
void check_run_sizes(const Module *m, const Kernel *k, const LowerUnit *u, unsigned orders, const CheckOptions *o,
                     CheckResult *r);
void check_run_orders(const Kernel *k, const LowerUnit *u, CheckRefs *refs, unsigned orders,
                      const CheckOptions *o, CheckResult *r);

#endif
