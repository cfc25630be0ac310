/* The lowering phase: scheduled IR -> explicit IR (docs/lowering.md).
 *
 * Between schedule/ and emit/. Its passes turn cache copies and
 * double_buffer marks into DMA starts and waits with tokens, views of
 * double-buffered buffers and notes for marks that do nothing; each pass
 * takes IR and returns IR, sharing the statements it does not change
 * (the scheduled IR is never modified). The lowered nodes are described in
 * ir/ir.h (LowKind). A last pass gives each tensorized nest its call
 * (Stmt.intrin_call). lower_check_sync then checks the synchronisation of
 * the result statically. The headers a variant includes and the macros
 * its prototype names are decided here too (lower_includes,
 * lower_size_macro); the check's reference is lowered by
 * lower/ref_lower.h. emit/ prints what all of these decided.
 */
#ifndef NPG_LOWER_H
#define NPG_LOWER_H

#include "ir/ir.h"
#include "ir/lowered_module.h" /* IntrinCall, Includes, EntryTest */
#include "sim/npusim.h"

/* A bound loop's copy out whose waits are deferred (lower/defer.c): to
 * just before its core writes the buffer again, and after `home`. */
typedef struct {
  const Stmt *store, *loop;
  const Buffer *b;
  int64_t tokens;    /* in flight at most, over all cores (one each) */
  const Stmt *home; /* the loop its tokens are declared (zeroed) before and waited for after */
} Deferred;

enum { LOWER_MAX_DEFER = 16 };

/* A copy nest's DMA, worked out once (lower/nodes.c). */
typedef struct {
  const Stmt *copy;
  const DmaShape *shape;
} KnownShape;

/* A structure's overlap, decided once (lower_grant). */
typedef struct {
  const void *key;
  bool ok;
} Grant;

/* The DMA pass's state: what the target allows, and the DMAs the
 * structures around the statement being lowered keep in flight. */
typedef struct {
  Arena *arena;           /* the lowered nodes' */
  const Kernel *k;        /* the scheduled kernel */
  int64_t max_tokens;     /* DMAs in flight the target allows */
  int channels;           /* DMA channels */
  int64_t queue_depth;    /* instructions a unit's queue holds (lower/interleave.c) */
  const char *target_name;
  int next_sync_id;       /* ids of copies waited for where they start */
  int64_t held;           /* held by the pipelines, pass loops and phases around */
  Deferred defer[LOWER_MAX_DEFER]; /* bound loops' copies out deferred around */
  int ndefer;
  struct Decided *once;   /* decided once for the whole lowering (shared by a copy of this struct) */
} Lower;

/* What the lowering decides once, whichever pass asks first. */
typedef struct Decided {
  Grant *grant; /* in arena */
  int ngrant, grant_cap;
  KnownShape *shapes; /* in arena */
  int nshapes, shapes_cap;
  struct IntrinDecls *intrin_decls; /* npu_intrinsics.h's and npu_vu_families.h's, parsed when a call is named */
  const char **held; /* the names of the locals that hold a call's repeated bound (lower/intrin_repeats.c) */
  int nheld, held_cap;
} Decided;

/* A pass loop P around bound loop L (lower/pass_loop.c): L's double-
 * buffered read caches alternate their copies by pass, and its resident
 * ones are loaded once, before P. */
typedef struct {
  const Stmt *P, *L;
  const Buffer *resident[16];
  int nresident;
} PassLoop;

/* What a structure keeps in flight at most (lower/grant.c). */
typedef struct {
  int64_t tokens;
  bool copy_inside; /* a synchronous copy runs while it holds them */
} Need;
int64_t lower_in_flight(const Lower *lw);
/* Grants key its need when the DMAs in flight around, its own and the
 * copy inside fit the target; decided once (*decided: before this call). */
bool lower_grant(Lower *lw, const void *key, Need need, bool *decided);
/* "would keep up to 24 DMAs in flight (with those around it and a copy
 * inside), and target 'small' allows 16" */
const char *lower_no_room(const Lower *lw, Need need, char *buf, size_t n);

/* lower/dma_shape.c: the one DMA call copy nest `loop` is, where counter
 * at_var (when given) has value at_value: NULL when it is none (async: a
 * single call, no host loops around it). */
const DmaShape *lower_dma_shape(Arena *a, const Stmt *loop, const Var *at_var, const Expr *at_value, bool async);

