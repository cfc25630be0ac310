/* The loop-nest IR: buffers, loops, statements and typed expressions.
 *
 * A Module owns one Arena; every node below lives in it. Lists are plain
 * singly linked (Stmt.next) or counted arrays (index lists). The IR keeps the
 * source's C semantics exactly: each Expr carries its C type, and the usual
 * arithmetic conversions are explicit EX_CAST nodes marked `implicit` (the
 * emitter leaves those to the C compiler, which re-inserts the same ones). */
#ifndef NPG_IR_H
#define NPG_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir/util.h"

/* ---------------- C scalar types ---------------- */
typedef enum {
  TY_VOID,
  TY_CHAR, /* plain char: signed on every target we support */
  TY_SCHAR,
  TY_UCHAR,
  TY_SHORT,
  TY_USHORT,
  TY_INT,
  TY_UINT,
  TY_LONG,
  TY_ULONG,
  TY_LLONG,
  TY_ULLONG,
  TY_FLOAT,
  TY_DOUBLE,
} TypeKind;

/* Types are interned, read-only descriptors; `name` is the spelling the user
 * wrote (int8_t and signed char are the same kind, spelled differently). */
typedef struct Type {
  TypeKind kind;
  const char *name;
  int size;      /* bytes */
  bool is_signed;
  int rank;      /* integer conversion rank; 0 for floating types */
  /* A name the kernel file gives a type (`typedef float real;` or
   * `#define DATA_TYPE float`): the type it names; NULL for C's own. The
   * alias keeps its name, so the emitted code spells it as written. */
  const struct Type *alias_of;
} Type;

extern const Type ty_void, ty_char, ty_schar, ty_uchar, ty_short, ty_ushort, ty_int,
    ty_uint, ty_long, ty_ulong, ty_llong, ty_ullong, ty_float, ty_double;

/* The type named by a spelling ("int8_t", "unsigned char", "float"...), or NULL. */
const Type *type_by_name(const char *spelling);
bool type_is_integer(const Type *t);
bool type_is_float(const Type *t);
/* Integer promotion (char, short -> int); identity for other types. */
const Type *type_promote(const Type *t);
/* The usual arithmetic conversions of C11 6.3.1.8. */
const Type *type_common(const Type *a, const Type *b);
/* Canonical spelling of a type kind ("int", "unsigned int", ...). */
const Type *type_canonical(const Type *t);
bool type_same(const Type *a, const Type *b);
/* Value range of an integer type. */
void type_int_range(const Type *t, int64_t *lo, uint64_t *hi);

/* ---------------- nodes ---------------- */
typedef struct Var Var;
typedef struct Buffer Buffer;
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Param Param;
typedef struct Kernel Kernel;
typedef struct Module Module;

typedef struct {
  int line, col; /* 1-based position in the kernel source */
} SrcLoc;

typedef enum { VAR_LOOP, VAR_LOCAL, VAR_PARAM } VarKind;

struct Var {
  const char *name;
  const Type *type;
  VarKind kind;
  bool is_const;
  bool is_size; /* one of the kernel's sizes (Kernel.sizes): never assigned */
  SrcLoc loc;
  int id; /* unique within the kernel */
};

typedef enum { ROLE_INPUT, ROLE_OUTPUT, ROLE_INOUT, ROLE_LOCAL } BufferRole;

enum { IR_MAX_DIMS = 8 };
/* The most bytes a kernel's local arrays may take together (ir/bounds.c). */
enum { IR_MAX_LOCAL_BYTES = 1 << 20 };

/* A buffer's physical layout after transform_layout and its sugar: the
 * composed index map from the logical indices (the kernel as written) to the
 * physical ones, and what the padding holds. Immutable once built: a new
 * step builds a new Layout. */
typedef struct Layout Layout;
struct Layout {
  int ndim;                   /* logical rank */
  int64_t shape[IR_MAX_DIMS]; /* logical extents */
  Var *var[IR_MAX_DIMS];      /* logical index variables */
  Expr *index[IR_MAX_DIMS];   /* physical index d, over var[] (Buffer.ndim of them) */
  bool padded;                /* some physical elements hold no logical one */
  const char *pad_text;       /* pad_value as C text; NULL when not given */
  double pad_value;
  const char *steps;          /* the layout steps, one a line */
};

/* A constant extent as the user spelt it, an expression of #defines and
 * integer literals (`H + 2`; for a local array also one #define, `WP`):
 * its tokens, each #define marked with its value (a header defines it
 * under the variant's name). */
typedef struct {
  const char *text;
  bool is_macro;
  int64_t value; /* is_macro: the #define's value */
} ExtentToken;
typedef struct {
  int n;
  const ExtentToken *tok;
  int64_t value; /* local arrays: the extent it spells (a schedule may change the shape) */
} ExtentSpelling;

