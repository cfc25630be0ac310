/* The random-schedule tester's findings (fuzz/regressions/), each file a
 * reproduction with a line saying what npugen does with it now:
 *   Expect: passes        no errors, and every variant passes the
 *                         differential check (seeds 1 and 2)
 *   Expect: refused TEXT  the errors contain TEXT (one such line per
 *                         expected refusal); the variants left pass the check
 *   Expect: slow          skipped here, to keep `make test` fast (the file
 *                         says how to run it)
 * A .c file is a kernel with its pragmas; a .sched file holds pragma lines
 * only, for the kernel named on its `Kernel: PATH` line. In the ASan build a
 * leak fails the file too. Findings that need the C API are test cases at
 * the end. Run from the repository root. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"
#include "tests/test_sched_util.h"

/* As in test_sched_random.c: LeakSanitizer reports only at exit, where
 * Criterion does not look, so the test asks. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKED() (__lsan_do_recoverable_leak_check() != 0)
#else
#define LEAKED() false
#endif

#define REGRESSIONS_DIR "fuzz/regressions"

enum { MAX_REGRESSIONS = 256, MAX_EXPECTS = 16, PATH_SIZE = 512, LINE_SIZE = 1024 };

typedef struct {
  char path[PATH_SIZE];
} Regression;

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && !strcmp(s + n - k, suffix);
}

static int cmp_regression(const void *a, const void *b) {
  return strcmp(((const Regression *)a)->path, ((const Regression *)b)->path);
}

/* The .c and .sched files of fuzz/regressions, sorted; into r (may be NULL
 * to count). */
static int list_regressions(Regression *r, int max) {
  DIR *d = opendir(REGRESSIONS_DIR);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    if (!has_suffix(e->d_name, ".c") && !has_suffix(e->d_name, ".sched")) continue;
    if (r) snprintf(r[n].path, sizeof r[n].path, "%s/%s", REGRESSIONS_DIR, e->d_name);
    n++;
  }
  closedir(d);
  if (r) qsort(r, (size_t)n, sizeof *r, cmp_regression);
  return n;
}

/* The file's `Key: value` lines (the key first on the line after comment
 * marks; value trimmed, a trailing comment closer dropped), up to max of
 * them; returns how many. */
static int header_values(const char *path, const char *key, char values[][LINE_SIZE], int max) {
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "cannot open %s (run from the repository root)", path);
  char line[LINE_SIZE];
  int n = 0;
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f)) {
    char *p = line + strspn(line, " \t/*");
    if (strncmp(p, key, klen) || p[klen] != ':') continue;
    p += klen + 1;
    while (*p == ' ' || *p == '\t') p++;
    size_t len = strlen(p);
    while (len && strchr(" \t\r\n", p[len - 1])) len--;
    if (len >= 2 && p[len - 2] == '*' && p[len - 1] == '/') len -= 2;
    while (len && strchr(" \t", p[len - 1])) len--;
    cr_assert_lt(n, max, "%s: more than %d %s lines", path, max, key);
    snprintf(values[n++], LINE_SIZE, "%.*s", (int)len, p);
  }
  fclose(f);
  return n;
}

/* Every variant the session holds passes the differential check. */
static void variants_pass(NpgSession *s, const char *path) {
  for (int v = 0; v < npg_variant_count(s); v++)
    for (uint64_t seed = 1; seed <= 2; seed++) {
      NpgCheckResult r;
      const char *name = npg_variant_name(s, v);
      cr_expect(npg_check(s, v, seed, &r), "%s: variant %s fails the check (seed %llu): %s\n%s", path, name,
                (unsigned long long)seed, r.message, npg_emit_source(s, v));
      cr_expect_gt(r.compared, 0, "%s: variant %s compared no output", path, name);
    }
}

