/* A seeded random-schedule tester. Each case picks a kernel of a file,
 * applies 1..SG_MAX_STEPS random primitives with random (mostly plausible,
 * sometimes bad) arguments, chosen by looking at the variant's current IR.
 * A case must end one of two ways: a step is refused with an error message,
 * or every step applies and the emitted C passes the differential check
 * against the kernel as written, with every marked loop (parallel,
 * vectorize, bind) also run reversed and odd iterations first
 * (check_run_orders). About a third of the cases set a mark early and
 * follow it with other steps, which must keep it. Splits of loops near
 * their counter type's limit (narrow counters, ends near INT_MAX:
 * fuzz/kernels/near_limits.c) mostly leave a guarded tail, and fuses
 * prefer pairs of narrow counters, whose product passes their type.
 * Anything else is a failure, and so is an
 * applied variant that fails the tester's own checks: every index provably
 * in bounds (ir_check_bounds), constant loop bounds that fit the counter's
 * type, no absurdly long loop, deterministic emission, and optionally gcc's
 * strict flags.
 *
 * Used in-process by tests/test_sched_random.c and, with a process per case,
 * by fuzz/fuzz_schedules.c. No global state: everything lives in SgFile and
 * SgCase. */
#ifndef NPG_FUZZ_SCHED_GEN_H
#define NPG_FUZZ_SCHED_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

enum { SG_MAX_STEPS = 6 };

typedef enum {
  SG_PASSED,   /* every step applied; the variant matched the reference */
  SG_REFUSED,  /* a step was refused with an error message, or the check
                  would pass its limits (not run) */
  SG_INTERNAL, /* refused, but with "internal error: ..." (an npugen bug) */
  SG_FAILED,   /* miscompile, refusal without message, bad emitted C, ... */
  SG_OUTCOMES
} SgOutcome;

const char *sg_outcome_name(SgOutcome o);

/* The primitives the generator draws from (index = SgCase.prims[] value). */
int sg_prim_count(void);
const char *sg_prim_name(int i);

/* One kernel file: its parsed module (re-parsed when the IR arena of many
 * cases has grown large) and its reference compiled once. */
typedef struct SgFile SgFile;
SgFile *sg_file_open(const char *path, char *err, size_t err_size);
void sg_file_close(SgFile *f);
const char *sg_file_path(const SgFile *f);
/* The current module (a re-parse replaces it between cases). */
const Module *sg_file_module(const SgFile *f);

typedef struct {
  SgOutcome outcome;
  uint64_t seed;
  const char *file;       /* the kernel file's path (owned by the SgFile) */
  char kernel[128];
  char variant[160];
  char *schedule;         /* "#pragma npu schedule(K, V)\n#pragma npu ...\n" */
  char *message;          /* refusal diagnostics, or why the case failed */
  char *emitted;          /* the emitted C, when it got that far */
  int prims[SG_MAX_STEPS];/* primitive index of each step tried */
  int ntried, napplied;
  double seconds;         /* wall time of the case */
} SgCase;

/* Knobs of the generator; sg_default_options() gives the test's values. */
typedef struct {
  /* Valid unrolls stay within these: at most max_copies copies of the body,
   * adding at most max_new_leaves leaf statements (larger valid factors are
   * scaled down; invalid ones such as 0, -1 or 65..256, above the unroll
   * limit, are kept). The isl legality proof slows down steeply with
   * copies and statements. */
  int max_copies, max_new_leaves;
  /* When set (e.g. "gcc"), the emitted C of every passing variant must also
   * compile with `CC -std=c99 -Wall -Wextra -pedantic -Werror` (DESIGN.md
   * section 6). A process per variant: for long runs, not the test. */
  const char *strict_cc;
  /* When > 0, schedules are planned, emitted and simulated for the default
   * target with this many DMAs in flight at most (dma.max_tokens): the
   * emitter must keep within it. */
  int max_tokens;
  /* When > 0, each run (the kernel as written's, a variant's) may take at
   * most this many steps (CheckOptions.max_steps); a case past it is a
   * limit, counted as refused, its steps still applied, proven and
   * emitted. 0: the check's own budget. */
  uint64_t max_steps;
} SgOptions;
SgOptions sg_default_options(void);

/* Called before each sched_apply with the case so far (its schedule text
 * already holds the step about to run): a crash inside the step then still
 * leaves a reproducible record with the caller. */
typedef void (*SgStepHook)(void *ctx, const SgCase *c);

/* Runs one case; fills *out (free with sg_case_free). Returns true unless
 * the outcome is SG_FAILED. */
bool sg_run_case(SgFile *f, uint64_t seed, const SgOptions *opt, SgCase *out, SgStepHook hook, void *hook_ctx);
void sg_case_free(SgCase *c);
/* A reproduction: the kernel file's text followed by the case's pragmas;
 * `npugen check` on it shows the failure (except for what only the tester
 * checks: the static bounds check of the variant, gcc's strict flags, and
 * argument strings a pragma cannot spell). malloc'ed. */
char *sg_case_repro(const SgFile *f, const SgCase *c);
/* A full description: file, seed, schedule, message and emitted C. malloc'ed. */
char *sg_case_describe(const SgCase *c);

typedef struct {
  long cases;
  long outcome[SG_OUTCOMES];
  long tried[32], applied[32];   /* per primitive */
  long mark_then_step;           /* checked variants where a mark was followed by another step */
  char *failures;                /* descriptions of failed and internal-error cases (malloc'ed) */
  size_t failures_len;
} SgCounts;

/* Adds a case to the counts; descriptions of failed and internal-error
 * cases are kept in c->failures (the first ones only, to bound memory). */
void sg_counts_add(SgCounts *c, const SgCase *cs);
void sg_counts_free(SgCounts *c);
/* "N cases: passed P, refused R, internal errors I, failed F", the checked
 * variants with a mark and a later step, and per-primitive applied/tried
 * figures. malloc'ed. */
char *sg_counts_summary(const SgCounts *c);

/* The file a case seed runs on (runners agree on it, so a seed names a case). */
int sg_pick_file(uint64_t seed, int nfiles);

#endif
