/* npugen: C kernels + schedules -> readable C99 calling NPU intrinsics.
 *
 * The public C API. A session holds one kernel file: its parsed IR, its
 * variants (each kernel as written, later each schedule), their emitted C,
 * and JIT-compiled code to run them. Every string returned is owned by the
 * session (or the JIT handle) and lives until it is closed. Every call
 * refuses a NULL argument (except where one is documented): it returns its
 * failure value (NULL, false, -1) and, given a session, adds the error
 * "call: argument is NULL" to npg_errors. */
#ifndef NPUGEN_H
#define NPUGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUGEN_VERSION_STRING "0.1.0"

/* Input files (kernel, schedule, target) larger than this are refused; the
 * reading stops there, so a device such as /dev/zero is refused at once. */
#define NPG_MAX_INPUT_BYTES (16 << 20)

typedef struct NpgSession NpgSession;
typedef struct NpgJit NpgJit;

/* Parse and check a kernel file. Never NULL; see npg_error_count. */
NpgSession *npg_open_file(const char *path);
NpgSession *npg_open_string(const char *name, const char *src, size_t len);
/* The same for an NPU target other than the default: an INI file in
 * targets/default.ini's format (NULL: the default). Schedules are planned for
 * it (scope sizes for placement, VU cores for bind, DMA channels) and
 * variants simulated on it. A target that cannot be read is an error. */
NpgSession *npg_open_file_for_target(const char *path, const char *target_ini);
NpgSession *npg_open_string_for_target(const char *name, const char *src, size_t len, const char *target_ini);
void npg_close(NpgSession *s);

/* Errors, rendered as gcc does: "file:line:col: error: ...", source line, caret. */
int npg_error_count(const NpgSession *s);
const char *npg_errors(NpgSession *s);

/* Variants: each one an emitted function. */
int npg_variant_count(const NpgSession *s);
const char *npg_variant_name(const NpgSession *s, int variant);
int npg_variant_index(const NpgSession *s, const char *name); /* -1 if none */
/* For a name npg_variant_index does not know: "no variant named 'x' in
 * FILE (variants: a, b); did you mean 'b'?" into msg. */
void npg_variant_unknown(const NpgSession *s, const char *name, char *msg, size_t msg_size);
/* <variant>.c, which includes "<variant>.h" (so write both into one
 * folder; npg_jit_variant compiles the C without that line) */
const char *npg_emit_source(NpgSession *s, int variant);
const char *npg_emit_header(NpgSession *s, int variant); /* <variant>.h */
const char *npg_dump_ir(NpgSession *s, int variant);
/* The lowered IR (docs/lowering.md): the variant's DMA starts and waits,
 * tokens and views, as emit/ prints them. */
const char *npg_dump_ir_lowered(NpgSession *s, int variant);

/* The variant's schedule as applied (one step a line), NULL for a kernel as
 * written; and the IR after each of its steps. */
const char *npg_variant_schedule(const NpgSession *s, int variant);
const char *npg_dump_ir_steps(NpgSession *s, int variant);

/* More variants from a file (or text) of `#pragma npu` lines only. Variants
 * that apply become new variants; refusals are errors (npg_errors). */
bool npg_add_schedule_file(NpgSession *s, const char *path);
bool npg_add_schedule_string(NpgSession *s, const char *name, const char *src, size_t len);

/* Building a variant step by step: the same primitives as the pragmas,
 * checked the same way. Each call returns false when the step is refused
 * (the reason is in npg_errors); later calls then do nothing, and
 * npg_sched_end returns -1. Otherwise npg_sched_end adds the variant and
 * returns its index. Names are loops, statements and new loop names. */
typedef struct NpgSched NpgSched;
NpgSched *npg_sched_begin(NpgSession *s, const char *kernel, const char *variant);
bool npg_sched_split(NpgSched *h, const char *loop, long long factor, const char *outer, const char *inner);
bool npg_sched_fuse(NpgSched *h, const char *outer, const char *inner, const char *fused);
bool npg_sched_merge(NpgSched *h, const char *first, const char *second);
bool npg_sched_fission(NpgSched *h, const char *loop, const char *after_statement);
bool npg_sched_reorder(NpgSched *h, const char *const *loops, int n);
bool npg_sched_tile(NpgSched *h, const char *x, const char *y, long long x_factor, long long y_factor,
                    const char *xo, const char *yo, const char *xi, const char *yi);
bool npg_sched_unroll(NpgSched *h, const char *loop, long long factor); /* 0: fully */
bool npg_sched_vectorize(NpgSched *h, const char *loop);
bool npg_sched_parallel(NpgSched *h, const char *loop);
bool npg_sched_loop_partition(NpgSched *h, const char *loop, const long long *points, int n);
bool npg_sched_compute_at(NpgSched *h, const char *statement, const char *loop);
bool npg_sched_reverse_compute_at(NpgSched *h, const char *statement, const char *loop);
bool npg_sched_compute_inline(NpgSched *h, const char *statement);
bool npg_sched_reverse_compute_inline(NpgSched *h, const char *statement);
bool npg_sched_decompose_reduction(NpgSched *h, const char *init_statement, const char *loop);
bool npg_sched_annotate_int(NpgSched *h, const char *target, const char *key, long long value);
bool npg_sched_annotate_str(NpgSched *h, const char *target, const char *key, const char *value);
/* Any primitive by its pragma text, "buffer_split(W, 0, 4)": parsed exactly
 * as `#pragma npu buffer_split(W, 0, 4)` would be. */
