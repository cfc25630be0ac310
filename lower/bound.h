/* What lower/bound.c and lower/pass_loop.c share: a bound loop's body by
 * phase, and the copies and tokens of its per-core buffers. */
#ifndef NPG_LOWER_BOUND_H
#define NPG_LOWER_BOUND_H

#include "lower/lower.h"

/* How each statement of a bound loop's body is issued, found once. */
enum { BOUND_MAX = 64 };
typedef enum { B_LOAD, B_COMPUTE, B_STORE, B_DECL } BoundKind;
typedef struct {
  const Stmt *st[BOUND_MAX];
  BoundKind kind[BOUND_MAX];
  const Buffer *buf[BOUND_MAX]; /* B_LOAD: the buffer loaded */
  int n;
  const Stmt *loop; /* the bound loop */
} Body;
bool lower_classify(Lower *lw, const Stmt *L, Body *b);
/* The body fits the phases: declarations of per-core buffers anywhere,
 * then loads, compute and copies out in that order, with at least one
 * load. Counts each phase's statements. */
bool lower_phases_fit(const Stmt *L, const Body *b, int count[3]);

/* L's loads by how the phases issue them: for this pass (now), for the
 * next (ahead: alternating by pass), or not at all (once: resident). */
typedef struct {
  int now, ahead, once;
} Loads;
Loads lower_count_loads(const PassLoop *pass, const Body *b);
/* A copy that the compute phase waits for where it is issued. */
bool lower_compute_copies(const Body *b);

bool lower_by_pass(const PassLoop *pass, const Stmt *L, const Buffer *b);
bool lower_resident(const PassLoop *pass, const Stmt *L, const Buffer *b);
Expr *lower_copy_of(Lower *lw, const PassLoop *pass, const Stmt *L, const Buffer *b, bool next);
DmaToken lower_core_token(Lower *lw, const Buffer *b, Expr *copy, const Var *core);
Stmt **lower_issue(Lower *lw, const PassLoop *pass, const Stmt *c, const Buffer *b, const Stmt *L, int ch,
                   bool alternate, Expr *copy, Expr *next, Stmt **tail);
/* A loop over L's cores from 0 (note: what it runs); keep_mark: still
 * bound (the check may run it in another order), else a serial loop. */
Stmt *lower_core_loop(Lower *lw, const Stmt *L, const char *note, bool keep_mark);
/* lower/interleave.c: compute phase `phase` of L (a loop over the cores)
 * with that loop moved inside the loops and guards that do not read the
 * core, so the cores' instructions are issued in turn (a list, after a
 * note), or phase itself where it cannot move. */
Stmt *lower_interleave(Lower *lw, const Stmt *L, Stmt *phase);

#endif
