/* The differential check in permuted orders (docs/check.md): a variant is
 * emitted, compiled and run once per order of its marked loops' iterations
 * (EmitOrder). A mark is a proof that the iterations are independent; a
 * later step that broke it shows up as a run that differs from the
 * reference in some order, where the source order alone may still pass. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/check_spec.h"
#include "jit/check.h"

/* Compiles the variant's C in u->order and runs it against k's reference
 * run on o's inputs, which it returns. NULL, with r saying why, when the
 * reference failed: that is the result whatever the variant did, as if
 * the reference had run first. A reference not kept runs meanwhile in a
 * thread of its own: the two are independent, and on two cores they take
 * the time of the longer. With a trace it runs first: only a run that is
 * compared writes one. */
/* The IR a run allocates and compares by: the variant's, or at one size
 * set for a kernel with symbolic sizes (LowerUnit.sized). */
static const Kernel *run_ir(const LowerUnit *u) { return u->sized ? u->sized : u->k; }

/* The kernel as written (o->by_reference): its C compiles, and the
 * reference's run, the same statements in the same order with every
 * undefined operation checked, is its run. */
static const CheckReference *by_reference(const LowerUnit *u, const char *text, const Kernel *k, CheckRefs *refs,
                                          const CheckOptions *o, CheckResult *r) {
  char err[4096];
  TccUnit *var = check_compile_variant(u->k, text, u->name, err, sizeof err);
  memset(r, 0, sizeof *r);
  r->order = u->order;
  const CheckReference *cref = var ? check_refs_run(refs, k, o, r) : NULL;
  tcc_unit_free(var);
  if (!var) {
    snprintf(r->message, sizeof r->message, "internal error: emitted C does not compile:\n%.900s", err);
  } else if (cref) {
    r->pass = r->exact = r->by_reference = true;
    snprintf(r->summary, sizeof r->summary,
             "its code is the reference's without the checks (the same IR), so it is not run a second time; "
             "--rerun-as-written runs and compares it");
  }
  return cref;
}

static const CheckReference *run_in_order(const LowerUnit *u, const char *text, const Kernel *k, CheckRefs *refs,
                                          const CheckOptions *o, CheckResult *r) {
  CheckResult failed;
  memset(&failed, 0, sizeof failed);
  const CheckReference *cref = NULL;
  if (o->by_reference) return by_reference(u, text, k, refs, o, r);
  if (o->trace_path) {
    if (!(cref = check_refs_run(refs, k, o, &failed))) goto ref_failed;
  } else {
    check_refs_start(refs, k, o);
  }
  char err[4096];
  TccUnit *var = check_compile_variant(u->k, text, u->name, err, sizeof err);
  CheckReference inputs = {NULL, k->nparams, o->seed, u->m->check_specs, o->scalar_ends};
  VariantArrays v = {NULL, NULL, 0};
  if (var) check_variant_exec(k, run_ir(u), &inputs, var, u->name, o, r, &v);
  if (!cref) cref = check_refs_run(refs, k, o, &failed);
  if (!cref || !var) check_variant_compare(k, run_ir(u), NULL, var, u->name, r, &v); /* frees the arrays */
  if (!cref) {
    tcc_unit_free(var);
    goto ref_failed;
  }
  if (!var) {
    memset(r, 0, sizeof *r);
    if (u->order == EMIT_ORDER_SOURCE)
      snprintf(r->message, sizeof r->message, "internal error: emitted C does not compile:\n%.900s", err);
    else
      snprintf(r->message, sizeof r->message, "internal error: the emitted C in %s order does not compile:\n%.800s",
               lower_order_name(u->order), err);
  } else {
    check_variant_compare(k, run_ir(u), cref, var, u->name, r, &v);
    check_summary(run_ir(u), r);
    tcc_unit_free(var);
  }
  r->order = u->order;
  return cref;
ref_failed:
  memset(r, 0, sizeof *r);
  memcpy(r->message, failed.message, sizeof r->message);
  r->order = u->order;
  return NULL;
}

