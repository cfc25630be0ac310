/* A program's functions (docs/programs.md): a kernel whose IR holds
 * marked calls (CallSite, ir/ir.h) is emitted as one function that calls,
 * in the same .c, one static function per callee used: the callee as
 * written or the variant use() picked. A call that passes an on-chip
 * array runs a function of its own (ir_call_function): the call's
 * statements, placed with the caller. Decided here: which functions, in
 * which order (callees before their callers), each one's IR and the
 * comment that says what it is, with how each on-chip parameter meets
 * the caller's array. emit/emit_file.c prints them. */
#include <string.h>

#include "lower/lower.h"

static void collect(ProgramFunctions *f, const Kernel *k);

static bool has(const ProgramFunctions *f, const char *fn) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->fns[i].call->call->fn, fn)) return true;
  return false;
}

static bool visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  ProgramFunctions *f = ctx;
  if (s->kind != ST_BLOCK || !s->call || has(f, s->call->fn)) return true;
  /* its own callees first */
  if (ir_call_onchip(s->call)) ir_walk_outside_calls(s->body, visit, f);
  else collect(f, s->call->fn_ir);
  if (has(f, s->call->fn)) return true;
  if (f->n == LOWER_MAX_FUNCTIONS) f->overflow = true;
  else f->fns[f->n++].call = s;
  return true;
}

static void collect(ProgramFunctions *f, const Kernel *k) { ir_walk_outside_calls(k->body, visit, f); }

/* How parameter p of the function meets the caller's on-chip array arg:
 * in place, or in the stage the function wants, or copied to it. */
static void onchip_note(StrBuf *sb, const CallSite *c, const Param *p, const Buffer *arg) {
  IrStage st;
  const char *fn = c->fn_ir->name;
  if (!ir_call_stage(c->fn_ir, p->buf, &st)) {
    const char *use = p->buf->role == ROLE_INPUT ? "reads" : p->buf->role == ROLE_OUTPUT ? "writes" : "reads and writes";
    sb_printf(sb, "  %s is the caller's %s, in %s: %s does not stage it whole, so this function %s it there, on chip\n",
              p->buf->name, arg->name, arg->scope, fn, use);
    return;
  }
  const Buffer *b = st.decl->buf;
  if (!strcmp(b->scope, arg->scope)) {
    sb_printf(sb, "  %s is the caller's %s, in %s, where %s stages it (%s): no copy\n", p->buf->name, arg->name,
              arg->scope, fn, b->name);
    return;
  }
  sb_printf(sb, "  %s is the caller's %s, in %s; %s stages it in %s (%s): the scopes clash, so it is copied on chip, "
            "%s -> %s, no DDR round trip\n", p->buf->name, arg->name, arg->scope, fn, b->scope, b->name,
            st.load ? arg->scope : b->scope, st.load ? b->scope : arg->scope);
  if (st.load && st.store)
    sb_printf(sb, "  and back, %s -> %s\n", b->scope, arg->scope);
}

/* What the function is, for the reader (LowerFunction.comment). */
static void function_comment(StrBuf *sb, const Stmt *call, const char *program) {
  const CallSite *c = call->call;
  if (ir_call_onchip(c)) {
    sb_printf(sb, "%s: %s as call %s (line %d) of %s runs it, its on-chip buffers placed with %s's:\n", c->fn,
              c->fn_ir->name, c->name, call->loc.line, program, program);
    const Param *p = c->fn_ir->params;
    for (int i = 0; i < c->nparams; i++, p = p->next)
      if (c->arg_buf[i] && buffer_onchip(c->arg_buf[i])) onchip_note(sb, c, p, c->arg_buf[i]);
    if (c->fn_schedule) {
      sb_printf(sb, "%s: variant of %s (line %d), schedule:\n", c->fn_ir->name, c->callee->name, c->callee->loc.line);
      lower_comment_lines(sb, c->fn_schedule);
    }
    return;
  }
  if (!c->fn_schedule) {
    sb_printf(sb, "%s: the kernel as written (line %d)", c->callee->name, c->callee->loc.line);
    return;
  }
  sb_printf(sb, "%s: variant of %s (line %d), schedule:\n", c->fn, c->callee->name, c->callee->loc.line);
  lower_comment_lines(sb, c->fn_schedule);
}

void lower_program_functions(const Kernel *k, const char *program, const NpuTarget *target, EmitOrder o,
                             ProgramFunctions *out) {
  memset(out, 0, sizeof *out);
  arena_init(&out->arena, 0);
  collect(out, k);
  for (int i = 0; i < out->n; i++) {
    LowerFunction *f = &out->fns[i];
    const CallSite *c = f->call->call;
    f->k = ir_call_onchip(c) ? ir_call_function(&out->arena, f->call) : c->fn_ir;
    char why[600]; /* lowered as its own variant is */
    f->lowered = lower_for_order(&out->arena, f->k, NULL, target, o, why, sizeof why);
    f->lower_error = arena_strdup(&out->arena, why);
    StrBuf sb;
    sb_init(&sb);
    function_comment(&sb, f->call, program);
    f->comment = arena_strdup(&out->arena, sb.data ? sb.data : "");
    sb_free(&sb);
  }
}

void lower_program_free(ProgramFunctions *f) { arena_free(&f->arena); }
