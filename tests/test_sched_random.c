/* Random schedules (fuzz/sched_gen.h) on the suite's kernels (tests/kernels,
 * examples, and fuzz/kernels' producer/consumer nests): 768 seeded
 * cases (of 1024 drawn; see below) of 1..6 random primitives each. Every case must either be refused
 * with an error message or pass the differential check against the kernel
 * as written, in every order of its marked loops' iterations (source,
 * reversed, odd-even: a later step must not break a mark); nothing may be
 * miscompiled, crash, or be refused silently. About a third of the cases
 * set a mark early and follow it with other steps.
 * Refusals saying "internal error" are npugen bugs too: they are counted
 * separately, and any of them fails this test like a failed case. Longer
 * runs: `make fuzz-schedules N=100000`.
 *
 * The cases are split into shards (one test each, so --jobs runs them in
 * parallel); shard k takes every SHARDS-th kernel file. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/sched_gen.h"

/* In the ASan build a leak is a failure too; LeakSanitizer reports it only
 * at exit, where Criterion does not look, so the shard asks after every
 * LEAK_WINDOW cases (a check scans the heap: ~0.2 s) until the first leak.
 * `make fuzz-schedules BUILD=build/asan SAN=1` names the very case. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKED() (__lsan_do_recoverable_leak_check() != 0)
#else
#define LEAKED() false
#endif

/* The two builds of make test share each shard's 128 cases: the normal
 * build runs the first 88, the ASan+UBSan build the last 8, so the
 * sanitizers watch cases the normal build does not repeat (the suite's
 * CPU budget cannot afford the whole set twice at ASan's cost; the
 * schedule fuzzer's smoke runs more under ASan); cases 88..119 of each
 * shard ran in the normal build until make test's CPU budget was passed.
 * `make fuzz-schedules` runs any number. */
#if defined(__SANITIZE_ADDRESS__)
enum { FIRST_CASE = 120, CASES_PER_SHARD = 8 };
#else
enum { FIRST_CASE = 0, CASES_PER_SHARD = 88 };
#endif

enum {
  SHARDS = 8,
  MAX_FILES = 512,
  /* Files whose largest kernel has more leaf statements are left to
   * `make fuzz-schedules`: the isl legality proof grows quadratically with
   * statements (style_manylocals.c, 86, takes seconds per case). */
  MAX_LEAVES = 40,
  LEAK_WINDOW = 32,
};

typedef struct {
  int shard;
} Shard;

typedef struct {
  char *path[MAX_FILES];
  int n;
} FileList;

static void list_dir(FileList *l, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && l->n < MAX_FILES) {
    size_t len = strlen(e->d_name);
    if (len > 2 && !strcmp(e->d_name + len - 2, ".c")) {
      char *p = malloc(strlen(dir) + len + 2);
      sprintf(p, "%s/%s", dir, e->d_name);
      l->path[l->n++] = p;
    }
  }
  closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool count_leaf(Stmt *s, int depth, void *ctx) {
  (void)depth;
  if ((s->kind == ST_ASSIGN || s->kind == ST_DECL) && s->name) ++*(int *)ctx;
  return true;
}

static int largest_kernel(const Module *m) {
  int most = 0;
  for (Kernel *k = m->kernels; k; k = k->next) {
    int n = 0;
    ir_walk_stmts(k->body, count_leaf, &n);
    if (n > most) most = n;
  }
  return most;
}

static void free_shards(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(sched_random, shard) {
  Shard *shards = cr_malloc(sizeof(Shard) * SHARDS);
  for (int i = 0; i < SHARDS; i++) shards[i].shard = i;
  return cr_make_param_array(Shard, shards, SHARDS, free_shards);
}

ParameterizedTest(Shard *sh, sched_random, shard) {
  FileList all = {0};
  list_dir(&all, "tests/kernels");
  list_dir(&all, "examples");
  list_dir(&all, "fuzz/kernels"); /* producer/consumer nests for compute_at and inlining */
  cr_assert(all.n > 0, "no kernel files (run from the repository root)");
  qsort(all.path, (size_t)all.n, sizeof *all.path, cmp_str);
  SgFile *files[MAX_FILES];
  int nfiles = 0;
  for (int i = 0; i < all.n; i++) {
    if (i % SHARDS == sh->shard) {
      char err[2048];
      SgFile *f = sg_file_open(all.path[i], err, sizeof err);
      cr_expect(f != NULL, "%s", err);
      if (f && largest_kernel(sg_file_module(f)) > MAX_LEAVES) {
        sg_file_close(f);
        f = NULL;
      }
      if (f) files[nfiles++] = f;
    }
    free(all.path[i]);
  }
  cr_assert(nfiles > 0);

  SgCounts c = {0};
  SgOptions opt = sg_default_options();
  /* A run of more than 2^30 steps is a limit here, left to `make
   * fuzz-schedules`: a random schedule that leaves examples/matmul_npu.c's
   * 1024^3 matmul on the host runs 40 s (a third of the test's time, for
   * one case). Its steps are still applied, proven, lowered and emitted. */
  opt.max_steps = 1ull << 30;
  uint64_t seed0 = 1000003ull * (uint64_t)(sh->shard + 1) + FIRST_CASE;
  long leak_from = -1; /* first seed of the window that leaked */
  for (int i = 0; i < CASES_PER_SHARD; i++) {
    SgCase cs;
    uint64_t seed = seed0 + (uint64_t)i;
    sg_run_case(files[sg_pick_file(seed, nfiles)], seed, &opt, &cs, NULL, NULL);
    sg_counts_add(&c, &cs);
    sg_case_free(&cs);
    if (leak_from < 0 && ((i + 1) % LEAK_WINDOW == 0 || i + 1 == CASES_PER_SHARD) && LEAKED())
      leak_from = (long)(seed0 + (uint64_t)(i / LEAK_WINDOW * LEAK_WINDOW));
  }
  char *sum = sg_counts_summary(&c);
  /* the figures, for the log and for review notes */
  fprintf(stderr, "sched_random shard %d (%d files): %s", sh->shard, nfiles, sum);
  /* c.failures describes the failed and the internal-error cases alike */
  cr_expect_eq(c.outcome[SG_INTERNAL], 0, "%ld of %ld random schedules hit an internal error (npugen bugs):\n%s",
               c.outcome[SG_INTERNAL], c.cases, c.failures ? c.failures : "");
  cr_expect_eq(c.outcome[SG_FAILED], 0, "%ld of %ld random schedules failed:\n%s", c.outcome[SG_FAILED], c.cases,
               c.failures ? c.failures : "");
  cr_expect(leak_from < 0, "LeakSanitizer: one of the cases with seeds %ld..%ld leaked memory (the report is above)",
            leak_from, leak_from + LEAK_WINDOW - 1);
  /* The generator's spread (some schedules apply, some are refused) is
   * judged on the normal build's 112 cases a shard: the ASan build's 16
   * found none passing in a shard by chance (about 1 in 5 at a pass rate
   * of 10%), when a kernel file added to the list moved the shards. */
  if (CASES_PER_SHARD >= 64) {
    cr_expect(c.outcome[SG_PASSED] > 0, "no random schedule was applied and passed: %s", sum);
    cr_expect(c.outcome[SG_REFUSED] > 0, "no random schedule was refused: %s", sum);
  }
  free(sum);
  sg_counts_free(&c);
  for (int i = 0; i < nfiles; i++) sg_file_close(files[i]);
}
