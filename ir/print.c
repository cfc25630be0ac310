/* The IR's readable text form (`npugen emit --dump-ir`). */
#include <string.h>

#include "ir/ir.h"
#include "ir/lowered_module.h"

static const char *role_name(BufferRole r) {
  switch (r) {
  case ROLE_INPUT: return "input";
  case ROLE_OUTPUT: return "output";
  case ROLE_INOUT: return "inout";
  case ROLE_LOCAL: return "local";
  }
  return "?";
}

/* b's element type and extents; spelt (Stmt.extents, NULL: none): an
 * extent as the emitted C spells it, where lower/ kept the source's. */
static void print_buffer_type(StrBuf *sb, const Buffer *b, const char *const *spelt) {
  sb_puts(sb, b->elem->name);
  for (int i = 0; i < b->ndim; i++) {
    sb_putc(sb, '[');
    if (spelt && spelt[i]) sb_puts(sb, spelt[i]);
    else if (b->extent[i]) ir_print_expr(sb, b->extent[i]);
    else sb_printf(sb, "%lld", (long long)b->shape[i]);
    sb_putc(sb, ']');
  }
}

static const char *loop_kind_name(LoopKind k) {
  switch (k) {
  case LOOP_SERIAL: return "";
  case LOOP_UNROLL: return " unroll";
  case LOOP_VECTORIZE: return " vectorize";
  case LOOP_PARALLEL: return " parallel";
  case LOOP_DMA: return " dma";
  case LOOP_VU: return " bind(vu)";
  }
  return "";
}

/* ---------------- the lowered IR's nodes ---------------- */

static void print_token(StrBuf *sb, const DmaToken *t) {
  if (!t->base) {
    sb_printf(sb, "%%dma%d", t->id); /* a copy waited for where it starts */
    return;
  }
  sb_puts(sb, t->base);
  for (int i = 0; i < t->nidx; i++) {
    sb_putc(sb, '[');
    ir_print_expr(sb, t->idx[i]);
    sb_putc(sb, ']');
  }
}

/* dst[..] <- src[..] of copy nest c (its counters' extents after), where
 * at_var has value at_value. */
static void print_region(StrBuf *sb, const Lowered *l) {
  const Stmt *leaf = l->copy, *loops[IR_MAX_DIMS];
  int n = 0;
  while (leaf && leaf->kind != ST_ASSIGN) {
    if (leaf->kind == ST_FOR && n < IR_MAX_DIMS) loops[n++] = leaf;
    leaf = leaf->kind == ST_FOR ? leaf->body : leaf->kind == ST_IF ? leaf->then_s : leaf->body;
  }
  if (!leaf) return;
  Arena scratch;
  arena_init(&scratch, 0);
  Expr *dst = leaf->lhs, *src = leaf->rhs;
  if (l->at_var) {
    dst = ir_subst_expr(&scratch, ir_expr_copy(&scratch, dst), l->at_var, l->at_value);
    src = ir_subst_expr(&scratch, ir_expr_copy(&scratch, src), l->at_var, l->at_value);
  }
  sb_printf(sb, "%s: ", leaf->name);
  ir_print_expr(sb, dst);
  sb_puts(sb, " <- ");
  ir_print_expr(sb, src);
  for (int i = 0; i < n; i++) {
    sb_printf(sb, "%s%s < ", i ? ", " : " for ", loops[i]->var->name);
    ir_print_expr(sb, loops[i]->hi);
  }
  arena_free(&scratch);
}

/* The DMA call emit/ prints for a start (Lowered.shape, lower/dma_shape.c):
 * ", as npu_dma_Nd(dst, strides.., src, strides.., row, counts..)" with its
 * host loops and the test of a box that may be empty; or that none runs. */
