/* Internal state shared by the frontend's files. */
#ifndef NPG_FE_H
#define NPG_FE_H

#include <setjmp.h>
#include <tree_sitter/api.h>

#include "frontend/frontend.h"
#include "ir/sched_prog.h"
#include "ir/strmap.h"

typedef enum { SYM_VAR, SYM_BUF, SYM_DEFINE, SYM_TYPE } SymKind;

typedef struct Sym Sym;
struct Sym {
  Sym *next;
  const char *name;
  SymKind kind;
  Var *var;
  Buffer *buf;
  Expr *value;      /* SYM_DEFINE: the folded constant */
  const Type *type; /* SYM_TYPE: the alias (a typedef or a macro naming a type) */
  /* A local counter declared before its loops (`int i; for (i = 0; ...)`). */
  bool is_counter;  /* adopted by a for loop */
  int after_loop;   /* line of the loop it was adopted by, for the error */
};

typedef struct Scope Scope;
struct Scope {
  Scope *up;
  Sym *syms;
  int nsyms;
  IrMap *index; /* by name, once the scope holds more than a few symbols */
};

/* Facts about a local scalar, used by the frontend checks and bounds analysis. */
typedef struct VarInfo {
  int assigns;   /* assignments besides the declaration's initializer */
  int reads;
  bool is_const;
} VarInfo;

/* Where a macro body's snippet sits in the real source (see preproc.c). */
typedef struct {
  bool active;
  int line, col;   /* position of the body's first byte */
  int prefix;      /* bytes the snippet adds before the body */
  bool fixed;      /* every position is line:col (a body macros.c rewrote: its macro's use) */
} LocMap;

/* The file as frontend/macros.c expanded it: each segment of the expanded
 * text, from `at` on, maps to the source from offset `src` on, or, when
 * fixed, to `src` alone (a macro body's token reports its use). */
typedef struct {
  uint32_t at, src;
  bool fixed;
} MapSeg;
typedef struct {
  MapSeg *seg;
  int n;
  uint32_t *line_start;
  int nlines;
} FileMap;

typedef struct {
  const char *file;
  const char *src;  /* the real source: positions and caret lines refer to it */
  const char *text; /* what node byte offsets index: file_text, or a macro snippet */
  const char *file_text; /* what the file's tree indexes: src, or src expanded (macros.c) */
  const FileMap *fmap;   /* file_text's map to src when it is expanded */
  bool preprocess_failed;
  LocMap map;
  Module *m;
  Arena *arena;
  DiagList *diags;
  const TSLanguage *lang;
  jmp_buf fail; /* an error unwinds to the current top-level item */
  Scope *globals; /* #define constants */
  Scope *scope;
  Kernel *k;
  VarInfo *vinfo; /* indexed by Var.id */
  int vinfo_cap;
  int stmt_seq;
  int depth;
  int loop_depth; /* for loops around the current statement */
  SchedProgram *sched; /* the variant the next schedule pragma belongs to */
  SchedStep **step_tail; /* where sched's next step goes */
  SchedProgram **sched_tail; /* where the module's next schedule goes */
  Define **define_tail;
  Kernel **kernel_tail;
  IrMap kernel_names;    /* the module's kernels by name (in the arena) */
  bool exact_consts;   /* a schedule argument: constants must keep their exact value */
  bool intrinsic_file; /* a semantics kernel of npu_intrinsics/: its kernel has an npu_ name */
  bool arith_error;    /* the last error was fe_arith_error's (an error whatever the text means) */
  TSNode root;         /* the file's syntax tree (frontend/call.c looks for kernels defined later) */
  unsigned included;   /* the standard headers the file includes, a bit each (frontend/preproc.c) */
} Fe;

/* extent_spelling.c: a constant extent written as an expression of
 * integer #defines (`H + 2`) as its tokens, or NULL (print its value). */
const ExtentSpelling *fe_extent_spelling(Fe *fe, TSNode size);
/* A local array's constant extent `value` as spelt: an integer #define
 * (`WP`, whatever its body) or such an expression; NULL for a literal. */
const ExtentSpelling *fe_local_extent_spelling(Fe *fe, TSNode size, int64_t value);

