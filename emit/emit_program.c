/* A program's C (docs/programs.md): the functions lower/program.c lists
 * for a kernel holding marked calls, each after its comment, as a static
 * function printed as its own variant prints it, before the program's. */
#include "emit/emit.h"
#include "lower/lower.h"

void emit_check_ddr(StrBuf *sb, const Buffer *b, int ind) {
  sb_indent(sb, ind);
  sb_printf(sb, "{ void npg_check_ddr(const void *, unsigned long, const char *); npg_check_ddr(%s, sizeof %s, \"%s\"); }\n",
            b->name, b->name, b->name);
}

void emit_program_functions(StrBuf *sb, const EmitUnit *u, bool npu) {
  ProgramFunctions f;
  lower_program_functions(u->k, u->name, u->target, u->order, &f);
  if (f.overflow) sb_printf(sb, "#error \"npugen: a program calls more than %d functions\"\n", LOWER_MAX_FUNCTIONS);
  for (int i = 0; i < f.n; i++) {
    EmitUnit cu = *u;
    cu.k = f.fns[i].k;
    cu.name = f.fns[i].call->call->fn;
    cu.lowered = f.fns[i].lowered;
    cu.lower_error = f.fns[i].lower_error;
    emit_block_comment(sb, f.fns[i].comment);
    sb_puts(sb, "static ");
    emit_c_function(sb, &cu, npu);
    sb_putc(sb, '\n');
  }
  lower_program_free(&f);
}
