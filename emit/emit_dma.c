/* On-chip buffers and DMA in emitted C.
 *
 * An on-chip buffer is a pointer into its scope at the offset placement
 * gave it: `int8_t (*A_ib)[512] = (int8_t (*)[512])(void *)((char *)
 * npu_scope_base(NPU_NU_IB, 0) + 0);`, so the code indexes it as an array.
 *
 * A DMA is printed from its shape (lower/dma_shape.c worked out the call,
 * its host loops and the condition under which its box is not empty): an
 * async one as `token = npu_dma_Nd(...)` (token 0 where the box is
 * empty: waiting for token 0 returns at once), a synchronous one as
 * `npu_dma_wait(npu_dma_Nd(...))` after a comment naming the copy. */
#include <string.h>

#include "emit/emit.h"

static const char *scope_macro(const char *scope) {
  if (!strcmp(scope, "dm")) return "NPU_DM";
  if (!strcmp(scope, "nu_ib")) return "NPU_NU_IB";
  if (!strcmp(scope, "nu_wb")) return "NPU_NU_WB";
  if (!strcmp(scope, "nu_ob")) return "NPU_NU_OB";
  return "NPU_VU_VM";
}

void emit_pointer_decl(StrBuf *sb, const Buffer *b, const char *name, int from) {
  sb_printf(sb, "%s ", b->elem->name);
  if (from < b->ndim - 1) sb_printf(sb, "(*%s)", name);
  else sb_printf(sb, "*%s", name);
  for (int d = from + 1; d < b->ndim; d++) sb_printf(sb, "[%lld]", (long long)b->shape[d]);
}

void emit_scope_address(StrBuf *sb, const Buffer *b, const char *core, const Expr *at) {
  sb_printf(sb, "(char *)npu_scope_base(%s, %s)", scope_macro(b->scope), core);
  if (!at) return;
  sb_puts(sb, " + ");
  ir_print_expr(sb, at);
}

void emit_onchip_decl(StrBuf *sb, const Buffer *b, const Expr *at, const char *note) {
  emit_pointer_decl(sb, b, b->name, 0);
  sb_puts(sb, " = (");
  emit_pointer_decl(sb, b, "", 0);
  /* a buffer of a loop bound to the VU cores: each iteration's copy in its core's VM */
  sb_puts(sb, ")(void *)(");
  emit_scope_address(sb, b, b->core ? b->core->name : "0", at);
  sb_puts(sb, "); ");
  sb_comment(sb, note); /* what lives where (lower_scope_note) */
}

/* ---------------- DMA calls ---------------- */

void emit_dma_call(StrBuf *sb, const DmaShape *d, int ind, const char *token, const char *channel) {
  for (int i = 0; i < d->nhost; i++) {
    sb_indent(sb, ind + i);
    sb_printf(sb, "for (int %s = 0; %s < %lld; %s++) {\n", d->host_var[i], d->host_var[i], (long long)d->host_extent[i],
              d->host_var[i]);
  }
  int in = ind + d->nhost;
  if (!token) {
    sb_indent(sb, in);
    sb_printf(sb, "/* %s: %s <- %s */\n", d->copy->name, d->copy->lhs->buf->name, d->copy->rhs->buf->name);
  }
  sb_indent(sb, in);
  StrBuf call;
  sb_init(&call);
  const char *ch = token ? channel : "0";
  if (d->ndims == 0)
    sb_printf(&call, "npu_dma_1d(%s, %s, %s, %s)", ch, d->dst, d->src, d->row);
  else if (d->ndims == 1)
    sb_printf(&call, "npu_dma_2d(%s, %s, %s, %s, %s, %s, %s)", ch, d->dst, d->dst_stride[0], d->src, d->src_stride[0],
              d->row, d->count[0]);
  else
    sb_printf(&call, "npu_dma_3d(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", ch, d->dst, d->dst_stride[0],
              d->dst_stride[1], d->src, d->src_stride[0], d->src_stride[1], d->row, d->count[0], d->count[1]);
  /* a box that may start past the array's end: no DMA there (token 0) */
  if (token && d->runs) sb_printf(sb, "%s = %s ? %s : 0;\n", token, d->runs, call.data);
  else if (token) sb_printf(sb, "%s = %s;\n", token, call.data);
  else if (d->runs) sb_printf(sb, "if (%s) npu_dma_wait(%s);\n", d->runs, call.data);
  else sb_printf(sb, "npu_dma_wait(%s);\n", call.data);
  sb_free(&call);
  for (int i = d->nhost; i > 0; i--) {
    sb_indent(sb, ind + i - 1);
    sb_puts(sb, "}\n");
  }
}