static void print_dma_shape(StrBuf *sb, const DmaShape *d) {
  if (!d) {
    sb_puts(sb, ", no DMA (an empty box)");
    return;
  }
  sb_printf(sb, ", as npu_dma_%dd(%s", d->ndims + 1, d->dst);
  for (int i = 0; i < d->ndims; i++) sb_printf(sb, ", %s", d->dst_stride[i]);
  sb_printf(sb, ", %s", d->src);
  for (int i = 0; i < d->ndims; i++) sb_printf(sb, ", %s", d->src_stride[i]);
  sb_printf(sb, ", %s", d->row);
  for (int i = 0; i < d->ndims; i++) sb_printf(sb, ", %s", d->count[i]);
  sb_putc(sb, ')');
  for (int i = 0; i < d->nhost; i++)
    sb_printf(sb, "%s%s < %lld", i ? ", " : " for ", d->host_var[i], (long long)d->host_extent[i]);
  if (d->runs) sb_printf(sb, " if %s", d->runs);
}

/* " of each core (counter CORE)": a buffer of a loop bound to the VU
 * cores, each iteration's copy in its core's scope. */
static void print_core(StrBuf *sb, const Buffer *b) {
  if (b->core) sb_printf(sb, " of each core (counter %s)", b->core->name);
}

/* Where an on-chip buffer lives: " at +BYTES past its scope's base (NOTE)". */
static void print_scope(StrBuf *sb, const Expr *at, const char *note) {
  if (at) {
    sb_puts(sb, " at +");
    ir_print_expr(sb, at);
  }
  if (note) sb_printf(sb, " (%s)", note);
}

static void print_lowered(StrBuf *sb, const Stmt *s) {
  const Lowered *l = s->low;
  switch (l->kind) {
  case LOW_DMA_START:
    sb_puts(sb, "dma_start(");
    print_token(sb, &l->token);
    sb_puts(sb, ", ");
    print_region(sb, l);
    sb_puts(sb, ", channel ");
    if (l->channel) ir_print_expr(sb, l->channel);
    else sb_puts(sb, "0");
    sb_puts(sb, ")");
    print_dma_shape(sb, l->shape);
    if (l->named) sb_puts(sb, ", after a comment naming the copy");
    break;
  case LOW_DMA_WAIT:
    sb_puts(sb, "dma_wait(");
    print_token(sb, &l->token);
    sb_puts(sb, ")");
    if (l->if_issued) sb_puts(sb, " if issued");
    if (l->guard) {
      sb_puts(sb, " if ");
      ir_print_expr(sb, l->guard);
    }
    break;
  case LOW_VIEW:
    if (l->decl) {
      sb_printf(sb, "view %s = %s @%lld", l->view_buf->name, l->view_buf->scope, (long long)l->view_buf->offset);
      print_core(sb, l->view_buf);
      if (l->view_copy) {
        sb_puts(sb, ", copy ");
        ir_print_expr(sb, l->view_copy);
      }
      print_scope(sb, l->scope_at, l->scope_note);
    } else if (l->view_copy) {
      sb_printf(sb, "view %s = %s[", l->view_buf->name, l->view_buf->db_name);
      ir_print_expr(sb, l->view_copy);
      sb_puts(sb, "]");
    } else {
      sb_printf(sb, "view %s = %s @%lld: 2 x ", l->view_buf->db_name, l->view_buf->scope, (long long)l->view_buf->offset);
      print_buffer_type(sb, l->view_buf, NULL);
      print_scope(sb, l->scope_at, l->scope_note);
    }
    break;
  case LOW_TOKENS:
    sb_printf(sb, "tokens %s", l->token.base);
    for (int i = 0; i < l->ndims; i++) sb_printf(sb, "[%lld]", (long long)l->dims[i]);
    if (l->zero) sb_puts(sb, " = 0");
    break;
  case LOW_NOTE:
    sb_printf(sb, "note: %s", s->note);
    break;
  case LOW_UNUSED:
    sb_printf(sb, "unused %s", s->note);
    break;
  case LOW_POINTER:
    sb_printf(sb, "pointer %s to ", l->ptr_name);
    if (l->ptr_stepped) sb_printf(sb, "an element of %s = ", l->view_buf->name);
    else sb_printf(sb, "rows of %s from dimension %d = ", l->view_buf->name, l->ptr_from);
    ir_print_expr(sb, l->ptr_init);
    break;
  }
  if (s->note && (l->kind == LOW_DMA_WAIT || l->kind == LOW_TOKENS)) sb_printf(sb, " /* %s */", s->note);
  sb_printf(sb, "  # line %d\n", s->loc.line);
}