/* The whole phase: a new kernel (sharing k's unchanged parts), in a. */
Kernel *lower_kernel(Arena *a, const Kernel *k, const NpuTarget *target);
/* The same without the tidying pass (lower/tidy.c): the kernel as
 * written, whose C copies its source. */
Kernel *lower_kernel_as_written(Arena *a, const Kernel *k, const NpuTarget *target);
/* The same, its synchronisation checked (lower_check_sync): why is empty,
 * or says the violation (an npugen bug). NULL target: the default. */
Kernel *lower_checked(Arena *a, const Kernel *k, const NpuTarget *target, char *why, size_t n);

/* ---- passes (one a file) ---- */
/* The DMA pass (lower/walk.c): statement s (alone, not its siblings) with
 * its copies' overlap planned, as the list it becomes. top: a statement of
 * the kernel's body; pass: the pass loop around, or NULL. */
Stmt *lower_dma(Lower *lw, const Stmt *s, bool top, const PassLoop *pass);
Stmt *lower_dma_list(Lower *lw, const Stmt *list, const PassLoop *pass);
/* lower/walk.c, for every pass: s copied (shallow) with each statement
 * list under it (a loop's or block's body, an if's branches) mapped by fn. */
typedef Stmt *(*LowerListFn)(Lower *lw, const Stmt *list, const void *ctx);
Stmt *lower_rebuild(Lower *lw, const Stmt *s, LowerListFn fn, const void *ctx);
/* s with the DMA pass run on the lists under it (s itself as it is). */
Stmt *lower_plain(Lower *lw, const Stmt *s, const PassLoop *pass);
/* Its parts, each appending what it makes at *tail:
 * lower/pipeline.c: loop L whose body declares double-buffered buffers ->
 * its copies' starts one iteration ahead and the waits; false (after
 * notes, when double_buffer does nothing here) when L is not pipelined. */
bool lower_pipeline(Lower *lw, const Stmt *L, const PassLoop *pass, Stmt ***tail);
/* lower/pass_loop.c: loop P around a bound loop whose read caches load
 * one pass ahead or once; false when it does not fit. */
bool lower_pass_loop(Lower *lw, const Stmt *P, const PassLoop *around, Stmt ***tail);
/* lower/bound.c: a loop bound to the VU cores, phase by phase when it fits. */
void lower_bound(Lower *lw, const Stmt *L, const PassLoop *pass, Stmt ***tail);
/* lower/defer.c: the copies out of the bound loops under home that it can
 * wait for later (notes for those it cannot); how many were added. */
int lower_plan_defer(Lower *lw, const Stmt *home, Stmt ***tail);
/* The deferred copies from `from` on: their token arrays before body,
 * their last waits after, in a block. */
Stmt *lower_defer_block(Lower *lw, int from, Stmt *body, SrcLoc loc);
const Deferred *lower_deferred(const Lower *lw, const Stmt *store, const Buffer *decl);
/* A copy nest of bound loop L's body between one of L's per-core buffers
 * and a buffer outside them that is one DMA: the per-core buffer (*load:
 * it is the destination), or NULL. */
const Buffer *lower_bound_copy(Lower *lw, const Stmt *c, const Stmt *L, bool *load);
/* Statement c (alone) uses b. */
bool lower_stmt_uses(const Stmt *c, const Buffer *b);
/* lower/copies.c (a second pass): every copy nest left synchronous that
 * is one DMA -> a start and its wait at once. */
Stmt *lower_copies(Lower *lw, const Stmt *s);

/* lower/nest_note.c (last, on each top-level loop nest): the note naming
 * the statements of nest, before `lowered`, what it became. */
Stmt *lower_nest_note(Lower *lw, const Stmt *nest, Stmt *lowered);

/* lower/unused.c (last, on the whole body): `unused NAME` for each
 * parameter the variant never uses and after each local declared and
 * never read. */
Stmt *lower_unused(Lower *lw, const Stmt *body);

/* lower/intrin_params.c: each literal argument of call named after its
 * parameter, as the intrinsic's declaration names it (IntrinArg.param:
 * the `m` of npu_nu_matmul_i8's 32), the header's declarations parsed
 * once for the lowering. */
void lower_name_args(Lower *lw, IntrinCall *call);
/* lower/intrin_repeats.c: where loop's call passes one `npu_clamp(...)`
 * bound more than once, a const local that holds it (a name neither the
 * kernel nor another such local uses; IntrinCall.hold), which the
 * arguments then name. */
