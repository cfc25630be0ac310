/* vectorize of a nest counted in unsigned (schedule/vectorize_unsigned.c). */
#ifndef NPG_SCHED_VECTORIZE_UNSIGNED_H
#define NPG_SCHED_VECTORIZE_UNSIGNED_H

#include "schedule/sched.h"

/* The VU instruction that computes loop's nest counted in int, where it
 * counts in unsigned and every value fits int: the nest is then rewritten
 * so. NULL otherwise, with why saying what stops it ("" when the nest
 * counted in int matches no instruction either, or loop counts in a
 * signed type). */
const char *sched_vectorize_unsigned(Sched *s, Stmt *loop, char *why, size_t n);

#endif
