/* The check of a kernel with symbolic sizes (docs/check.md, "Symbolic
 * sizes"): the variant's own C, which takes its sizes at run time, run at
 * each size set (ir_size_sets) against the kernel as written at those
 * sizes (ir_instantiate: constant extents and bounds, so the reference,
 * its checks and the limits are those of any kernel). The sizes are the
 * scalar arguments of the run, as if `#pragma npu inputs(K, n, v, v)`. */
#include <stdio.h>
#include <string.h>

#include "ir/check_spec.h"
#include "ir/sizes.h"
#include "jit/check.h"

const CheckSpec *check_size_specs(const Kernel *k, const SizeSet *set, const CheckSpec *rest,
                                  CheckSpec fixed[IR_MAX_SIZES]) {
  for (int i = 0; i < k->nsizes; i++)
    fixed[i] = (CheckSpec){.next = i + 1 < k->nsizes ? &fixed[i + 1] : (CheckSpec *)rest, .kind = SPEC_RANGE,
                           .kernel = k->name, .param = k->sizes[i]->name, .ilo = set->val[i], .ihi = set->val[i]};
  return k->nsizes ? fixed : rest;
}

void check_run_sizes(const Module *m, const Kernel *k, const LowerUnit *u, unsigned orders, const CheckOptions *o,
                     CheckResult *r) {
  memset(r, 0, sizeof *r);
  SizeSet sets[IR_MAX_SIZE_SETS];
  uint64_t budget = o->max_steps ? o->max_steps : CHECK_DEFAULT_MAX_STEPS;
  Kernel own_sets = *k; /* k, its named sets left out when o says so */
  if (o->default_size_sets) own_sets.nsize_sets = 0;
  bool named = own_sets.nsize_sets > 0;
  int n = ir_check_size_sets(&own_sets, u->k, budget, sets, IR_MAX_SIZE_SETS);
  if (!n) {
    snprintf(r->message, sizeof r->message, "no sizes satisfy the assumptions of kernel %s: nothing to run", k->name);
    return;
  }
  char list[1000] = "";
  size_t at = 0;
  CheckResult one, largest; /* the last set's, and the set of most steps run */
  memset(&one, 0, sizeof one);
  memset(&largest, 0, sizeof largest);
  uint64_t largest_steps = 0;
  char largest_sz[200] = "";
  /* the compared outputs of every set run, not the last set's alone */
  long compared = 0, nonfinite = 0;
  uint64_t fallbacks = 0;
  char fallback_op[64] = "";
  double max_error = 0;
  bool exact = true;
  int not_run = 0;
  for (int s = 0; s < n; s++) {
    char sz[200], why[300];
    ir_size_set_text(k, &sets[s], sz, sizeof sz);
    Arena a;
    arena_init(&a, 0);
    Kernel *rk = ir_instantiate(&a, k, &sets[s], why, sizeof why);
    Kernel *vk = rk ? ir_instantiate(&a, u->k, &sets[s], why, sizeof why) : NULL;
    if (!vk) {
      memset(&one, 0, sizeof one);
      snprintf(one.message, sizeof one.message, "%s", why);
      arena_free(&a);
      break;
    }
    uint64_t steps = ir_count_steps(rk);
    if (!named && steps > budget && s > 0) {
      /* a default set too large to run: said, not run (a set the kernel
       * names is run, and fails the budget like any kernel) */
      if (at < sizeof list) at += (size_t)snprintf(list + at, sizeof list - at, "%s(%s: over the step budget, not run)", at ? ", " : "", sz);
      not_run++;
      arena_free(&a);
      continue;
    }
    CheckSpec fixed[IR_MAX_SIZES];
    Module at_sizes = *m;
    at_sizes.check_specs = (CheckSpec *)check_size_specs(k, &sets[s], m->check_specs, fixed);
    CheckRefs *refs = check_refs_new(&at_sizes);
    LowerUnit in = *u;
    in.m = &at_sizes; /* the variant's inputs take the sizes too */
    in.sized = vk;
    in.tcc = true;
    check_run_orders(rk, &in, refs, orders, o, &one);
    check_refs_free(refs);
    arena_free(&a);
    if (!one.pass) {
      char msg[sizeof one.message];
      snprintf(msg, sizeof msg, "at %.190s: %.800s", sz, one.message);
      memcpy(one.message, msg, sizeof msg);
      break;
    }
    compared += one.compared;
    nonfinite += one.nonfinite;
    if (one.fallbacks && !fallbacks) memcpy(fallback_op, one.fallback_op, sizeof fallback_op);
    fallbacks += one.fallbacks; /* at any set: --strict fails the variant (jit/strict.c) */
    max_error = one.max_error > max_error ? one.max_error : max_error;
    if (steps >= largest_steps) { /* its figures are the variant's: the named sets come in any order */
      largest = one;
      largest_steps = steps;
      memcpy(largest_sz, sz, sizeof largest_sz);
    }
    exact &= one.exact;
    /* each set's own figures: a variant on the NPU is timed at every set */
    char fig[160] = "";
    if (one.sim_cycles)
      snprintf(fig, sizeof fig, ": %llu cycles, bound by %s (busy %.1f%%), roofline %.1f%%",
               (unsigned long long)one.sim_cycles, one.bound, 100 * one.bound_utilization, 100 * one.roofline);
    if (at < sizeof list) at += (size_t)snprintf(list + at, sizeof list - at, "%s(%s%s)", at ? ", " : "", sz, fig);
  }
  *r = one;
  if (r->pass) {
    *r = largest;
    r->fallbacks = fallbacks;
    memcpy(r->fallback_op, fallback_op, sizeof r->fallback_op);
    r->compared = compared;
    r->nonfinite = nonfinite;
    r->max_error = max_error;
    r->exact = exact;
    r->sets_not_run = not_run;
    size_t len = strlen(r->summary);
    if (r->sim_cycles && n > 1)
      len += (size_t)snprintf(r->summary + len, sizeof r->summary - len, "; the figures at %s, the largest set run",
                              largest_sz);
    if (len < sizeof r->summary)
      snprintf(r->summary + len, sizeof r->summary - len, "; at %d size set%s: %s", n, n == 1 ? "" : "s", list);
  }
}
