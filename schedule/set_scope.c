/* set_scope(BUF, scope): a local array (a temporary the kernel declares)
 * lives in an on-chip scope instead of the control unit's memory, as TVM's
 * set_scope does for an intermediate buffer. Nothing is copied: the array
 * never was in DDR, so its declaration becomes a place in the scope
 * (placement gives it an offset for the block that declares it, and
 * refuses what does not fit), and every access, by a host loop or an
 * intrinsic after tensorize, reads it there. cache_read and cache_write
 * stage arrays that are passed in; a local array that only some loop uses
 * can also be staged per iteration with cache_write.
 * A local array passed to a marked call (docs/programs.md): the call runs
 * its function again over the array where it now is (ir_call_run), so
 * a stage of the function's in that scope is the array itself, and its
 * on-chip buffers are placed with the caller's. */
#include "schedule/layout.h"
#include "schedule/primitives.h"

typedef struct {
  Sched *s;
  const Buffer *b;
  bool any;
} Replan;

static bool replan_visit(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Replan *r = ctx;
  if (st->kind != ST_BLOCK || !st->call) return true;
  const CallSite *c = st->call;
  bool passed = false;
  for (int i = 0; i < c->nparams; i++) passed |= c->arg_buf[i] == r->b;
  if (passed) ir_call_run(r->s->a, r->s->k, st, c->fn_ir->name, c->fn_ir, c->fn_schedule);
  r->any |= passed;
  return true;
}

bool prim_set_scope(Sched *s, const SchedStep *st) {
  Buffer *b = sched_buffer(s, &st->args[0]);
  if (!b) return false;
  const char *scope = sched_onchip_scope(s, &st->args[1]);
  if (!scope) return false;
  if (buffer_onchip(b))
    return sched_error(s, &st->args[0], "%s is already in %s", b->name, b->scope);
  Stmt *decl = b->role == ROLE_LOCAL ? ir_buffer_decl(s->k->body, b) : NULL;
  if (!decl)
    return sched_error(s, &st->args[0], "%s is passed in, so it lives in DDR; stage it with cache_read or "
                       "cache_write", b->name);
  if (decl->ninit)
    return sched_error(s, &st->args[0], "%s has an initializer list, which on-chip memory cannot take; initialize it "
                       "with a loop", b->name);
  b->scope = scope;
  Replan r = {s, b, false};
  ir_walk_outside_calls(s->k->body, replan_visit, &r);
  if (r.any) { /* new statements in the calls: as after use() */
    sched_model_drop(s);
    s->reset_origins = true;
  }
  return true;
}