struct Buffer {
  const char *name;
  const Type *elem;
  int ndim;
  int64_t shape[IR_MAX_DIMS];
  const char *dim_macro[IR_MAX_DIMS]; /* parameters: the #define naming an extent, or NULL */
  const ExtentSpelling *dim_spelling[IR_MAX_DIMS]; /* parameters: an extent written as an expression; local
                                                     * arrays: also a #define; or NULL */
  const char *scope; /* "global" for host arrays and locals; or dm, nu_ib, nu_wb, nu_ob, vu_vm */
  int64_t offset;    /* on-chip buffers: byte offset in the scope (schedule/placement.c) */
  /* double_buffer(): two copies, <name>_db, filled and drained by DMA on
   * token <name>_tok while the loop runs on the other copy */
  int copies;
  const char *db_name, *db_token;
  const char *db_next; /* the next iteration's copy where a loop loads it ahead (lower/pipeline.c) */
  const Layout *layout; /* NULL: the logical layout; shape is physical */
  /* vu_vm buffers in the body of a loop bound to the VU cores: that loop's
   * counter, whose value is the core holding the iteration's copy (set
   * after every step by sched_check_bound_loops); NULL: core 0 */
  const Var *core;
  BufferRole role;
  bool is_const;
  bool is_restrict; /* a parameter declared `T A[restrict N]...`: kept in the emitted signature */
  /* A C99 array parameter sized by scalar parameters (`float A[n][m]`):
   * dimension i's extent as an expression of the kernel's sizes
   * (Kernel.sizes), printed as written; NULL where shape[i] is the
   * constant extent. shape[i] is 0 where extent[i] is set. */
  Expr *extent[IR_MAX_DIMS];
  SrcLoc loc;
  int id;
};

typedef enum {
  EX_INT,    /* integer literal: ival, type from its suffix/value */
  EX_FLOAT,  /* floating literal: fval, and its source spelling in text */
  EX_VAR,    /* var */
  EX_LOAD,   /* buf[idx0][idx1]... */
  EX_UNARY,  /* op a */
  EX_BINARY, /* a op b */
  EX_COND,   /* a ? b : c */
  EX_CAST,   /* (type) a; implicit when inserted by the conversions */
  EX_CALL,   /* fn(args) from <math.h> */
} ExprKind;

typedef enum {
  OP_NONE,
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
  OP_SHL, OP_SHR, OP_BAND, OP_BOR, OP_BXOR,
  OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
  OP_LAND, OP_LOR,
  OP_NEG, OP_PLUS, OP_LNOT, OP_BNOT,
  /* only in the check's reference (lower/ref_body.c), which spells its
   * checks in C: `t = a`, `a, b`, `*p`, `&A[i]` */
  OP_ASSIGN, OP_COMMA, OP_DEREF, OP_ADDR,
} Op;

const char *op_spelling(Op op);

struct Expr {
  ExprKind kind;
  const Type *type;
  SrcLoc loc;
  int64_t ival;
  double fval;
  const char *text;  /* EX_FLOAT spelling; EX_CALL function name */
  Var *var;
  Buffer *buf;
  Expr **idx;        /* EX_LOAD: buf->ndim indices */
  Op op;
  Expr *a, *b, *c;
  bool implicit;     /* EX_CAST */
  Expr **args;       /* EX_CALL */
  int nargs;
  const char *macro; /* a #define'd constant: printed by name */
  /* printed inside this many pairs of parentheses, implicit conversion
   * or not: lower/ decides them where the reader wants them, and in the
   * check's reference, whose text depends on no precedence */
  int parens;
};

typedef enum { ST_BLOCK, ST_FOR, ST_IF, ST_ASSIGN, ST_DECL } StmtKind;

/* The nodes of the lowered IR (lower/, docs/lowering.md). Each is an
 * ST_BLOCK without children whose Stmt.low says what it is: every analysis
 * of the scheduled IR sees an empty block, and only lower/, the printer
 * and emit/ look inside. */
typedef enum {
  LOW_DMA_START, /* token = DMA of copy nest low->copy, not yet waited for */
  LOW_DMA_WAIT,  /* wait for token (where low->guard holds, when given) */
  LOW_VIEW,      /* an on-chip buffer's pointer: one copy of a double-buffered one, or both */
  LOW_TOKENS,    /* the declaration of a token or an array of them */
  LOW_NOTE,      /* a comment for the reader: why a schedule mark does nothing here */
  LOW_UNUSED,    /* (void)NAME, NAME in note: a name the variant never reads */
  LOW_POINTER,   /* the check's reference: a hoisted address, `T (*NAME)[..] = ptr_init;` */
} LowKind;

/* A DMA's token in the lowered IR: base[idx[0]][idx[1]]. A copy waited
 * for where it starts has no base; its start and wait share id. */
typedef struct {
  const char *base;
  Expr *idx[2];
  int nidx;
  int id;
} DmaToken;

/* A copy nest as one DMA call, worked out by lower/dma_shape.c for a
 * LOW_DMA_START (emit/ prints it): host loops around the call, the
 * addresses, row bytes, strides and counts (C text), and the condition
 * under which the box is not empty (NULL: always). */
