/* The session's private state, shared by the API's files (session.c, the
 * schedule API in sched_api.c). */
#ifndef NPG_SESSION_H
#define NPG_SESSION_H

#include "ir/sched_prog.h"
#include "ir/strmap.h"
#include "jit/check.h"
#include "jit/tcc_unit.h"
#include "npugen.h"
#include "sim/npusim.h"

typedef struct {
  const Kernel *kernel; /* the kernel as written (the reference) */
  const Kernel *ir;     /* the variant's IR */
  const char *name;
  char *schedule;       /* the steps as applied, one a line; NULL as written */
  char *steps;          /* the IR after each step; NULL until asked for a program's variant */
  const SchedProgram *program; /* the schedule it was made by (NULL: the C API's steps) */
  const Kernel *low;    /* the IR lowered (lower/), its synchronisation checked */
  const Kernel *check_low; /* low as the check runs it (lower_check_promote); NULL until checked */
  char *source, *header, *dump, *lowered; /* lowered: npg_dump_ir_lowered's text */
} Variant;

struct NpgSession {
  char *path;
  DiagList diags;
  char *rendered;
  Module *m;
  Variant *v;
  int nv, cap;
  CheckRefs *refs; /* the kernels' reference runs, kept for every variant */
  /* File-scope names of the emitted code: variants (kernels as written
   * included), #defines, pack/unpack helpers; each maps to what it names. */
  IrMap names;
  IrMap kernels; /* the module's kernels by name */
  IrMap guards;  /* variants by their header guard (NPUGEN_ + the name in capitals) */
  NpuTarget target; /* schedules are planned for it, variants simulated on it */
  char *trace_path;
  uint64_t max_steps, max_bytes; /* npg_set_check_limits; 0: the defaults */
  double max_cpu_seconds;        /* npg_set_check_cpu_limit; 0: the default */
  unsigned check_orders;         /* npg_set_check_orders; 0: NPG_ORDER_ALL */
  bool assume_no_alias;          /* npg_set_assume_no_alias */
  NpgSched *scheds;              /* npg_sched_begin's handles, ended or not: npg_close frees them */
  bool strict;                   /* npg_set_strict (jit/strict.c) */
  bool as_written_by_reference;  /* npg_set_as_written_by_reference */
  struct SemCache *sems;         /* the intrinsics' semantics, parsed once for all its schedules */
};

/* A public entry point's NULL argument: the error "fn: arg is NULL" in s
 * (when s is not NULL itself); false, for the caller to return. */
bool session_null(NpgSession *s, const char *fn, const char *arg);
/* Frees s's schedule handles (npg_close). */
void session_free_scheds(NpgSession *s);

/* Lowers ir and checks its synchronisation, then adds it as a variant
 * (taking ownership of schedule and steps). A lowering that fails its
 * check (an npugen bug) is an error at file:loc instead, and no variant. */
bool session_add_variant(NpgSession *s, const Kernel *kernel, const Kernel *ir, const char *name, char *schedule,
                         char *steps, const char *file, const char *src, SrcLoc loc);
/* Under --strict or `#pragma npu strict` (jit/strict.c): the warnings
 * that weaken the verdict become errors, and a check that passed fails
 * when the variant holds a hint not met (r->message says which). */
void session_strict_diags(NpgSession *s);
bool session_strict_verdict(const NpgSession *s, int i, NpgCheckResult *r);
/* What variant i is emitted from (as npg_emit_source emits it: source
 * order, no check hooks). */
LowerUnit session_unit(const NpgSession *s, int i);
/* Applies schedule programs (from `first` to the end of the list): each that
 * applies cleanly becomes a variant; refusals go to s->diags. */
void session_apply_programs(NpgSession *s, SchedProgram *first);
/* The #defines' names into s->names (after parsing the kernel file). */
void session_add_defines(NpgSession *s);
/* The variant whose name differs from `name` only in case, or NULL. */
const char *session_case_twin(const NpgSession *s, const char *name);
/* True when `name` may name a new variant; otherwise an error at loc. */
bool session_variant_name_ok(NpgSession *s, const char *name, const char *file, const char *src, SrcLoc loc);

#endif
