/* The check's instrumentation of host code (EmitUnit.cu_hooks): every
 * element that a statement the control unit runs itself reads or writes in
 * an on-chip buffer or a parameter goes through npu_cu_access, so the
 * simulator times it and checks it against DMAs in flight. A load becomes
 * (*(const T *)npu_cu_access(&X, sizeof(T), NPU_CU_READ)), evaluated
 * exactly when X would be (under ?: and && too). Locals of the host (C
 * scalars and arrays) are not instrumented: no DMA can touch them
 * (the lowering lists the hooked buffers: LoweredFunction.hooked). */
#include "emit/emit.h"

/* What the hooks read: the module (its tcc masks) and the function (its
 * hooked buffers). */
typedef struct {
  const LoweredModule *m;
  const LoweredFunction *f;
} Spell;

static bool hooked(const ExprHook *h, const Buffer *b) {
  const Spell *s = h->ctx;
  for (int i = 0; i < s->f->nhooked; i++)
    if (s->f->hooked[i] == b) return true;
  return false;
}

/* tcc (0.9.27) gets the stride of a pointer to a variable-length row
 * wrong, so in the C that tcc compiles an array whose rows are sized by
 * the kernel's sizes is a flat pointer and its element is addressed in
 * full: C[i][j] of C[ni][nj] is C[((long)i) * (nj) + (j)]. (One sized only
 * in its first extent has rows of constant length: `C[][64]`.) */
static void flat_index(StrBuf *sb, const Expr *load, const ExprHook *h) {
  const Buffer *b = load->buf;
  sb_putc(sb, '[');
  for (int i = 1; i < b->ndim; i++) sb_putc(sb, '(');
  if (b->ndim > 1) sb_puts(sb, "(long)"); /* the offset in 64 bits: an array may pass 2^31 elements */
  ir_print_expr_hooked(sb, load->idx[0], h);
  for (int i = 1; i < b->ndim; i++) {
    sb_puts(sb, ") * (");
    if (b->extent[i]) ir_print_expr(sb, b->extent[i]);
    else sb_printf(sb, "%lld", (long long)b->shape[i]);
    sb_puts(sb, ") + (");
    ir_print_expr_hooked(sb, load->idx[i], h);
    sb_putc(sb, ')');
  }
  sb_putc(sb, ']');
}

static bool flat_load(StrBuf *sb, const Expr *load, const ExprHook *h) {
  if (!buffer_rows_symbolic(load->buf)) return false;
  sb_puts(sb, load->buf->name);
  flat_index(sb, load, h);
  return true;
}

static void access(StrBuf *sb, const Expr *load, const ExprHook *h, const char *mode, bool is_const) {
  sb_printf(sb, "*(%s%s *)npu_cu_access(&%s", is_const ? "const " : "", load->buf->elem->name, load->buf->name);
  if (buffer_rows_symbolic(load->buf)) flat_index(sb, load, h);
  for (int i = 0; !buffer_rows_symbolic(load->buf) && i < load->buf->ndim; i++) {
    sb_putc(sb, '[');
    ir_print_expr_hooked(sb, load->idx[i], h);
    sb_putc(sb, ']');
  }
  sb_printf(sb, ", (int)sizeof(%s), %s)", load->buf->elem->name, mode);
}

static bool hook_load(StrBuf *sb, const Expr *load, const ExprHook *h) {
  if (!hooked(h, load->buf)) return false;
  sb_putc(sb, '(');
  access(sb, load, h, "NPU_CU_READ", true);
  sb_putc(sb, ')');
  return true;
}

static bool hook_cast(StrBuf *sb, const Expr *cast, const ExprHook *h) {
  const Spell *s = h->ctx;
  const char *mask = s->m->tcc_mask[cast->a->type->kind][cast->type->kind];
  if (!mask) return false;
  sb_printf(sb, "(%s)((", cast->type->name);
  ir_print_expr_hooked(sb, cast->a, h);
  sb_printf(sb, ") & %s)", mask);
  return true;
}

void emit_host_expr(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f, const Expr *e) {
  Spell s = {m, f};
  ExprHook hooks = {hook_load, hook_cast, &s}, casts = {flat_load, hook_cast, &s}, flat = {flat_load, NULL, &s};
  switch (f->spelling) {
  case SPELL_CU_HOOKS: ir_print_expr_hooked(sb, e, &hooks); return;
  case SPELL_CHECK: ir_print_expr_hooked(sb, e, &casts); return;
  case SPELL_TCC: ir_print_expr_hooked(sb, e, &flat); return;
  case SPELL_PLAIN: ir_print_expr(sb, e); return;
  }
}

void emit_host_store(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f, const Expr *lhs, Op op) {
  Spell s = {m, f};
  ExprHook hooks = {hook_load, hook_cast, &s};
  if (f->spelling != SPELL_CU_HOOKS) {
    emit_host_expr(sb, m, f, lhs);
  } else if (lhs->kind != EX_LOAD || !hooked(&hooks, lhs->buf)) {
    ir_print_expr_hooked(sb, lhs, &hooks);
  } else {
    access(sb, lhs, &hooks, op == OP_NONE ? "NPU_CU_WRITE" : "NPU_CU_UPDATE", false);
  }
}
