/* Every kernel in tests/kernels/ and examples/: parsed, emitted, JIT-run
 * against its own source on seeded random inputs; the emitted C also
 * compiles with gcc -std=c99 -Wall -Wextra -pedantic -Werror (and clang when
 * installed, but for the semantics kernels), and emission is deterministic.
 *
 * The two builds of make test share the work: the normal build checks
 * every variant on seed 1, the kernel as written run again beside the
 * reference (the printer's test), and compiles the emitted C with gcc and
 * clang; the ASan+UBSan build checks every variant on seed 2 (the kernel
 * as written by the reference's run), so npugen's own memory and undefined
 * behaviour are watched while it parses, schedules, lowers, prints and
 * simulates every file, and the two seeds are both run. The emitted text,
 * which the external compilers read, is the same in both builds. In the
 * ASan build a run past 2^28 steps is not started (npg_set_check_limits):
 * the six largest examples (resnet_block_npu.c alone took 22 s of CPU
 * there) are still parsed, scheduled, lowered and printed under the
 * sanitizers, and run in full, every variant, by the normal build; the
 * simulator's code their runs reach is reached by smaller kernels too.
 * Emission is deterministic (a second open prints the same bytes) is the
 * normal build's to check too.
 * The normal build's run of the kernel as written beside the reference
 * stops at the same size: past 2^28 steps (seven kernels of five examples:
 * the 1024^3 and 1000^3 matmuls, the convolutions, the ResNet block; the
 * log names them) its code is the reference's without
 * the checks, printed by the paths every smaller kernel's rerun takes,
 * and its run only repeated the reference's (10 s of CPU). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npugen.h"

/* A file, or a run of the semantics kernels (one small kernel each, 132
 * of them): a test process each cost more than their checks, so they go
 * GROUP to a test. */
enum { GROUP = 12 };
typedef struct {
  char path[GROUP][300];
  int n;
} KernelFiles;

typedef struct {
  char path[300];
} KernelFile;

static int cmp_files(const void *a, const void *b) {
  return strcmp(((const KernelFile *)a)->path, ((const KernelFile *)b)->path);
}

static size_t list_dir(const char *dir, KernelFile *out, size_t cap, size_t n) {
  DIR *d = opendir(dir);
  if (!d) return n;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    size_t l = strlen(e->d_name);
    if (l > 2 && l < 256 && !strcmp(e->d_name + l - 2, ".c"))
      snprintf(out[n++].path, sizeof out->path, "%.40s/%.255s", dir, e->d_name);
  }
  closedir(d);
  return n;
}

#if defined(__SANITIZE_ADDRESS__)
enum { SEED = 2, SANITIZED = 1 };
#define MAX_STEPS (1ull << 28)
#else
enum { SEED = 1, SANITIZED = 0 };
#define MAX_STEPS 0ull /* the check's default */
#endif
#define RERUN_STEPS (1ull << 28)

static void free_files(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(kernels, roundtrip) {
  enum { CAP = 512 };
  static KernelFile files[CAP];
  size_t n = list_dir("tests/kernels", files, CAP, 0);
  n = list_dir("examples", files, CAP, n);
  size_t own = n;
  n = list_dir("npu_intrinsics", files, CAP, n); /* semantics kernels are DSL too */
  qsort(files, own, sizeof *files, cmp_files);
  qsort(files + own, n - own, sizeof *files, cmp_files);
  KernelFiles *groups = cr_malloc(sizeof(KernelFiles) * (own + (n - own + GROUP - 1) / GROUP));
  size_t ng = 0;
  for (size_t i = 0; i < n; i++) {
    if (i < own || i == own || groups[ng - 1].n == GROUP) groups[ng++].n = 0;
    KernelFiles *g = &groups[ng - 1];
    memcpy(g->path[g->n++], files[i].path, sizeof files[i].path);
  }
  return cr_make_param_array(KernelFiles, groups, ng, free_files);
}

static bool have(const char *tool) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
  return system(cmd) == 0;
}

/* Every variant of the file in one run of the compiler (a process per
 * variant cost more than the compiling): the front end's checks are the
 * point, so -fsyntax-only; the object code is the compiler's own. */
static void compile_strict(const char *compiler, const char *dir, const char *files) {
  char cmd[8192], here[1024];
  /* code with on-chip buffers includes npu_intrinsics.h (installed beside npugen.h) */
  cr_assert(getcwd(here, sizeof here));
  int n = snprintf(cmd, sizeof cmd,
                   "cd %s && %s -std=c99 -Wall -Wextra -pedantic -Werror -I%s/npu_intrinsics -fsyntax-only %s 2>%s.log",
                   dir, compiler, here, files, compiler);
  cr_assert(n > 0 && (size_t)n < sizeof cmd, "command too long");
  int rc = system(cmd);
  if (rc) {
    snprintf(cmd, sizeof cmd, "cat %s/%s.log >&2", dir, compiler);
    (void)!system(cmd);
  }
  cr_expect(rc == 0, "%s rejects the emitted C of %s (%s)", compiler, dir, files);
}

