/* The polyhedral model of a kernel, built with isl: statement instances,
 * their execution order (a schedule of time vectors), their memory accesses,
 * and the memory dependences between them.
 *
 * Leaf statements (assignments and declarations) are the statements whose
 * instances are tracked. Each leaf has a tuple S<inst>[o...] where `inst` and
 * `o` come from Stmt.inst and Stmt.orig: the identity of the instance in the
 * program a schedule step started from. So a model of the rewritten program
 * and a model of the program before the step speak about the same instances,
 * and legality is a comparison of their orders (schedule/legality.c). */
#ifndef NPG_DEPS_H
#define NPG_DEPS_H

#include "ir/ir.h"

typedef struct isl_ctx isl_ctx;
typedef struct isl_union_map isl_union_map;
typedef struct isl_union_set isl_union_set;

typedef struct {
  const Stmt *stmt;   /* the leaf */
  int depth;          /* enclosing loops */
  const Var **vars;   /* the enclosing loops' counters, outermost first */
} DepLeaf;

typedef struct {
  const Stmt *loop;
  int dim; /* index of its counter in the time vectors; -1 when it holds no statement */
  /* The time components before dim that are block positions, with their
   * values (the loop's place in the program); INT64_MIN for counters. */
  int64_t *prefix;
} DepLoop;

typedef struct {
  isl_ctx *ctx;
  int nleaves;
  DepLeaf *leaves; /* by Stmt.inst */
  int nloops;
  DepLoop *loops;
  int time_dims;   /* padded length of all time vectors */
  isl_union_set *domain; /* instances that run */
  isl_union_map *sched;  /* instance -> time vector */
  isl_union_map *reads, *writes; /* instance -> element (with accesses only) */
  /* First access whose index is not affine (treated as touching the whole
   * dimension), for messages; NULL when every access is affine. */
  const Expr *nonaffine;
  const Stmt *nonaffine_stmt;
  char error[256]; /* why building failed */
  /* dep_conflicts and dep_memory, each computed once per model */
  isl_union_map *conflicts, *deps;
} DepModel;

/* Numbers every leaf of k anew (Stmt.inst, pre-order) and sets its origin
 * to its own enclosing loop counters: the next model's instances are k's
 * own loop iterations. */
void dep_reset_origins(Arena *a, Kernel *k);
/* Numbers the leaves that have no origin yet (statements a step created)
 * after the others, with their own loop counters as origins; the others
 * keep theirs, so the copies of one statement (unroll, partition) stay one
 * statement with one instance domain in the next model. */
int dep_number_new_leaves(Arena *a, Kernel *k); /* returns the first new number */
/* Builds the model of k over its origins' instances (with accesses: each
 * occurrence's accesses are mapped from its loop iterations to its
 * instances). Returns false (with m->error) when some origin is not
 * affine. */
bool dep_model_build(DepModel *m, isl_ctx *ctx, const Kernel *k, bool accesses);
void dep_model_free(DepModel *m);
/* The model's entry for a loop of its program; NULL when absent. */
const DepLoop *dep_loop(const DepModel *m, const Stmt *loop);
/* The time vectors of the instances inside loop l (its place in the
 * program: the block positions before its counter). */
typedef struct isl_set isl_set;
isl_set *dep_times_inside(const DepModel *m, const DepLoop *l);
/* Memory dependences: pairs of instances (earlier -> later in m's order)
 * that touch one element, at least one of them writing. Computed once per
 * model; a new reference each call. */
isl_union_map *dep_memory(DepModel *m);
/* Pairs of instances that touch one element, at least one writing, in both
 * directions (no order): cheaper than dep_memory when only the existence of
 * a broken pair matters. Computed once per model; a new reference each call. */
isl_union_map *dep_conflicts(DepModel *m);
/* The dependences of m restricted to one kind: 'f' flow (write then read),
 * 'a' anti (read then write), 'o' output (write then write). */
isl_union_map *dep_memory_kind(const DepModel *m, char kind);

#endif
