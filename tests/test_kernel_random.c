/* Random valid kernels (fuzz/kernel_gen.h): a fixed-seed batch of SHARDS x
 * CASES_PER_SHARD kernels must each parse without an error (the generator
 * claims validity), emit, and pass the differential check of every kernel
 * as written (the kernel built by tcc against the emitted C). The gcc/tcc
 * builds and sanitizers of the long runs are left to `make fuzz-kernels`.
 * The generator is also held to its own claims: the same seed gives the
 * same bytes, and over COVER_SEEDS seeds every feature and every type it
 * advertises shows up. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/kernel_gen.h"
#include "npugen.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKED() (__lsan_do_recoverable_leak_check() != 0)
#else
#define LEAKED() false
#endif

/* The ASan+UBSan build checks the first half of each shard's kernels
 * (make test's CPU budget); the normal build all of them. */
#if defined(__SANITIZE_ADDRESS__)
enum { CASES_PER_SHARD = 25 };
#else
enum { CASES_PER_SHARD = 50 };
#endif
enum { SHARDS = 4, COVER_SEEDS = 200, LEAK_WINDOW = 25 };

typedef struct {
  int shard;
} Shard;

static void free_shards(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(kernel_random, shard) {
  Shard *s = cr_malloc(sizeof(Shard) * SHARDS);
  for (int i = 0; i < SHARDS; i++) s[i].shard = i;
  return cr_make_param_array(Shard, s, SHARDS, free_shards);
}

/* One kernel file: parsed, emitted and checked; false (with the reason
 * in why) on the first problem. */
static bool run_one(uint64_t seed, char *why, size_t n) {
  KgCase c;
  kg_generate(seed, &c);
  NpgSession *s = npg_open_string("kgen.c", c.src, strlen(c.src));
  bool ok = npg_error_count(s) == 0;
  if (!ok) snprintf(why, n, "npugen refuses it:\n%s", npg_errors(s));
  if (ok && npg_variant_count(s) != c.nkernels) {
    snprintf(why, n, "%d variants for %d kernels", npg_variant_count(s), c.nkernels);
    ok = false;
  }
  for (int v = 0; ok && v < npg_variant_count(s); v++) {
    NpgCheckResult r;
    const char *src = npg_emit_source(s, v), *hdr = npg_emit_header(s, v);
    if (!src || !hdr || !strstr(src, npg_variant_name(s, v))) {
      snprintf(why, n, "variant %s: no emitted C", npg_variant_name(s, v));
      ok = false;
    } else if (!npg_check(s, v, 1 + seed % 3, &r)) {
      snprintf(why, n, "variant %s fails the check: %s\n-- emitted C:\n%.6000s", npg_variant_name(s, v), r.message, src);
      ok = false;
    }
  }
  if (!ok) {
    size_t len = strlen(why);
    snprintf(why + len, n - len, "\n-- kernel (seed %llu):\n%.8000s", (unsigned long long)seed, c.src);
  }
  npg_close(s);
  kg_case_free(&c);
  return ok;
}

ParameterizedTest(Shard *sh, kernel_random, shard) {
  static char why[24 << 10];
  uint64_t seed0 = 7000003ull * (uint64_t)(sh->shard + 1);
  int failed = 0;
  long leak_from = -1;
  for (int i = 0; i < CASES_PER_SHARD; i++) {
    uint64_t seed = seed0 + (uint64_t)i;
    if (!run_one(seed, why, sizeof why)) {
      failed++;
      cr_expect_fail("random kernel, seed %llu (fuzz_kernels --case %llu): %s", (unsigned long long)seed,
                     (unsigned long long)seed, why);
      if (failed >= 3) break;
    }
    if (leak_from < 0 && ((i + 1) % LEAK_WINDOW == 0 || i + 1 == CASES_PER_SHARD) && LEAKED())
      leak_from = (long)(seed0 + (uint64_t)(i / LEAK_WINDOW * LEAK_WINDOW));
  }
  cr_expect(leak_from < 0, "LeakSanitizer: one of the cases with seeds %ld..%ld leaked memory (the report is above)",
            leak_from, leak_from + LEAK_WINDOW - 1);
}

/* The same seed, the same bytes (also the driver); other seeds, other kernels. */
Test(kernel_random, deterministic) {
  int same_as_next = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    KgCase a, b, c;
    kg_generate(seed, &a);
    kg_generate(seed, &b);
    kg_generate(seed + 1, &c);
    cr_expect_str_eq(a.src, b.src, "seed %llu gave two different kernels", (unsigned long long)seed);
    cr_expect_eq(memcmp(a.features, b.features, sizeof a.features), 0);
    char *da = kg_driver_source(&a, 5), *db = kg_driver_source(&b, 5);
    cr_expect_str_eq(da, db, "seed %llu gave two different drivers", (unsigned long long)seed);
    for (int k = 0; k < a.nkernels; k++) cr_expect(strstr(da, a.kernels[k].name), "the driver does not call %s", a.kernels[k].name);
    if (!strcmp(a.src, c.src)) same_as_next++;
    free(da);
    free(db);
    kg_case_free(&a);
    kg_case_free(&b);
    kg_case_free(&c);
  }
  cr_expect_eq(same_as_next, 0, "%d seeds gave the same kernel as the next seed", same_as_next);
}

/* Every feature and type the generator claims occurs in some kernel of
 * COVER_SEEDS, and what it counts is in the text. */
Test(kernel_random, covers_features) {
  int feat[KG_NFEATURES] = {0}, kinds[KG_NKINDS] = {0};
  int ternary_text = 0, math_text = 0, label_text = 0, if_text = 0, cast_text = 0;
  for (uint64_t seed = 0; seed < COVER_SEEDS; seed++) {
    KgCase c;
    kg_generate(seed, &c);
    for (int f = 0; f < KG_NFEATURES; f++) feat[f] += c.features[f] > 0;
    for (int k = 0; k < KG_NKINDS; k++) kinds[k] += c.kinds[k] > 0;
    if (c.features[KG_F_TERNARY]) ternary_text += strstr(c.src, " ? ") != NULL;
    if (c.features[KG_F_MATH]) math_text += strstr(c.src, "#include <math.h>") != NULL;
    if (c.features[KG_F_LABEL]) label_text += strstr(c.src, "L1: ") != NULL;
    if (c.features[KG_F_IF]) if_text += strstr(c.src, "if (") != NULL;
    if (c.features[KG_F_CAST]) cast_text += strstr(c.src, ")") != NULL;
    cr_expect_leq(c.work, 40000, "seed %llu: %ld statement executions", (unsigned long long)seed, c.work);
    kg_case_free(&c);
  }
  for (int f = 0; f < KG_NFEATURES; f++)
    cr_expect_gt(feat[f], 0, "no kernel of %d seeds has feature '%s'", COVER_SEEDS, kg_feature_name((KgFeature)f));
  for (int k = 0; k < KG_NKINDS; k++)
    cr_expect_gt(kinds[k], 0, "no kernel of %d seeds declares a value of type %s", COVER_SEEDS, kg_kind_name((KgKind)k));
  cr_expect_eq(ternary_text, feat[KG_F_TERNARY], "kernels counted with ?: but without one in the text");
  cr_expect_eq(math_text, feat[KG_F_MATH], "kernels with math calls but without <math.h>");
  cr_expect_eq(label_text, feat[KG_F_LABEL], "kernels counted with labels but without L1");
  cr_expect_eq(if_text, feat[KG_F_IF], "kernels counted with if but without one in the text");
  cr_expect_eq(cast_text, feat[KG_F_CAST]);
}