typedef struct {
  const Stmt *copy; /* dst[..] = src[..] at the nest's bottom */
  int nhost;
  const char *host_var[IR_MAX_DIMS];
  int64_t host_extent[IR_MAX_DIMS];
  const char *dst, *src; /* "&A_ib[0][0]" */
  int ndims;             /* strided dimensions: npu_dma_1d, _2d or _3d */
  const char *dst_stride[2], *src_stride[2]; /* bytes: "2048", or "(ptrdiff_t)m * 4" for sized rows */
  const char *row, *count[2];
  const char *runs;
} DmaShape;

/* What a lowered node says (Stmt.low). */
typedef struct {
  LowKind kind;
  DmaToken token;        /* LOW_DMA_START, LOW_DMA_WAIT, LOW_TOKENS (base and the array's extents in dims) */
  /* LOW_DMA_START: the copy nest (cache.c's, dst[..] = src[..] at its
   * bottom), its region where counter at_var has value at_value (when
   * given), on DMA channel `channel`. */
  const Stmt *copy;
  const DmaShape *shape; /* copy as one call, at at_var = at_value */
  const Var *at_var;
  Expr *at_value;
  Expr *channel;
  bool named;            /* LOW_DMA_START: a comment line names the copy first */
  Expr *guard;           /* LOW_DMA_WAIT: only where it holds; NULL: always */
  bool if_issued;        /* LOW_DMA_WAIT: only when the token is not 0 (a DMA was issued) */
  /* LOW_VIEW: buffer view_buf's copy number view_copy, or (view_copy NULL)
   * the pointer to both copies of a double-buffered one (db_name). With
   * decl: the pointer into the buffer's scope (each core's, for a bound
   * loop's buffer), into copy view_copy when given. */
  Buffer *view_buf;
  Expr *view_copy;
  bool decl;
  Expr *scope_at;        /* LOW_VIEW: the bytes past its scope's base (with decl: of copy view_copy), NULL: none */
  const char *scope_note; /* LOW_VIEW with decl, or of both copies: the comment saying where it lives */
  int64_t dims[2];       /* LOW_TOKENS: array extents (ndims of them) */
  int ndims;
  bool zero;             /* LOW_TOKENS: all 0 (none issued) */
  /* LOW_POINTER: NAME (ptr_name) points at view_buf's elements: at rows
   * of its dimensions from ptr_from on (`T (*NAME)[..]`), or with
   * ptr_stepped at one element (`T *NAME`); ptr_init its value */
  const char *ptr_name;
  int ptr_from;
  bool ptr_stepped;
  Expr *ptr_init;
} Lowered;

/* annotate(target, key, value): value is kept as its C spelling. */
typedef struct Annot Annot;
struct Annot {
  Annot *next;
  const char *key, *value;
};

/* A call of another kernel of the file (frontend/call.c, docs/programs.md).
 * The call is the ST_BLOCK that holds it inlined: first one declaration
 * per scalar parameter (a fresh local initialised from the argument, as C
 * passes by value), then the body of the function the call runs, its
 * array parameters replaced by the caller's arrays. Every analysis sees
 * ordinary statements; the emitter prints the block as a call
 * (emit/emit_file.c) while the mark stays (schedule/inline.c drops it). */
typedef struct CallSite CallSite;
struct CallSite {
  const char *name;        /* the call's name in schedules: its label, or the callee's name */
  const Kernel *callee;    /* the kernel called, as written */
  const char *fn;          /* the function it runs: the callee, or the variant use() picked */
  const Kernel *fn_ir;     /* that function's (scheduled) IR, as its variant emits it */
  const char *fn_schedule; /* its steps, one a line; NULL: the kernel as written */
  int nparams;             /* the callee's parameters, in order: */
  Buffer **arg_buf;        /* the caller's array passed, or NULL for a scalar */
  Var **arg_var;           /* the local bound to a scalar argument, or NULL */
  /* the block's statements as marked (ir_call_fingerprint), NULL until a
   * schedule starts: a step that changes them is refused (schedule/sched.c) */
  const char *fingerprint;
};

/* LOOP_DMA: the outermost loop of a copy nest made by cache_read or
 * cache_write; the emitter turns it into DMA when its shape allows. */
/* LOOP_VU: bind(loop, vu), iteration i on VU core i (schedule/bind.c). */
typedef enum { LOOP_SERIAL, LOOP_UNROLL, LOOP_VECTORIZE, LOOP_PARALLEL, LOOP_DMA, LOOP_VU } LoopKind;

struct Stmt {
  StmtKind kind;
  SrcLoc loc;
  Stmt *next;          /* next statement in the enclosing block */
  const char *name;    /* ST_ASSIGN: label or generated name; ST_FOR: loop name */
  bool labeled;        /* the user wrote the name as a label */

  Stmt *body;          /* ST_BLOCK: first child; ST_FOR: the body (a block) */
  CallSite *call;      /* ST_BLOCK: the call of a kernel it holds inlined, or NULL */

