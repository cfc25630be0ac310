/* npugen tune: automatic schedules, with the simulator as the cost model.
 *
 * A search space is a list of sketches (tune/sketch_*.c): each is a
 * structure of schedule steps found from the kernel's shape (an NU
 * contraction, a loop over rows or channels spread over the VU cores) with
 * knobs (tile sizes, loop order, where each operand is cached, which
 * buffers are double-buffered, which loops vectorize). A candidate is one
 * choice per knob; it renders as `#pragma npu` lines. The engine proves
 * each step, so an illegal candidate is refused at the step that makes it
 * illegal; a legal one is simulated (tune/trial.c) and costs its cycles,
 * or, in a space of host-only sketches, is compiled with the system C
 * compiler and costs its measured time (tune/host_timer.c). */
#ifndef NPG_TUNE_H
#define NPG_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "jit/kernel_bound.h"
#include "npugen.h"
#include "sim/npusim.h"

enum { TUNE_MAX_KNOBS = 24, TUNE_MAX_CHOICES = 24, TUNE_MAX_ARRAYS = 24, TUNE_MAX_SKETCHES = 8 };

typedef struct {
  char name[32];
  int n;                                /* choices */
  long long val[TUNE_MAX_CHOICES];      /* the choice's value (a size, a flag, an index) */
  int seed;                             /* the structured seed's choice */
} TuneKnob;

typedef struct TuneSketch TuneSketch;
/* The genome's sketch that is the kernel as written: no step at all. */
enum { TUNE_AS_WRITTEN = -1 };
/* One point of the space: a sketch (or TUNE_AS_WRITTEN) and a choice per knob. */
typedef struct {
  int sketch;
  int choice[TUNE_MAX_KNOBS];
} TuneGenome;

struct TuneSketch {
  char name[80];  /* "nu:npu_nu_matmul_i8", "vu:rows" */
  int nknobs;
  TuneKnob knobs[TUNE_MAX_KNOBS];
  /* The schedule's steps, one `#pragma npu` line each, into sb (without the
   * schedule(...) line). */
  void (*render)(const TuneSketch *sk, const int *choice, StrBuf *sb);
  /* A cheap estimate of the cycles (max of the units' work and the DMA
   * bytes over the bandwidth, at least): 0 when the sketch has none,
   * UINT64_MAX for a candidate that cannot run (its buffers do not fit). */
  uint64_t (*estimate)(const TuneSketch *sk, const int *choice, const NpuTarget *t);
  void *data; /* the sketch's own facts about the kernel */
  void (*free_data)(void *data); /* frees data; NULL: free() */
};

/* tune/kernel_shape.c: what the sketches need to know of a kernel. */
typedef struct {
  const char *name;
  int ndim;
  int64_t shape[IR_MAX_DIMS];
  int elem_size;
  bool is_const, is_param; /* not a parameter: a local array */
} TuneArray;
typedef struct {
  TuneArray arr[TUNE_MAX_ARRAYS];
  int narr;
  /* The chain of loops from the top, each the only statement of the
   * one around it (the last may hold several). */
  const Stmt *chain[IR_MAX_DIMS];
  int64_t trip[IR_MAX_DIMS];
  int nchain;         /* 0: the body is not one loop nest */
  int ntop;           /* the body's statements (declarations aside) */
} TuneShape;
/* false when the body is not one loop nest (nchain 0) */
bool tune_shape(const Kernel *k, TuneShape *sh);
/* The first statement of a block (or the statement itself) that is not a
 * declaration, or NULL. */
const Stmt *tune_first_stmt(const Stmt *block);
/* The loop of k named name (its first, in statement order), or NULL. */
const Stmt *tune_loop_named(const Kernel *k, const char *name);
/* A loop's constant trip count, any step, 0 when it runs no iteration
 * (ir_trip_count); -1 when lo or hi is not constant. */