/* cst.c: tree-sitter helpers */
SrcLoc fe_loc(const Fe *fe, TSNode n);
const char *fe_text(Fe *fe, TSNode n); /* arena copy of the node's text */
bool fe_is(TSNode n, const char *type);
/* The i-th named child, comments skipped (tree-sitter puts them anywhere). */
TSNode fe_child(TSNode n, uint32_t i);
TSNode fe_field(TSNode n, const char *field);
_Noreturn void fe_error(Fe *fe, TSNode n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void fe_error_at(Fe *fe, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Parses a whole file (see cst.c for the comment openers in strings). */
TSTree *fe_parse(const TSLanguage *lang, const char *src, uint32_t len);
/* Reports the first ERROR/MISSING node or excessive depth; false if any. */
bool fe_check_syntax(Fe *fe, TSNode root);

/* scope.c */
void fe_push_scope(Fe *fe);
void fe_pop_scope(Fe *fe);
Sym *fe_lookup(Fe *fe, const char *name);
/* A type under a name the kernel file gives it (frontend/type.c). */
const Type *fe_alias_type(Fe *fe, const char *name, const Type *base);
/* A file-scope typedef of a scalar type. */
void fe_typedef(Fe *fe, TSNode n);
Sym *fe_declare(Fe *fe, TSNode at, const char *name, SymKind kind);
/* A file-level symbol known to be new (a schedule file's #defines). */
Sym *fe_declare_global(Fe *fe, const char *name, SymKind kind);
/* Refuses a reserved name (ir/reserved.c) for a `what` ("parameter"...). */
void fe_check_name(Fe *fe, TSNode at, const char *name, const char *what);
/* The same for a block's local, which may hide a <math.h> function. */
void fe_check_local_name(Fe *fe, TSNode at, const char *name, const char *what);
Var *fe_new_var(Fe *fe, const char *name, const Type *t, VarKind kind, SrcLoc loc);
VarInfo *fe_vinfo(Fe *fe, const Var *v);

/* type.c: type specifiers and type descriptors */
const Type *fe_type_of(Fe *fe, TSNode type_node);
bool fe_has_const(TSNode decl);
bool fe_array_restrict(Fe *fe, TSNode array_decl, bool first_dim);
const Type *fe_type_descriptor(Fe *fe, TSNode td);

/* expr.c */
Expr *fe_expr(Fe *fe, TSNode n);
Expr *fe_convert(Fe *fe, Expr *e, const Type *to);
/* Constant integer value of an expression (after folding); error if not. */
int64_t fe_const_int(Fe *fe, TSNode n, const char *what);

/* consteval.c: integer constant expressions */
/* The value C gives a constant expression (unsigned wrap-around and
 * conversions included); false when e is not constant. */
bool fe_eval_int(const Expr *e, int64_t *out);
bool fe_float_const(const Expr *e, double *v);
bool fe_float_fits(double v, const Type *t);
/* Refuses the operation of e, built from `whole` (the operator at `at`), when
 * its operands are constants and its exact result is outside its type:
 * always for a signed type, for an unsigned one in a schedule argument. */
void fe_check_const(Fe *fe, TSNode at, TSNode whole, const Expr *e);
/* In a schedule argument, refuses a conversion of a constant that changes it. */
void fe_check_conversion(Fe *fe, SrcLoc at, const Expr *e, const Type *to);
/* An error in constant arithmetic (overflow, division by zero, bad shift):
 * a schedule argument reports it instead of trying other readings. */
_Noreturn void fe_arith_error(Fe *fe, TSNode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An lvalue (array element or assignable scalar) for writing. */
Expr *fe_lvalue(Fe *fe, TSNode n);

/* stmt.c */
Stmt *fe_block(Fe *fe, TSNode compound);
Stmt *fe_stmt(Fe *fe, TSNode n);

/* call.c: calls of kernels (docs/programs.md) */
/* Does call expression `call` name a kernel of the file (defined before,
 * the one being parsed, or one defined after it)? */
bool fe_names_kernel(Fe *fe, TSNode call);
/* The call as a statement: a marked block holding the callee inlined
 * (CallSite, ir/ir.h); an error for a recursion, a kernel defined later,
 * or an argument that does not match its parameter. */
Stmt *fe_kernel_call(Fe *fe, TSNode call);
/* Does k call a kernel with sizes (at any depth)? */
bool fe_calls_sized(Kernel *k);
/* Each call in k of a kernel with sizes meets the callee's assumptions
 * and preconditions (derived by then) at its arguments: at constant
 * sizes, or for every size k's own assumptions allow (isl); an error at
 * the call otherwise. Then the bounds check of such a k of constant
 * sizes (frontend.c leaves it until then). */
void fe_check_call_sizes(Kernel *k, DiagList *d, const char *file, const char *src);
/* Names k's calls (a label, else the callee's name, numbered when the
 * callee is called more than once or `taken` says the name is used), then
 * prefixes the names of the statements and loops inside each with its
 * call's name and '_'. */
void fe_name_calls(Fe *fe, Kernel *k, bool (*taken)(void *ctx, const char *name), void *ctx);

/* kernel.c */
Kernel *fe_kernel(Fe *fe, TSNode fn);

/* preproc.c: #define, #include, #pragma at file level */
void fe_define(Fe *fe, TSNode n);
void fe_include(Fe *fe, TSNode n);
/* Does the file include the standard header ("stdint.h"), or one that
 * includes it (<inttypes.h> includes <stdint.h>)? */
bool fe_included(const Fe *fe, const char *header);
/* frontend/std_constants.c: the standard headers' constant `name`
 * (INT32_MIN, INFINITY, FLT_MAX) as an expression of its type, or NULL
 * when it is none; an error when its header is not included. */
Expr *fe_std_constant(Fe *fe, TSNode n, const char *name);
void fe_pragma(Fe *fe, TSNode n);
/* macros.c: the file with its function-like macros expanded and its #if
 * groups resolved, or NULL when it has neither (then it is read as it is);
 * sets fe->fmap. On an error (reported) sets fe->preprocess_failed. */
const char *fe_preprocess(Fe *fe, TSNode root, uint32_t len, uint32_t *out_len);
/* The source position of an offset of the expanded file text. */
SrcLoc fe_file_loc(const Fe *fe, uint32_t at);
/* Is that offset in text a macro wrote (reported at its use, not its own place)? */
bool fe_file_fixed(const Fe *fe, uint32_t at);

/* Declares the module's #define constants (for schedule files). */
void fe_import_defines(Fe *fe);

/* schedule.c: `#pragma npu` lines -> Module.schedules */
/* A pragma's call (the text after "npu", at `at`) parsed as C; parse reads
 * the tree's root with errors placed in the pragma line (frontend/schedule.c). */
typedef void (*FePragmaParse)(Fe *fe, TSNode root, SrcLoc at, void *ctx);
void fe_parse_pragma_call(Fe *fe, const char *call, SrcLoc at, FePragmaParse parse, void *ctx);
void fe_schedule_pragma(Fe *fe, const char *text, SrcLoc loc);

#endif
