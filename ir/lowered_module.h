/* One variant's C with every decision made (lower/module.c makes it,
 * emit/ prints it; docs/architecture.md): the comment lines, the
 * includes, the defines as spelled, the header guard, each function's
 * prototype, entry tests and lowered IR in print order, and how the
 * check's C spells each access. The check's reference is one too
 * (lower/ref_lower.c): its function's body is the kernel as written
 * with its checks (ir/checked_ref.h, written as lowered IR by
 * lower/ref_body.c). The printer reads this and nothing
 * of lower/. */
#ifndef NPG_LOWERED_MODULE_H
#define NPG_LOWERED_MODULE_H

#include "ir/checked_ref.h"
#include "ir/ir.h"

/* One argument of a tensorized nest's call (schedule/tensorize.c gives
 * them in the order of the intrinsic's abi line). */
typedef struct {
  const Expr *value; /* an operand's first element (the call passes its address), a size or a scalar */
  bool address;      /* passed as &value */
  const char *cast;  /* the pointer type the address is cast to ("const uint8_t *"), or NULL */
  /* a literal's parameter as the intrinsic's declaration names it (`n`),
   * printed in a comment before the literal (lower/intrin_params.c), or
   * NULL */
  const char *param;
} IntrinArg;

/* A tensorized nest's call (Stmt.intrin_call, lower/intrinsic.c). */
typedef struct IntrinCall {
  const char *fn;        /* "npu_nu_matmul_i8", NULL when the nest no longer matches */
  const IntrinArg *args; /* its arguments, nargs of them */
  int nargs;
  const char *comment; /* the line over the call: the source expression of one instruction of a sequence, or NULL */
  /* a bound the call would print several times (`npu_clamp(7 -
   * ii_start, 8192)`), held by a const int local declared just before it
   * (`ii_bound`, lower/intrin_repeats.c), which the arguments name; or
   * NULL */
  const Var *hold;
  const Expr *hold_value;
  const char *guard; /* the C test of its scalar operands' domains, or NULL (constants) */
  const char *note;  /* where it no longer matches (a later step changed the nest), the comment before the
                      * loops: "tensorize(ii, X) no longer matches: WHY" */
  /* with a guard: the nest as written, where the test fails, and the
   * comment that says so */
  const Stmt *fallback;
  const char *fallback_note;
  /* the line of the check's C (SPELL_CU_HOOKS) that tells the
   * simulator the fallback ran: `npu_cu_fallback("NAME");` */
  const char *fallback_mark;
} IntrinCall;

/* The headers a C file includes. */
typedef struct {
  bool stdint, math, stdlib, npu;
  bool setjmp; /* the check's reference: a failed check longjmps out */
} Includes;

/* A test a function makes of its sizes at entry (NPUGEN_ASSUME): cond,
 * or for an extent (extent_of set) `cond >= 1`. */
typedef struct {
  const Expr *cond;
  const Buffer *extent_of;
} EntryTest;

/* A #define or typedef as printed (a header's are its size macros). */
typedef struct {
  const char *text;
} LoweredDefine;

typedef struct {
  LoweredDefine *items;
  int n;
} LoweredDefines;

/* How the host's expressions are spelled: as written; for tcc (arrays
 * whose rows are sized by the kernel's sizes flat); the check's C of a
 * variant without the NPU (tcc's masks on conversions too); the check's
 * C of one with it (each access of a hooked buffer via npu_cu_access). */
typedef enum { SPELL_PLAIN, SPELL_TCC, SPELL_CHECK, SPELL_CU_HOOKS } Spelling;

/* A vectorized loop's note (no VU instruction computes it). */
typedef struct {
  const Stmt *loop;
  const char *text;
} LoopNote;

