/* A LoweredModule as text (--dump-ir=lowered): what lower_module decided,
 * every field (a statement's, such as a tensorized nest's call, in
 * ir/print.c), for a reader checking a decision without the C. */
#include "ir/lowered_module.h"

void ir_print_intrin_call(StrBuf *sb, const IntrinCall *c) {
  sb_printf(sb, "%s(", c->fn);
  for (int i = 0; i < c->nargs; i++) {
    const IntrinArg *a = &c->args[i];
    if (i) sb_puts(sb, ", ");
    if (a->param) sb_printf(sb, "/*%s=*/", a->param);
    if (a->cast) sb_printf(sb, "(%s)", a->cast);
    if (a->address) sb_putc(sb, '&');
    ir_print_expr(sb, a->value);
  }
  sb_puts(sb, ");");
}

void ir_print_intrin_hold(StrBuf *sb, const IntrinCall *c) {
  sb_printf(sb, "const int %s = ", c->hold->name);
  ir_print_expr(sb, c->hold_value);
  sb_putc(sb, ';');
}

/* f's lowered IR as a kernel: its parameters, its statements. */
static void function_ir(StrBuf *sb, const LoweredFunction *f) {
  Stmt body = {.kind = ST_BLOCK, .body = (Stmt *)f->body};
  Kernel k = *f->k;
  k.body = &body;
  ir_print_lowered_kernel(sb, &k);
}

static void lines(StrBuf *sb, const char *what, const char *const *l, int n) {
  for (int i = 0; i < n; i++) sb_printf(sb, "  %s: %s\n", what, l[i]);
}

static void defines(StrBuf *sb, const char *what, LoweredDefines d) {
  for (int i = 0; i < d.n; i++) {
    sb_printf(sb, "  %s: %s\n", what, d.items[i].text);
  }
}

static const char *const spellings[] = {"as written", "tcc (sized rows flat)", "the check's (tcc masks)",
                                        "the check's (hooked accesses via npu_cu_access)"};

/* What f decides besides its statements. */
static void function_facts(StrBuf *sb, const LoweredFunction *f) {
  sb_printf(sb, "function %s%s: host expressions spelled %s\n", f->is_static ? "static " : "", f->name,
            spellings[f->spelling]);
  int i = 0;
  for (const Param *p = f->k->params; p; p = p->next, i++)
    for (int d = 0; p->buf && d < p->buf->ndim; d++)
      if (f->extent_macro[i * IR_MAX_DIMS + d]) sb_printf(sb, "  extent %d of %s: %s\n", d, p->buf->name, f->extent_macro[i * IR_MAX_DIMS + d]);
  i = 0;
  for (const Param *p = f->k->params; p && f->extent_at_entry; p = p->next, i++)
    for (int d = 0; p->buf && d < p->buf->ndim; d++)
      if (f->extent_at_entry[i * IR_MAX_DIMS + d]) {
        sb_printf(sb, "  extent %d of %s in the definition (evaluated before the entry tests): ", d, p->buf->name);
        ir_print_expr(sb, f->extent_at_entry[i * IR_MAX_DIMS + d]);
        sb_putc(sb, '\n');
      }
  if (f->comment) {
    sb_puts(sb, "  comment over it:\n");
    sb_lines(sb, f->comment, "    ");
  }
  if (f->context) sb_printf(sb, "  first parameter: %s\n", f->context);
  if (f->all_restrict) sb_puts(sb, "  every array parameter restrict\n");
  if (f->flat_params) sb_puts(sb, "  arrays sized by the sizes flat (tcc)\n");
  if (f->no_restrict) sb_puts(sb, "  no restrict at all\n");
  if (f->shape_comments) sb_puts(sb, "  extents left out, or a flat array's shape, in a comment\n");
  i = 0;
  for (const Param *p = f->k->params; p; p = p->next, i++) {
    const char *name = p->buf ? p->buf->name : p->var->name;
    if (f->param_type && f->param_type[i]) sb_printf(sb, "  parameter %s: type %s\n", name, f->param_type[i]);
    if (f->param_restrict && f->param_restrict[i]) sb_printf(sb, "  parameter %s: restrict\n", name);
    if (f->param_flat && f->param_flat[i]) sb_printf(sb, "  parameter %s: a flat pointer\n", name);
  }
  for (i = 0; i < f->ntests; i++) {
    sb_puts(sb, "  entry test: ");
    ir_print_expr(sb, f->tests[i].cond);
    if (f->tests[i].extent_of) sb_printf(sb, " >= 1 (an extent of %s)", f->tests[i].extent_of->name);
    sb_putc(sb, '\n');
  }
  if (f->sync_error) sb_printf(sb, "  #error: %s\n", f->sync_error);
  for (i = 0; i < f->nnotes; i++) sb_printf(sb, "  note over loop %s: %s\n", f->notes[i].loop->name, f->notes[i].text);
  for (i = 0; i < f->nhooked; i++) sb_printf(sb, "  hooked: %s\n", f->hooked[i]->name);
  if (f->local_ddr) sb_puts(sb, "  local arrays declared to the simulator\n");
  if (f->mark_fallbacks) sb_puts(sb, "  where a tensorized nest falls back to the nest as written, its mark tells the simulator\n");
}

