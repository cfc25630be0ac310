/* Layouts across calls (docs/programs.md, "Layouts across calls"): a
 * program's array passed to a marked call and the layout the function the
 * call runs takes it in. */
#ifndef NPG_CALL_LAYOUTS_H
#define NPG_CALL_LAYOUTS_H

#include "schedule/sched.h"

/* 1 when arrays a and b (of one logical shape) keep every element in the
 * same place (same physical shape, the same index map compared with isl,
 * the same pad_value where both are padded); 0 (why says how they
 * differ) or -1 (isl failed) otherwise. */
int layout_agree(Sched *s, const Buffer *a, const Buffer *b, char *why, size_t n);
/* "X[i][j] -> X[i][j / 4][j % 4] of [6][2][4], padding 0", or "the
 * logical layout [6][6]". */
const char *layout_text(Sched *s, const Buffer *b);

/* After a layout step on b: each marked call that takes b runs its
 * function again over b's new layout where that function takes it so;
 * else a later use() or inline() of the schedule must name the call (it
 * is refused otherwise). */
bool sched_call_layouts_follow(Sched *s, Buffer *b, const SchedArg *at);
/* use(call, variant): every array the call passes is in the layout the
 * variant takes it in (else refused at `at`, naming both variants and
 * both layouts). */
bool sched_use_layouts(Sched *s, const SchedArg *at, const Stmt *call, const SchedVariantRef *v);
/* After use(call, ...): before the call, a nest that writes pad_value into
 * the padding of each array the call reads in a padded layout, unless the
 * padding is the caller's to fill (a parameter the program only reads).
 * False (an error at `at`) where isl's nest over the padding has a form
 * the IR cannot hold. */
bool sched_fill_padding(Sched *s, const SchedArg *at, Stmt *call);

#endif
