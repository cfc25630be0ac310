/* Applying schedules. A Sched holds one variant being built: a private copy
 * of the kernel's IR that each step rewrites in place. A step is a primitive
 * (one file each in schedule/) that checks its own preconditions, rewrites
 * the IR, and lets sched_legal() prove with isl that every dependence of the
 * program before the step still runs in order in the program after it.
 *
 * Errors go to the DiagList at the step's pragma (or at the argument they
 * are about); after an error the variant is dropped, never emitted. */
#ifndef NPG_SCHED_H
#define NPG_SCHED_H

#include "ir/deps.h"
#include "ir/ir.h"
#include "ir/sched_prog.h"
#include "sim/npusim.h"

typedef struct Sched Sched;
typedef struct isl_map isl_map;

/* A variant the session has built, for use() (schedule/use.c). */
typedef struct {
  const char *name;
  const Kernel *kernel;  /* the kernel it schedules, as written */
  const Kernel *ir;      /* its scheduled IR */
  const char *schedule;  /* its steps, one a line; NULL: the kernel as written */
} SchedVariantRef;
/* Variant i of those built so far (false past the last). */
typedef bool (*SchedVariantAt)(const void *ctx, int i, SchedVariantRef *out);

/* The model's conflicting pairs, one map per pair of leaves (both
 * directions): instances of leaf a and of leaf b that touch one element,
 * one of them writing. Each is turned into pairs of times (time -> time)
 * only when a test asks for it (sched_pair_times): a test about one loop
 * looks only at the leaves inside it. A list of maps, not a union: tests go
 * piece by piece, and no union of thousands of pieces is ever simplified. */
typedef struct {
  int a, b;       /* the leaves (Stmt.inst) */
  isl_map *pairs; /* S<a>[..] -> S<b>[..] */
  isl_map *times; /* the same pairs as times of the model they were asked for; NULL until then */
} ConflictPair;
typedef struct {
  ConflictPair *v;
  int n;
} ConflictPairs;

/* A marked loop proven to carry nothing, with its header as proven. */
typedef struct {
  const Stmt *loop;
  const Var *var;
  const Expr *lo, *hi;
  int64_t step;
} ProvenMark;
struct Sched {
  Arena *a;           /* the module's arena: new IR nodes live there */
  const Module *m;
  Kernel *k;          /* the variant's IR (a clone of the kernel) */
  const char *variant;
  DiagList *d;
  const char *file, *src; /* where the steps were written (for messages) */
  isl_ctx *ctx;
  struct SemCache *sems; /* intrinsics' semantics, parsed once (schedule/tensorize_sems.c) */
  bool sems_borrowed;    /* sems is its owner's (sched_share_sems), not freed here */
  StrBuf applied;     /* the schedule as applied, one step a line */
  StrBuf steps_ir;    /* the IR after each step (--dump-ir=steps), when keep_steps_ir */
  bool keep_steps_ir; /* off for a schedule program: its steps are replayed when asked */
  const SchedStep *step; /* the step being applied */
  /* The variant's dependence model (ir/deps.h, with accesses), carried
   * through the steps that keep every instance and its accesses: the IR's
   * origins (Stmt.inst, Stmt.orig) lead back to its instances. */
  DepModel before;
  bool have_before;
  bool fresh;         /* nothing rewritten since it was built: its schedule is the IR's */
  const Kernel *written; /* the kernel as written */
  char *fits_known;      /* ir_fits_failures(written), once a step asks (ir/fits.h) */
  bool step_keeps_order;  /* the step being applied keeps the order of instances (schedule/sched.c) */
  bool step_runs_once;    /* ... or at least runs each instance at most once, by construction (set by the step) */
  bool prove_kept_order;  /* prove the dependences after such a step too (the tester) */
  const SchedStep *unroll_step; /* the last unroll: sched_finish expands its loops */
  bool reset_origins; /* the next model restarts the origins (after a step that
                       * merges or repeats statements: compute_at, compute_inline) */
  DepModel now;       /* the IR's schedule over the model's instances (no accesses) */
  bool have_now;      /* built since the IR last changed */
  /* The model's conflicting pairs as pairs of the IR's times (both
   * directions), for the model conflict_times_of names (NULL: none yet). */
  ConflictPairs conflict_times;
  const DepModel *conflict_times_of;
  /* The model's conflicts in the model's order, for the order check of a
   * step that may reorder anything (schedule/legality.c); deps_listed:
   * made for this model. */
  ConflictPairs deps;
  bool deps_listed;
  /* Counts the changes of the IR's dependence structure (a rewrite, a
   * dropped model); the marked loops proven to carry nothing since the
   * last one need no proof again (schedule/marks.c). */
  unsigned ir_gen, proven_gen;
  /* each proven loop with its header as proven: a step that keeps the
   * order keeps a proof whose loop kept its header (schedule/marks.c) */
  ProvenMark proven[64];
  int nproven;
  /* Set by a step that adds statements but no conflicting pair between
   * the statements that were there (cache_read, cache_write of a
   * parameter): the marks proven before it need proving again only for
   * pairs with a new statement, numbered from first_new_leaf in the
   * rebuilt model (schedule/marks.c). step_adds_no_access: its only new
   * statement is a declaration, which touches nothing: no new pair at all. */
  bool step_keeps_pairs, step_adds_no_access, marks_partial;
  int first_new_leaf;
  /* A cache that only renames a local array (step_adds_no_access, set by
   * schedule/cache.c: step_renamed[0] became step_renamed[1]) keeps the
   * model: every instance, time order and conflicting pair is the same;
   * only the accesses of those two arrays are out of date in it (stale,
   * nstale of them, until the model is rebuilt). */
  const Buffer *step_renamed[2];
  const Buffer *stale[64];
  int nstale;
  /* Set by reorder (and tile) for its proof (schedule/legality.c): the loop
   * `top` whose subtree holds all the step changed, in its place, and the
   * permutation of its chain's headers: the header of loop from[i] moved
   * to loop to[i]. NULL top: the whole program is proven. */
  struct {
    const Stmt *top;
    const Stmt *from[64], *to[64];
    int n;
    const Stmt *chain[64]; /* the loops from top down whose headers were permuted */
    int nchain;
  } reorder;
  NpuTarget target;   /* what placement and bind plan for (the emitter takes
                       * the session's target, the same one, via LowerUnit) */
  /* the variants use() may pick from (the session's); NULL: none */
  SchedVariantAt variant_at;
  const void *variants;
};

