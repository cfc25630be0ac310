/* Affine analysis with isl: iteration domains of statements, exact value
 * ranges of affine index expressions, interval ranges of the rest. */
#ifndef NPG_AFFINE_H
#define NPG_AFFINE_H

#include "ir/ir.h"

typedef struct isl_ctx isl_ctx;

/* The constraints that hold where an expression is evaluated: enclosing
 * loops and affine conditions (if, &&, ?:). A stack; push/pop in order. */
typedef struct {
  isl_ctx *ctx;
  const Kernel *k;
  const Stmt **loops;
  int nloops, cap_loops;
  char **cons; /* isl constraint texts (malloc'ed) */
  int ncons, cap_cons;
  /* per constraint: the loops pushed before it, and the domain up to it
   * (NULL until asked): each is the one below plus one small parse */
  int *cons_loops;
  struct isl_set **cons_dom;
  struct isl_set **cons_set; /* the constraint built with isl's API (loop bounds), or NULL: parse its text */
  const Expr **defs; /* by Var.id: single-assignment local -> its initializer */
  /* the current domain as an isl set, parsed once per state of the stack
   * (statements under one loop share it); NULL until asked */
  struct isl_set *dom;
  int dom_empty; /* -1 unknown */
  /* aff_push_sizes: the kernel's sizes as the outermost dimensions (loops
   * of their own, malloc'ed), and the constraints on them alone */
  struct Stmt *size_loops;
  struct Expr *size_bounds; /* each size's type range, the loops' lo and hi */
  int nsize_dims, nsize_cons;
} AffCtx;

void aff_init(AffCtx *c, isl_ctx *ctx, const Kernel *k);
void aff_free(AffCtx *c);
void aff_push_loop(AffCtx *c, const Stmt *loop);
void aff_pop_loop(AffCtx *c);
/* Pushes `cond` (or its negation); returns false (pushes nothing) when the
 * condition is not affine. */
bool aff_push_cond(AffCtx *c, const Expr *cond, bool negate);
void aff_pop_cond(AffCtx *c);

/* The current domain as an isl set over the unnamed tuple of the loop
 * counters ([c1, c2] by Var.id, as in aff_space_text), a new reference;
 * NULL when isl fails. Parsed once per state of the stack. */
struct isl_set *aff_domain(AffCtx *c);
/* isl texts of the current domain: its space "[c1, c2]" (loop counters by
 * Var.id) and its constraints "(...) and (...)"; malloc'ed. */
char *aff_space_text(AffCtx *c);
char *aff_cons_text(AffCtx *c);
/* e as an isl_aff on the current loops' space [c<id>, ...] (unnamed tuple),
 * or NULL if e is not affine: aff_text's expressions, without a parse. */
struct isl_aff *aff_build(AffCtx *c, const Expr *e);
/* The current loops' space [c<id>, ...] (unnamed tuple), aff_build's domain. */
struct isl_space *aff_space(AffCtx *c);
/* isl text of e in the current loop space, or NULL if e is not affine. */
char *aff_text(AffCtx *c, const Expr *e);
/* [lo, hi] of an expression over the current domain: exact for affine
 * expressions, an interval bound otherwise. *empty when the domain is empty.
 * Returns false when no finite bound is known. */
bool aff_range(AffCtx *c, const Expr *e, int64_t *lo, int64_t *hi, bool *exact, bool *empty);

/* 1 when cond holds everywhere in the current domain, 0 when nowhere,
 * -1 when it depends (or is not affine). */
int aff_cond_value(AffCtx *c, const Expr *cond);

/* Symbolic sizes: pushes each of the kernel's sizes as an outermost
 * dimension, then its assumptions and that its arrays' extents are at
 * least 1. False (why says) when an assumption is not affine. */
bool aff_push_sizes(AffCtx *c, char *why, size_t n);
/* The same in two steps: the sizes and their extents, then assumption i. */
bool aff_push_size_dims(AffCtx *c, char *why, size_t n);
bool aff_push_assumption(AffCtx *c, int i, char *why, size_t n);
/* Is idx outside [0, ext) somewhere in the current domain? 0 never, 1 at
 * some point (then sample holds the sizes of one such point, "n = 129",
 * and needs, when the sizes that avoid it can be said, "n <= 128"), 2 at
 * some point for every size allowed, -1 unknown (not affine, or isl
 * failed). */
int aff_outside(AffCtx *c, const Expr *idx, const Expr *ext, char *needs, size_t nneeds, char *sample, size_t nsample);

#endif
