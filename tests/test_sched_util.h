/* Helpers shared by the schedule tests (tests/test_sched*.c, test_layout.c,
 * test_arith.c): open a kernel with pragmas, check a variant by execution,
 * look for text, compare a refusal's first message line, write a target. */
#ifndef TEST_SCHED_UTIL_H
#define TEST_SCHED_UTIL_H

#include "npugen.h"

/* A 64x48x32 int8 matmul with statements init and update. */
extern const char test_matmul[];
/* Opens kernel + pragma lines (as "k.c"); fails the test on any error. */
NpgSession *open_ok(const char *kernel, const char *pragmas);
/* Every variant of src (a kernel with its pragmas) fails the check with
 * seed 1, with exactly the message want. */
void check_fails(const char *src, const char *want);
/* The variant exists and passes the differential check with seeds 1 and 2;
 * returns its index. */
int checked(NpgSession *s, const char *variant);
/* checked, and the result of its first run (seed 1) in *first */
int checked_result(NpgSession *s, const char *variant, NpgCheckResult *first);
/* As checked, with seed 1 only (for tests near their CPU budget). */
int checked_once(NpgSession *s, const char *variant);
/* text contains (lacks) part; fails the test showing both otherwise. */
void has(const char *text, const char *part);
void lacks(const char *text, const char *part);
/* Pragma lines a and then b, in a static buffer (valid until the next
 * call): shared steps plus the ones a test adds. */
const char *steps_then(const char *a, const char *b);
/* kernel + pragmas is refused, and the first error line is exactly want. */
void refused(const char *kernel, const char *pragmas, const char *want);
/* targets/default.ini named `name`, with these values changed: a file
 * under /tmp that the caller removes and frees. */
char *target_file(const char *name, int ddr_bandwidth, int dma_channels, int max_tokens);

#endif
