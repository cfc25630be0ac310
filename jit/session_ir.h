/* Read access to a session's IR and target for the generator's own code
 * above jit/ (tune/, cli/tune.c), which needs the kernels and a probe
 * variant's IR but none of the session's private state (jit/session.h). */
#ifndef NPG_SESSION_IR_H
#define NPG_SESSION_IR_H

#include "ir/ir.h"
#include "npugen.h"
#include "sim/npusim.h"

/* The parsed kernel file, NULL when it did not parse. */
const Module *session_module(const NpgSession *s);
/* The target the session schedules for and simulates on. */
const NpuTarget *session_target(const NpgSession *s);
/* Variant i's IR, NULL when there is no such variant. */
const Kernel *session_variant_ir(const NpgSession *s, int i);
/* Kernel `kernel`'s size sets become set alone (npugen tune --size): its
 * variants' checks and simulations run there. false (why says) when the
 * kernel has no sizes or set breaks its assumptions. */
bool session_fix_sizes(NpgSession *s, const char *kernel, const SizeSet *set, char *why, size_t n);

#endif
