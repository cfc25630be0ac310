/* Permuted orders of a marked loop's iterations, for the differential
 * check (EmitOrder in emit.h). A loop over positions 0 .. n-1 maps each
 * position to an iteration number k and sets the counter to lo + k * step,
 * so one copy of the body serves every order, for any bounds: affine in
 * outer counters, inclusive or not, any step, counting up or down.
 *
 *   { // loop i in reversed order (the check's)
 *     const long long npg_i_lo = 0, npg_i_hi = N;
 *     const unsigned long long npg_i_n = npg_i_hi > npg_i_lo ? ... : 0;
 *     for (unsigned long long npg_i_at = 0; npg_i_at < npg_i_n; npg_i_at++) {
 *       const unsigned long long npg_i_k = npg_i_n - 1 - npg_i_at;
 *       int i = (int)((unsigned long long)npg_i_lo + npg_i_k);
 *       ...
 *
 * Counter values fit in long long (the frontend refuses 2^63 and more);
 * the trip count and the steps are computed in unsigned long long, where
 * the differences of two such values cannot overflow, and the counter's
 * value, which lies between lo and hi, converts back exactly. */
#include "emit/emit.h"

const char *emit_order_name(EmitOrder o) {
  switch (o) {
  case EMIT_ORDER_SOURCE: return "source";
  case EMIT_ORDER_REVERSED: return "reversed";
  case EMIT_ORDER_ODD_EVEN: return "odd-even";
  default: return "?";
  }
}

/* The trip count, from the bounds npg_V_lo and npg_V_hi. */
static void trip_count(StrBuf *sb, const EmitLoopRange *r) {
  const char *v = r->v->name;
  bool up = r->step > 0, inclusive = r->cmp == OP_LE || r->cmp == OP_GE;
  unsigned long long mag = up ? (unsigned long long)r->step : 0ull - (unsigned long long)r->step;
  const char *from = up ? "lo" : "hi", *to = up ? "hi" : "lo";
  sb_printf(sb, "npg_%s_%s %s npg_%s_%s ? ((unsigned long long)npg_%s_%s - (unsigned long long)npg_%s_%s", v, to,
            inclusive ? ">=" : ">", v, from, v, to, v, from);
  sb_puts(sb, inclusive ? ")" : " - 1)");
  if (mag != 1) sb_printf(sb, " / %lluull", mag);
  sb_puts(sb, " + 1 : 0");
}

/* The iteration number k of position npg_V_at. */
static void iteration_of(StrBuf *sb, EmitOrder o, const char *v) {
  if (o == EMIT_ORDER_REVERSED)
    sb_printf(sb, "npg_%s_n - 1 - npg_%s_at", v, v);
  else /* EMIT_ORDER_ODD_EVEN: the n / 2 odd iterations first */
    sb_printf(sb, "npg_%s_at < npg_%s_n / 2 ? 2 * npg_%s_at + 1 : 2 * (npg_%s_at - npg_%s_n / 2)", v, v, v, v, v);
}

int emit_order_open(StrBuf *sb, EmitOrder o, const EmitLoopRange *r, int ind) {
  const char *v = r->v->name, *type = r->v->type->name;
  sb_indent(sb, ind);
  sb_printf(sb, "{ /* loop %s in %s order (the check's) */\n", v, emit_order_name(o));
  sb_indent(sb, ind + 1);
  sb_printf(sb, "const long long npg_%s_lo = ", v);
  ir_print_expr(sb, r->lo);
  sb_printf(sb, ", npg_%s_hi = ", v);
  ir_print_expr(sb, r->hi);
  sb_puts(sb, ";\n");
  sb_indent(sb, ind + 1);
  sb_printf(sb, "const unsigned long long npg_%s_n = ", v);
  trip_count(sb, r);
  sb_puts(sb, ";\n");
  sb_indent(sb, ind + 1);
  sb_printf(sb, "for (unsigned long long npg_%s_at = 0; npg_%s_at < npg_%s_n; npg_%s_at++) {\n", v, v, v, v);
  sb_indent(sb, ind + 2);
  sb_printf(sb, "const unsigned long long npg_%s_k = ", v);
  iteration_of(sb, o, v);
  sb_puts(sb, ";\n");
  bool up = r->step > 0;
  unsigned long long mag = up ? (unsigned long long)r->step : 0ull - (unsigned long long)r->step;
  sb_indent(sb, ind + 2);
  sb_printf(sb, "%s %s = (%s)((unsigned long long)npg_%s_lo %s ", type, v, type, v, up ? "+" : "-");
  if (mag != 1) sb_printf(sb, "%lluull * ", mag);
  sb_printf(sb, "npg_%s_k);\n", v);
  sb_indent(sb, ind + 2);
  sb_printf(sb, "(void)%s;\n", v); /* the body may not read it */
  return ind + 2;
}

void emit_order_close(StrBuf *sb, int ind) {
  sb_indent(sb, ind + 1);
  sb_puts(sb, "}\n");
  sb_indent(sb, ind);
  sb_puts(sb, "}\n");
}