int64_t tune_trip(const Stmt *loop);
/* The tile sizes worth trying for an extent: divisors and round sizes
 * (tails included), at most max of them, ascending. */
int tune_tile_sizes(int64_t extent, int64_t lo, long long *out, int max);

/* tune/contraction.c: spatial loops around `init: C[..] = ..;
 * for k { update: C[..] += A.. * B.. }` (a matmul, a batched matmul, a
 * pointwise convolution written as one; with one spatial loop, a GEMV). */
typedef struct {
  const char *i, *j, *k;      /* the last two spatial loops (j NULL: a GEMV, i its only one) and the reduction loop */
  const char *init, *top;     /* the init's statement name; the outermost loop */
  const char *c, *a, *b;      /* output and the two inputs, in the update's order */
  int64_t m, n, kk, batch;    /* extents; batch: the loops around i */
  const char *batch_loop;     /* the one loop around i, or NULL */
  int elem_a, elem_b, elem_c;
  bool fp32;
  bool a_uses_i, b_uses_i;    /* does the input's index use i (else it is the same for every i) */
} TuneContraction;
/* false with why (naming the loop or statement that does not fit) */
bool tune_contraction(const TuneShape *sh, TuneContraction *f, char *why, size_t n);
/* What an NU matmul intrinsic computes, from its semantics kernel (file's
 * text): `C[i][j] += A[i][k] * B[k][j]`, or B[j][k] (bt), C in the NU's
 * output buffer, of int8 operands or fp32 ones. false: it is no NU
 * matmul. Its name says nothing: a user's own file is read alike. */
typedef struct {
  bool fp32, bt;
} TuneNuMatmul;
bool tune_nu_matmul(const char *file, const char *src, size_t len, TuneNuMatmul *mm);
/* The semantics kernel (malloc'ed, its length in *len, its path in path)
 * of intrinsic name when its `scopes:` line puts an operand in the NU's
 * output buffer (an NU op, whatever its name), else NULL. */
char *tune_nu_semantics(const char *name, char *path, size_t path_size, size_t *len);
/* "loop j (line 9)", "statement s1 (line 12)": how messages name st. */
void tune_stmt_name(const Stmt *st, char *out, size_t n);

/* A probe's outcome, by the hash of its text (the prefix and the steps). */
typedef struct {
  uint64_t hash;
  const Kernel *k;  /* the IR after the steps, or NULL: refused */
  const char *why;  /* the refusal (in the space's arena) */
} TuneProbeMemo;

/* The space of one kernel: its sketches. */
typedef struct {
  const char *kernel, *variant; /* variant: "<file>_<kernel>_tuned" (tune_variant_name) */
  NpgSession *s;                       /* the kernel file, for probes */
  TuneShape shape;
  TuneSketch sketch[TUNE_MAX_SKETCHES];
  int nsketch;
  /* The kernel as written as a candidate (no knob, no step): a host
   * run's first trial, timed as the others, so a candidate must beat it
   * to be written (tune_search). Not counted in nsketch. */
  TuneSketch as_written;
  bool host;        /* host-only sketches: the cost is measured time on this CPU */
  double flops;     /* host: the kernel's floating-point (or integer) operations, for GFLOP/s */
  uint64_t ideal;   /* the kernel's own bound on the target (kernel_bound): the roofline's cycles */
  char ideal_unit[4]; /* what sets it: "nu", "vu" (arithmetic) or "ddr" (least traffic) */
  char notes[4096]; /* why a sketch did not apply, a line each */
  /* Steps every sketch's candidates start with (`expand(acc)` lines):
   * the NPU sketches read the kernel's shape after them when the kernel
   * as written fits none (scalar locals, tune/space.c); "" otherwise. */
  char prefix[512];
  /* The kernel's array form (its IR, NULL when it has none, and its steps),
   * found once for the NPU round and host:cc's (tune/space.c). */
  bool array_found;
  const Kernel *array_ir;
  char array_prefix[512];
  int probes;       /* probe variants added to s (their names' serial) */
  /* Every probe's outcome: the same text is proven once (the NPU and the
   * host rounds, a knob's step in each order, the array form's steps). */
  TuneProbeMemo *memo;
  int nmemo, capmemo;
  Arena arena;      /* the sketches' names found in probes, the refusals */
} TuneSpace;
/* Builds the space; false with why when no sketch applies. host: only
 * the host sketches (also taken when no NPU sketch applies). */