  /* ST_FOR: var takes lo, lo+step, ... while `var cmp hi` holds. */
  Var *var;
  Expr *lo, *hi;
  Op cmp;              /* OP_LT, OP_LE (step > 0) or OP_GT, OP_GE (step < 0) */
  int64_t step;
  LoopKind loop_kind;
  /* The step that set loop_kind to parallel, vectorize or bind ("parallel(j)")
   * and its pragma's place: the mark is re-proven after every later step
   * (schedule/marks.c), and a step that breaks it is refused naming both. */
  const char *mark_step;
  SrcLoc mark_loc;
  const char *intrin;  /* tensorize(): the intrinsic this nest is emitted as */
  const char *vec_note; /* vectorize() on vu_vm data: why no VU instruction computes the nest */
  /* one instruction of a sequence that computes a statement's expression
   * tree (schedule/isel_cover.c): the source expression its nest computes,
   * the comment over its call */
  const char *isel_note;

  /* ST_IF */
  Expr *cond;
  Stmt *then_s, *else_s;
  /* a copy nest's tail guard (schedule/cache.c) that holds for no
   * iteration in some iterations of the loops around (the box starts at or
   * past the array's end there): its DMA runs only when its count is > 0 */
  bool tail_may_be_empty;

  /* ST_ASSIGN: lhs op= rhs; op is OP_NONE for plain '='. */
  Expr *lhs;
  Op op;
  Expr *rhs;

  /* ST_DECL: a local scalar (var, optional init) or a local array (buf,
   * optional flat initializer list of ninit constant expressions). */
  Buffer *buf;
  Expr *init;
  Expr **init_list;
  int ninit;

  /* Scheduling bookkeeping (schedule/, ir/deps.c). `inst` numbers the leaf
   * statements of the program a schedule step starts from; `orig` gives, in
   * the current loop variables, the values of that program's enclosing loop
   * counters (norig of them), so every rewritten instance keeps its identity. */
  int inst;
  Expr **orig;
  int norig;
  const Var **orig_vars; /* the model's loop counters orig[] stands for (messages) */
  Annot *annots;       /* annotate(): kept as comments/pragmas in emitted code */
  /* ir_clone_stmt: the statement this one is a copy of, until the schedule
   * step that made the copy ends (a copy of a proven marked loop inherits
   * the proof: schedule/marks.c) */
  const Stmt *clone_of;

  /* The lowered IR (lower/). `low`: what a lowered node does. `note`: a
   * comment the emitted C carries (LOW_NOTE: its text; ST_IF, LOW_DMA_WAIT,
   * LOW_TOKENS: after it; an ST_FOR that runs one phase of a bound loop,
   * and an ST_BLOCK of lower_order's: on its first line; LOW_UNUSED: the
   * name cast to void). `order_note`: a marked loop that keeps the
   * source order in every emitted order, and why. */
  Lowered *low;
  const char *note;
  const char *order_note;
  /* ST_DECL of an on-chip buffer: the bytes past its scope's base, set
   * where the DMA pass lowers the declaration (lower_onchip_decl), NULL:
   * none; lower_check_sync refuses one past the base without it */
  Expr *scope_at;
  /* and the comment after it, where it lives: "vu_vm, bytes [0, 4096):
   * 4096 bytes" (lower_scope_note) */
  const char *scope_note;
  /* ST_DECL of a local array: each extent as the source spelt it where the
   * schedule left it as it was (lower/module.c), NULL entries (or NULL):
   * the number */
  const char *const *extents;
  /* ST_IF made by the lowering (lower_guard): a guard of loop counters
   * only, printed as it is, never through the check's hooks */
  bool plain_cond;
  /* a marked call block as lowered (lower_call): before argument i, the
   * cast C99 needs, or NULL (a caller's array passed for a const
   * parameter: "(const int8_t (*)[64])") */
  const char **arg_casts;
  /* a tensorized nest's call (or why it no longer matches), as
   * lower/intrinsic.c decided it (lower/lower.h) */
  const struct IntrinCall *intrin_call;
};

struct Param {
  Param *next;
  Buffer *buf; /* array parameter */
  Var *var;    /* or scalar parameter */
};

enum { IR_MAX_SIZES = 8, IR_MAX_SIZE_SETS = 16, IR_MAX_ASSUME = 16 };

/* One value for each of a kernel's sizes (Kernel.sizes, in that order):
 * `#pragma npu sizes(KERNEL, n = 64, ...)` or one the check picks. */
typedef struct {
  int64_t val[IR_MAX_SIZES];
  SrcLoc loc; /* the pragma's; 0:0 for the check's own */
} SizeSet;

/* A derived precondition the entry tests check (Kernel.entry_need). */
typedef struct {
  Expr *cond;
  SrcLoc loc;      /* the construct that needs it */
  const char *why;
} EntryNeed;

