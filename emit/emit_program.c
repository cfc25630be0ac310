/* A program's C (docs/programs.md): a kernel whose IR holds marked calls
 * (CallSite, ir/ir.h) is emitted as one function that calls, in the same
 * .c, one static function per callee used: the callee as written or the
 * variant use() picked, each printed as its own variant prints it. The
 * functions come before the program's, callees before their callers. */
#include <string.h>

#include "emit/emit.h"

typedef struct {
  const CallSite *fns[64]; /* distinct functions, callees first */
  int n;
  bool overflow;
} Functions;

static void collect(Functions *f, const Kernel *k);

static bool has(const Functions *f, const char *fn) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->fns[i]->fn, fn)) return true;
  return false;
}

static bool visit(Stmt *s, int depth, void *ctx) {
  (void)depth;
  Functions *f = ctx;
  if (s->kind != ST_BLOCK || !s->call || has(f, s->call->fn)) return true;
  collect(f, s->call->fn_ir); /* its own callees first */
  if (has(f, s->call->fn)) return true;
  if (f->n == 64) f->overflow = true;
  else f->fns[f->n++] = s->call;
  return true;
}

static void collect(Functions *f, const Kernel *k) { ir_walk_outside_calls(k->body, visit, f); }

/* A comment that says what the function is, for the reader. */
static void function_comment(StrBuf *sb, const CallSite *c) {
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
    const CallSite *c = f.fns[i];
    EmitUnit cu = *u;
    cu.k = c->fn_ir;
    cu.name = c->fn;
    cu.schedule = c->fn_schedule;
    cu.lowered = NULL; /* lowered here, as its own variant lowers it */
    function_comment(sb, c);
    sb_puts(sb, "static ");
    emit_c_function(sb, &cu, npu);
    sb_putc(sb, '\n');
  }
}
