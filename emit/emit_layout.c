/* The pack and unpack helpers of parameters with a new layout: VARIANT_pack_BUF
 * copies a logical array into the physical layout the variant takes and
 * fills the padding with pad_value; VARIANT_unpack_BUF copies it back and
 * drops the padding. Both follow the buffer's composed index map (every
 * layout step at once), as plain loops a reader can check: their bodies
 * are IR (lower/layout_helpers.c), printed as a kernel's are. */
#include <string.h>

#include "emit/emit.h"
#include "lower/lower.h"

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

/* A helper: its prototype and the body lower/layout_helpers.c made. */
static void helper(StrBuf *sb, const EmitUnit *u, const Buffer *b, bool pack, const Stmt *body) {
  helper_prototype(sb, u, b, pack);
  sb_puts(sb, " {\n");
  emit_plain_stmts(sb, body, 1);
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
  emit_comment_lines(sb, L->steps);
  sb_puts(sb, " */\n");
}

void emit_layout_helpers(StrBuf *sb, const EmitUnit *u) {
  for (const Param *p = u->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    sb_putc(sb, '\n');
    layout_comment(sb, p->buf);
    Arena a;
    arena_init(&a, 0);
    Stmt *pack, *unpack;
    lower_layout_helpers(&a, p->buf, &pack, &unpack);
    helper(sb, u, p->buf, true, pack);
    sb_putc(sb, '\n');
    helper(sb, u, p->buf, false, unpack);
    arena_free(&a);
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