void lower_hold_repeat(Lower *lw, const Stmt *loop, IntrinCall *call);
/* lower/intrin_repeats.c (after lower_intrinsics): a bound loop's tail
 * count that its phases' DMAs and call print alike, computed once per core
 * into `<core>_count[core]` by the first phase, which all of them name;
 * then a loop's tail count without cores, `const int <loop>_count` first
 * in the loop's body. */
void lower_hold_core_counts(Lower *lw, Stmt *body);

/* lower/intrinsic.c (last, on the whole body): each tensorized nest
 * copied with its call (Stmt.intrin_call). */
Stmt *lower_intrinsics(Lower *lw, const Stmt *body);

/* lower/includes.c: the headers the C of scheduled kernel k includes
 * (prototype_only: its header, which declares the prototype). */
Includes lower_includes(const Kernel *k, bool prototype_only);
/* lower/assumptions.c: k tests what it assumes of its sizes at entry
 * (NPUGEN_ASSUME): its assumptions, and that each array extent named by
 * sizes is at least 1. lower_entry_tests lists them (malloc'ed, the
 * caller frees): cond, or for an extent (extent_of set) `cond >= 1`. */
bool lower_assumptions(const Kernel *k);
int lower_entry_tests(const Kernel *k, EntryTest **out);
/* Those tests as the header's comment states them, one a line, each
 * assumed, derived (and why) or an extent (malloc'ed; "" when none). */
char *lower_preconditions_text(const Kernel *k);
/* lower/entry_extents.c: an array parameter's extent as the .c's
 * definition spells it, evaluating nothing that can overflow before the
 * entry tests (`(long long)h + 2`), or NULL: as written. */
const Expr *lower_entry_extent(Arena *a, const Expr *extent);
/* The definition of NPUGEN_ASSUME the C of k needs before its tests (C
 * text), or NULL (none): for tcc (the JIT's) a failed test is reported
 * back, elsewhere it aborts unless the user defined it. */
const char *lower_assume_macro(const Kernel *k, bool tcc);
/* What the module's typedefs need (the source repeats them all). */
void lower_includes_typedefs(const Module *m, Includes *n);

/* lower/prototype.c: the #define naming extent d of parameter b in the
 * .c's prototype, or NULL (a number). */
const char *lower_extent_macro(const Buffer *b, int d);
/* The defines of m the source prints (malloc'ed, by m's defines in
 * order): its #defines, or (typedefs) its typedefs. The variant's own
 * header defines none of them (docs/embedding.md): the source prints all. */
bool *lower_source_defines(const Module *m, const Kernel *k, bool typedefs, bool own_header);
/* How a header spells a prototype (docs/embedding.md): for C compilers;
 * for tcc 0.9.27 (no variable-length array parameter: the first extent
 * left out, a flat pointer where a row is sized by a parameter, in
 * comments); for C++ (the same, and no restrict, and bool for _Bool). */
typedef enum { PROTO_HEADER, PROTO_HEADER_TCC, PROTO_HEADER_CXX } ProtoStyle;
/* The include guard of variant's header: "NPUGEN_<FILE>_<VARIANT>_H",
 * FILE the letters and digits of the kernel file's base name without its
 * extension, and a hash suffix "_0XXXXXXXX" where VARIANT's spelling could
 * be another variant's (not lower-case words): injective in the variant
 * (malloc'ed). */
char *lower_header_guard(const char *file, const char *variant);
/* The header's macro for extent d of parameter b: "<VARIANT>_<MACRO>"
 * where the kernel named it with a #define (malloc'ed), else NULL (a
 * literal, or an extent sized by a parameter); with the hash suffix of
 * lower_header_guard where the pair is not plain (lower_header_macro). */
char *lower_size_macro(const Module *m, const char *variant, const Buffer *b, int d);
/* "<VARIANT>_<MACRO>" for a #define a header names (malloc'ed), with
 * lower_size_macro's hash suffix where needed. */
char *lower_header_macro(const Module *m, const char *variant, const char *macro);
/* Extent d of parameter b where the user wrote an expression of
 * #defines (`H + 2`, Buffer.dim_spelling): its tokens, or NULL (also
 * where a layout step changed the shape). */
const ExtentSpelling *lower_extent_spelt(const Buffer *b, int d);
/* That extent as a prototype spells it (malloc'ed), or NULL: with the
 * kernel's #defines in the .c (variant NULL), in a header with each
 * #define as lower_header_macro names it for variant. */
char *lower_extent_spelling(const Module *m, const char *variant, const Buffer *b, int d);
/* Type t as a header of that style names it: the C type a typedef or a
 * type macro names. */