/* A layout's pack and unpack helpers: their facts and their loops. */
static void layout_functions(StrBuf *sb, const LoweredLayout *l) {
  function_facts(sb, &l->pack);
  function_ir(sb, &l->pack);
  function_facts(sb, &l->unpack);
  function_ir(sb, &l->unpack);
}

/* Each type kind's canonical type (LoweredModule.tcc_mask's indices). */
static const Type *const kinds[IR_TYPE_KINDS] = {
    [TY_VOID] = &ty_void,   [TY_CHAR] = &ty_char,   [TY_SCHAR] = &ty_schar, [TY_UCHAR] = &ty_uchar,
    [TY_SHORT] = &ty_short, [TY_USHORT] = &ty_ushort, [TY_INT] = &ty_int,   [TY_UINT] = &ty_uint,
    [TY_LONG] = &ty_long,   [TY_ULONG] = &ty_ulong, [TY_LLONG] = &ty_llong, [TY_ULLONG] = &ty_ullong,
    [TY_FLOAT] = &ty_float, [TY_DOUBLE] = &ty_double};

static void source_facts(StrBuf *sb, const LoweredModule *m) {
  sb_puts(sb, "\nthe .c file:\n");
  lines(sb, "comment", m->comment, m->ncomment);
  Includes n = m->includes;
  if (n.math || n.stdint || n.stdlib || n.npu || n.setjmp)
    sb_printf(sb, "  includes:%s%s%s%s%s\n", n.math ? " <math.h>" : "", n.setjmp ? " <setjmp.h>" : "",
              n.stdint ? " <stdint.h>" : "", n.stdlib ? " <stdlib.h>" : "", n.npu ? " \"npu_intrinsics.h\"" : "");
  defines(sb, "define", m->defines);
  if (m->own_header) sb_printf(sb, "  includes its header: %s\n", m->own_header);
  defines(sb, "define after it", m->late_defines);
  if (m->assume_macro) {
    sb_puts(sb, "  defines NPUGEN_ASSUME:\n");
    sb_lines(sb, m->assume_macro, "    ");
  }
  if (m->support) {
    sb_puts(sb, "  support after the includes:\n");
    sb_lines(sb, m->support, "    ");
  }
  for (int a = 0; a < IR_TYPE_KINDS; a++)
    for (int b = 0; b < IR_TYPE_KINDS; b++)
      if (m->tcc_mask[a][b]) sb_printf(sb, "  tcc's mask from %s to %s: %s\n", kinds[a]->name, kinds[b]->name, m->tcc_mask[a][b]);
  if (m->too_many_functions) sb_printf(sb, "  #error: more than %d functions\n", m->too_many_functions);
  for (int i = 0; i < m->nfunctions; i++) function_facts(sb, &m->functions[i]);
  function_facts(sb, &m->main);
  for (int i = 0; i < m->nlayouts; i++) {
    /* plain loops over DDR arrays, built unnamed (lower/layout_helpers.c): their names and comment */
    sb_printf(sb, "layout helpers %s and %s, under the comment:\n", m->layouts[i].pack.name, m->layouts[i].unpack.name);
    sb_lines(sb, m->layouts[i].comment, "  ");
    layout_functions(sb, &m->layouts[i]);
  }
}

static void header_facts(StrBuf *sb, const LoweredModule *m) {
  sb_puts(sb, "\nthe .h file:\n");
  lines(sb, "comment", m->header_comment, m->nheader_comment);
  if (m->guard) sb_printf(sb, "  guard: %s\n", m->guard);
  if (m->header_stdint) sb_puts(sb, "  includes: <stdint.h>\n");
  defines(sb, "define", m->header_defines);
  for (int i = 0; i < m->nheader_protos; i++) {
    const HeaderPrototype *p = &m->header_protos[i];
    if (p->cond) sb_printf(sb, "prototype for #if %s /* %s */:\n", p->cond, p->why ? p->why : "");
    else sb_puts(sb, m->nheader_protos > 1 ? "prototype for every other compiler:\n" : "prototype:\n");
    function_facts(sb, &p->proto);
  }
  for (int i = 0; i < m->nlayouts && m->header_layouts; i++) {
    sb_printf(sb, "layout helpers %s and %s as the header spells them, under the comment:\n",
              m->header_layouts[i].pack.name, m->header_layouts[i].unpack.name);
    sb_lines(sb, m->header_layouts[i].comment, "  ");
    function_facts(sb, &m->header_layouts[i].pack);
    function_facts(sb, &m->header_layouts[i].unpack);
  }
  lines(sb, "note", m->header_notes, m->nheader_notes);
}

void ir_print_lowered_module(StrBuf *sb, const LoweredModule *m) {
  function_ir(sb, &m->main);
  for (int i = 0; i < m->nfunctions; i++) {
    const Stmt *call = m->functions[i].call;
    sb_printf(sb, "\nfunction %s, which call %s (line %d) runs:\n", call->call->fn, call->call->name, call->loc.line);
    function_ir(sb, &m->functions[i]);
  }
  source_facts(sb, m);
  header_facts(sb, m);
}
