/* use(call, variant): the call runs `variant`, a variant of the kernel it
 * calls (or that kernel as written, by its own name), built earlier in the
 * session. The call's block then holds the variant's scheduled IR, its
 * parameters replaced by the call's arrays and bound scalars, so every
 * later step and the check see what the emitted call runs; its loops and
 * statements are named after the call (CALL_name), as inline() leaves them.
 * Legal by construction: a variant computes what its kernel does (its own
 * check proves it by execution), and the statements around the call keep
 * their order; the model restarts after the step.
 * Where the call passes an array the caller placed on chip (set_scope),
 * a stage of the variant's in that scope is that array, and the call runs
 * a function of its own (ir_call_run, docs/programs.md).
 * A variant that takes a parameter in another layout is used where the
 * call's array has that layout (the call passes it as it is); a padding
 * it assumes is written before the call (schedule/call_layouts.c). */
#include <string.h>

#include "ir/suggest.h"
#include "schedule/call_layouts.h"
#include "schedule/primitives.h"

/* "a, b, c": the variants of kernel `of` (all of them when NULL). */
static const char *variant_list(Sched *s, const char *of, IrSuggest *near) {
  StrBuf sb;
  sb_init(&sb);
  SchedVariantRef v;
  for (int i = 0; s->variant_at && s->variant_at(s->variants, i, &v); i++) {
    if (of && strcmp(v.kernel->name, of)) continue;
    sb_printf(&sb, "%s%s", sb.len ? ", " : "", v.name);
    if (near) ir_suggest_add(near, v.name);
  }
  const char *t = arena_strdup(s->a, sb.len ? sb.data : "none");
  sb_free(&sb);
  return t;
}

/* The schedule program of the variant named `name`, when one is written. */
static const SchedProgram *written(const Sched *s, const char *name) {
  for (const SchedProgram *p = s->m->schedules; p; p = p->next)
    if (!strcmp(p->variant, name)) return p;
  return NULL;
}

static bool unknown_variant(Sched *s, const SchedArg *arg, const char *callee) {
  const SchedProgram *p = written(s, arg->name);
  IrSuggest near = ir_suggest_start(arg->name);
  const char *of = variant_list(s, callee, &near);
  if (p && !strcmp(p->kernel, callee))
    return sched_error(s, arg, "variant %s of %s (line %d) is not built: its schedule must come before this one, and "
                       "apply without errors", arg->name, callee, p->loc.line);
  char dym[160];
  return sched_error(s, arg, "no variant named '%s' (variants of %s: %s)%s", arg->name, callee, of,
                     ir_suggest_text(&near, dym, sizeof dym));
}

static bool pick_variant(Sched *s, const SchedArg *arg, const CallSite *c, SchedVariantRef *out) {
  if (arg->kind != SA_NAME) return sched_error(s, arg, "expected the name of a variant, got '%s'", arg->text);
  const char *callee = c->callee->name;
  for (int i = 0; s->variant_at && s->variant_at(s->variants, i, out); i++) {
    if (strcmp(out->name, arg->name)) continue;
    if (strcmp(out->kernel->name, callee))
      return sched_error(s, arg, "variant %s schedules kernel %s, but call %s calls %s (variants of %s: %s)", out->name,
                         out->kernel->name, c->name, callee, callee, variant_list(s, callee, NULL));
    return true;
  }
  return unknown_variant(s, arg, callee);
}

typedef struct {
  const char *name;
  bool found;
} Local;

static bool local_named(Stmt *st, int depth, void *ctx) {
  (void)depth;
  Local *l = ctx;
  l->found |= (st->var && !strcmp(st->var->name, l->name)) || (st->buf && !strcmp(st->buf->name, l->name));
  return !l->found;
}

/* The program's C calls the variant's function by its name: no parameter
 * or local of the caller may hide it. */
static bool name_visible(Sched *s, const SchedArg *arg, const SchedVariantRef *v) {
  Local l = {v->name, false};
  for (const Param *p = s->k->params; p; p = p->next)
    l.found |= !strcmp(p->buf ? p->buf->name : p->var->name, v->name);
  ir_walk_outside_calls(s->k->body, local_named, &l);
  return !l.found || sched_error(s, arg, "%s is also the name of a parameter or local of %s, which would hide the "
                                 "function; rename it", v->name, s->k->name);
}

/* The variant's function takes each array where the call passes it: in
 * DDR (a stage of the variant's is how it asks for on chip), and in the
 * array's layout (schedule/call_layouts.c). */
static bool same_signature(Sched *s, const SchedArg *arg, const Stmt *call, const SchedVariantRef *v) {
  for (const Param *p = v->ir->params; p; p = p->next) {
    const Buffer *b = p->buf;
    if (b && buffer_onchip(b))
      return sched_error(s, arg, "variant %s takes parameter %s on chip (%s); a call passes its arrays as written, so "
                         "it can use only a variant that keeps every parameter's scope", v->name, b->name, b->scope);
  }
  return sched_use_layouts(s, arg, call, v);
}

bool prim_use(Sched *s, const SchedStep *st) {
  Stmt *call = sched_call(s, &st->args[0]);
  SchedVariantRef v;
  if (!call || !pick_variant(s, &st->args[1], call->call, &v) || !same_signature(s, &st->args[1], call, &v) ||
      !name_visible(s, &st->args[1], &v))
    return false;
  /* the model is dropped after the step (MODEL_RESET) */
  ir_call_run(s->a, s->k, call, v.name, v.ir, v.schedule);
  return sched_fill_padding(s, &st->args[1], call);
}