/* Starts a variant of k named `variant`, generated for `target` (NULL: the
 * default target). */
Sched *sched_new(Arena *a, const Module *m, const Kernel *k, const char *variant, DiagList *d,
                 const char *file, const char *src, const NpuTarget *target);
void sched_free(Sched *s);
/* Applies one step. False (with an error) when refused. */
/* s reads the semantics kernels from shared, which its owner keeps and
 * frees after s: a session or a tester applies many schedules, and each
 * would otherwise parse every npu_vu_* file again (most of a tune trial's
 * time). Matching only reads them. */
void sched_share_sems(Sched *s, struct SemCache *shared);
bool sched_apply(Sched *s, const SchedStep *st);
/* After the last step: expands the unrolled loops (schedule/unroll.c) and
 * checks the result as a step's. False (with an error) when refused. */
bool sched_finish(Sched *s);

/* unroll makes at most this many copies of a loop's body (schedule/unroll.c):
 * the emitted code, and the proofs of the steps after the schedule that see
 * the copies, grow with them. */
enum { SCHED_MAX_UNROLL = 64 };
/* Statements the kernel may hold once its unrolled loops are expanded:
 * nested unrolls multiply (four of 64 are 16.7 million copies, past 12 GB
 * before this limit). Checked after every step (sched_unrolled_size_ok). */
enum { SCHED_MAX_UNROLLED_STMTS = 1 << 16 };

/* ---------------- for primitives ---------------- */
typedef bool (*PrimFn)(Sched *s, const SchedStep *st);

