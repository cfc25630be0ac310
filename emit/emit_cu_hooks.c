/* The check's instrumentation of host code (EmitUnit.cu_hooks): every
 * element that a statement the control unit runs itself reads or writes in
 * an on-chip buffer or a parameter goes through npu_cu_access, so the
 * simulator times it and checks it against DMAs in flight. A load becomes
 * (*(const T *)npu_cu_access(&X, sizeof(T), NPU_CU_READ)), evaluated
 * exactly when X would be (under ?: and && too). Locals of the host (C
 * scalars and arrays) are not instrumented: no DMA can touch them
 * (lower_cu_hooked decides). */
#include "emit/emit.h"
#include "lower/check_ref.h"
#include "lower/lower.h"

static void access(StrBuf *sb, const Expr *load, const ExprHook *h, const char *mode, bool is_const) {
  sb_printf(sb, "*(%s%s *)npu_cu_access(&%s", is_const ? "const " : "", load->buf->elem->name, load->buf->name);
  for (int i = 0; i < load->buf->ndim; i++) {
    sb_putc(sb, '[');
    ir_print_expr_hooked(sb, load->idx[i], h);
    sb_putc(sb, ']');
  }
  sb_printf(sb, ", (int)sizeof(%s), %s)", load->buf->elem->name, mode);
}

static bool hook_load(StrBuf *sb, const Expr *load, const ExprHook *h) {
  if (!lower_cu_hooked(load->buf)) return false;
  sb_putc(sb, '(');
  access(sb, load, h, "NPU_CU_READ", true);
  sb_putc(sb, ')');
  return true;
}

static bool hook_cast(StrBuf *sb, const Expr *cast, const ExprHook *h) {
  const char *mask = lower_tcc_mask(cast);
  if (!mask) return false;
  sb_printf(sb, "(%s)((", cast->type->name);
  ir_print_expr_hooked(sb, cast->a, h);
  sb_printf(sb, ") & %s)", mask);
  return true;
}

static const ExprHook hook = {hook_load, hook_cast, NULL};
static const ExprHook casts_only = {NULL, hook_cast, NULL};

void emit_cu_expr(StrBuf *sb, const Expr *e) { ir_print_expr_hooked(sb, e, &hook); }
void emit_check_expr(StrBuf *sb, const Expr *e) { ir_print_expr_hooked(sb, e, &casts_only); }

void emit_cu_store(StrBuf *sb, const Expr *lhs, Op op) {
  if (lhs->kind != EX_LOAD || !lower_cu_hooked(lhs->buf)) {
    ir_print_expr_hooked(sb, lhs, &hook);
    return;
  }
  access(sb, lhs, &hook, op == OP_NONE ? "NPU_CU_WRITE" : "NPU_CU_UPDATE", false);
}