struct Kernel {
  Kernel *next;
  const char *name;
  SrcLoc loc;
  Param *params;
  int nparams;
  Stmt *body; /* an ST_BLOCK */
  int nvars, nbufs, nstmts;
  /* Symbolic sizes (docs/kernel-language.md): the integer scalar
   * parameters that size an array parameter or bound a loop, in parameter
   * order; what `#pragma npu assume(KERNEL, ...)` states of them (integer
   * conditions over them, each true at every call); and the size sets
   * `#pragma npu sizes` gives the check. */
  const Var *sizes[IR_MAX_SIZES];
  int nsizes;
  Expr *assume[IR_MAX_ASSUME];
  SrcLoc assume_loc[IR_MAX_ASSUME];
  const char *assume_why[IR_MAX_ASSUME]; /* a precondition npugen derived: why (ir/preconditions.c); NULL: the user's */
  int nassume;
  /* preconditions npugen derived that isl's affine sets cannot hold (a
   * count of iterations, `n <= 0 || m <= 0 || n <= 2147483647 / m`:
   * ir/count_preconditions.c): tested at entry and stated in the header;
   * no proof needs them */
  EntryNeed entry_need[IR_MAX_ASSUME];
  int nentry_need;
  SizeSet size_sets[IR_MAX_SIZE_SETS];
  int nsize_sets;
};

/* `#define NAME body` of the source, re-emitted verbatim in generated code. */
typedef struct Define Define;
struct Define {
  Define *next;
  const char *name, *body;
  SrcLoc loc;
  const Expr *value; /* the folded constant */
  /* A name for a type instead (then value is NULL): `#define DATA_TYPE
   * float`, or `typedef float real;` when is_typedef. */
  const Type *type;
  bool is_typedef;
};
/* The line that defines d in C, as the kernel file wrote it: "#define N
 * body" or "typedef base N;" (no newline). */
void ir_define_text(StrBuf *sb, const Define *d);

typedef struct SchedProgram SchedProgram; /* ir/sched_prog.h */
typedef struct CheckSpec CheckSpec;       /* ir/check_spec.h */

struct Module {
  Arena arena;
  const char *file; /* path as given */
  const char *src;  /* the whole source text, NUL-terminated */
  Kernel *kernels;
  Define *defines;
  SchedProgram *schedules; /* `#pragma npu schedule(...)` variants, in order */
  CheckSpec *check_specs;  /* `#pragma npu inputs(...)`, allow_nonfinite(...) */
  bool strict;             /* `#pragma npu strict`: as --strict (jit/strict.c) */
};

/* ---------------- construction helpers ---------------- */
Expr *ir_int(Arena *a, int64_t v, const Type *t, SrcLoc loc);
Expr *ir_var(Arena *a, Var *v, SrcLoc loc);
/* npu_clamp(x, n) (npu_intrinsics.h, int): x clamped to [0, n], a call the
 * intrinsic calls and DMA counts take as a tail's length */
Expr *ir_npu_clamp(Arena *a, Expr *x, int64_t n);
Expr *ir_cast(Arena *a, Expr *e, const Type *t, bool implicit);
Expr *ir_binary(Arena *a, Op op, Expr *l, Expr *r, const Type *t, SrcLoc loc);
Stmt *ir_stmt(Arena *a, StmtKind kind, SrcLoc loc);
/* b[idx[0]]...[idx[ndim-1]], of b's element type */
Expr *ir_load(Arena *a, Buffer *b, Expr **idx);
/* Both print as the same C text (NULL only equals NULL). */
bool ir_expr_same(const Expr *x, const Expr *y);
Expr *ir_expr_copy(Arena *a, const Expr *e);
/* Folding constructors for rewrites: x + 0 is x, x * 1 is x, constants fold.
 * Both operands must have type t (the loop counter's type). */
Expr *ir_add(Arena *a, Expr *x, Expr *y, const Type *t);
Expr *ir_sub(Arena *a, Expr *x, Expr *y, const Type *t);
Expr *ir_mul_int(Arena *a, Expr *x, int64_t c, const Type *t);
bool ir_const_int(const Expr *e, int64_t *v);
/* The number of iterations of loop (ST_FOR) with constant bounds, 0 when
 * it runs none; false when a bound is not constant or the count overflows.
 * The one count of the code base: every pass that needs one calls it. */
bool ir_trip_count(const Stmt *loop, int64_t *n);
/* The same of `for (v = lo; v cmp hi; v += step)` with bounds known as
 * values (a pass that evaluates them itself: lower/sync_check.c). */
bool ir_trip_count_between(Op cmp, int64_t step, int64_t lo, int64_t hi, int64_t *n);
/* The trip count of `for (v = lo; v cmp hi; v += step)` as expressions of
 * type t (the bounds converted to t), for every value of the bounds:
 *   runs  `hi > lo` (`>=` when inclusive; lo and hi swapped counting down)
 *   count where runs holds: `hi - lo` (+ 1 when inclusive) by a step of
 *         1 (or -1), else `(hi - lo - 1) / |step| + 1` (`(hi - lo) /
 *         |step| + 1` when inclusive); by a step of 1 it is <= 0 exactly
 *         where the loop does not run
 *   trips `runs ? count : 0`, the count everywhere.
 * Bounds whose count ir_trip_count_between knows fold: runs is NULL and
 * count and trips are that constant (0 for an empty loop). t must hold
 * hi - lo where the loop runs (lower/order.c counts in unsigned long long).
 * ir_trip_count gives the same counts for constant bounds (tests/test_ir_trips.c). */