static void free_regressions(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(fuzz_regressions, file) {
  int n = list_regressions(NULL, MAX_REGRESSIONS);
  Regression *r = cr_malloc(sizeof(Regression) * (size_t)(n > 0 ? n : 1));
  n = list_regressions(r, n);
  return cr_make_param_array(Regression, r, (size_t)n, free_regressions);
}

ParameterizedTest(Regression *reg, fuzz_regressions, file) {
  const char *path = reg->path;
  static char expect[MAX_EXPECTS][LINE_SIZE], kernel[1][LINE_SIZE];
  int ne = header_values(path, "Expect", expect, MAX_EXPECTS);
  cr_assert_gt(ne, 0, "%s has no `Expect: passes|refused TEXT|slow` line", path);
  bool passes = false, slow = false;
  int nrefused = 0;
  for (int i = 0; i < ne; i++) {
    if (!strcmp(expect[i], "passes")) passes = true;
    else if (!strcmp(expect[i], "slow")) slow = true;
    else if (!strncmp(expect[i], "refused ", 8) && expect[i][8]) nrefused++;
    else cr_assert_fail("%s: bad line `Expect: %s` (passes, refused TEXT or slow)", path, expect[i]);
  }
  cr_assert_eq((passes ? 1 : 0) + (slow ? 1 : 0) + (nrefused ? 1 : 0), 1,
               "%s: mixes `Expect: passes`, `refused` and `slow` lines", path);
  /* Seconds to minutes of isl work: run by hand (the file says how). */
  if (slow) cr_skip_test("%s is marked slow", path);

  NpgSession *s;
  if (has_suffix(path, ".sched")) {
    cr_assert_eq(header_values(path, "Kernel", kernel, 1), 1, "%s: a .sched file needs a `Kernel: PATH` line", path);
    s = npg_open_file(kernel[0]);
    cr_assert_eq(npg_error_count(s), 0, "%s: kernel %s: %s", path, kernel[0], npg_errors(s));
    npg_add_schedule_file(s, path);
  } else {
    s = npg_open_file(path);
  }
  const char *errors = npg_errors(s);
  if (passes) {
    cr_expect_eq(npg_error_count(s), 0, "%s: expected to pass, but:\n%s", path, errors);
    cr_expect_gt(npg_variant_count(s), 1, "%s: no schedule applied", path);
  } else {
    cr_expect_gt(npg_error_count(s), 0, "%s: expected to be refused, but no error", path);
    for (int i = 0; i < ne; i++)
      cr_expect(strstr(errors, expect[i] + 8), "%s: expected the errors to contain:\n%s\nbut they are:\n%s", path,
                expect[i] + 8, errors);
  }
  variants_pass(s, path);
  npg_close(s);
  cr_expect(!LEAKED(), "%s: LeakSanitizer found a leak (the report is above)", path);
}

/* The listing found the files (a wrong working directory would make the
 * parameterized test above run nothing). */
Test(fuzz_regressions, found) {
  cr_assert_gt(list_regressions(NULL, MAX_REGRESSIONS), 0, "no files in %s (run from the repository root)",
               REGRESSIONS_DIR);
}

/* sched_random finding (was fuzz/regressions/annotate_comment_opener.c):
 * annotate accepted a string value containing a comment opener (slash-star;
 * it refused only the closer). The value is copied into two C comments of
 * the emitted code (the schedule in the header comment, and the
 * "@key = value" comment before the target), and gcc rejects a nested
 * opener under the flags DESIGN.md section 6 promises. A pragma cannot
 * carry the value (see fuzz/regressions/pragma_string_comment_opener.c), so
 * this goes through the C API, as the fuzzer's steps do.
 * Status: fixed in 0a12183 (annotate refuses comment openers too). */
static const char *annotate_kernel = "#define N 16\n"
                                     "void f(const int x[N], int y[N]) {\n"
                                     "  for (int i = 0; i < N; i++)\n"
                                     "    s: y[i] = x[i] + 1;\n"
                                     "}\n";

static void annotate_refused(const char *key, const char *value, const char *want) {
  NpgSession *s = open_ok(annotate_kernel, "");
  NpgSched *h = npg_sched_begin(s, "f", "v");
  cr_assert_not_null(h);
  cr_expect_not(npg_sched_annotate_str(h, "s", key, value), "annotate(s, %s, \"%s\") applied", key, value);
  has(npg_errors(s), want);
  cr_expect_eq(npg_sched_end(h), -1);
  cr_expect_eq(npg_variant_index(s, "v"), -1);
  npg_close(s);
}

Test(fuzz_regressions, annotate_comment_opener) {
  annotate_refused("note", "a/*b", "the value cannot contain '/*' or '*/'");
  annotate_refused("note", "a*/b", "the value cannot contain '/*' or '*/'");
  annotate_refused("no/*te", "ab", "the key cannot contain '/*' or '*/'");
  /* the same annotation without the opener applies */
  NpgSession *s = open_ok(annotate_kernel, "");
  NpgSched *h = npg_sched_begin(s, "f", "v");
  cr_assert(npg_sched_annotate_str(h, "s", "note", "a/b"), "%s", npg_errors(s));
  int v = npg_sched_end(h);
  cr_assert_geq(v, 0, "%s", npg_errors(s));
  has(npg_emit_source(s, v), "@note");
  checked(s, "v");
  npg_close(s);
  cr_expect(!LEAKED(), "LeakSanitizer found a leak (the report is above)");
}
