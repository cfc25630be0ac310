/* Moving a loop nest into another loop and narrowing it to what one
 * iteration of that loop needs (compute_at, reverse_compute_at), with isl.
 *
 * An "iteration" is a point [o] of the loops that enclose the target loop's
 * body, outermost first, the target loop last. Sets of instances per
 * iteration are union maps [o] -> S<inst>[...] over the model of the
 * program before the step (s->before, see ir/deps.h). */
#ifndef NPG_SCHED_REGION_H
#define NPG_SCHED_REGION_H

#include "schedule/sched.h"

typedef struct isl_set isl_set;
typedef struct isl_union_map isl_union_map;
typedef struct isl_union_set isl_union_set;

enum { AT_MAX_LOOPS = 64 };

/* The distinct affine pieces of a piecewise bound pa (kept), at most
 * REGION_MAX_PIECES (over: there were more); region_pieces_free frees them. */
enum { REGION_MAX_PIECES = 16 };
typedef struct isl_pw_aff isl_pw_aff;
typedef struct isl_aff isl_aff;
typedef struct {
  isl_aff *a[REGION_MAX_PIECES];
  int n;
  bool over;
} RegionPieces;
void region_pieces(isl_pw_aff *pa, RegionPieces *p);
void region_pieces_free(RegionPieces *p);

/* A loop or if enclosing a statement (neg: in the else branch). */
typedef struct {
  const Stmt *st;
  bool neg;
} AtFrame;

/* The loops and ifs around target, outermost first; false if not found or
 * deeper than max. */
bool at_frames(const Kernel *k, const Stmt *target, AtFrame *f, int max, int *n);

typedef struct {
  Sched *s;
  Stmt *root;   /* the nest being moved: a loop, or a leaf */
  Stmt *target; /* the loop it moves into */
  const Stmt *oloops[AT_MAX_LOOPS]; /* loops of an iteration [o] */
  int n;
  int nsh;      /* the outermost nsh of them also enclose root */
  isl_set *odom; /* the iterations [o] where target's body runs */
  int *move, nmove; /* leaves of root (Stmt.inst of s->before) */
  int *at, nat;     /* leaves under target */
} AtRegion;

/* The iterations of target and the leaves of both. The caller has checked
 * that every loop around root also encloses target. Call after
 * sched_begin_rewrite (it numbers the leaves). */
bool at_init(AtRegion *r, Sched *s, Stmt *root, Stmt *target);
void at_free(AtRegion *r);

/* Universe of the leaves' instance tuples in s->before. */
isl_union_set *at_leaves(const AtRegion *r, const int *insts, int n);
/* [o] -> instance for the given leaves, from the schedule of model m (the
 * leaves must lie under target in the program m describes). */
isl_union_map *at_by_iter(const AtRegion *r, const DepModel *m, const int *insts, int n);
/* { [o] -> S[i] : the shared loops agree } over the given leaves. */
isl_union_map *at_shared(const AtRegion *r, const int *insts, int n);
/* Only the pairs whose range tuple is named `tuple`. */
isl_union_map *at_only_tuple(isl_union_map *u, const char *tuple);

/* Narrows the loops of root (in place) so that iteration [o] runs the
 * instances want([o]) of root's leaves (a superset when a loop range is a
 * box hull). Loops whose wanted range is their whole range are kept. Sets
 * *placed to what to insert: root, or root under an if when some
 * iterations want nothing. False with a message when the bounds cannot be
 * written as affine expressions (with min/max as guards). */
bool at_narrow(AtRegion *r, isl_union_map *want, Stmt **placed);

/* The leaf of s->before an instance tuple name "S<inst>" stands for. */
const Stmt *at_leaf_stmt(const AtRegion *r, const char *tuple);

/* The integer coefficients of an affine function of n variables (and its
 * constant); false with divisions or fractions (not written as C). */
typedef struct isl_aff isl_aff;
bool aff_int_terms(isl_aff *aff, int n, int64_t *coef, int64_t *cst);
/* sum coef[k] * loops[k]'s counter + cst as an expression of type t,
 * positive terms first ("y - 1", "3 - y"). */
Expr *affine_expr(Arena *a, const Stmt *const *loops, int n, const int64_t *coef, int64_t cst, const Type *t,
                  SrcLoc loc);

#endif