/* "call c1 = conv_fast(A, T, n + 1) " before a call block's brace. */
static void print_call_head(StrBuf *sb, const Stmt *s) {
  const CallSite *c = s->call;
  sb_printf(sb, "call %s = %s(", c->name, c->fn);
  for (int i = 0; i < c->nparams; i++) {
    if (i) sb_puts(sb, ", ");
    if (c->arg_buf[i]) sb_printf(sb, "%s%s", s->arg_casts && s->arg_casts[i] ? s->arg_casts[i] : "", c->arg_buf[i]->name);
    else if (ir_call_scalar_arg(s, i)) ir_print_expr(sb, ir_call_scalar_arg(s, i));
  }
  sb_puts(sb, ") ");
}

/* lowered: --dump-ir=lowered, which also shows what only the emitted C
 * reads (annotations, the comments lower/ put on blocks and guards, a
 * tensorized call's held bound, which names the C repeats as labels). */
static void print_stmts(StrBuf *sb, const Stmt *s, int ind, bool lowered);

/* A tensorized nest as lowered (Stmt.intrin_call): its call, under its
 * guard with the nest as written as the fallback; or (no call) why not,
 * before the loops. True when the call stands for the nest. */
static bool print_intrin_call(StrBuf *sb, const Stmt *s, int ind, bool lowered) {
  const IntrinCall *c = s->intrin_call;
  sb_indent(sb, ind);
  if (!c->fn) {
    sb_printf(sb, "note: %s\n", c->note);
    return false;
  }
  if (c->comment) {
    sb_printf(sb, "comment: %s\n", c->comment);
    sb_indent(sb, ind);
  }
  if (c->guard) {
    sb_printf(sb, "if %s:\n", c->guard);
    sb_indent(sb, ind + 1);
  }
  if (c->hold && lowered) {
    sb_puts(sb, "hold ");
    ir_print_intrin_hold(sb, c);
    sb_putc(sb, '\n');
    sb_indent(sb, ind + !!c->guard);
  }
  sb_puts(sb, "intrinsic ");
  ir_print_intrin_call(sb, c);
  sb_printf(sb, "  # line %d\n", s->loc.line);
  if (!c->guard) return true;
  sb_indent(sb, ind);
  sb_printf(sb, "else (%s; the check's C marks it: %s):\n", c->fallback_note ? c->fallback_note : "",
            c->fallback_mark ? c->fallback_mark : "");
  print_stmts(sb, c->fallback, ind + 1, lowered);
  return true;
}

/* annotate()'s values, which the C keeps as comments */
static void print_annots(StrBuf *sb, const Stmt *s, int ind) {
  for (const Annot *a = s->annots; a; a = a->next) {
    sb_indent(sb, ind);
    sb_printf(sb, "@%s = %s\n", a->key, a->value);
  }
}

/* " /" "* NOTE *" "/" of a block or guard lower/ commented */
static void print_note(StrBuf *sb, const Stmt *s, bool lowered) {
  if (lowered && s->note) sb_printf(sb, " /* %s */", s->note);
}

