/* A schedule program: the primitives of one variant, as the pragma frontend
 * (or the npg_sched_* API) hands them to schedule/. Plain data. */
#ifndef NPG_SCHED_PROG_H
#define NPG_SCHED_PROG_H

#include "ir/ir.h"

typedef enum {
  SA_NAME,  /* an identifier: a loop, statement, buffer or new name */
  SA_INT,   /* an integer constant (a #define'd name is resolved to it) */
  SA_STR,   /* a string literal; `name` holds its contents */
  SA_TUPLE, /* (a, b, ...): a parenthesized list */
  SA_FLOAT, /* a floating constant: fval (pad values) */
  SA_EXPR,  /* any other expression: op applied to items (one or two
             * operands) for + - * / % and unary -; op OP_NONE otherwise */
} SchedArgKind;

typedef struct SchedArg SchedArg;
struct SchedArg {
  SchedArgKind kind;
  const char *name;  /* SA_NAME, SA_STR */
  int64_t ival;      /* SA_INT; SA_NAME of a #define'd constant (has_value) */
  double fval;       /* SA_FLOAT */
  Op op;             /* SA_EXPR */
  bool has_value;
  const char *text;  /* the argument as written (C spelling) */
  SchedArg *items;   /* SA_TUPLE; SA_EXPR operands */
  int nitems;
  SrcLoc loc;        /* line 0 when it came from the C API */
};

typedef struct SchedStep SchedStep;
struct SchedStep {
  SchedStep *next;
  const char *prim;  /* "split" */
  SchedArg *args;
  int nargs;
  const char *text;  /* "split(i, 16, io, ii)" as written */
  SrcLoc loc;
};

/* `#pragma npu schedule(KERNEL, VARIANT[, TARGET])` and the steps after it. */
typedef struct SchedProgram SchedProgram;
struct SchedProgram {
  SchedProgram *next;
  const char *kernel, *variant;
  const char *target; /* written for the target of this name only; NULL: any */
  SrcLoc loc, kernel_loc, variant_loc;
  const char *file, *src; /* where the pragmas were written */
  SchedStep *steps;
  bool broken; /* a step did not parse: the variant is not built */
};

#endif
