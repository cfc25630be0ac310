/* A seeded random tester for programs of kernels (docs/programs.md). From
 * a seed it writes a small kernel file: 2-4 small kernels of compatible
 * shapes (maps, a matmul, a row sum, a transpose; int32 or float), some
 * with variants of their own (split, reorder, marks, on-chip caches, VU
 * cores with double buffering, layouts of their parameters), then a
 * program that chains calls of them through 1-3 local intermediates, and
 * one program schedule of use, inline, set_scope, layout steps on its
 * arrays (mostly agreeing with the callee variants it picks, sometimes
 * not on purpose) and loop steps across inlined calls, mostly in the
 * order the docs give, sometimes shuffled.
 *
 * A case opens the file through the public API (include/npugen.h) and must
 * end one of two ways: refused with a `file:line:col: error:` message, or
 * the program variant built, every scheduled variant of the file
 * passing npg_check with seeds 1 and 2, and the program variant emitting
 * the same C (and header) when the file is opened again. An "internal error" message is PG_INTERNAL; a
 * miscompile, a silent refusal, an unclear message or a non-deterministic
 * emission is PG_FAILED. A crash is left to the caller (it runs the case
 * in a process of its own, or catches the signal).
 *
 * Used by tests/test_program_random.c. No global state. */
#ifndef NPG_FUZZ_PROG_GEN_H
#define NPG_FUZZ_PROG_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  PG_PASSED,   /* the program variant built; every variant matched its kernel */
  PG_REFUSED,  /* refused with a clear error message */
  PG_INTERNAL, /* a message says "internal error" (an npugen bug) */
  PG_FAILED,   /* miscompile, silent refusal, unclear message, non-deterministic emission */
  PG_OUTCOMES
} PgOutcome;

const char *pg_outcome_name(PgOutcome o);

/* The program variant every generated file schedules. */
#define PG_PROGRAM_VARIANT "prog_v"

/* The kernel file of a seed, with its schedules (malloc'ed). The same
 * seed gives the same text. */
char *pg_generate(uint64_t seed);

typedef struct {
  PgOutcome outcome;
  uint64_t seed;
  char *file;          /* the generated file (malloc'ed) */
  char *message;       /* the errors, or why the case failed (malloc'ed) */
  int callee_variants; /* scheduled variants of the callees written */
  int callee_refused;  /* of them, refused (the generator meant them to apply) */
  int checked;         /* variants run by npg_check */
  int program_steps;   /* steps of the program schedule */
} PgCase;

/* Runs the case of file text src (from pg_generate(seed)); fills *c (free
 * with pg_case_free; c->file is a copy of src). Returns false when the
 * outcome is PG_INTERNAL or PG_FAILED. */
bool pg_run_case(uint64_t seed, const char *src, PgCase *c);
void pg_case_free(PgCase *c);
/* The seed, outcome, message and file of a case, for a failure report (malloc'ed). */
char *pg_case_describe(const PgCase *c);

typedef struct {
  long cases;
  long outcome[PG_OUTCOMES];
  long callee_variants, callee_refused, checked, program_steps;
  char *failures; /* descriptions of the internal-error and failed cases (malloc'ed) */
  size_t failures_len;
} PgCounts;

void pg_counts_add(PgCounts *n, const PgCase *c);
void pg_counts_free(PgCounts *n);
/* "N cases: passed P, refused R, internal errors I, failed F; ..." (malloc'ed). */
char *pg_counts_summary(const PgCounts *n);

#endif