static void roundtrip(const char *path) {
  NpgSession *s = npg_open_file(path);
  cr_assert(npg_error_count(s) == 0, "%s refused:\n%s", path, npg_errors(s));
  int n = npg_variant_count(s);
  cr_assert(n > 0);
  char dir[] = "/tmp/npg-kernels-XXXXXX";
  cr_assert(mkdtemp(dir));
  /* clang too, but not over the semantics kernels: 135 small nests, most
   * generated from one table (npu_vu_families.def), 9 s of clang's CPU in
   * make test; gcc reads them all */
  bool clang = strncmp(path, "npu_intrinsics/", 15) && have("clang");
  npg_set_as_written_by_reference(s, SANITIZED);
  npg_set_check_limits(s, SANITIZED ? MAX_STEPS : RERUN_STEPS, 0);
  int skipped_steps = 0;
  char files[4096] = "";
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    NpgCheckResult r;
    bool pass = npg_check(s, i, SEED, &r);
    if (!SANITIZED && r.not_run && strstr(r.message, "past the step budget")) {
      /* a run this long: every variant at the check's own limits, the
       * kernel as written by the reference's run */
      npg_set_as_written_by_reference(s, true);
      npg_set_check_limits(s, MAX_STEPS, 0);
      pass = npg_check(s, i, SEED, &r);
      if (r.by_reference)
        cr_log_info("%s: %s by the reference's run (past %llu steps)", path, npg_variant_name(s, i),
                    (unsigned long long)RERUN_STEPS);
      npg_set_as_written_by_reference(s, false);
      npg_set_check_limits(s, RERUN_STEPS, 0);
    }
    /* past MAX_STEPS: the normal build runs it; not run for any other
     * reason (the byte limit) still fails here */
    if (SANITIZED && r.not_run && strstr(r.message, "past the step budget")) {
      skipped_steps++;
      continue;
    }
    cr_expect(pass, "%s: %s (seed %d): %s", path, npg_variant_name(s, i), SEED, r.message);
    cr_expect(r.compared > 0 || r.by_reference, "%s: %s compared no output element", path,
              npg_variant_name(s, i));
    /* the kernel's bound is a bound: no variant beats it, at any size set */
    for (const char *f = strstr(r.summary, "roofline "); f; f = strstr(f + 1, "roofline ")) {
      double pct = 0;
      cr_expect(sscanf(f, "roofline %lf%%", &pct) == 1 && pct >= 0 && pct <= 100.0, "%s: %s: %s", path,
                npg_variant_name(s, i), r.summary);
    }
    if (SANITIZED) continue;
    const char *name = npg_variant_name(s, i);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.c", dir, name);
    FILE *o = fopen(path, "w");
    fputs(npg_emit_source(s, i), o);
    fclose(o);
    snprintf(path, sizeof path, "%s/%s.h", dir, name);
    o = fopen(path, "w");
    fputs(npg_emit_header(s, i), o);
    fclose(o);
    int w = snprintf(files + used, sizeof files - used, " %s.c", name);
    cr_assert(w > 0 && (size_t)w < sizeof files - used, "%s: too many variants for one command", path);
    used += (size_t)w;
  }
  if (used) {
    compile_strict("gcc", dir, files);
    if (clang) compile_strict("clang", dir, files);
  }
  /* a file whose every variant is past the budget is checked under the
   * sanitizers by its parse, steps and printing only: said in the log, so
   * that a budget which comes to leave out more files is seen */
  if (SANITIZED && skipped_steps == n)
    cr_log_info("%s: no run under ASan (each past %llu steps)", path, (unsigned long long)MAX_STEPS);
  /* Same input, same bytes: the normal build's (the ASan build's work is
   * npugen's memory, watched on the first open; a second one there cost
   * make test 10 s of CPU). */
  if (!SANITIZED) {
    NpgSession *again = npg_open_file(path);
    for (int i = 0; i < n; i++) {
      cr_expect_str_eq(npg_emit_source(again, i), npg_emit_source(s, i));
      cr_expect_str_eq(npg_emit_header(again, i), npg_emit_header(s, i));
    }
    npg_close(again);
  }
  npg_close(s);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  (void)!system(cmd);
}

ParameterizedTest(KernelFiles *f, kernels, roundtrip) {
  for (int i = 0; i < f->n; i++) roundtrip(f->path[i]);
}
