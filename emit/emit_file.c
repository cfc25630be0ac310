/* A variant's .c and .h printed from its LoweredModule: the comment over
 * each, the includes, the defines, a program's functions (docs/programs.md),
 * the variant's function, and its layout helpers (a parameter's pack and
 * unpack, plain loops a reader can check), in the order lower/module.c
 * put them. The check's reference is printed the same way
 * (lower/ref_lower.c makes its module). */
#include <string.h>

#include "emit/emit.h"

/* "/" "* first line", each next line after " * ", then " *" "/" on a line
 * of its own; the text escaped (paths, names, schedules). */
static void comment_lines(StrBuf *sb, const char *text) {
  const char *nl = strchr(text, '\n');
  size_t len = nl ? (size_t)(nl - text) : strlen(text);
  sb_puts(sb, "/* ");
  sb_c_text(sb, C_TEXT_COMMENT, text, len);
  sb_putc(sb, '\n');
  if (nl) sb_lines(sb, nl + 1, " * ");
  sb_puts(sb, " */\n");
}

void emit_block_comment(StrBuf *sb, const char *text) {
  if (strchr(text, '\n')) {
    comment_lines(sb, text);
    return;
  }
  sb_comment(sb, text);
  sb_putc(sb, '\n');
}

/* The file's comment: its lines as one block comment, the first after
 * its opening (a line that holds newlines itself, a path's, goes on as the
 * comment's next lines). */
static void file_comment(StrBuf *sb, const char *const *lines, int n) {
  StrBuf text;
  sb_init(&text);
  for (int i = 0; i < n; i++) sb_printf(&text, "%s%s", i ? "\n" : "", lines[i]);
  comment_lines(sb, text.data ? text.data : "");
  sb_free(&text);
}

/* The defines in order, a blank line after any. */
static void defines(StrBuf *sb, LoweredDefines d) {
  for (int i = 0; i < d.n; i++) sb_printf(sb, "%s\n", d.items[i].text);
  if (d.n) sb_putc(sb, '\n');
}

static void includes(StrBuf *sb, Includes n) {
  if (n.math) sb_puts(sb, "#include <math.h>\n");
  if (n.setjmp) sb_puts(sb, "#include <setjmp.h>\n");
  if (n.stdint) sb_puts(sb, "#include <stdint.h>\n");
  if (n.stdlib) sb_puts(sb, "#include <stdlib.h>\n");
  if (n.npu) sb_puts(sb, "#include \"npu_intrinsics.h\"\n");
  if (n.math || n.setjmp || n.stdint || n.stdlib || n.npu) sb_putc(sb, '\n');
}

static void program_functions(StrBuf *sb, const LoweredModule *m) {
  if (m->too_many_functions)
    sb_printf(sb, "#error \"npugen: a program calls more than %d functions\"\n", m->too_many_functions);
  for (int i = 0; i < m->nfunctions; i++) {
    emit_block_comment(sb, m->functions[i].comment);
    emit_c_function(sb, m, &m->functions[i]);
    sb_putc(sb, '\n');
  }
}

static void layout_helpers(StrBuf *sb, const LoweredModule *m) {
  for (int i = 0; i < m->nlayouts; i++) {
    sb_putc(sb, '\n');
    emit_block_comment(sb, m->layouts[i].comment);
    emit_c_function(sb, m, &m->layouts[i].pack);
    sb_putc(sb, '\n');
    emit_c_function(sb, m, &m->layouts[i].unpack);
  }
}

static void layout_prototypes(StrBuf *sb, const LoweredLayout *l, int n) {
  for (int i = 0; i < n; i++) {
    emit_block_comment(sb, l[i].comment);
    emit_prototype(sb, &l[i].pack);
    sb_puts(sb, ";\n");
    emit_prototype(sb, &l[i].unpack);
    sb_puts(sb, ";\n\n");
  }
}

/* The header's prototypes, each under its #if branch when there are several. */
static void header_prototypes(StrBuf *sb, const LoweredModule *m) {
  int n = m->nheader_protos;
  for (int i = 0; i < n; i++) {
    const HeaderPrototype *h = &m->header_protos[i];
    if (n > 1 && !h->cond) sb_puts(sb, "#else\n");
    else if (n > 1) sb_printf(sb, "#%s %s /* %s */\n", i ? "elif" : "if", h->cond, h->why);
    emit_prototype(sb, &h->proto);
    sb_puts(sb, ";\n");
  }
  if (n > 1) sb_puts(sb, "#endif\n");
  sb_putc(sb, '\n');
}

char *emit_c_source(const LoweredModule *m) {
  StrBuf sb;
  sb_init(&sb);
  file_comment(&sb, m->comment, m->ncomment);
  includes(&sb, m->includes);
  if (m->support) sb_printf(&sb, "%s\n", m->support);
  defines(&sb, m->defines);
  if (m->own_header) sb_printf(&sb, "#include \"%s\"\n\n", m->own_header);
  defines(&sb, m->late_defines);
  if (m->assume_macro) sb_puts(&sb, m->assume_macro);
  if (m->first_extent_macro) sb_puts(&sb, m->first_extent_macro);
  program_functions(&sb, m);
  emit_c_function(&sb, m, &m->main);
  layout_helpers(&sb, m);
  return sb_take(&sb);
}

char *emit_c_header(const LoweredModule *m) {
  StrBuf sb;
  sb_init(&sb);
  file_comment(&sb, m->header_comment, m->nheader_comment);
  sb_printf(&sb, "#ifndef %s\n#define %s\n\n", m->guard, m->guard);
  if (m->header_stdint) sb_puts(&sb, "#include <stdint.h>\n\n");
  defines(&sb, m->header_defines);
  sb_puts(&sb, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  for (int i = 0; i < m->nheader_notes; i++) {
    sb_comment(&sb, m->header_notes[i]);
    sb_putc(&sb, '\n');
  }
  header_prototypes(&sb, m);
  layout_prototypes(&sb, m->header_layouts, m->nlayouts);
  sb_puts(&sb, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return sb_take(&sb);
}