bool npg_sched_step(NpgSched *h, const char *call);
/* transform_layout(buffer, indices, map[, pad_value]) with the map's two
 * tuples as C text: ("A", "(i, j)", "(i / 4, j, i % 4)", "0"); pad_value may
 * be NULL. */
bool npg_sched_transform_layout(NpgSched *h, const char *buffer, const char *indices, const char *map,
                                const char *pad_value);
/* The handle stays valid until npg_close: a step or a second end after
 * the first is an error (npg_errors), and -1. */
int npg_sched_end(NpgSched *h);

/* Differential check of one variant against the kernel as written. */
typedef struct {
  bool pass;
  bool exact;         /* every output element bit-identical */
  double max_error;   /* max |reference - variant| */
  long compared;      /* output elements compared */
  char message[1024]; /* first mismatch or error, "" when it passed */
  /* The variant's run in libnpusim (zero for code without intrinsics). */
  uint64_t sim_cycles;    /* total simulated cycles */
  double nu_utilization;  /* NU busy / total */
  uint64_t dma_bytes;     /* bytes moved by DMA */
  uint64_t ddr_bytes;     /* of them, read from or written to DDR */
  uint64_t onchip_peak;   /* peak on-chip bytes, summed over scopes */
  /* The run for a reader, one line: the cycles, the unit that bounds them
   * (nu, vu, dma or cu) and its busy share, the roofline (the kernel's own
   * bound on the target, over the cycles taken: docs/check.md), the
   * elements host code touched itself and what the figure leaves out
   * (docs/check.md); for a variant without intrinsics, that it has no
   * cycle figure. "" when the check did not get to run the variant. */
  char summary[1600];
  /* The order of the run described (NPG_ORDER_*): the first that failed,
   * else the first run (the source order, unless it was not asked for). */
  unsigned order;
  /* Output elements compared that are NaN or infinite in the reference:
   * only where the kernel allows them (allow_nonfinite); otherwise the
   * check fails (docs/check.md). */
  long nonfinite;
  /* Intrinsic calls that ran the nest as written instead (the operands
   * outside the intrinsic's domain), and the first one's intrinsic: the
   * summary says so, and --strict fails the variant. */
  uint64_t fallbacks;
  char fallback_op[64];
  /* Default size sets of a kernel with sizes over the step budget: listed
   * in summary as not run, and counted here (the verdict line and the
   * closing line of `npugen check` say so). */
  int size_sets_not_run;
  /* A run past the limits (npg_set_check_limits) was not started: the
   * variant neither passed nor failed, and message says which run. */
  bool not_run;
  /* The variant is a kernel as written and was not run a second time: its
   * emitted C compiled, and the reference's run (its own statements, with
   * their arithmetic checked) is its run; compared is 0. See
   * npg_set_as_written_by_reference. */
  bool by_reference;
} NpgCheckResult;
/* The orders a check runs each marked loop's iterations in (parallel,
 * vectorize, bind(loop, vu)), as bits. A mark says the iterations are
 * independent, so every order must match the kernel as written; the check
 * passes only if all do. A variant without a marked loop runs once.
 * docs/check.md says which loops are not permuted. */
enum {
  NPG_ORDER_SOURCE = 1u << 0,   /* as the loop counts */
  NPG_ORDER_REVERSED = 1u << 1, /* last iteration first */
  NPG_ORDER_ODD_EVEN = 1u << 2, /* iterations 1, 3, 5, ... then 0, 2, 4, ... (counted from 0) */
  NPG_ORDER_ALL = 7u
};
/* Checks in every order of NPG_ORDER_ALL, or those npg_set_check_orders set. */
bool npg_check(NpgSession *s, int variant, uint64_t seed, NpgCheckResult *r);
/* Checks in the orders given (0: the source order alone). */
bool npg_check_orders(NpgSession *s, int variant, uint64_t seed, unsigned orders, NpgCheckResult *r);
/* The orders npg_check runs from now on; 0: NPG_ORDER_ALL, the default. */
void npg_set_check_orders(NpgSession *s, unsigned orders);
/* Changes the session's target (an INI file): variants are simulated on it
 * and later schedules planned for it. Refused (false, npg_errors() says why)
 * when it cannot be read, or when variants are already scheduled and it
 * differs in what they were planned for (scope sizes, VU cores, DMA
 * channels and tokens): open the file for that target instead. The kernel
 * file's schedules are applied when it is opened, so one written for
 * another target (schedule(K, V, TARGET)) is not applied by this call. */
bool npg_set_target(NpgSession *s, const char *path);
/* The target's name ([target] name; "default" for the built-in one): the
 * emitted header comment's "Target:" line for scheduled variants. */