/* One function the C defines. */
typedef struct {
  const char *name;
  const Kernel *k;            /* its parameters */
  const Stmt *body;           /* the lowered statements, in print order */
  const char *comment;        /* the comment over it (a line, or lines each ended by '\n'), or NULL */
  const Stmt *call;           /* a program's function: the call block that runs it */
  bool is_static;
  const char *sync_error;     /* its lowering's failed synchronisation check (an #error), or NULL */
  EntryTest *tests;
  int ntests;
  /* the prototype: the #define naming extent d of parameter i, or the
   * user's expression of #defines (`H + 2`), as C text
   * (extent_macro[i * IR_MAX_DIMS + d]), or NULL (a number); every
   * array `restrict`; arrays sized by the sizes flat (tcc) */
  const char **extent_macro;
  /* the definition's spelling of an extent in the sizes that could
   * overflow as written (extent_at_entry[i * IR_MAX_DIMS + d], NULL: as
   * written): C evaluates it before the entry tests (lower/entry_extents.c) */
  const Expr **extent_at_entry;
  bool all_restrict, flat_params;
  /* a header's spelling (lower/prototype.c): no restrict at all (C++);
   * each parameter's type as named (param_type[i]; NULL: as the kernel
   * wrote them); an extent left out, or a flat array's shape, in a comment */
  bool no_restrict, shape_comments;
  const char **param_type;
  /* parameter i's spelling, as the flags above and its array decide:
   * `restrict` (param_restrict[i]); a flat pointer, for tcc, an array
   * whose rows are sized by the kernel's sizes (param_flat[i]) */
  bool *param_restrict, *param_flat;
  Spelling spelling;
  /* the check's C (SPELL_CU_HOOKS): where a tensorized nest falls back,
   * its line tells the simulator (IntrinCall.fallback_mark) */
  bool mark_fallbacks;
  bool local_ddr;             /* local arrays declared to the simulator (the check's C of a program) */
  LoopNote *notes;
  int nnotes;
  const Buffer **hooked;      /* SPELL_CU_HOOKS: the buffers accessed via npu_cu_access */
  int nhooked;
  /* the check's reference: a parameter before the kernel's ("NpgCk
   * *npg_ck", the state its checks report to), or NULL */
  const char *context;
  /* an array parameter's first extent in the sizes spelt
   * NPUGEN_FIRST_EXTENT(e): the .c's definition, which tcc 0.9.27 builds
   * only without it (LoweredModule.first_extent_macro) */
  bool first_extent_macro;
} LoweredFunction;

/* One of the header's prototypes: for the compilers that #if cond holds
 * for (why: its comment), or for every other one (cond NULL). */
typedef struct {
  LoweredFunction proto;
  const char *cond, *why;
} HeaderPrototype;

/* A parameter's pack and unpack helpers with the comment over them. */
typedef struct {
  const char *comment;
  LoweredFunction pack, unpack;
} LoweredLayout;

enum { IR_TYPE_KINDS = TY_DOUBLE + 1 };

typedef struct LoweredModule {
  Arena arena;
  Arena callees; /* a program's functions as lowered */
  /* the .c file */
  const char **comment; /* its lines; the first opens the comment */
  int ncomment;
  Includes includes;
  LoweredDefines defines;      /* before the own header */
  const char *own_header;      /* "NAME.h", or NULL */
  LoweredDefines late_defines; /* after it */
  const char *assume_macro;    /* NPUGEN_ASSUME's definition, or NULL */
  const char *first_extent_macro; /* NPUGEN_FIRST_EXTENT's, or NULL */
  const char *support;         /* after the includes: C the functions call (the reference's checks), or NULL */
  CheckRef *reference;         /* the check's reference: its lowering, which the module owns, or NULL */
  int too_many_functions;      /* a program calls more than this many functions (an #error), or 0 */
  LoweredFunction *functions;  /* a program's, callees first */
  int nfunctions;
  LoweredFunction main;
  LoweredLayout *layouts;
  int nlayouts;
  /* tcc's mask of a conversion from kind to kind (SPELL_CHECK,
   * SPELL_CU_HOOKS), or NULL */
  const char *tcc_mask[IR_TYPE_KINDS][IR_TYPE_KINDS];
  /* the .h file */
  const char **header_comment;
  int nheader_comment;
  const char *guard;
  bool header_stdint;
  LoweredDefines header_defines; /* its size macros, prefixed with the variant's name */
  HeaderPrototype header_protos[3];
  int nheader_protos;
  LoweredLayout *header_layouts; /* the layout helpers as the header spells them (nlayouts) */
  const char **header_notes; /* a comment each */
  int nheader_notes;
} LoweredModule;

/* ir/print_lowered.c: the whole module as --dump-ir=lowered shows it:
 * each function's lowered IR (the variant's, then a program's functions
 * under "function NAME, which call CALL (line L) runs:"), then every
 * other decision of the .c and the .h. */
void ir_print_lowered_module(StrBuf *sb, const LoweredModule *m);
/* A tensorized nest's call as C, `NAME(args);`, and the declaration of
 * the local that holds its repeated bound, `const int NAME = VALUE;`
 * (IntrinCall.hold set): emit/ and --dump-ir print them alike. */
void ir_print_intrin_call(StrBuf *sb, const IntrinCall *c);
/* ir/print.c: kernel k as lowered, as --dump-ir prints it plus what only
 * the emitted C reads (annotations, lower/'s comments on blocks, guards,
 * waits and tokens, a held bound, a const local, which names are labels). */
void ir_print_lowered_kernel(StrBuf *sb, const Kernel *k);
void ir_print_intrin_hold(StrBuf *sb, const IntrinCall *c);

#endif
