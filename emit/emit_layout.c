/* The pack and unpack helpers of parameters with a new layout: VARIANT_pack_BUF
 * copies a logical array into the physical layout the variant takes and
 * fills the padding with pad_value; VARIANT_unpack_BUF copies it back and
 * drops the padding. Both follow the buffer's composed index map (every
 * layout step at once), as plain loops a reader can check. */
#include <string.h>

#include "emit/emit.h"

static void array_param(StrBuf *sb, bool is_const, const Type *t, const char *name, const int64_t *shape, int n) {
  sb_printf(sb, "%s%s %s", is_const ? "const " : "", t->name, name);
  for (int d = 0; d < n; d++) sb_printf(sb, "[%lld]", (long long)shape[d]);
}

static void helper_prototype(StrBuf *sb, const EmitUnit *u, const Buffer *b, bool pack) {
  const Layout *L = b->layout;
  sb_printf(sb, "void %s_%s_%s(", u->name, pack ? "pack" : "unpack", b->name);
  if (pack) {
    array_param(sb, true, b->elem, "logical", L->shape, L->ndim);
    sb_puts(sb, ", ");
    array_param(sb, false, b->elem, "physical", b->shape, b->ndim);
  } else {
    array_param(sb, true, b->elem, "physical", b->shape, b->ndim);
    sb_puts(sb, ", ");
    array_param(sb, false, b->elem, "logical", L->shape, L->ndim);
  }
  sb_putc(sb, ')');
}

/* for (int i = 0; i < n; i++) { ... nested, one per dimension */
static void open_loops(StrBuf *sb, const char *const *names, const int64_t *shape, int n) {
  for (int d = 0; d < n; d++) {
    sb_indent(sb, d + 1);
    sb_printf(sb, "for (int %s = 0; %s < %lld; %s++) {\n", names[d], names[d], (long long)shape[d], names[d]);
  }
}

static void close_loops(StrBuf *sb, int n) {
  for (int d = n; d > 0; d--) {
    sb_indent(sb, d);
    sb_puts(sb, "}\n");
  }
}

static void logical_names(const Layout *L, const char **names) {
  for (int d = 0; d < L->ndim; d++) names[d] = L->var[d]->name;
}

static void access(StrBuf *sb, const char *array, const Layout *L, bool physical, int nphys) {
  sb_puts(sb, array);
  for (int d = 0; d < (physical ? nphys : L->ndim); d++) {
    sb_putc(sb, '[');
    if (physical) ir_print_expr(sb, L->index[d]);
    else sb_puts(sb, L->var[d]->name);
    sb_putc(sb, ']');
  }
}

static void emit_pack(StrBuf *sb, const EmitUnit *u, const Buffer *b) {
  const Layout *L = b->layout;
  const char *names[IR_MAX_DIMS];
  helper_prototype(sb, u, b, true);
  sb_puts(sb, " {\n");
  if (L->padded) {
    const char *p[IR_MAX_DIMS] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"};
    sb_printf(sb, "  /* the padding holds %s */\n", L->pad_text);
    open_loops(sb, p, b->shape, b->ndim);
    sb_indent(sb, b->ndim + 1);
    sb_puts(sb, "physical");
    for (int d = 0; d < b->ndim; d++) sb_printf(sb, "[%s]", p[d]);
    sb_printf(sb, " = %s;\n", L->pad_text);
    close_loops(sb, b->ndim);
  }
  logical_names(L, names);
  open_loops(sb, names, L->shape, L->ndim);
  sb_indent(sb, L->ndim + 1);
  access(sb, "physical", L, true, b->ndim);
  sb_puts(sb, " = ");
  access(sb, "logical", L, false, b->ndim);
  sb_puts(sb, ";\n");
  close_loops(sb, L->ndim);
  sb_puts(sb, "}\n");
}

static void emit_unpack(StrBuf *sb, const EmitUnit *u, const Buffer *b) {
  const Layout *L = b->layout;
  const char *names[IR_MAX_DIMS];
  helper_prototype(sb, u, b, false);
  sb_puts(sb, " {\n");
  logical_names(L, names);
  open_loops(sb, names, L->shape, L->ndim);
  sb_indent(sb, L->ndim + 1);
  access(sb, "logical", L, false, b->ndim);
  sb_puts(sb, " = ");
  access(sb, "physical", L, true, b->ndim);
  sb_puts(sb, ";\n");
  close_loops(sb, L->ndim);
  sb_puts(sb, "}\n");
}

/* "W: logical [32][3][7][7] -> physical [8][1][4][4][7][7] by\n buffer_split(...)..." */
static void layout_comment(StrBuf *sb, const Buffer *b) {
  const Layout *L = b->layout;
  sb_printf(sb, "/* %s: logical ", b->name);
  for (int d = 0; d < L->ndim; d++) sb_printf(sb, "[%lld]", (long long)L->shape[d]);
  sb_puts(sb, " -> physical ");
  for (int d = 0; d < b->ndim; d++) sb_printf(sb, "[%lld]", (long long)b->shape[d]);
  sb_printf(sb, "%s, by\n", L->padded ? " (padded)" : "");
  for (const char *p = L->steps; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    sb_puts(sb, " *   ");
    sb_putn(sb, p, n);
    sb_putc(sb, '\n');
    p += n + (e ? 1 : 0);
  }
  sb_puts(sb, " */\n");
}

void emit_layout_helpers(StrBuf *sb, const EmitUnit *u) {
  for (const Param *p = u->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    sb_putc(sb, '\n');
    layout_comment(sb, p->buf);
    emit_pack(sb, u, p->buf);
    sb_putc(sb, '\n');
    emit_unpack(sb, u, p->buf);
  }
}

void emit_layout_prototypes(StrBuf *sb, const EmitUnit *u) {
  for (const Param *p = u->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    layout_comment(sb, p->buf);
    helper_prototype(sb, u, p->buf, true);
    sb_puts(sb, ";\n");
    helper_prototype(sb, u, p->buf, false);
    sb_puts(sb, ";\n\n");
  }
}