const char *npg_target_name(const NpgSession *s);
/* Emit every array parameter `restrict`, as if the kernel declared each
 * `T A[restrict N]...` (npugen emit --assume-no-alias). Sound only when
 * callers pass arrays that do not overlap: docs/schedules.md. */
void npg_set_assume_no_alias(NpgSession *s, bool on);
/* Every weakening of the verdict is an error (npugen --strict; `#pragma
 * npu strict` in the kernel file does the same): a vectorize on vector
 * memory that stays a hint is an error in npg_errors(), and npg_check fails
 * the variant that holds it. */
void npg_set_strict(NpgSession *s, bool on);
/* npg_check of a kernel as written (the variant without a schedule)
 * compiles its emitted C and takes the reference's run as its run, instead
 * of running it a second time beside the reference (the default) and
 * comparing: its code is the reference's without the checks, so the second
 * run tests only the printer (the test suite runs it for every kernel).
 * npugen check does this unless given --rerun-as-written. A kernel with
 * sizes is run at each of its size sets either way (the reference's runs
 * are at those sizes; docs/check.md). */
void npg_set_as_written_by_reference(NpgSession *s, bool on);
/* Write each checked variant's simulator timeline (Chrome trace JSON) here. */
void npg_set_trace(NpgSession *s, const char *path);
/* What npg_check may spend on one run (docs/limits.md); 0 keeps a default.
 * max_steps bounds loop iterations plus statement instances (counted before
 * the run) and intrinsic calls; max_bytes the arrays the check allocates.
 * Defaults: 2^32 steps, 1 GiB. A run past them is not started. */
void npg_set_check_limits(NpgSession *s, uint64_t max_steps, uint64_t max_bytes);
/* The CPU time (of its own thread, so load does not count) one run of
 * npg_check may take before it is stopped as failed, saying so: a loop
 * that never ends passes the step count. seconds <= 0 keeps the default,
 * 120 s. */
void npg_set_check_cpu_limit(NpgSession *s, double seconds);

/* A variant's run in the simulator alone, for its cost (npugen tune): its
 * emitted C on seeded inputs, without the reference and without comparing
 * outputs, so it says nothing about correctness (npg_check does). True when
 * the run ended cleanly (no hazard, no crash); message says why not. */
typedef struct {
  bool ran;
  char message[1024];
  uint64_t sim_cycles;   /* total simulated cycles (without an intrinsic: the CU's, for its accesses); 0: none */
  uint64_t ideal_cycles; /* the kernel's own bound on the target (its arithmetic at the fastest
                          * unit's peak, or its arrays through DDR once), the same for every variant */
  double roofline;       /* ideal_cycles / sim_cycles */
  char bound[4];         /* "nu", "vu", "dma" or "cu": the unit busy longest */
  double bound_utilization, nu_utilization;
  uint64_t dma_bytes, onchip_peak, macs;
  uint64_t ddr_bytes;    /* of dma_bytes, read from or written to DDR */
  char summary[1600];    /* as NpgCheckResult's */
} NpgSimResult;
bool npg_simulate(NpgSession *s, int variant, uint64_t seed, NpgSimResult *r);

/* Running with your own arrays: args[i] is the i-th parameter's array (in
 * the variant's physical layout: see its pack/unpack helpers), or a
 * pointer to the scalar's value.
 *
 * A variant whose C calls intrinsics (on-chip buffers, tensorize) runs in
 * libnpusim. If this thread has a simulator bound (npusim_bind, sim/npusim.h)
 * npg_jit_run uses it, and reading its errors and report is the caller's
 * job. Otherwise npg_jit_run binds a fresh one on the session's target for
 * the run, with the arrays declared, and returns false with the
 * simulator's message in npg_jit_error on a hazard, an overrun or a DMA
 * never waited for; npg_jit_sim_cycles then gives the run's cycles. A run
 * never "succeeds" with intrinsics that did nothing. */
NpgJit *npg_jit_variant(NpgSession *s, int variant);   /* the emitted C */
NpgJit *npg_jit_reference(NpgSession *s, int variant); /* the kernel as written */
const char *npg_jit_error(const NpgJit *j);            /* NULL if it compiled (and the last run succeeded) */
bool npg_jit_run(NpgJit *j, void **args);              /* false: see npg_jit_error */
/* The simulated cycles of the last npg_jit_run in a simulator of its own;
 * 0 when it ran on the host or in the caller's simulator. */
uint64_t npg_jit_sim_cycles(const NpgJit *j);
void npg_jit_free(NpgJit *j);

/* `npugen intrinsics [NAME]`: every intrinsic (NAME NULL), or NAME alone
 * with its header comment and semantics kernel: its call as npu_intrinsics.h
 * declares it, unit (NU, VU, DMA or CU), operand scopes, constraints, cycle
 * formula on the target (an INI file; NULL: the default) and semantics
 * file. Malloc'ed text (free it); NULL with the reason in err (an unknown
 * NAME: with a did-you-mean) when it cannot be described. */
char *npg_intrinsics_describe(const char *name, const char *target_ini, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif
#endif
