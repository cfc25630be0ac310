/* One function per schedule primitive, one file each (schedule/<name>.c).
 * Each checks its arguments and preconditions, rewrites s->k, and proves the
 * rewrite legal (sched_legal) before returning true. */
#ifndef NPG_PRIMITIVES_H
#define NPG_PRIMITIVES_H

#include "schedule/sched.h"

bool prim_split(Sched *s, const SchedStep *st);
bool prim_fuse(Sched *s, const SchedStep *st);
bool prim_merge(Sched *s, const SchedStep *st);
bool prim_fission(Sched *s, const SchedStep *st);
bool prim_reorder(Sched *s, const SchedStep *st);
bool prim_tile(Sched *s, const SchedStep *st);
bool prim_unroll(Sched *s, const SchedStep *st);
bool prim_vectorize(Sched *s, const SchedStep *st);
bool prim_parallel(Sched *s, const SchedStep *st);
bool prim_loop_partition(Sched *s, const SchedStep *st);
bool prim_compute_at(Sched *s, const SchedStep *st);
bool prim_reverse_compute_at(Sched *s, const SchedStep *st);
bool prim_compute_inline(Sched *s, const SchedStep *st);
bool prim_stage(Sched *s, const SchedStep *st);
bool prim_expand(Sched *s, const SchedStep *st);
bool prim_fold(Sched *s, const SchedStep *st);
bool prim_hoist_offset(Sched *s, const SchedStep *st);
/* The bounds of the chain of n loops ending at bottom, taken in `order`
 * (their counters, outermost first): lo[i] <= order[i] < hi[i], computed
 * by isl (schedule/reorder_bounds.c). False with *why when they are not
 * each one affine bound with a unit coefficient. */
bool reorder_bounds(Sched *s, const Stmt *bottom, Var *const *order, int n, Expr **lo, Expr **hi, const char **why);
bool prim_reverse_compute_inline(Sched *s, const SchedStep *st);
bool prim_decompose_reduction(Sched *s, const SchedStep *st);
bool prim_init_at(Sched *s, const SchedStep *st);
bool prim_annotate(Sched *s, const SchedStep *st);
bool prim_transform_layout(Sched *s, const SchedStep *st);
bool prim_buffer_split(Sched *s, const SchedStep *st);
bool prim_buffer_fuse(Sched *s, const SchedStep *st);
bool prim_buffer_reorder(Sched *s, const SchedStep *st);
bool prim_storage_align(Sched *s, const SchedStep *st);
bool prim_set_axis_separators(Sched *s, const SchedStep *st);
bool prim_buffer_pad(Sched *s, const SchedStep *st);
bool prim_set_scope(Sched *s, const SchedStep *st);
bool prim_cache_read(Sched *s, const SchedStep *st);
bool prim_cache_write(Sched *s, const SchedStep *st);
bool prim_tensorize(Sched *s, const SchedStep *st);
bool prim_double_buffer(Sched *s, const SchedStep *st);
bool prim_bind(Sched *s, const SchedStep *st);
bool prim_use(Sched *s, const SchedStep *st);
bool prim_inline(Sched *s, const SchedStep *st);

/* Shared pieces (schedule/split.c, schedule/reorder.c, schedule/simplify.c) */
/* split as a building block of tile: loop -> outer(inner(body)). */
bool split_loop(Sched *s, Stmt *loop, int64_t factor, const char *outer, const char *inner,
                const SchedArg *at);
/* reorder by loop statements (outermost first in the new order); the
 * rewrite only: call sched_begin_rewrite before and sched_legal after. */
bool reorder_loops(Sched *s, Stmt **loops, int n, const SchedArg *const *args);
/* Refuses, at `at` and as reorder would, a chain from top down to bottom
 * (inside it) that is not perfectly nested; tile checks the user's loops
 * with it before it splits them, so the message names those loops. */
bool reorder_check_chain(Sched *s, const Stmt *top, const Stmt *bottom, const SchedArg *at);
/* Drops if-guards whose skipped instances would only touch padding
 * (schedule/pad_compute.c); a no-op when no buffer is padded. True when
 * it dropped one (more instances run: the dependence model is stale). */
bool pad_drop_guards(Sched *s);
/* Drops if-guards that are always true (or false) in their loops. */
void simplify_guards(Sched *s, Stmt **list);
/* Sets the loop's extent as [lo, end) with a step-1 '<' test (normalizes <=). */
bool loop_unit_range(Sched *s, Stmt *loop, const SchedArg *at, Expr **lo, Expr **end);
/* A loop that counts down or by a stride (its bounds constants, sizes or
 * outer counters), rewritten to count 0 .. trip count - 1 by 1 (split.c);
 * false with an error otherwise. */
bool loop_normalize(Sched *s, Stmt *loop, const SchedArg *at);

#endif
