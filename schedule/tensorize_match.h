/* The matcher's state and steps, shared by tensorize's files only:
 * tensorize_bind.c (differences, bindings, linear forms),
 * tensorize_expr.c (expressions), tensorize_stmt.c (statements),
 * tensorize_check.c (checks after a match), tensorize_sems.c (the
 * semantics kernels) and tensorize.c (the call and the primitive). */
#ifndef NPG_SCHED_TENSORIZE_MATCH_H
#define NPG_SCHED_TENSORIZE_MATCH_H

#include "frontend/frontend.h"
#include "schedule/tensorize.h"

enum { MAX_BIND = 32 };

typedef struct {
  const Kernel *sem;
  const char *sem_src;
  const Var *svar[MAX_BIND];
  int nvars;
  const char *size[MAX_BIND]; /* macro -> value */
  int64_t size_val[MAX_BIND];
  int nsizes;
  const Buffer *sbuf[MAX_BIND], *ubuf[MAX_BIND];
  const Expr *sacc[MAX_BIND]; /* the first access of sbuf[i] in the semantics */
  Expr **off[MAX_BIND]; /* per dimension */
  int nbufs;
  const Var *sparam[MAX_BIND];
  int64_t sparam_val[MAX_BIND];
  const Expr *sparam_expr[MAX_BIND]; /* a scalar operand bound to the nest's value, or NULL */
  int nparams;
  Arena *a;
  const Stmt *uloop[MAX_BIND];   /* the nest's loop matched to svar[i] */
  /* semantics loops the nest has no loop for: run once, counter = value */
  const Var *unit_var[MAX_BIND];
  int64_t unit_val[MAX_BIND];
  int nunits;
  signed char dmap[MAX_BIND][IR_MAX_DIMS]; /* operand i: semantics dim -> user dim, -1 left out */
  const Var *size_loop[MAX_BIND]; /* the nest's counter whose extent bound size i, or NULL */
  /* tails: a matched loop's iterations from end - start on do nothing (a
   * split's guard `start + v < end` around what follows): the size its
   * extent binds is min(extent, end - start), computed in the call */
  const Var *tail_var[MAX_BIND];
  Expr *tail_start[MAX_BIND];
  const Expr *tail_end[MAX_BIND]; /* a constant, or an expression of the kernel's sizes */
  int ntails;
  /* windows: a matched loop's iterations outside a window do nothing (a
   * guard `if (start + v >= lo)`, schedule/vectorize_window.c): the call
   * runs over the window alone */
  const Var *win_var[MAX_BIND];
  SchedWindow win[MAX_BIND];
  int nwins;
  /* index masks written with & (`(i & 3) == 1` for the semantics' `(s +
   * i) % m == r`): the scalar operands that must not be negative there,
   * where & and % agree (check_nonneg) */
  const Var *nonneg[MAX_BIND];
  int nnonneg;
  /* the semantics' lane index start P (`(P + i) % m`) and the nest's
   * counter for i (lane_index), or NULL */
  const Var *lane_param, *lane_var;
  const Stmt *ucur, *scur; /* the statements being matched */
  int progress;             /* nodes compared: how near a failed match came */
  bool sized_miss;          /* a nest's loop ran to a size (the miss to report: match_for) */
  char why[1024];
} Match;

typedef struct {
  Module *m;
  DiagList d;
} Sem;

/* A semantics expression as a sum of terms c * var * size, with at most
 * one of var and size per term (tensorize_bind.c). */
enum { MAX_TERMS = 24 };
typedef struct {
  int64_t c;
  const Var *v;     /* NULL: no variable */
  const char *size; /* an unbound size, or NULL */
} Term;
typedef struct {
  Term t[MAX_TERMS];
  int n;
} Form;

/* ---- differences and bindings (tensorize_bind.c) ---- */
/* Record why the match fails (the first difference only); false. */
bool tensorize_differ(Match *m, const char *what, const Expr *u, const Expr *s);
bool tensorize_differ_stmt(Match *m, const char *what, const Stmt *u, const Stmt *s);
/* The nest's counter that semantics counter sv binds, or NULL. */
const Var *tensorize_mapped(const Match *m, const Var *sv);
bool tensorize_unit_value(const Match *m, const Var *sv, int64_t *v);
bool tensorize_size_value(const Match *m, const char *name, int64_t *v);
bool tensorize_size_bind(Match *m, const char *name, int64_t v);
bool tensorize_form_const(const Form *f, int64_t *k);
bool tensorize_sym_linear(const Match *m, const Expr *e, int64_t scale, Form *f);
bool tensorize_match_linear(Match *m, const Expr *u, const Expr *s, Expr **rest);

/* ---- expressions (tensorize_expr.c) ---- */
bool tensorize_match_expr(Match *m, const Expr *u, const Expr *s);
bool tensorize_match_cond(Match *m, const Expr *u, const Expr *s);
bool tensorize_is_param(const Match *m, const Var *v);
/* Binds scalar parameter p of the semantics to the nest's value u, which
 * must not change inside the nest (nor read an array). */
bool tensorize_bind_operand(Match *m, const Var *p, const Expr *u);
bool tensorize_commutative(Op op);

/* ---- statements (tensorize_stmt.c): the nest u against the semantics' s ---- */
bool tensorize_match_list(Match *m, const Stmt *u, const Stmt *s);

/* ---- after the match (tensorize_check.c) ---- */
/* Sizes, tails, windows, offsets, index masks, operand domains (their run
 * time test joins guard when not NULL) and libm: false with why. */
bool tensorize_check_match(Match *m, const Module *sem, const char *name, StrBuf *guard, char *why, size_t n);
/* Operand i's offsets, moved to each window's start; NULL when a
 * semantics index is not linear in a window's counter. */
Expr **tensorize_window_offsets(Match *m, int i);

/* ---- the semantics kernels (tensorize_sems.c) ---- */
/* name's semantics from the cache (loaded the first time), or into *own
 * when cache is NULL (the caller frees it with tensorize_sem_free). NULL
 * with err when it does not load. */
const Sem *tensorize_sem_get(SemCache *c, const char *name, Sem *own, char *err, size_t n);
void tensorize_sem_free(Sem *sem);

#endif