const char *lower_proto_type(const Type *t, ProtoStyle style);
/* The header's prototypes: one per branch of an #if over the compilers
 * (cond, why as its comment), the last for every other one (cond NULL);
 * a single one when all compilers take the same. Their count. */
typedef struct {
  ProtoStyle style;
  const char *cond, *why;
} HeaderBranch;
int lower_header_branches(const Kernel *k, bool assume_no_alias, HeaderBranch out[3]);
/* k as a header's C++ prototype names its parameters: one named a C++
 * keyword (`new`, `class`) renamed `new_` (`new_2`... while that is
 * another parameter's name), in copies allocated in a; k itself when none is. An
 * extent still names the size as the kernel does, in the comment C++ reads
 * it in (PROTO_HEADER_CXX). */
const Kernel *lower_cxx_param_names(Arena *a, const Kernel *k);

/* lower/variant_check.c: in the check's C, loop runs in permuted orders
 * (a marked loop); an access of b goes through npu_cu_access. */
bool lower_permutable(const Stmt *loop);
bool lower_cu_hooked(const Buffer *b);
/* The check's C declares k's local arrays to the simulator: a DMA may
 * read or write one (a call's, or a copy of a cache whose array is a
 * local in DDR, as after inline of a call given the caller's array). */
bool lower_declares_locals(const Kernel *k);

/* The order the C of a variant runs the iterations of each marked loop
 * in (lower_permutable). Marked iterations are proven independent, so
 * every order computes the same: the differential check runs the others
 * to catch a mark that a later step broke. Only EMIT_ORDER_SOURCE is
 * ever written out (npugen emit). */
typedef enum {
  EMIT_ORDER_SOURCE,   /* as the loop counts */
  EMIT_ORDER_REVERSED, /* last iteration first */
  EMIT_ORDER_ODD_EVEN, /* iterations 1, 3, 5, ... then 0, 2, 4, ... (counted from 0) */
  EMIT_ORDERS
} EmitOrder;
const char *lower_order_name(EmitOrder o); /* "source", "reversed", "odd-even" */
/* lower/order.c: a copy of `lowered` (not modified) with each marked
 * loop run in order o, in a; `lowered` itself for EMIT_ORDER_SOURCE. */
Kernel *lower_order(Arena *a, const Kernel *lowered, EmitOrder o);
/* lower/lower.c: what a unit prints, in a: `lowered` (a variant's
 * lowering, made once) or k lowered here with its synchronisation
 * checked (what failed in why, "" when it held), each marked loop in
 * order o. */
const Kernel *lower_for_order(Arena *a, const Kernel *k, const Kernel *lowered, const NpuTarget *target, EmitOrder o,
                              char *why, size_t n);

/* lower/nest_note.c: the note over vectorized loop s that no VU
 * instruction computes (its vectorize() stays a hint), appended to out;
 * false where it needs none. */
bool lower_vec_note(const Stmt *s, StrBuf *out);

/* lower/layout_helpers.c: parameter b's (b has a layout) pack and unpack
 * helpers of variant `variant`, in a: VARIANT_pack_B(const T logical[..],
 * T physical[..]) and VARIANT_unpack_B(const T physical[..], T
 * logical[..]) as kernels, and the comment over them ("B: logical [..]
 * -> physical [..], by" and the layout's steps, lower_comment_lines). */
typedef struct {
  Kernel *pack, *unpack;
  const char *comment;
} LayoutHelpers;
void lower_layout_helpers(Arena *a, const char *variant, const Buffer *b, LayoutHelpers *out);

/* lower/program.c: the functions of a program (a kernel holding marked
 * calls) in the order its C defines them, callees before their callers:
 * each one's call block (its CallSite), its IR (fn_ir, or built for a
 * call that passes an on-chip array) and the comment over it (a line, or
 * lines each ended by '\n'). None for a kernel without calls. */
enum { LOWER_MAX_FUNCTIONS = 64 };
typedef struct {
  const Stmt *call;
  const Kernel *k;
  const Kernel *lowered;   /* k lowered for the target, in the unit's order */
  const char *lower_error; /* its synchronisation check's failure, "" when it held */
  const char *comment;
} LowerFunction;
typedef struct {
  Arena arena; /* the functions built, the comments */
  LowerFunction fns[LOWER_MAX_FUNCTIONS];
  int n;
  bool overflow; /* more than LOWER_MAX_FUNCTIONS */
} ProgramFunctions;
void lower_program_functions(const Kernel *k, const char *program, const NpuTarget *target, EmitOrder o,
                             ProgramFunctions *out);