/* Says in r's message which order failed, and what the source order did. */
static void name_order(CheckResult *r, bool source_passed) {
  char why[sizeof r->message];
  memcpy(why, r->message, sizeof why);
  snprintf(r->message, sizeof r->message, "in %s order of the marked loops (parallel, vectorize, bind): %.700s%s",
           lower_order_name(r->order), why,
           source_passed ? "; the source order passes, so a marked loop's iterations are not independent" : "");
}

/* Does k have an integer scalar parameter the check draws in [1, 8] (no
 * inputs pragma gives it a range)? */
static bool free_int_scalar(const Kernel *k, const CheckSpec *specs) {
  for (const Param *p = k->params; p; p = p->next)
    if (!p->buf && type_is_integer(p->var->type) && !ir_spec_find(specs, k, SPEC_RANGE, p->var->name)) return true;
  return false;
}

/* The last run of a variant that calls intrinsics: its integer scalars at
 * their types' maximum, where an intrinsic's scalar operand may leave its
 * domain (a requantize's multiplier). Where the kernel as written is
 * undefined or non-finite there, nothing can be compared, and the summary
 * says so. */
static void run_at_scalar_ends(const Kernel *k, const LowerUnit *u, CheckRefs *refs, const CheckOptions *o,
                               CheckResult *r) {
  CheckOptions ends = *o;
  ends.scalar_ends = true;
  ends.trace_path = NULL;
  CheckResult got;
  LowerUnit in = *u;
  in.order = EMIT_ORDER_SOURCE;
  in.cu_hooks = true;
  char *text = jit_c_source(&in);
  const CheckReference *cref = run_in_order(&in, text, k, refs, &ends, &got);
  free(text);
  size_t len = strlen(r->summary);
  if (!cref) {
    snprintf(r->summary + len, sizeof r->summary - len, "; not compared at integer scalars' maxima (%.120s)",
             got.message);
    return;
  }
  if (got.pass) return;
  r->pass = false;
  snprintf(r->message, sizeof r->message, "with its integer scalars at their types' maximum: %.900s", got.message);
}

/* A later order's run: compiled here, run in a thread of its own beside
 * another, compared after both. */
typedef struct {
  LowerUnit in;
  const char *text;
  const Kernel *k;
  CheckOptions o;
  CheckReference inputs;
  TccUnit *var;
  char err[4096];
  VariantArrays v;
  CheckResult r;
  pthread_t thread;
  bool threaded;
} OrderRun;

static void *order_exec(void *arg) {
  OrderRun *x = arg;
  check_variant_exec(x->k, run_ir(&x->in), &x->inputs, x->var, x->in.name, &x->o, &x->r, &x->v);
  return NULL;
}

static void order_compile(OrderRun *x, const Kernel *k, const LowerUnit *u, EmitOrder ord, const char *text,
                          const CheckOptions *o) {
  memset(x, 0, sizeof *x);
  x->in = *u;
  x->in.order = ord;
  x->in.cu_hooks = true;
  x->text = text;
  x->k = k;
  x->o = *o;
  x->o.trace_path = NULL; /* the trace is the first run's */
  x->inputs = (CheckReference){NULL, k->nparams, o->seed, u->m->check_specs, o->scalar_ends};
  /* here, not in the thread: libtcc compiles one unit at a time */
  x->var = check_compile_variant(u->k, text, u->name, x->err, sizeof x->err);
}

/* Compares x's run with the reference's, or says why it did not compile. */
static void order_finish(OrderRun *x, const CheckReference *cref) {
  if (!x->var) {
    memset(&x->r, 0, sizeof x->r);
    snprintf(x->r.message, sizeof x->r.message, "internal error: the emitted C in %s order does not compile:\n%.800s",
             lower_order_name(x->in.order), x->err);
  } else {
    check_variant_compare(x->k, run_ir(&x->in), cref, x->var, x->in.name, &x->r, &x->v);
    check_summary(run_ir(&x->in), &x->r);
    tcc_unit_free(x->var);
  }
  x->r.order = x->in.order;
}

