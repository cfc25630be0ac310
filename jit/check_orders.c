/* The differential check in permuted orders (docs/check.md): a variant is
 * emitted, compiled and run once per order of its marked loops' iterations
 * (EmitOrder). A mark is a proof that the iterations are independent; a
 * later step that broke it shows up as a run that differs from the
 * reference in some order, where the source order alone may still pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/check.h"

/* Compiles the variant's C in u->order and runs it against the
 * reference's run. */
static void run_in_order(const EmitUnit *u, const char *text, const Kernel *k, const CheckReference *ref,
                         const CheckOptions *o, CheckResult *r) {
  char err[4096];
  TccUnit *var = check_compile_variant(u->k, text, u->name, err, sizeof err);
  if (!var) {
    memset(r, 0, sizeof *r);
    if (u->order == EMIT_ORDER_SOURCE)
      snprintf(r->message, sizeof r->message, "internal error: emitted C does not compile:\n%.900s", err);
    else
      snprintf(r->message, sizeof r->message, "internal error: the emitted C in %s order does not compile:\n%.800s",
               emit_order_name(u->order), err);
  } else {
    check_variant_run(k, u->k, ref, var, u->name, o, r);
    check_summary(u->k, r);
    tcc_unit_free(var);
  }
  r->order = u->order;
}

/* Says in r's message which order failed, and what the source order did. */
static void name_order(CheckResult *r, bool source_passed) {
  char why[sizeof r->message];
  memcpy(why, r->message, sizeof why);
  snprintf(r->message, sizeof r->message, "in %s order of the marked loops (parallel, vectorize, bind): %.700s%s",
           emit_order_name(r->order), why,
           source_passed ? "; the source order passes, so a marked loop's iterations are not independent" : "");
}

void check_run_orders(const Kernel *k, const EmitUnit *u, CheckRefs *refs, unsigned orders,
                      const CheckOptions *o, CheckResult *r) {
  memset(r, 0, sizeof *r);
  if (!check_within_limits(k, u->k, o, r)) return;
  const CheckReference *cref = check_refs_run(refs, k, o, r); /* one run for all orders and variants */
  if (!cref) return;
  if (!(orders & CHECK_ORDERS_ALL)) orders = 1u << EMIT_ORDER_SOURCE;
  char *ran[EMIT_ORDERS] = {NULL};
  int nran = 0;
  bool source_passed = false;
  CheckResult cur;
  for (int ord = EMIT_ORDER_SOURCE; ord < EMIT_ORDERS; ord++) {
    if (!(orders & (1u << ord))) continue;
    EmitUnit in = *u;
    in.order = (EmitOrder)ord;
    in.cu_hooks = true;
    char *text = emit_c_source(&in);
    bool again = false;
    for (int i = 0; i < nran; i++) again |= !strcmp(ran[i], text);
    if (again) { /* nothing was permuted: the same run */
      free(text);
      continue;
    }
    ran[nran++] = text;
    CheckOptions one = *o;
    if (nran > 1) one.trace_path = NULL; /* the trace is the first run's */
    CheckResult *got = nran == 1 ? r : &cur;
    run_in_order(&in, text, k, cref, &one, got);
    if (!got->pass) {
      if (got != r) *r = *got;
      if (r->order != EMIT_ORDER_SOURCE) name_order(r, source_passed);
      break;
    }
    source_passed |= ord == EMIT_ORDER_SOURCE;
  }
  for (int i = 0; i < nran; i++) free(ran[i]);
}
