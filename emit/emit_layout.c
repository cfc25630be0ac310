/* The pack and unpack helpers of parameters with a new layout: VARIANT_pack_BUF
 * copies a logical array into the physical layout the variant takes and
 * fills the padding with pad_value; VARIANT_unpack_BUF copies it back and
 * drops the padding. Both follow the buffer's composed index map (every
 * layout step at once), as plain loops a reader can check: they are
 * kernels (lower/layout_helpers.c), printed as a kernel is. */
#include "emit/emit.h"
#include "lower/lower.h"

/* A helper's definition, or (prototype) its declaration. */
static void helper(StrBuf *sb, const Kernel *h, bool prototype) {
  EmitUnit hu = {.k = h, .name = h->name, .lowered = h}; /* nothing to lower: loops over DDR arrays */
  if (!prototype) {
    emit_c_function(sb, &hu, false);
    return;
  }
  emit_prototype(sb, &hu);
  sb_puts(sb, ";\n");
}

/* Each parameter's helpers after their comment: definitions, or (prototypes) declarations. */
static void helpers(StrBuf *sb, const EmitUnit *u, bool prototypes) {
  for (const Param *p = u->k->params; p; p = p->next) {
    if (!p->buf || !p->buf->layout) continue;
    Arena a;
    arena_init(&a, 0);
    LayoutHelpers h;
    lower_layout_helpers(&a, u->name, p->buf, &h);
    if (!prototypes) sb_putc(sb, '\n');
    emit_block_comment(sb, h.comment);
    helper(sb, h.pack, prototypes);
    if (!prototypes) sb_putc(sb, '\n');
    helper(sb, h.unpack, prototypes);
    if (prototypes) sb_putc(sb, '\n');
    arena_free(&a);
  }
}

void emit_layout_helpers(StrBuf *sb, const EmitUnit *u) { helpers(sb, u, false); }
void emit_layout_prototypes(StrBuf *sb, const EmitUnit *u) { helpers(sb, u, true); }
