/* tensorize's matcher, shared with the emitter (schedule/tensorize.c). */
#ifndef NPG_SCHED_TENSORIZE_H
#define NPG_SCHED_TENSORIZE_H

#include "ir/ir.h"
#include "ir/lowered_module.h" /* IntrinArg */

/* The arguments of the intrinsic call that stands for loop, a loop
 * tensorize marked (Stmt.intrin), in its abi's order, as expressions in
 * the arena (`&C_ob[0][0]` is C_ob[0][0] passed by address), and in guard
 * the C test that its scalar operands lie where the intrinsic is defined
 * ("domain:" in its semantics file), empty when they are constants, which
 * the match checked: the nest as written runs where the test fails. False
 * with why when the nest no longer matches (a later step changed it). */
enum { TENSORIZE_MAX_ARGS = 32 };
typedef struct {
  IntrinArg args[TENSORIZE_MAX_ARGS];
  int nargs;
} TensorizedCall;
bool tensorize_call(Arena *a, const Stmt *loop, TensorizedCall *call, StrBuf *guard, char *why, size_t n);

/* A guard that keeps a window of a loop's iterations (`if (start + v >=
 * lo && start + v < hi)`, either side alone, or `== k`; start free of v):
 * schedule/vectorize_window.c. The instruction runs over the window. */
typedef struct {
  Expr *start; /* the guard's side with v set to 0 */
  bool has_lo, has_hi;
  int64_t lo, hi; /* start + v >= lo, start + v < hi */
} SchedWindow;
bool sched_window_guard(Arena *a, const Stmt *g, const Var *v, SchedWindow *w);
/* Of a loop of n iterations from 0: the window's first iteration and its
 * length, each clamped to [0, n] (the loops around may reach the nest
 * where the guard keeps none), as expressions in a. */
Expr *sched_window_first(Arena *a, const SchedWindow *w, int64_t n);
Expr *sched_window_count(Arena *a, const SchedWindow *w, int64_t n);
/* loop's nest is guarded by a test of its counter that loads nothing and
 * is neither one window nor an index mask (`i % 2 != 0`): true, with why
 * saying so. */
bool sched_window_refusal(Arena *a, const Stmt *loop, char *why, size_t n);

/* Parsed semantics kernels, each loaded once (a variant's Sched owns one). */
typedef struct SemCache SemCache;
SemCache *sem_cache_new(void);
void sem_cache_free(SemCache *c);

/* The first intrinsic, in name order, whose name starts with prefix and
 * whose semantics loop's nest matches (vectorize's lowering to the VU):
 * its name, in the arena. NULL when none does, with why saying how the
 * nearest one differs. cache may be NULL. */
const char *tensorize_find(SemCache *cache, Arena *a, const Stmt *loop, const char *prefix, char *why, size_t n);

/* Whether loop's nest matches intrinsic name as tensorize takes it, and
 * the depth of the intrinsic's loops (0 when it does not load). */
bool tensorize_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name);
int tensorize_depth(SemCache *cache, const char *name);
/* Whether the nest has the intrinsic's statements (operand scopes, sizes
 * and domains aside). */
bool tensorize_shape_matches(SemCache *cache, Arena *a, const Stmt *loop, const char *name);

/* Notes after a refusal (schedule/tensorize_hint.c): the nest's depth
 * against the intrinsic's, and another loop in or around the nest whose
 * nest matches (try tensorize(ii, ...) / try vectorize(ri)). */
struct Sched;
void tensorize_hint(struct Sched *s, const Stmt *loop, const char *intrin);
void vectorize_hint(struct Sched *s, const Stmt *loop);

#endif