void lower_program_free(ProgramFunctions *f);

/* ---- shared by the passes (lower/nodes.c) ---- */
Stmt *lower_node(Lower *lw, LowKind kind, SrcLoc loc);
Stmt *lower_note(Lower *lw, SrcLoc loc, const char *text);
Stmt *lower_view(Lower *lw, const Buffer *b, Expr *copy, bool decl, SrcLoc loc);
/* Declaration `decl` of an on-chip buffer as lowered: with its place in
 * its scope (Stmt.scope_at, lower_scope_at), which the printer writes. */
Stmt *lower_onchip_decl(Lower *lw, const Stmt *decl);
/* The comment saying where on-chip buffer b lives: "vu_vm[ of each
 * core], bytes [0, 8192): [two copies of ]4096 bytes". */
const char *lower_scope_note(Lower *lw, const Buffer *b, bool two_copies, bool of_each_core);
/* `if (cond)` with a note, of loop counters only (Stmt.plain_cond). */
Stmt *lower_guard(Lower *lw, Expr *cond, const char *note, SrcLoc loc);
/* lower/call_args.c: marked call block `call` as lowered: the casts its
 * arguments need (Stmt.arg_casts). */
Stmt *lower_call(Lower *lw, const Stmt *call);
/* The bytes past its scope's base where on-chip buffer b (copy number
 * `copy` of it, when given) lives, as the C writes them: its offset, then
 * (copy) * its size; a term that is 0 left out, NULL when both are. */
Expr *lower_scope_at(Lower *lw, const Buffer *b, const Expr *copy);
Stmt *lower_tokens(Lower *lw, const char *base, int ndims, int64_t d0, int64_t d1, bool zero, const char *note,
                   SrcLoc loc);
/* The tokens of per-core buffer b's DMAs, one per core (and per copy of
 * a double-buffered one), with a note "per core: WHAT". */
Stmt *lower_core_tokens(Lower *lw, const Buffer *b, int64_t cores, bool zero, const char *what, SrcLoc loc);
DmaToken lower_token(const char *base, Expr *i0, Expr *i1);
/* token = copy nest c's DMA on channel, its region where at (when given)
 * has value `value`; named: after a comment naming the copy. */
Stmt *lower_start(Lower *lw, DmaToken t, const Stmt *c, Expr *channel, const Var *at, Expr *value, bool named);
Stmt *lower_wait(Lower *lw, DmaToken t, Expr *guard, bool if_issued, const char *note, SrcLoc loc);
Expr *lower_int(Lower *lw, int64_t v);
Expr *lower_var(Lower *lw, const Var *v);
Expr *lower_bin(Lower *lw, Op op, Expr *a, Expr *b);
/* a shallow copy of s, alone (next NULL) */
Stmt *lower_shallow(Lower *lw, const Stmt *s);
/* items (n of them, room for *cap) with room for one more: the same, or
 * a copy twice as large in a (*cap updated). */
void *lower_room(Arena *a, void *items, int n, int *cap, size_t size);
/* Appends s (a list) at *tail; returns the new tail. */
Stmt **lower_append(Stmt **tail, Stmt *s);
/* Each line of text as a line of a comment's text, indented: "  LINE\n". */
void lower_comment_lines(StrBuf *sb, const char *text);
/* A copy nest (cache.c's LOOP_DMA, or a plain serial copy between DDR and
 * an on-chip buffer or two on-chip buffers). */
bool lower_is_copy_nest(const Stmt *loop);
/* Copy nest c is one DMA: async (one call, a token) or not (host loops
 * may go around the call). */
bool lower_one_dma(Lower *lw, const Stmt *c, bool async);
/* A copy nest under list (not those in skip[]); under s alone. */
bool lower_has_copy(const Stmt *list, const Stmt *const *skip, int nskip);
bool lower_holds_copy(const Stmt *s);

/* ---- the static synchronisation check (lower/sync_check.c) ---- */
/* Every read of an on-chip buffer a DMA fills comes after that DMA's
 * wait on every path; no buffer is written while a DMA reading or writing
 * it is in flight; a token is not started again while in flight; at most
 * max_tokens in flight; none left at the end. False with the first
 * violation (buffer and lines) in why. */
bool lower_check_sync(const Kernel *lowered, int64_t max_tokens, char *why, size_t n);

#endif
