/* Which kernel of the file tune works on, and at which sizes: --kernel
 * (or the file's only kernel) and --size (each symbolic size once, fixed
 * in the session so that the trials run there). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sizes.h"
#include "ir/suggest.h"
#include "jit/session_ir.h"
#include "tune/tune.h"

/* The kernel named want, or the file's only one; NULL with why. */
static const Kernel *pick(const Module *m, const char *file, const char *want, char *why, size_t n) {
  int count = 0;
  const Kernel *only = NULL;
  IrSuggest near = ir_suggest_start(want);
  for (const Kernel *k = m ? m->kernels : NULL; k; k = k->next, count++) {
    only = k;
    if (want && !strcmp(want, k->name)) return k;
    ir_suggest_add(&near, k->name);
  }
  char dym[160];
  if (want) snprintf(why, n, "%s:1:1: error: no kernel '%s' in the file%s\n", file, want, ir_suggest_text(&near, dym, sizeof dym));
  else if (count != 1) snprintf(why, n, "%s:1:1: error: the file has %d kernels: name one with --kernel\n", file, count);
  return !want && count == 1 ? only : NULL;
}

/* Size i of k named by text[0..len), or -1. */
static int size_named(const Kernel *k, const char *text, size_t len) {
  for (int j = 0; j < k->nsizes; j++)
    if (strlen(k->sizes[j]->name) == len && !strncmp(text, k->sizes[j]->name, len)) return j;
  return -1;
}

/* --size "n=1000,m=7": every size of kernel k once, into set; false
 * with why. */
static bool parse_sizes(const char *file, const Kernel *k, const char *text, SizeSet *set, char *why, size_t n) {
  bool given[IR_MAX_SIZES] = {false};
  for (const char *p = text; *p;) {
    const char *eq = strchr(p, '='), *comma = strchr(p, ',');
    if (!comma) comma = p + strlen(p);
    int i = eq && eq < comma ? size_named(k, p, (size_t)(eq - p)) : -1;
    char *end = NULL;
    errno = 0;
    long long v = i >= 0 ? strtoll(eq + 1, &end, 10) : 0;
    if (i < 0 || given[i] || errno || end != comma || eq + 1 == comma) {
      size_t len = (size_t)snprintf(why, n, "%s:1:1: error: --size takes each size of kernel %s once, as NAME=VALUE "
                                            "separated by commas (its sizes:", file, k->name);
      for (int j = 0; j < k->nsizes && len < n; j++) len += (size_t)snprintf(why + len, n - len, " %s", k->sizes[j]->name);
      if (len < n) snprintf(why + len, n - len, "); got '%s'\n", text);
      return false;
    }
    given[i] = true;
    set->val[i] = v;
    p = *comma ? comma + 1 : comma;
  }
  for (int j = 0; j < k->nsizes; j++)
    if (!given[j]) {
      snprintf(why, n, "%s:1:1: error: --size gives no value for size %s of kernel %s\n", file, k->sizes[j]->name, k->name);
      return false;
    }
  return true;
}

/* No --size: the check's size set of most steps within the trials' budget
 * (its `#pragma npu sizes` sets, else its default ones), as --size text. */
static bool largest_size_set(const Kernel *k, uint64_t budget, char *text, size_t n) {
  SizeSet sets[IR_MAX_SIZE_SETS];
  int count = ir_size_sets(k, sets, IR_MAX_SIZE_SETS), best = -1;
  uint64_t most = 0;
  for (int i = 0; i < count; i++) {
    Arena a;
    arena_init(&a, 0);
    char why[200];
    const Kernel *at = ir_instantiate(&a, k, &sets[i], why, sizeof why);
    uint64_t steps = at ? ir_count_steps(at) : 0;
    arena_free(&a);
    if (at && steps <= budget && (best < 0 || steps > most)) best = i, most = steps;
  }
  if (best < 0) return false;
  size_t len = 0;
  text[0] = 0;
  for (int j = 0; j < k->nsizes && len < n; j++)
    len += (size_t)snprintf(text + len, n - len, "%s%s=%lld", j ? "," : "", k->sizes[j]->name, (long long)sets[best].val[j]);
  return len < n;
}

const char *tune_pick_kernel(NpgSession *s, TuneInvocation *inv, const char *want, char *why, size_t n) {
  why[0] = 0;
  const Kernel *k = pick(session_module(s), inv->file, want, why, n);
  if (k && k->nsizes && !inv->size) {
    uint64_t budget = inv->max_steps ? inv->max_steps : IR_SIZE_SET_STEPS * 16;
    if (!largest_size_set(k, budget, inv->size_picked, sizeof inv->size_picked)) {
      snprintf(why, n, "%s:%d:%d: error: kernel '%s' has symbolic sizes and no size set of the check's within the "
               "trials' step budget: give the sizes to tune for with --size (e.g. --size %s=1000)\n",
               inv->file, k->loc.line, k->loc.col, k->name, k->sizes[0]->name);
      return NULL;
    }
    inv->size = inv->size_picked;
  }
  if (!k || !inv->size) return k ? k->name : NULL;
  if (!k->nsizes) {
    snprintf(why, n, "%s:%d:%d: error: --size: kernel %s has no symbolic sizes\n", inv->file, k->loc.line, k->loc.col,
             k->name);
    return NULL;
  }
  SizeSet set;
  memset(&set, 0, sizeof set);
  if (!parse_sizes(inv->file, k, inv->size, &set, why, n)) return NULL;
  char fix[400];
  if (session_fix_sizes(s, k->name, &set, fix, sizeof fix)) {
    if (inv->size == inv->size_picked)
      snprintf(why, n, "npugen tune: kernel %s has symbolic sizes and no --size: tuning at %s, the largest of the "
               "check's size sets within the trials' step budget (its schedule applies at every size; --size picks "
               "the sizes to tune for)\n", k->name, inv->size);
    return k->name;
  }
  snprintf(why, n, "%s:%d:%d: error: --size: %s\n", inv->file, k->loc.line, k->loc.col, fix);
  return NULL;
}
