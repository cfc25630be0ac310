/* inline(call): the call is emitted inline, no longer as a call. Its block
 * loses the call mark and its statements join the list around it, so the
 * other primitives (merge, compute_at, reorder...) apply across the former
 * boundary. Its loops and statements keep the names they have in the
 * caller, CALL_name (the call's name, '_', the callee's name for them:
 * frontend/call.c and use() give them so); a local it declares (a bound
 * scalar argument, a local array of the callee) that another declaration
 * of the kernel already names gets a fresh name (NAME_1, ...); the local
 * of a size's argument goes (the size's reads are the argument). Calls
 * inside it become calls of the caller, named CALL_inner.
 * Legal by construction: the statements and their order do not change. */
#include <string.h>

#include "schedule/primitives.h"

/* A fresh name for the local st declares when another declaration (or any
 * name of the kernel) has its name; a bound scalar argument takes its
 * statement's name, CALL_param, which says whose it is. */
static void fresh_local(Sched *s, const Stmt *call, Stmt *st) {
  const char **name = st->buf ? &st->buf->name : &st->var->name;
  const char *was = ir_call_binds(call, st) && st->name ? st->name : *name, *label = st->name;
  *name = st->name = ""; /* not to meet itself */
  *name = sched_name_taken(s, was) ? sched_fresh_name(s, was) : was;
  st->name = label;
}

/* Is st the local of a size's argument? Nothing reads it: the size's
 * reads are the argument itself (ir_call_pass_sizes), so it goes. */
static bool size_binding(const Stmt *call, const Stmt *st) {
  if (!ir_call_binds(call, st)) return false;
  int i = 0;
  for (const Param *p = call->call->callee->params; p; p = p->next, i++)
    if (call->call->arg_var[i] == st->var) return p->var->is_size;
  return false;
}

bool prim_inline(Sched *s, const SchedStep *st) {
  Stmt *call = sched_call(s, &st->args[0]);
  if (!call) return false;
  Stmt *owner = NULL, **link = sched_link(s, call, &owner);
  if (!link) return sched_error(s, &st->args[0], "call %s is not in the kernel's body (an npugen bug)", call->call->name);
  for (Stmt **c = &call->body; *c;)
    if (size_binding(call, *c)) *c = (*c)->next;
    else c = &(*c)->next;
  for (Stmt *c = call->body; c; c = c->next)
    if (c->kind == ST_DECL) fresh_local(s, call, c);
  call->call = NULL;
  if (!call->body) { /* an empty callee: nothing is left */
    *link = call->next;
    return true;
  }
  Stmt *last = call->body;
  while (last->next) last = last->next;
  last->next = call->next;
  *link = call->body;
  return true;
}
