/* The instrumented reference lowered (lower/ref_lower.c makes it;
 * docs/check.md): the kernel as written with
 * every decision about its checks made (lower/ref_body.c then writes it
 * as lowered IR, which emit/ prints as it prints a variant's). Which operations are checked
 * (the ranges that rule the others out, ir/ranges.c), the sites their
 * failures report, the temporaries they need, which locals carry "set"
 * flags, which addresses are hoisted or stepped (lower/ref_hoist.c) and
 * which loops run unrolled (lower/ref_plan.c) are all here; the printer
 * adds only the text. Sites, temporaries and pointers are numbered in the
 * order the printer meets them. */
#ifndef NPG_CHECKED_REF_H
#define NPG_CHECKED_REF_H

#include "ir/ir.h"

/* A check of the reference: the operation's place in the kernel source
 * and what went wrong there ("signed overflow in 'x * x' (int)"). */
typedef struct {
  SrcLoc loc;
  char *what;
} CheckedSite;

typedef struct CkExpr CkExpr;
typedef struct CkStmt CkStmt;
typedef struct CkPointer CkPointer;

/* Where a scalar or an element is read or written. */
typedef struct {
  const Expr *e;   /* EX_VAR or EX_LOAD of the kernel */
  int64_t by;      /* a scalar: the unrolled loop's counter in copy `by` ((k + by)) when not 0 */
  const CkPointer *ptr; /* the hoisted pointer that stands for indices [0, from), or NULL */
  int from;
  bool stepped;    /* ptr[offset]: a stepped pointer (the unrolled loop's element) */
  int64_t offset;
  CkExpr **idx;    /* indices from `from` on (not stepped) */
} CkPlace;

/* A hoisted address, declared at the top of a loop's body (or the
 * function's): `T (*npg_pN)[..] = A[i];`, `T (*npg_pN) = &C[i][j];` (all
 * indices), or stepped, `T *npg_pN = &B[k][j];`. */
struct CkPointer {
  CkPointer *next;
  int id;               /* npg_pN */
  const Buffer *buf;
  int n;                /* indices it covers */
  bool stepped;
  CkExpr **idx;         /* those indices (stepped: all, as written) */
};

/* The checks one operation can need; a site number (from 1) for each
 * one made, 0 for each the ranges rule out. */
typedef enum {
  CK_OVERFLOW,    /* signed overflow: + - * unary -, MIN / -1, <<, abs(MIN) */
  CK_DIV_ZERO,
  CK_SHIFT_COUNT,
  CK_SHIFT_NEG,   /* << of a negative value */
  CK_CONVERT,     /* a floating value out of the integer type's range */
  CK_UNSET,       /* a read of a local whose "set" flag is tested */
  CK_NCHECKS
} CkCheck;

/* A check's test (lower/ref_check_tests.c): an expression over the
 * temporaries, true where the check fails (a conversion's: where the
 * value fits). */
typedef struct {
  int site;
  Expr *cond;
} CkTest;

/* An expression: e's kind, operator, type, constant or callee, its
 * operands as lowered, and the checks made before its operation. */
struct CkExpr {
  const Expr *e;
  CkExpr *a, *b, *c;
  CkExpr **args;       /* EX_CALL */
  CkPlace *place;      /* EX_VAR, EX_LOAD: the read */
  bool checked;        /* some check is made (site[] other than CK_UNSET) */
  int site[CK_NCHECKS];
  int temp[2];         /* npg_tN of the operands (a, b: both for a checked / % << >>), or of the value (0: none) */
  const char *mask;    /* EX_CAST: tcc's mask (lower_tcc_mask) */
  CkTest tests[CK_NCHECKS]; /* the checks made (each kind once at most), in the order the C tests them */
  int ntests;
  const char *helper;  /* + - * of a 64-bit type: the function that checks it ("npg_add_ll") */
};

/* The body of a loop or of the function: its hoisted pointers first. */
typedef struct {
  CkPointer *ptrs;
  CkStmt *list;
} CkBody;

typedef enum { CK_BLOCK, CK_FOR, CK_IF, CK_ASSIGN, CK_DECL } CkKind;

/* A statement: s is the kernel's (its names, types, loop counter). */
struct CkStmt {
  CkKind kind;
  const Stmt *s;
  CkStmt *next;
  CkBody body;             /* CK_BLOCK (no pointers), CK_FOR, CK_IF: the then branch */
  CkStmt *else_list;       /* CK_IF, with has_else */
  bool has_else;
  /* CK_FOR: for (v = lo; v cmp hi; v += step); lo or hi NULL: `mid` (an
   * unrolled loop's end, its rest's start) */
  CkExpr *lo, *hi;
  int64_t mid, step;
  Op cmp;
  CkPlace *lhs;            /* CK_ASSIGN */
  CkExpr *value;           /* CK_ASSIGN; CK_DECL: a scalar's initializer */
  CkExpr **init_list;      /* CK_DECL: an array's */
  bool unset;              /* CK_ASSIGN: sets the flag; CK_DECL: declares it (no initializer) */
};

typedef struct {
  Arena arena;              /* the nodes */
  CkBody body;
  Var **temps;              /* npg_tN is temps[N - 1] */
  int ntemps, temps_cap;
  CheckedSite *sites;       /* site N is sites[N - 1] (malloc'ed, as the unit hands them on) */
  int nsites, sites_cap;
  const char *helpers;      /* the definitions of the helpers CkExpr.helper names (C text) */
} CheckRef;

#endif