typedef struct {
  Expr *runs, *count, *trips;
} IrTrips;
IrTrips ir_trips_between(Arena *a, Op cmp, int64_t step, Expr *lo, Expr *hi, const Type *t);
/* The same of loop (ST_FOR), in its counter's type. */
IrTrips ir_trips(Arena *a, const Stmt *loop);
/* ir_trips(a, loop).trips: loop's trip count as one expression. */
Expr *ir_trip_expr(Arena *a, const Stmt *loop);
/* The coefficient of v in e when e is linear in v (+, -, * by a constant,
 * widening casts); false otherwise. */
bool ir_linear_coef(const Expr *e, const Var *v, int64_t *c);
/* ---- DMA copy nests (ir/dma.c) ---- */
/* Integer arithmetic that is signed all through (no wrap-around hides in
 * an unsigned step): constants, variables, + - * and negation. */
bool ir_signed_affine(const Expr *e);
/* Constants and the kernel's sizes (Var.is_size), and arithmetic on them
 * (no loads, no calls): one value through a run. */
bool ir_expr_sizes_only(const Expr *e);
/* g is `if (start + v < end) { ... }` (or `if (v < end - start)`, split's
 * form that cannot overflow) alone, with no else, start free of
 * v, end a constant or an expression of the kernel's sizes alone (it
 * holds one value through a run), and the arithmetic signed all through:
 * a tail tile's guard (split's, or a tail copy's in cache.c). start (v set
 * to 0, in arena a) and end when asked. */
bool ir_tail_guard(Arena *a, const Stmt *g, const Var *v, Expr **start, const Expr **end);
/* How many iterations a tail runs, min(extent, end - start), as C text in
 * a: also clamped at 0 unless at_least_one (start < end wherever it runs).
 * *known: that count when it is a constant (the text is then the number),
 * else -1. */
const char *ir_tail_count(Arena *a, const Expr *start, const Expr *end, int64_t extent, bool at_least_one,
                          int64_t *known);
/* "end - start > 0" as C text in a: the tail runs at all; NULL when it
 * always does (a positive constant). */
const char *ir_tail_runs(Arena *a, const Expr *start, const Expr *end);
/* What a nest's loop runs: its body's statement list, or, when the body is
 * a tail guard alone (ir_tail_guard), the guarded list. */
const Stmt *ir_nest_inner(const Stmt *loop);
/* The assignment at the bottom of a perfect loop nest (tail guards seen
 * through), when it copies one array element to another; NULL otherwise. */
const Stmt *ir_nest_leaf(const Stmt *loop);
/* A copy nest's destination boxes for consecutive values of v do not
 * overlap (some dimension moves by more than the box spans): a copy of one
 * iteration may still run while the next one's starts. With `also`, a loop
 * around the copy (a bound loop: its cores' copies run at once), the box
 * spans all of its iterations. */
bool ir_copy_steps_apart(const Stmt *copy, const Var *v, const Stmt *also);
/* A statement of loop's body, other than `inner`, that declares or uses
 * an on-chip buffer or is (or holds) a loop bound to the VU cores; NULL
 * when there is none. A buffer whose copies alternate over the iterations
 * of loop stays live across its whole body. */
const Stmt *ir_other_onchip_user(const Stmt *loop, const Stmt *inner);
/* The copy nests of a double-buffered buffer (declared by decl in loop's
 * body, or in the body of `bound`, a loop bound to the VU cores directly in
 * loop's body) and the DDR array they copy (into c, unless NULL); false
 * with the reason in why when a rule of double buffering does not hold. */
typedef struct {
  const Stmt *load, *store; /* one of them: the copy in (first) or out (last) */
  const Buffer *array;
} DbCopies;
bool ir_double_buffer_rules(const Stmt *loop, const Stmt *decl, const Stmt *bound, DbCopies *c,
                            char *why, size_t n);
/* The copy nest in list, other than `copy`, that copies the same box of
 * the same array the other way (copy_in: `copy` fills a buffer from the
 * array), loop for loop: a read cache's fill and a write cache's drain of
 * an array each iteration updates in place. NULL when there is none. */
const Stmt *ir_partner_copy(const Stmt *list, const Stmt *copy, bool copy_in);
/* The partner fill of `store`, a copy out in the body of L (bound to the
 * VU cores), when the boxes of any two iterations of L and of `home` (L,
 * or a loop L is directly in) are apart: then a fill of one iteration
 * never reads what a copy out of another, still in flight, writes. */
const Stmt *ir_store_partner_apart(const Stmt *home, const Stmt *L, const Stmt *store);

/* Deep copies (ir/clone.c). A CloneMap maps variables and buffers to their
 * copies; declarations met inside a cloned subtree get fresh copies (with new
 * ids from `k` when given, the same ids otherwise). */