static void print_stmts(StrBuf *sb, const Stmt *s, int ind, bool lowered) {
  for (; s; s = s->next) {
    if (lowered) print_annots(sb, s, ind);
    if (s->intrin_call && print_intrin_call(sb, s, ind, lowered)) continue;
    if (s->low) {
      sb_indent(sb, ind);
      print_lowered(sb, s);
      continue;
    }
    switch (s->kind) {
    case ST_BLOCK:
      sb_indent(sb, ind);
      if (s->call) print_call_head(sb, s);
      sb_putc(sb, '{');
      print_note(sb, s, lowered);
      sb_putc(sb, '\n');
      print_stmts(sb, s->body, ind + 1, lowered);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR:
      sb_indent(sb, ind);
      if (s->name && strcmp(s->name, s->var->name)) /* the reference's loops (lower/ref_body.c) have no name */
        sb_printf(sb, "for %s (counter %s) in ", s->name, s->var->name);
      else
        sb_printf(sb, "for %s in ", s->name ? s->name : s->var->name);
      if (lowered && s->var->type->kind != TY_INT) sb_printf(sb, "(%s) ", s->var->type->name); /* the C declares it so */
      ir_print_expr(sb, s->lo);
      sb_printf(sb, " .. %s ", op_spelling(s->cmp));
      ir_print_expr(sb, s->hi);
      sb_printf(sb, " step %lld%s%s%s%s:  # line %d\n", (long long)s->step, loop_kind_name(s->loop_kind),
                s->order_note ? " in source order" : "", s->note ? ", phase: " : "", s->note ? s->note : "", s->loc.line);
      print_stmts(sb, s->body->body, ind + 1, lowered);
      break;
    case ST_IF:
      sb_indent(sb, ind);
      sb_puts(sb, "if ");
      ir_print_expr(sb, s->cond);
      sb_puts(sb, s->plain_cond ? " (loop counters only, never hooked):" : ":");
      print_note(sb, s, lowered);
      sb_putc(sb, '\n');
      print_stmts(sb, s->then_s->body, ind + 1, lowered);
      if (s->else_s) {
        sb_indent(sb, ind);
        sb_puts(sb, "else:\n");
        print_stmts(sb, s->else_s->body, ind + 1, lowered);
      }
      break;
    case ST_ASSIGN:
      sb_indent(sb, ind);
      if (s->name) sb_printf(sb, "%s: ", s->name);
      ir_print_expr(sb, s->lhs);
      sb_printf(sb, " %s= ", op_spelling(s->op));
      ir_print_expr(sb, s->rhs);
      if (lowered && s->labeled) sb_puts(sb, "  /* the C names it */");
      sb_printf(sb, "  # line %d\n", s->loc.line);
      break;
    case ST_DECL:
      sb_indent(sb, ind);
      if (s->name) sb_printf(sb, "%s: ", s->name);
      if (s->buf) {
        if (buffer_onchip(s->buf)) {
          sb_printf(sb, "%s %s @%lld", s->buf->scope, s->buf->name, (long long)s->buf->offset);
          if (lowered) print_core(sb, s->buf);
          sb_puts(sb, ": ");
        } else {
          sb_printf(sb, "local %s: ", s->buf->name);
        }
        print_buffer_type(sb, s->buf, s->extents);
        if (s->ninit) {
          sb_puts(sb, " = {");
          for (int i = 0; i < s->ninit; i++) {
            if (i) sb_puts(sb, ", ");
            ir_print_expr(sb, s->init_list[i]);
          }
          sb_puts(sb, "}");
        }
      } else {
        sb_printf(sb, "local %s: %s%s", s->var->name, lowered && s->var->is_const ? "const " : "", s->var->type->name);
        if (s->init) {
          sb_puts(sb, " = ");
          ir_print_expr(sb, s->init);
        }
      }
      print_scope(sb, s->scope_at, s->scope_note);
      sb_printf(sb, "  # line %d\n", s->loc.line);
      break;
    }
  }
}

static void print_kernel(StrBuf *sb, const Kernel *k, bool lowered) {
  sb_printf(sb, "kernel %s(", k->name);
  for (const Param *p = k->params; p; p = p->next) {
    if (p != k->params) sb_puts(sb, ", ");
    if (p->buf) {
      sb_printf(sb, "%s: ", p->buf->name);
      print_buffer_type(sb, p->buf, NULL);
      sb_printf(sb, " %s", role_name(p->buf->role));
    } else {
      sb_printf(sb, "%s: %s%s", p->var->name, lowered && p->var->is_const ? "const " : "", p->var->type->name);
    }
  }
  sb_puts(sb, ")\n");
  print_stmts(sb, k->body->body, 1, lowered);
}

void ir_print_kernel(StrBuf *sb, const Kernel *k) { print_kernel(sb, k, false); }

void ir_print_lowered_kernel(StrBuf *sb, const Kernel *k) { print_kernel(sb, k, true); }

void ir_define_text(StrBuf *sb, const Define *d) {
  if (d->is_typedef) sb_printf(sb, "typedef %s %s;", d->type->alias_of->name, d->name);
  else sb_printf(sb, "#define %s %s", d->name, d->body);
}