/* The permuted orders after the first: each compared with cref; two at a
 * time when the arrays of both runs and the reference's fit in the
 * check's memory. Returns the index of the first that failed, n if none. */
static int run_later_orders(const Kernel *k, const LowerUnit *u, const CheckReference *cref, EmitOrder *ords,
                            char **texts, int n, const CheckOptions *o, OrderRun *runs) {
  uint64_t max_bytes = o->max_bytes ? o->max_bytes : CHECK_DEFAULT_MAX_BYTES;
  bool pairs = check_run_bytes(k, run_ir(u)) / 2 * 3 <= max_bytes;
  for (int i = 0; i < n; i += pairs ? 2 : 1) {
    int m = pairs && i + 1 < n ? 2 : 1;
    for (int j = 0; j < m; j++) order_compile(&runs[i + j], k, u, ords[i + j], texts[i + j], o);
    for (int j = 1; j < m; j++)
      if (runs[i + j].var)
        runs[i + j].threaded = !pthread_create(&runs[i + j].thread, NULL, order_exec, &runs[i + j]);
    for (int j = 0; j < m; j++)
      if (runs[i + j].var && !runs[i + j].threaded) order_exec(&runs[i + j]);
    for (int j = 1; j < m; j++)
      if (runs[i + j].threaded) pthread_join(runs[i + j].thread, NULL);
    int failed = n;
    for (int j = 0; j < m; j++) {
      order_finish(&runs[i + j], cref);
      if (!runs[i + j].r.pass && failed == n) failed = i + j;
    }
    if (failed < n) return failed;
  }
  return n;
}

void check_run_orders(const Kernel *k, const LowerUnit *u, CheckRefs *refs, unsigned orders,
                      const CheckOptions *o, CheckResult *r) {
  memset(r, 0, sizeof *r);
  if (!check_within_limits(k, run_ir(u), o, r)) return;
  if (!(orders & CHECK_ORDERS_ALL)) orders = 1u << EMIT_ORDER_SOURCE;
  char *ran[EMIT_ORDERS] = {NULL};
  EmitOrder ords[EMIT_ORDERS];
  int nran = 0;
  for (int ord = EMIT_ORDER_SOURCE; ord < EMIT_ORDERS; ord++) {
    if (!(orders & (1u << ord))) continue;
    LowerUnit in = *u;
    in.order = (EmitOrder)ord;
    in.cu_hooks = true;
    Arena a; /* the lowering in this order, for its text */
    arena_init(&a, 0);
    char why[600];
    in.lowered = lower_for_order(&a, u->k, u->lowered, u->target, in.order, why, sizeof why);
    if (*why) in.lower_error = why; /* lowered here (the unit brought none): its check's failure */
    char *text = jit_c_source(&in);
    arena_free(&a);
    bool again = false;
    for (int i = 0; i < nran; i++) again |= !strcmp(ran[i], text);
    if (again) { /* nothing was permuted: the same run */
      free(text);
      continue;
    }
    ords[nran] = (EmitOrder)ord;
    ran[nran++] = text;
  }
  /* the first run beside the reference's, one run for all orders and
   * variants; the others after it, two at a time */
  LowerUnit first = *u;
  first.order = ords[0];
  first.cu_hooks = true;
  const CheckReference *cref = run_in_order(&first, ran[0], k, refs, o, r);
  if (cref && !r->pass && r->order != EMIT_ORDER_SOURCE) name_order(r, false);
  if (cref && r->pass && nran > 1) {
    OrderRun later[EMIT_ORDERS];
    int f = run_later_orders(k, u, cref, ords + 1, ran + 1, nran - 1, o, later);
    if (f < nran - 1) {
      *r = later[f].r;
      name_order(r, ords[0] == EMIT_ORDER_SOURCE);
    }
  }
  for (int i = 0; i < nran; i++) free(ran[i]);
  if (r->pass && r->sim_cycles && free_int_scalar(k, u->m->check_specs)) run_at_scalar_ends(k, u, refs, o, r);
}