/* An error at the step (or at arg when given): "PRIM: message". Returns false. */
bool sched_error(Sched *s, const SchedArg *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sched_note(Sched *s, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A warning at arg (the step's pragma when NULL): "<primitive>: ...". The
 * step still applies; the warning is reported with the errors. */
void sched_warning(Sched *s, const SchedArg *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A warning that weakens the verdict (a hint not met): an error under
 * --strict and `#pragma npu strict` (diag_strict). */
void sched_weakening(Sched *s, const SchedArg *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Argument readers: each reports its own error and returns false/NULL. */
Stmt *sched_loop(Sched *s, const SchedArg *arg);      /* a loop by name */
Stmt *sched_leaf(Sched *s, const SchedArg *arg);      /* a statement by name */
Stmt *sched_target(Sched *s, const SchedArg *arg);    /* a loop or a statement */
bool sched_int(Sched *s, const SchedArg *arg, int64_t *v);
bool sched_positive(Sched *s, const SchedArg *arg, const char *what, int64_t *v);
/* A name for a new loop: an identifier not used anywhere in the kernel. */
const char *sched_new_name(Sched *s, const SchedArg *arg);
/* An unused loop name derived from base: base_1, base_2, ... */
const char *sched_fresh_name(Sched *s, const char *base);
/* base + suffix ("X_vm" "_tok"), or a fresh name derived from it when taken. */
const char *sched_derived_name(Sched *s, const char *base, const char *suffix);
bool sched_name_taken(Sched *s, const char *name);
/* A C identifier, not a keyword, shorter than 64 bytes. */
bool sched_is_c_name(const char *name);

/* The link that points at stmt (in its enclosing list), and the statement
 * owning that list (a block, for the body of a loop or if: its block). */
Stmt **sched_link(Sched *s, const Stmt *stmt, Stmt **owner);
/* The loops around st (not st itself), outermost first, in loops[max]:
 * their number, or -1 when st is not in the kernel or they are more. */
int sched_loops_around(Sched *s, const Stmt *st, Stmt **loops, int max);
/* The loop whose body block directly holds stmt, or NULL. */
Stmt *sched_parent_loop(Sched *s, const Stmt *stmt);
/* True when inner is inside outer's body (at any depth). */
bool sched_encloses(const Stmt *outer, const Stmt *inner);
/* A new loop `for name in lo .. < hi step 1` over a fresh counter of type t. */
Stmt *sched_make_loop(Sched *s, const char *name, const Type *t, Expr *lo, Expr *hi, SrcLoc loc, Var **var);
/* The loops of a copied subtree (copy itself included) get fresh names
 * (base_N), so names stay unique: originals keep theirs, copies are suffixed. */
void sched_rename_copies(Sched *s, Stmt *copy);
/* Removes loops (and ifs) left without statements by a move. */
void sched_drop_empty(Sched *s);
/* The first loop marked by unroll in the statement list (or NULL). */
const Stmt *sched_unrolled_inside(const Stmt *list);
/* Copies each unrolled loop's body once per iteration (schedule/unroll.c). */
bool sched_expand_unrolled(Sched *s);
/* False, with "the kernel is too large" at the step, when expanding the
 * unrolled loops would make more than SCHED_MAX_UNROLLED_STMTS statements. */
bool sched_unrolled_size_ok(Sched *s);
/* Wraps a statement list into a block. */
Stmt *sched_block(Sched *s, Stmt *list, SrcLoc loc);

/* Static placement of the on-chip buffers (schedule/placement.c): an
 * offset per buffer in its scope, buffers whose lifetimes overlap kept
 * apart. False, with a usage table per scope, when a scope overflows. */
bool sched_place_onchip(Sched *s);

/* ---------------- calls (schedule/calls.c, docs/programs.md) ---------------- */
/* The marked call named by arg (outside other marked calls); NULL after
 * an error listing the calls. */
Stmt *sched_call(Sched *s, const SchedArg *arg);
/* The marked call holding statement st, or NULL. */
Stmt *sched_call_holding(Sched *s, const Stmt *st);
/* Refuses a step on `what` (a loop or statement) inside marked call `call`. */
bool sched_refuse_in_call(Sched *s, const SchedArg *arg, const Stmt *call, const char *what);
/* After every step: no marked call's statements changed (an error naming
 * the call otherwise); a call marked anew gets its fingerprint. */
bool sched_check_calls(Sched *s);
/* At the start of a variant of a kernel with calls: the IR simplified as
 * every step leaves it, and each call's fingerprint taken. */
void sched_start_calls(Sched *s);

/* ---------------- legality (schedule/legality.c) ---------------- */
/* The variant's dependence model, before a rewrite: the one carried from
 * earlier steps, or a new one of the IR as it is, in which the copies of a
 * statement stay one statement (call before changing anything). */
bool sched_begin_rewrite(Sched *s);
/* A new model whose instances are the IR's own loop iterations, for the
 * primitives that reason about the current loops directly (compute_at,
 * compute_inline): the origins restart here. */
bool sched_begin_fresh(Sched *s);
/* The IR is about to change in a way that keeps the model (the copies of
 * sched_finish): the schedule of the IR is built again when needed. */
void sched_ir_rewritten(Sched *s);
/* Forgets the model (after a step that changes statements or accesses). */
void sched_model_drop(Sched *s);
/* The schedule of the IR as it is now over the model's instances: the model
 * itself when fresh, else Sched.now, built once per change of the IR. NULL
 * after an error. */
const DepModel *sched_model_now(Sched *s);
/* After a cache that only renamed a local array (Sched.step_renamed): the
 * model stays, with the two arrays' accesses marked stale; false when it
 * must be dropped instead (too many renames). */
bool sched_model_keep_renamed(Sched *s);
/* Are b's accesses in the model up to date (not renamed since it was built)? */
bool sched_model_knows(const Sched *s, const Buffer *b);
/* Proves the rewritten IR runs the same instances, each once, and keeps
 * every dependence of the model in order; otherwise a refusal naming both
 * statements, their lines and the distance. */
bool sched_legal(Sched *s);
/* The model's conflicting pairs (sharing an element, one writing), in both
 * directions, to be read as times of `now` (sched_model_now). Owned by s and
 * kept until the IR changes; NULL when isl failed. */
const ConflictPairs *sched_conflict_times(Sched *s, const DepModel *now);
/* Pair i of sched_conflict_times(s, now) as time -> time of `now`, made on
 * first use; owned by s. NULL when isl failed. */
isl_map *sched_pair_times(Sched *s, int i);
/* Which leaves of the model (by Stmt.inst: an array of flags, freed by
 * the caller) occur in loop's body. */
bool *sched_leaves_in(Sched *s, const Stmt *loop);
/* Is pair i of sched_conflict_times between two leaves of `in`? */
bool sched_pair_within(const Sched *s, int i, const bool *in);
/* Refuses with "illegal: VERB the flow dependence on ..." for one pair of
 * `pairs` (dependences of the model). */
void sched_explain(Sched *s, isl_union_map *pairs, const char *verb);

/* ---------------- marks (schedule/marks.c) ---------------- */
/* After a step that keeps the order of instances and the model (split,
 * fuse, unroll, loop_partition): the marks proven before it stay proven
 * where the loop kept its header. */
void sched_marks_carry(Sched *s, unsigned gen_before);
/* After a step that keeps the order and the model and may copy loops
 * (unroll, loop_partition): as sched_marks_carry, and each copy of a proven
 * marked loop (Stmt.clone_of) is proven too. */
void sched_marks_after_copies(Sched *s, unsigned gen_before);
/* Clears Stmt.clone_of after each step. */
void sched_forget_copies(Sched *s);
/* After reorder (Sched.reorder.top set): the marks proven before it stay
 * proven except on the loops of its chain, which now run inside others. */
void sched_marks_after_reorder(Sched *s, unsigned gen_before);
/* After a step that set Sched.step_keeps_pairs: the marks proven before it
 * are proven again for the pairs with a new statement only. */
void sched_marks_after_new_statements(Sched *s, unsigned gen_before);
/* No dependence is carried by loop and no on-chip buffer is declared in its
 * body (parallel, vectorize, before they mark it). */
bool sched_loop_is_parallel(Sched *s, const Stmt *loop);
/* After every step: every marked loop (parallel, vectorize, bind) still
 * carries no dependence and owns its buffers; a refusal names the step that
 * set the mark. */
bool sched_check_marks(Sched *s);
/* After every step (schedule/bind.c): each loop bound to the VU cores
 * still fits them, its body's vu_vm buffers get the loop's counter as their
 * core, and no buffer of one core's VM is used inside a bound loop. */
bool sched_check_bound_loops(Sched *s);
/* The on-chip scope an argument names (dm, nu_ib, nu_wb, nu_ob, vu_vm);
 * NULL after an error listing them. */
const char *sched_onchip_scope(Sched *s, const SchedArg *arg);
/* A step that replaces loop by new loops (split, tile, fuse, unroll,
 * loop_partition) would drop its mark (bind, parallel, vectorize):
 * refused, naming the order that works. */
bool sched_loop_unmarked(Sched *s, const SchedStep *st, const SchedArg *at, const Stmt *loop);
/* A double-buffered buffer declared in bound loop `bound`: the rules of
 * double buffering hold over the loop directly around `bound`
 * (schedule/double_buffer.c). False with why otherwise. */
bool sched_bound_double_buffer_rules(Sched *s, const Stmt *bound, const Stmt *decl, char *why, size_t n);

#endif