bool tune_space_build(TuneSpace *sp, NpgSession *s, const char *kernel, bool host, char *why, size_t n);
void tune_space_free(TuneSpace *sp);
/* sp->sketch[sketch], or sp->as_written for TUNE_AS_WRITTEN. */
const TuneSketch *tune_sketch_of(const TuneSpace *sp, int sketch);
/* The tuned variant's default name, unique across the kernel files of
 * one directory (tune/variant_name.c): matmul.c's mm -> "matmul_mm_tuned";
 * a hash only where another file really gives the same name: a.c's b_c
 * beside a_b.c's c -> "a_b_c_tuned_0<8 hex digits>" and "a_b_c_tuned". */
void tune_variant_name(const char *file, const char *kernel, char *out, size_t n);
/* The candidate's steps as text, one `#pragma npu` line each, with the
 * schedule line naming `variant` first. malloc'ed. */
char *tune_render(const TuneSpace *sp, const TuneGenome *g, const char *variant);
/* Knob i of sk: its name, its n choices' values (at most
 * TUNE_MAX_CHOICES kept) and the structured seed's choice. */
void tune_knob(TuneSketch *sk, int i, const char *name, const long long *v, int n, int seed);
/* Appends a line to sp->notes (why a sketch does not apply). */
void tune_note(TuneSpace *sp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Does sketch (in sp->sketch[], not yet counted) apply at these choices:
 * is every step legal? Tried on the session as a probe variant; a refusal
 * is noted in sp->notes. */
bool tune_probe(TuneSpace *sp, int sketch, const int *choice);
/* steps (`#pragma npu` lines without the schedule line) added to the
 * session as a probe variant: its IR, or NULL when a step is refused (the
 * refusal noted in sp->notes under `note_as` when that is not NULL). */
const Kernel *tune_probe_steps(TuneSpace *sp, const char *steps, const char *note_as);
/* The same, the refusal (without its location) into why when refused. */
const Kernel *tune_probe_why(TuneSpace *sp, const char *steps, char *why, size_t n);
/* tune/sketch_*.c: add their sketches when they apply. */
void tune_sketch_nu(TuneSpace *sp);
/* tune/sketch_nu_epilogue.c: a contraction into a local accumulator, then
 * an element-wise epilogue of reassignments and a store (TFLite's). */
void tune_sketch_nu_epilogue(TuneSpace *sp);
void tune_sketch_conv(TuneSpace *sp);
void tune_sketch_vu(TuneSpace *sp);
/* tune/sketch_vu_halo.c: a stencil whose window reads are guarded by their
 * zero padding (a depthwise convolution), its halo staged in the DM. */
void tune_sketch_vu_halo(TuneSpace *sp);
/* tune/sketch_vu_fold.c: the VU sketches after a local's chain of
 * reassignments is folded into its store (TFLite's requantisation). */
void tune_sketch_vu_fold(TuneSpace *sp);
void tune_sketch_host(TuneSpace *sp);
/* tune/sketch_nests.c: a kernel of several top-level nests: each nest's
 * NPU sketch as if it were a kernel of its own, joined into one sketch
 * (each part alone when the engine refuses them together). */
void tune_sketch_nests(TuneSpace *sp, const Kernel *k);
/* tune/sketch_loops.c: the general host sketch, for any kernel with a loop. */
void tune_sketch_loops(TuneSpace *sp, const Kernel *k);

/* tune/vu_estimate.c: what one pass of a VU candidate asks of the units,
 * from its IR (the loop bound to the VU cores, the passes around it), per
 * core; staged arrays by their index in the sketch's arr[]. */
typedef struct {
  int64_t passes, cores;
  int64_t vu_work, vu_ops;  /* a core's VU cycles (overheads included) and instructions */
  int64_t cu_work;          /* a core's host code: the CU's own accesses */
  int64_t dma_bytes[TUNE_MAX_ARRAYS], dmas[TUNE_MAX_ARRAYS]; /* a core's DDR copies of each array */
  bool load[TUNE_MAX_ARRAYS];     /* copied in (else out) */
  bool resident[TUNE_MAX_ARRAYS]; /* the same region every pass: with one copy, loaded once */
  int64_t vm_bytes[TUNE_MAX_ARRAYS], vm_other; /* vu_vm bytes at one copy: staged arrays, the rest */
} VuPassCost;
bool tune_vu_pass_cost(const Kernel *k, const TuneArray *const *arr, int narr, const NpuTarget *t, VuPassCost *c);
/* The cycles a candidate cannot beat (db: which arrays have two copies),
 * or UINT64_MAX when its buffers do not fit a core's vector memory. */
uint64_t tune_vu_estimate(const VuPassCost *c, const bool *db, int narr, const NpuTarget *t);


/* tune/trial.c: one candidate applied and simulated. */
typedef enum { TRIAL_ILLEGAL, TRIAL_FAILED, TRIAL_SIMULATED, TRIAL_PRUNED } TrialStatus;
typedef struct {
  uint64_t hash;   /* of the schedule's steps */
  TrialStatus status; /* TRIAL_SIMULATED: simulated, or for a host trial timed */
  bool timed;      /* a host trial: its cost is median_ns, and cycles stays 0 */
  uint64_t cycles, ideal;       /* NPU: the simulated cycles and the kernel's bound */
  uint64_t median_ns, min_ns;   /* host: one call's time on the machine that ran it */
  bool openmp;                  /* host: compiled with -fopenmp (it has a parallel loop) */
  double roofline, bound_util, nu_util;
  char bound[4];
  double seconds;  /* spent on it */
  double spread;   /* host trials: (3rd quartile - 1st) / median of the timed runs */
  char message[240];
} TrialResult;
/* What ranks a trial: a timed one's median_ns, else its cycles. */
uint64_t tune_cost(const TrialResult *r);
/* tune/trial.c: a simulated trial's roofline, the kernel's bound
 * (sp->ideal, jit/kernel_bound.c) over its cycles: never the variant's own DMA or unit time. */
void tune_apply_bound(const TuneSpace *sp, TrialResult *r);
uint64_t tune_hash(const char *text);
/* The message of the first error s rendered past `from` bytes of its
 * errors' text, without its location. */
void tune_first_error(NpgSession *s, size_t from, char *out, size_t n);
/* Applies steps (as tune_render writes them, for variant) to s and
 * simulates the variant; host: times it on this CPU instead (median_ns,
 * tune/host_timer.c). */
void tune_trial_run(NpgSession *s, const char *steps, const char *variant, uint64_t seed, bool host, TrialResult *r);

/* tune/host_timer.c: a host-only variant compiled with the system C
 * compiler and timed on this machine. */
typedef struct {
  uint64_t median_ns, min_ns; /* of one call */
  double spread;              /* (3rd quartile - 1st) / median */
  int runs;
  bool openmp;                /* compiled with -fopenmp: it has a parallel loop */
} TuneHostTime;
bool tune_host_time(NpgSession *s, int variant, TuneHostTime *t, char *msg, size_t n);
/* The compiler flags of a host trial (after "cc"), and whether variant
 * needs OpenMP's (it has a parallel loop: its IR says, not its text). */
const char *tune_host_cflags(bool openmp);
bool tune_host_openmp(NpgSession *s, int variant);
/* One line of text and back (the --plan/--merge files). */
void tune_result_write(FILE *f, const TrialResult *r);
bool tune_result_read(const char *line, TrialResult *r);

/* When a batch stops starting trials: none starts once it would end past
 * `deadline` (tune_now()'s clock) at `each` seconds a trial, except the
 * first `at_least`, which start whatever the clock says. */
typedef struct {
  double deadline, each;
  int at_least;
} TunePoolStop;
/* tune/trial_pool.c: a batch of trials in `jobs` forked processes (each
 * with a copy of s), results in the order of steps[]; a trial that crashes
 * or runs past timeout seconds is TRIAL_FAILED. Trials start in order;
 * with stop (NULL: every trial starts), those past the first it refuses
 * are not started (TRIAL_FAILED, saying so). Returns the trials started. */
int tune_pool_run(NpgSession *s, const char *const *steps, int n, const char *variant, uint64_t seed, bool host,
                  int jobs, int timeout, const TunePoolStop *stop, TrialResult *out);
/* Seconds on the monotonic clock. */
double tune_now(void);

/* tune/result_cache.c: results by the hash of their schedule. */
typedef struct {
  TrialResult *v;
  int n, cap;
  int *slot; /* open addressing over v's indices, -1 free */
  int nslot;
} TuneCache;
void tune_cache_init(TuneCache *c);
void tune_cache_free(TuneCache *c);
const TrialResult *tune_cache_get(const TuneCache *c, uint64_t hash);
void tune_cache_put(TuneCache *c, const TrialResult *r);

/* tune/search.c: evolutionary search over the space's knobs. */
typedef struct {
  uint64_t seed;        /* the search's random choices */
  int jobs;             /* trial processes */
  double time_limit;    /* seconds; < 0: none (checked before each trial: tune_search) */
  int max_trials;       /* candidates run (legal or not); 0: none */
  int trial_timeout;    /* seconds for one trial */
  FILE *log;            /* every trial, one line each (--log); NULL: none */
} TuneOptions;
typedef struct {
  TuneGenome g;
  char *steps;          /* rendered for the space's variant */
  uint64_t estimate;
  TrialResult r;
} TuneEntry;
typedef struct {
  TuneEntry *v;         /* every candidate run, in order */
  int n, cap;
  int generated, legal, simulated, pruned, generations; /* the kernel as written not counted */
  double seconds;
  const char *stopped;  /* why the search ended */
  char stopped_text[240]; /* stopped's own text when it says figures */
  TuneCache cache;
} TuneRun;
void tune_run_init(TuneRun *run);
void tune_run_free(TuneRun *run);
/* Runs the search; run->v sorted best first after it. */
void tune_search(const TuneSpace *sp, const TuneOptions *o, TuneRun *run);
/* "ti=128 tj=128 order_ji=0 ...": a candidate's knobs. */
void tune_describe(const TuneSpace *sp, const TuneGenome *g, char *out, size_t n);
/* The candidates of one generation (new, unique, pruned by the estimate
 * against the best so far), for --plan: up to max of them. */
int tune_propose(const TuneSpace *sp, TuneRun *run, uint64_t *rng, int max, TuneEntry *out);
/* The run's entry of the kernel as written (TUNE_AS_WRITTEN), or NULL. */
const TuneEntry *tune_as_written(const TuneRun *run);
/* Records results of a batch into the run. */
void tune_record(TuneRun *run, TuneEntry *batch, int n);
/* Sorts run->v best first: simulated by cycles, then the rest. */
void tune_rank(TuneRun *run);
/* Host runs: the best three timed again here and ranked by those times
 * (own: the run's own time counts too; without it, as for times read from
 * files, only the times taken here, and the rest can no longer win). */
void tune_retime_best(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, bool own);

/* How tune was invoked: what a plan's commands and the schedule file's
 * comment repeat, as the user gave it. */
typedef struct {
  const char *file, *target, *size; /* target, size: NULL when not given */
  char size_picked[240];            /* tune_pick_kernel's own --size, when none was given */
  bool host;
  uint64_t max_steps;               /* a trial's run budget; 0: the check's default */
  int trial_timeout;
  uint64_t seed;
} TuneInvocation;

/* tune/kernel_pick.c: the kernel to tune (want, or the file's only one),
 * its sizes fixed at inv->size in s; NULL with why, as
 * `file:line:col: error: ...` lines. A kernel with sizes and no --size is
 * tuned at the largest of the check's size sets within the trials' step
 * budget: inv->size then names it (size_picked), and why holds a note
 * that says so. */
const char *tune_pick_kernel(NpgSession *s, TuneInvocation *inv, const char *want, char *why, size_t n);

/* tune/trial_file.c: a planned trial as a file, its record first (typed
 * fields: kernel, space, sketch, each knob's value), then its steps.
 * Reading checks the record against sp and renders the steps again;
 * false with why (the first field that differs). */
void tune_trial_file_write(FILE *f, const TuneSpace *sp, const TuneEntry *e);
bool tune_trial_file_read(const TuneSpace *sp, const char *path, TuneEntry *e, char *why, size_t n);
/* The trial of file path run (--trial), its result in r; false with why
 * when the file is not a trial of sp. */
bool tune_trial_file_run(const TuneSpace *sp, const char *path, int timeout, TrialResult *r, char *why, size_t n);

/* tune/plan.c: the search in rounds through files under a directory. */
typedef struct {
  int planned, run_before, pending; /* this round's trials; results read; trials without one yet */
} TunePlanCount;
/* Every trial of dir and its result into run (those without one counted
 * in *pending); a file that is not a trial of sp, or a result that is
 * not its trial's, named on msgs. */
void tune_plan_load(const TuneSpace *sp, const char *dir, TuneRun *run, int *pending, FILE *msgs);
/* Results read from files are not trusted (--merge): the best NPU ones
 * are simulated again here, as their trials were, until the best five
 * are the simulator's own figures, and a result whose cycles differ is
 * named on msgs and left out (failed); host ones are timed again here
 * (tune_retime_best without their own times). run is ranked after. */
void tune_plan_recheck(const TuneSpace *sp, const TuneOptions *o, TuneRun *run, FILE *msgs);
/* The next round of up to max trials, as files and dir/trials.txt; false
 * with why when they cannot be written. */
bool tune_plan_write(const TuneSpace *sp, const TuneInvocation *inv, const char *dir, int max, TunePlanCount *c,
                     char *why, size_t n);

/* tune/winner.c: the schedule written. */
typedef struct {
  int rank;              /* run->v's index written; -1: none */
  NpgCheckResult check;  /* its check; when none: check.message says why */
  bool openmp;           /* it has a parallel loop (host: compiled with -fopenmp) */
} TuneWinner;
/* Can path be written (its directory exists, ...)? false with why. Asked
 * before a search, not after it. */
bool tune_output_check(const char *path, char *why, size_t n);
/* The first of run's best five that passes npugen check, written to out
 * with a comment of how it was made; failures named on msgs. */
bool tune_write_best(const TuneSpace *sp, const TuneInvocation *inv, const TuneRun *run, const char *out,
                     TuneWinner *w, FILE *msgs);
/* The same without writing: the first of the best five that passes, in
 * w->rank; false with why in w->check.message. */
bool tune_pick_best(const TuneSpace *sp, const TuneInvocation *inv, const TuneRun *run, TuneWinner *w, FILE *msgs);

/* tune/program.c: a program (a kernel that calls kernels) tuned call by
 * call (docs/tune.md, "Programs"). */
enum { TUNE_MAX_CALLEES = 16, TUNE_MAX_CALLS = 64, TUNE_MAX_INTERMEDIATES = 16 };
typedef struct {
  const Kernel *kernel;  /* the kernel called, as written */
  int calls;             /* its calls, each times the loops around it run */
  uint64_t bound;        /* its own bound (kernel_bound); 0: it has sizes */
  char unit[4];
  char variant[300];     /* its tuned variant's name */
  char *steps;           /* the variant's steps (malloc'ed); NULL: it runs as written (note says why) */
  char describe[512];    /* the winner's knobs */
  TrialResult result;    /* the winner's trial */
  NpgCheckResult check;  /* the winner's own check */
  bool host;             /* tuned for this CPU (timed), not the NPU */
  char note[600];
} TuneCallee;
typedef struct {
  const char *name;      /* the call's name in schedules */
  int line, callee;      /* callee: index in TuneProgram.callee */
  uint64_t times;        /* the loops around it run it this often */
  bool used;             /* it runs its callee's tuned variant */
  char why[500];         /* why not, when its callee has one */
} TuneCall;
typedef struct {
  const Kernel *program;
  const NpuTarget *target;
  TuneCallee callee[TUNE_MAX_CALLEES];
  int ncallees;
  TuneCall call[TUNE_MAX_CALLS];
  int ncalls, uses;
  bool too_many;         /* calls past the tables: not tuned */
  bool trips_unknown;    /* a loop around a call has no constant trip: counted once */
  uint64_t bound;        /* the sum of each call's own bound: the program's roofline */
  char variant[300];     /* the program's tuned variant */
  /* the intermediates (local arrays calls take) and the scope tune gave
   * each: NULL keeps it in DDR (tune/program_scopes.c) */
  struct {
    char array[64];
    const char *scope;   /* a static name */
    uint64_t cycles;     /* the program's with it there, as kept */
  } inter[TUNE_MAX_INTERMEDIATES];
  int ninter, nscoped;   /* nscoped: those given a scope */
  uint64_t ddr_cycles;   /* the program's simulated cycles with every intermediate in DDR */
  char *text;            /* the schedule's steps (malloc'ed) */
  NpgCheckResult check;  /* the variant's */
  uint64_t as_written_cycles; /* the program as written, simulated (0: no intrinsic, all on the host) */
  char as_written[1100]; /* its run, one line */
} TuneProgram;
/* tune/program.c: p's steps as they stand (each callee's variant, the
 * program's set_scope and use lines), malloc'ed; and whether they apply
 * to the file (why: the first refusal). */
char *tune_program_steps(const TuneProgram *p);
bool tune_program_applies(const TuneInvocation *inv, const char *text, char *why, size_t n);
/* tune/program_scopes.c: each intermediate tried in each on-chip scope
 * the calls that take it use (and dm), kept where the whole program's
 * simulated cycles drop; p->inter[] holds the result. */
void tune_program_scopes(TuneProgram *p, const TuneInvocation *inv);
/* What the caller shows of each callee's search (NULL members: nothing). */
typedef struct {
  void (*space)(const TuneSpace *sp, void *ctx);
  void (*ran)(const TuneSpace *sp, const TuneRun *run, void *ctx);
  void *ctx;
} TuneProgramHooks;
/* Is kernel a program: its calls and callees into p (false: it calls none). */
bool tune_program_find(NpgSession *s, const char *kernel, TuneProgram *p);
/* Tunes each callee of p under an equal share of o's budget, picks the
 * calls' variants and checks the program's variant (p->check); false when
 * that check fails or the schedule is refused (p->check.message says why). */
bool tune_program_run(NpgSession *s, const TuneInvocation *inv, const TuneOptions *o, TuneProgram *p,
                      const TuneProgramHooks *h, FILE *msgs);
/* p's schedule to out, after a comment of how it was made. */
bool tune_program_write(const TuneProgram *p, const TuneInvocation *inv, const char *out, char *why, size_t n);
void tune_program_free(TuneProgram *p);

#endif
