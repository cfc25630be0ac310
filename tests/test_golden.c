/* The check's own C pinned byte for byte (tests/golden/, README there):
 * for three small kernels (one with sizes, one with locals, a program),
 * the reference's text (jit_reference_text: the kernel as written with
 * its checks, then its thunk) and the variant's C in the reversed order
 * of its marked loops (what check_run_orders compiles for that order).
 * examples/emitted pins the C a user gets; these pin the C the check
 * compares it with, so a change of the reference's printer or of the
 * permuted lowering shows in review. Each variant is also checked in
 * that order, so the text pinned is a text that passes.
 *
 * NPUGEN_GOLDEN_WRITE=1 rewrites the files instead of comparing (make
 * golden). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sizes.h"
#include "jit/c_text.h"
#include "jit/check.h"
#include "jit/session.h"
#include "lower/variant_promote.h"
#include "npugen.h"

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  StrBuf sb;
  sb_init(&sb);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_printf(&sb, "%.*s", (int)n, buf);
  fclose(f);
  return sb.data ? sb_take(&sb) : strdup("");
}

/* text against tests/golden/NAME, or written there under
 * NPUGEN_GOLDEN_WRITE. */
static void compare_golden(const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "tests/golden/%s", name);
  if (getenv("NPUGEN_GOLDEN_WRITE")) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return;
  }
  char *want = read_all(path);
  cr_assert_not_null(want, "%s is missing: make golden writes it", path);
  if (strcmp(want, text)) {
    size_t at = 0;
    while (want[at] && want[at] == text[at]) at++;
    int line = 1;
    for (size_t i = 0; i < at; i++) line += want[i] == '\n';
    cr_expect_fail("%s differs from the text the check makes now, first at line %d (make golden rewrites it; "
                   "review the diff):\n%s",
                   path, line, text);
  }
  free(want);
}

/* The kernel the check instantiates at a size set (the first, as
 * check_run_sizes takes them), and the module its reference reads the
 * sizes' specs from; k itself when it has no sizes. */
typedef struct {
  Arena arena;
  const Kernel *ref, *variant;
  Module m;
  CheckSpec fixed[IR_MAX_SIZES];
} AtSizes;

static void at_first_sizes(AtSizes *a, const Module *m, const Kernel *k, const Kernel *v) {
  arena_init(&a->arena, 0);
  a->m = *m;
  a->ref = k;
  a->variant = v;
  if (!k->nsizes) return;
  SizeSet sets[IR_MAX_SIZE_SETS];
  cr_assert_gt(ir_check_size_sets(k, v, CHECK_DEFAULT_MAX_STEPS, sets, IR_MAX_SIZE_SETS), 0);
  char why[300];
  a->ref = ir_instantiate(&a->arena, k, &sets[0], why, sizeof why);
  cr_assert_not_null(a->ref, "%s", why);
  a->m.check_specs = (CheckSpec *)check_size_specs(k, &sets[0], m->check_specs, a->fixed);
}

/* Golden files NAME.reference.c and NAME.VARIANT.reversed.c of kernel
 * file tests/golden/NAME.c, and the variant passes in that order. */
static void pin(const char *name, const char *variant) {
  char path[256], file[256];
  snprintf(path, sizeof path, "tests/golden/%s.c", name);
  NpgSession *s = npg_open_file(path);
  cr_assert(s && !npg_error_count(s), "%s: %s", path, npg_errors(s));
  int v = npg_variant_index(s, variant);
  cr_assert_geq(v, 0, "%s: no variant %s", path, variant);
  const Kernel *k = s->v[v].kernel;

  AtSizes at;
  at_first_sizes(&at, s->m, k, s->v[v].ir);
  CheckedUnit ref;
  jit_reference_text(&at.m, at.ref, &ref);
  snprintf(file, sizeof file, "%s.reference.c", name);
  compare_golden(file, ref.source);
  jit_checked_unit_free(&ref);

  /* as npg_check_orders and check_run_orders make it */
  LowerUnit u = session_unit(s, v);
  u.lowered = lower_check_promote(&at.arena, s->v[v].ir, s->v[v].low);
  u.tcc = true;
  u.order = EMIT_ORDER_REVERSED;
  u.cu_hooks = true;
  char why[600];
  u.lowered = lower_for_order(&at.arena, u.k, u.lowered, u.target, u.order, why, sizeof why);
  cr_assert_str_empty(why, "%s in reversed order: %s", variant, why);
  char *text = jit_c_source(&u);
  snprintf(file, sizeof file, "%s.%s.reversed.c", name, variant);
  compare_golden(file, text);
  free(text);
  arena_free(&at.arena);

  NpgCheckResult r;
  cr_expect(npg_check_orders(s, v, 1, NPG_ORDER_REVERSED, &r), "%s in reversed order: %s", variant, r.message);
  npg_close(s);
}

/* One test for the three (each test costs a fork, three times over
 * under ASan): a failure names the file. */
Test(golden, the_reference_and_the_reversed_c_of_three_kernels) {
  pin("sized", "scale_par");
  pin("local", "rowsum_par");
  pin("program", "net_par");
}
