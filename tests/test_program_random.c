/* Random programs of kernels (fuzz/prog_gen.h): seeded files of 2-4 small
 * kernels with variants of their own, a program chaining calls of them
 * through local intermediates, and a program schedule of use, inline,
 * set_scope, layout steps across calls and loop steps after inline. Each
 * case must either be refused with a `file:line:col: error:` message or
 * build the program variant, every scheduled variant passing the check
 * with seeds 1 and 2 and emitting the same C when opened again. An
 * "internal error" message, a miscompile, a silent refusal or a
 * non-deterministic emission fails the test, printing the seed and the
 * file; so does a crash (the file of the case is printed first).
 *
 * The cases are split into shards (one test each, so --jobs runs them in
 * parallel); the last one also runs the seeds of bugs found beyond
 * them (REGRESSIONS below). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/prog_gen.h"

/* The normal build runs seeds 1..204 (17 a shard; 1..300 until make
 * test's CPU budget was passed), the ASan+UBSan build seeds 1..24 (two a
 * shard), so it watches npugen's memory on every kind of program. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_SHARE 8
#else
#define SANITIZED_SHARE 1
#endif
enum { SHARDS = 12, CASES_PER_SHARD = SANITIZED_SHARE == 1 ? 17 : 2 }; /* seeds 1..204, under a second a shard */

/* Seeds past the shards' range that once failed, run by the last shard:
 * a use() then inline() of a call given the caller's local array, whose
 * cache's copies then reached the stack local, which the check had not
 * declared to the simulator (fixed in lower_declares_locals). The seeds
 * 1..300 once crashed at 19 seeds (a layout step's re-plan of a call over
 * two arrays in layouts, ir/call.c follow_layouts; fixed). */
static const uint64_t regressions[] = {1609, 2144, 2329, 2552, 10288, 10381, 11745};

/* The case running now, for the crash handler: a test process runs one
 * shard, so this is the only state, and only the handler reads it. */
static char *running;

static void print_running(int sig) {
  static const char head[] = "\nprogram_random: this case crashed (the file it generated):\n";
  if (write(2, head, sizeof head - 1) < 0 || (running && write(2, running, strlen(running)) < 0)) {
    /* nothing more to say */
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

typedef struct {
  int shard;
} Shard;

static void free_shards(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(program_random, shard) {
  Shard *shards = cr_malloc(sizeof(Shard) * SHARDS);
  for (int i = 0; i < SHARDS; i++) shards[i].shard = i;
  return cr_make_param_array(Shard, shards, SHARDS, free_shards);
}

ParameterizedTest(Shard *sh, program_random, shard) {
  signal(SIGSEGV, print_running);
  signal(SIGBUS, print_running);
  signal(SIGFPE, print_running);
  signal(SIGABRT, print_running);
  PgCounts n = {0};
  uint64_t seed0 = 1 + (uint64_t)sh->shard * CASES_PER_SHARD;
  size_t extra = sh->shard == SHARDS - 1 ? sizeof regressions / sizeof regressions[0] : 0;
  for (uint64_t i = 0; i < CASES_PER_SHARD + extra; i++) {
    uint64_t seed = i < CASES_PER_SHARD ? seed0 + i : regressions[i - CASES_PER_SHARD];
    char *src = pg_generate(seed);
    running = src;
    PgCase c;
    pg_run_case(seed, src, &c);
    running = NULL;
    pg_counts_add(&n, &c);
    pg_case_free(&c);
    free(src);
  }
  char *sum = pg_counts_summary(&n);
  fprintf(stderr, "program_random shard %d: %s", sh->shard, sum);
  cr_expect_eq(n.outcome[PG_INTERNAL], 0, "%ld of %ld random programs hit an internal error (npugen bugs):\n%s",
               n.outcome[PG_INTERNAL], n.cases, n.failures ? n.failures : "");
  cr_expect_eq(n.outcome[PG_FAILED], 0, "%ld of %ld random programs failed:\n%s", n.outcome[PG_FAILED], n.cases,
               n.failures ? n.failures : "");
  /* a tester that refuses everything tests nothing, nor one that refuses
   * nothing (the generator's property: judged on the normal build's
   * shards, which are large enough) */
  cr_expect(SANITIZED_SHARE > 1 || n.outcome[PG_PASSED] * 4 >= n.cases,
            "fewer than a quarter of the random programs passed: %s", sum);
  cr_expect(SANITIZED_SHARE > 1 || n.outcome[PG_REFUSED] > 0, "no random program was refused: %s", sum);
  free(sum);
  pg_counts_free(&n);
}
