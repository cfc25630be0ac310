/* A variant's whole C lowered (lower/module.c): every decision the .c and
 * the .h make, as a LoweredModule (ir/lowered_module.h) that emit/ prints. */
#ifndef NPG_LOWER_MODULE_H
#define NPG_LOWER_MODULE_H

#include "ir/lowered_module.h"
#include "lower/lower.h"
#include "sim/npusim.h"

/* What a variant's C is lowered from: the kernel IR, the schedule text
 * that produced it (NULL for the kernel as written) and the target it was
 * scheduled for (NULL: the default target), with what the C is for. */
typedef struct {
  const Module *m;
  const Kernel *k;       /* the (scheduled) IR */
  const char *name;      /* emitted function name */
  const char *schedule;  /* "split(i, 64, io, ii)\n..." or NULL */
  const NpuTarget *target;
  EmitOrder order;       /* for the check only: the order `lowered` runs marked loops in, a program's functions too */
  bool cu_hooks;         /* for the check only: host code's accesses go through npu_cu_access */
  /* with cu_hooks, also in a variant that calls no intrinsic (npg_simulate
   * for tune: the kernel as written timed on the CU); the check leaves
   * such a variant's code plain */
  bool cu_hooks_host;
  /* C for tcc (the check, npg_jit_variant): an array sized by the
   * kernel's sizes is a flat pointer (emit/emit_cu_hooks.c says why) */
  bool tcc;
  /* the check of a kernel with symbolic sizes: k at one size set
   * (ir_instantiate), whose arrays a run allocates and compares; the text
   * is still k's. NULL otherwise. */
  const Kernel *sized;
  /* k lowered (lower/), in `order` (lower_for_order); lower_error: its
   * synchronisation check's failure (NULL or "" when it held), printed
   * as an #error */
  const Kernel *lowered;
  const char *lower_error;
  /* every array parameter `restrict` in the signature, as if the kernel
   * declared each `T A[restrict N]...` (npugen emit --assume-no-alias) */
  bool assume_no_alias;
  /* the .c includes "<name>.h" (the pair npugen emit writes, so the
   * prototype is checked against the definition); off for C compiled
   * alone, as the JIT does */
  bool own_header;
} LowerUnit;

/* u's C and header as one LoweredModule (lower_module_free frees it). */
void lower_module(const LowerUnit *u, LoweredModule *out);
void lower_module_free(LoweredModule *m);

#endif