typedef struct {
  const void **from;
  void **to;
  int n, cap;
  Kernel *k;
} CloneMap;
void clone_map_free(CloneMap *cm);
/* Maps `from` to `to` in the copies made with cm (a callee's parameter to
 * the caller's array: frontend/call.c). */
void ir_clone_map_put(CloneMap *cm, const void *from, void *to);
Expr *ir_clone_expr(Arena *a, const Expr *e, CloneMap *cm);
Stmt *ir_clone_stmt(Arena *a, const Stmt *s, CloneMap *cm); /* s alone, not s->next */
Kernel *ir_clone_kernel(Arena *a, const Kernel *k);
Var *ir_new_var(Arena *a, Kernel *k, const char *name, const Type *t, VarKind kind, SrcLoc loc);
/* Replaces every use of v in s's subtree (s alone, not s->next) by a copy of r. */
void ir_subst_stmt(Arena *a, Stmt *s, const Var *v, const Expr *r);
Expr *ir_subst_expr(Arena *a, Expr *e, const Var *v, const Expr *r);

/* ---- the expression walkers every pass uses (ir/expr_walk.c) ----
 * Both go through a node's operands in one order: a load's indices, a
 * call's arguments, then a, b, c. */
/* What a visitor says of node e: go on into what it holds, skip that
 * (the walk goes on after e), or stop the whole walk. */
typedef enum { IR_VISIT_ON, IR_VISIT_SKIP, IR_VISIT_STOP } IrVisit;
/* depth: 0 at the walk's root, one more for each node down. */
typedef IrVisit (*ExprVisitFn)(const Expr *e, int depth, void *ctx);
/* Visits e and each expression under it, pre-order; false when fn stopped it. */
bool ir_visit_expr(const Expr *e, ExprVisitFn fn, void *ctx);
/* The same with a visitor that only goes on (true) or stops (false). */
typedef bool (*ExprVisitor)(const Expr *e, void *ctx);
bool ir_walk_expr(const Expr *e, ExprVisitor fn, void *ctx);
/* e rebuilt bottom-up: fn gets each node once its operands are rebuilt
 * and returns what replaces it (the node itself to keep it). A node whose
 * operands all came back unchanged is passed as it is, so the result
 * shares with e every subtree fn kept; a node with a changed operand is
 * passed as a fresh shallow copy (in a) holding the new operands. e itself
 * is never modified (ir_expr_copy first for a tree that shares nothing). */
typedef Expr *(*ExprMapFn)(Arena *a, Expr *e, void *ctx);
Expr *ir_map_expr(Arena *a, Expr *e, ExprMapFn fn, void *ctx);
/* Does e (or statement s's own expressions: bounds, condition, sides,
 * initializers; not its children) mention variable v or array b? Either may
 * be NULL. */
bool ir_expr_uses(const Expr *e, const Var *v, const Buffer *b);
bool ir_stmt_uses(const Stmt *s, const Var *v, const Buffer *b);
/* Does e access an array of scope `scope` ("vu_vm"), or of any on-chip
 * scope when scope is NULL? */
bool ir_expr_in_scope(const Expr *e, const char *scope);
/* The same for the expressions of one statement (not its body). */
bool ir_stmt_in_scope(const Stmt *st, const char *scope);
/* e reads loop counters, constants and sizes of k (Kernel.sizes; k may be
 * NULL) only (no element, no local, no call): a guard no statement can
 * change, so it may be moved or repeated. */
bool ir_expr_counters_only(const Kernel *k, const Expr *e);
/* e reads an array element somewhere. */
bool ir_expr_has_load(const Expr *e);
/* e reads no variable, array or function: literals and operators only. */
bool ir_expr_constant(const Expr *e);

Kernel *module_kernel(const Module *m, const char *name);
int64_t buffer_elems(const Buffer *b);
/* Some extent of b is an expression of the kernel's sizes. */
bool buffer_symbolic(const Buffer *b);
/* Is an extent past the first one sized by the kernel's sizes? Then a
 * row's length is known only at run time (its pitch is not a constant). */
bool buffer_rows_symbolic(const Buffer *b);
/* True when the loop var counts upward. */
static inline bool loop_up(const Stmt *s) { return s->step > 0; }
/* A buffer in NPU memory (cache_read, cache_write): not a host array or local. */
static inline bool buffer_onchip(const Buffer *b) {
  return b->scope && strcmp(b->scope, "global") && strcmp(b->scope, "local");
}
/* A statement that makes its variant use the NPU (an intrinsic's nest, an
 * on-chip buffer's declaration): the emitter includes npu_intrinsics.h
 * and, for the check, hooks the host code's accesses; the check's step
 * budget counts them. */
static inline bool stmt_uses_npu(const Stmt *s) { return (s->buf && buffer_onchip(s->buf)) || s->intrin; }
/* ir/loop_hint.c: the pragma lines printed before a loop of this kind
 * ("\n"-ended; "" for none): a vectorized loop's hint for every build
 * (-O3, -fopenmp-simd, -fopenmp), a parallel loop's where OpenMP is on. */
