/* A program's C (docs/programs.md): a kernel whose IR holds marked calls
 * (CallSite, ir/ir.h) is emitted as one function that calls, in the same
 * .c, one static function per callee used: the callee as written or the
 * variant use() picked, each printed as its own variant prints it. A call
 * that passes an on-chip array runs a function of its own (FUNCTION_CALL,
 * ir_call_function): the call's statements, placed with the caller. The
 * functions come before the program's, callees before their callers. */
#include <string.h>

#include "emit/emit.h"

typedef struct {
  const Stmt *fns[64]; /* call blocks of distinct functions, callees first */
  int n;
  bool overflow;
} Functions;

static void collect(Functions *f, const Kernel *k);

static bool has(const Functions *f, const char *fn) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->fns[i]->call->fn, fn)) return true;
  return false;
}

static bool visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Functions *f = ctx;
  if (s->kind != ST_BLOCK || !s->call || has(f, s->call->fn)) return true;
  /* its own callees first */
  if (ir_call_onchip(s->call)) ir_walk_outside_calls(s->body, visit, f);
  else collect(f, s->call->fn_ir);
  if (has(f, s->call->fn)) return true;
  if (f->n == 64) f->overflow = true;
  else f->fns[f->n++] = s;
  return true;
}

static void collect(Functions *f, const Kernel *k) { ir_walk_outside_calls(k->body, visit, f); }

/* How parameter p of the function meets the caller's on-chip array arg:
 * in place, or in the stage the function wants, or copied to it. */
static void onchip_note(StrBuf *sb, const CallSite *c, const Param *p, const Buffer *arg) {
  IrStage st;
  const char *fn = c->fn_ir->name;
  if (!ir_call_stage(c->fn_ir, p->buf, &st)) {
    sb_printf(sb, " *   %s is the caller's %s, in %s: used where it is (a copy of it is on chip)\n", p->buf->name, arg->name, arg->scope);
    return;
  }
  const Buffer *b = st.decl->buf;
  if (!strcmp(b->scope, arg->scope)) {
    sb_printf(sb, " *   %s is the caller's %s, in %s, where %s stages it (%s): no copy\n", p->buf->name, arg->name,
              arg->scope, fn, b->name);
    return;
  }
  sb_printf(sb, " *   %s is the caller's %s, in %s; %s stages it in %s (%s): the scopes clash, so it is copied on chip, "
            "%s -> %s, no DDR round trip\n", p->buf->name, arg->name, arg->scope, fn, b->scope, b->name,
            st.load ? arg->scope : b->scope, st.load ? b->scope : arg->scope);
  if (st.load && st.store)
    sb_printf(sb, " *   and back, %s -> %s\n", b->scope, arg->scope);
}

/* A comment that says what the function is, for the reader. */
static void function_comment(StrBuf *sb, const Stmt *call, const char *program) {
  const CallSite *c = call->call;
  if (ir_call_onchip(c)) {
    sb_printf(sb, "/* %s: %s as call %s (line %d) of %s runs it, its on-chip buffers placed with %s's:\n", c->fn,
              c->fn_ir->name, c->name, call->loc.line, program, program);
    const Param *p = c->fn_ir->params;
    for (int i = 0; i < c->nparams; i++, p = p->next)
      if (c->arg_buf[i] && buffer_onchip(c->arg_buf[i])) onchip_note(sb, c, p, c->arg_buf[i]);
    if (c->fn_schedule) {
      sb_printf(sb, " * %s: variant of %s (line %d), schedule:\n", c->fn_ir->name, c->callee->name,
                c->callee->loc.line);
      emit_comment_lines(sb, c->fn_schedule);
    }
    sb_puts(sb, " */\n");
    return;
  }
  if (!c->fn_schedule) {
    sb_printf(sb, "/* %s: the kernel as written (line %d) */\n", c->callee->name, c->callee->loc.line);
    return;
  }
  sb_printf(sb, "/* %s: variant of %s (line %d), schedule:\n", c->fn, c->callee->name, c->callee->loc.line);
  emit_comment_lines(sb, c->fn_schedule);
  sb_puts(sb, " */\n");
}

void emit_check_ddr(StrBuf *sb, const Buffer *b, int ind) {
  sb_indent(sb, ind);
  sb_printf(sb, "{ void npg_check_ddr(const void *, unsigned long, const char *); npg_check_ddr(%s, sizeof %s, \"%s\"); }\n",
            b->name, b->name, b->name);
}

void emit_program_functions(StrBuf *sb, const EmitUnit *u, bool npu) {
  Functions f = {.n = 0};
  collect(&f, u->k);
  if (f.overflow) sb_puts(sb, "#error \"npugen: a program calls more than 64 functions\"\n");
  for (int i = 0; i < f.n; i++) {
    const CallSite *c = f.fns[i]->call;
    Arena own; /* the function of a call placed with its caller, built here */
    arena_init(&own, 0);
    EmitUnit cu = *u;
    cu.k = ir_call_onchip(c) ? ir_call_function(&own, f.fns[i]) : c->fn_ir;
    cu.name = c->fn;
    cu.schedule = c->fn_schedule;
    cu.lowered = NULL; /* lowered here, as its own variant lowers it */
    function_comment(sb, f.fns[i], u->name);
    sb_puts(sb, "static ");
    emit_c_function(sb, &cu, npu);
    sb_putc(sb, '\n');
    arena_free(&own);
  }
}