const char *ir_loop_hint(LoopKind kind);

/* Visits every statement (pre-order). Stops early when fn returns false. */
typedef bool (*StmtVisitor)(Stmt *s, int depth, void *ctx);
void ir_walk_stmts(Stmt *s, StmtVisitor fn, void *ctx);
/* Walks s and what it holds, not the statements after it. */
void ir_walk_one(const Stmt *s, StmtVisitor fn, void *ctx);
/* The statement declaring local or on-chip buffer b under body, or NULL. */
Stmt *ir_buffer_decl(Stmt *body, const Buffer *b);

/* ---- calls of kernels (ir/call.c) ---- */
/* The expression passed for scalar parameter i of call block s (the
 * initialiser of its local), or NULL. */
const Expr *ir_call_scalar_arg(const Stmt *s, int i);
/* Is st one of call block s's declarations of its scalar arguments? */
bool ir_call_binds(const Stmt *s, const Stmt *st);
/* In call block `call`, each read of a size's local (a parameter of the
 * callee that sizes an array or bounds a loop) becomes its argument. */
void ir_call_pass_sizes(Arena *a, Stmt *call);
/* Visits every statement outside marked call blocks (the blocks
 * themselves are visited, not what they hold). */
void ir_walk_outside_calls(Stmt *s, StmtVisitor fn, void *ctx);
/* The marked call block that holds st (at any depth, the outermost), or NULL. */
Stmt *ir_call_around(Stmt *body, const Stmt *st);
/* Text that changes whenever a schedule step changes the statements of
 * call block s (its scalar arguments' values aside) or the arrays passed
 * to it (name, scope, shape, layout), in a. */
const char *ir_call_fingerprint(Arena *a, const Stmt *s);
/* Does the kernel hold a marked call? */
bool ir_has_calls(const Kernel *k);
/* Does call site c pass an array that lives on chip (set_scope)? Its
 * function then runs as a function of its own, placed with the caller. */
bool ir_call_onchip(const CallSite *c);
/* The whole-array stage of parameter p in function fn: an on-chip buffer
 * of p's shape declared at fn's top, filled from p (load) and/or copied
 * back to p (store) by whole copy nests at the top, p touched nowhere
 * else (cache_read / cache_write at the root). */
typedef struct {
  const Stmt *decl, *load, *store;
} IrStage;
bool ir_call_stage(const Kernel *fn, const Buffer *p, IrStage *out);
/* Call block `call` of kernel k runs fn_ir (function fn, its schedule
 * text or NULL): its statements become fn_ir's over the call's arrays and
 * scalars, named CALL_name; where the call passes an array already in the
 * scope of a parameter's stage, the stage is that array (no copy). */
void ir_call_run(Arena *a, Kernel *k, Stmt *call, const char *fn, const Kernel *fn_ir, const char *schedule);
/* The function a call that passes an on-chip array runs (ir_call_onchip),
 * as a kernel of its own: its statements over fn_ir's parameters, each
 * such parameter in its array's scope, its buffers placed as the caller's
 * placement put them. */
Kernel *ir_call_function(Arena *a, const Stmt *call);

/* ---------------- printer and verifier ---------------- */
/* The readable text form shown by `npugen emit --dump-ir`. */
void ir_print_kernel(StrBuf *sb, const Kernel *k);
/* C precedence-aware expression text (shared by the printer and the emitter). */
void ir_print_expr(StrBuf *sb, const Expr *e);
/* ir_print_expr, with each load that h->load prints (true) printed by it;
 * it prints the load's indices with ir_print_expr_hooked in turn. */
typedef struct ExprHook ExprHook;
struct ExprHook {
  bool (*load)(StrBuf *sb, const Expr *load, const ExprHook *h); /* NULL: none */
  bool (*cast)(StrBuf *sb, const Expr *cast, const ExprHook *h); /* explicit casts; NULL: none */
  void *ctx;
};
void ir_print_expr_hooked(StrBuf *sb, const Expr *e, const ExprHook *h);
/* Static bounds check (ir/bounds.c): every index provably inside its extent;
 * otherwise errors into d. */
bool ir_check_bounds(const Kernel *k, DiagList *d, const char *file, const char *src);
/* An upper bound on the loop iterations plus statement instances of one run
 * (ir/steps.c); UINT64_MAX when unbounded or too many to count. */
uint64_t ir_count_steps(const Kernel *k);
/* The same with per_access more steps for each array element an instance
 * reads or writes (the host code of an NPU variant, whose every access the
 * check's simulator sees: jit/check.c). */
uint64_t ir_count_steps_weighted(const Kernel *k, uint64_t per_access);
/* Name hygiene (ir/names.c): with C's scoping, every name resolves to the
 * variable or array the IR means, and no scope declares a name twice.
 * Otherwise false, with the first clash described in why. */
bool ir_check_names(const Kernel *k, char *why, size_t why_size);
/* Structural invariants; reports violations into d. True when sound. */
bool ir_verify_kernel(const Kernel *k, DiagList *d, const char *file);

#endif
