/* Emits readable C99 for one variant. Rules (DESIGN.md section 6): source
 * names kept, a header comment with the schedule, a comment on each loop
 * nest naming its statements and lines, deterministic bytes, and code that
 * gcc -std=c99 -Wall -Wextra -pedantic -Werror, clang and tcc accept.
 *
 * It prints the lowered IR (lower/, docs/lowering.md): every DMA start,
 * wait, token, view and note is decided there; this file only switches
 * over the nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"

/* What the printer keeps: the function it prints, its module, and where
 * it writes. */
typedef struct {
  StrBuf *sb;
  const LoweredModule *m;
  const LoweredFunction *f;
} Emit;

/* ---------------- pieces ---------------- */

/* extents: each as lower/ spelt it (Stmt.extents), NULL: the numbers */
void emit_array_decl(StrBuf *sb, const Buffer *b, const char *const *extents) {
  sb_printf(sb, "%s%s %s", b->is_const ? "const " : "", b->elem->name, b->name);
  for (int i = 0; i < b->ndim; i++)
    if (extents && extents[i]) sb_printf(sb, "[%s]", extents[i]);
    else sb_printf(sb, "[%lld]", (long long)b->shape[i]);
}

/* Extent d of parameter i, array b: the definition's form lower/ chose
 * (f->extent_at_entry), the expression of the sizes, or the
 * spelling lower/ chose (f->extent_macro: a macro, or the user's
 * expression of macros), or a number. */
static void emit_extent(StrBuf *sb, const LoweredFunction *f, int i, const Buffer *b, int d) {
  const char *macro = f->extent_macro[i * IR_MAX_DIMS + d];
  const Expr *at_entry = f->extent_at_entry ? f->extent_at_entry[i * IR_MAX_DIMS + d] : NULL;
  if (at_entry) ir_print_expr(sb, at_entry);
  else if (b->extent[d]) ir_print_expr(sb, b->extent[d]);
  else if (macro) sb_puts(sb, macro);
  else sb_printf(sb, "%lld", (long long)b->shape[d]);
}

/* `const float A[restrict M][512]`, or flat for tcc, as lower/ decided
 * (LoweredFunction.param_restrict, param_flat). */
static void emit_param_array(StrBuf *sb, const LoweredFunction *f, int i, const Buffer *b) {
  bool restrict_ = f->param_restrict[i];
  const char *cv = b->is_const ? "const " : "", *type = f->param_type ? f->param_type[i] : b->elem->name;
  if (f->param_flat[i]) { /* flat for tcc (emit_cu_hooks.c) */
    sb_printf(sb, "%s%s *%s%s", cv, type, restrict_ ? "restrict " : "", b->name);
    if (!f->shape_comments) return;
    sb_puts(sb, " /* ");
    for (int d = 0; d < b->ndim; d++) {
      sb_putc(sb, '[');
      emit_extent(sb, f, i, b, d);
      sb_putc(sb, ']');
    }
    sb_puts(sb, " */");
    return;
  }
  sb_printf(sb, "%s%s %s", cv, type, b->name);
  for (int d = 0; d < b->ndim; d++) {
    sb_puts(sb, d == 0 && restrict_ ? "[restrict " : "[");
    if (d == 0 && b->extent[d] && f->first_extent_macro) {
      sb_puts(sb, "NPUGEN_FIRST_EXTENT(");
      emit_extent(sb, f, i, b, d);
      sb_putc(sb, ')');
    } else if (!b->extent[d] || !f->flat_params) {
      emit_extent(sb, f, i, b, d);
    } else if (f->shape_comments) { /* tcc refuses `A[n]` after `int n`: the first extent, the only one, left out */
      sb_puts(sb, "/* ");
      emit_extent(sb, f, i, b, d);
      sb_puts(sb, " */");
    }
    sb_putc(sb, ']');
  }
}

void emit_prototype(StrBuf *sb, const LoweredFunction *f) {
  sb_printf(sb, "void %s(", f->name);
  if (f->context) sb_puts(sb, f->context);
  else if (!f->k->params) sb_puts(sb, "void");
  int i = 0;
  for (const Param *p = f->k->params; p; p = p->next, i++) {
    if (p != f->k->params || f->context) sb_puts(sb, ", ");
    if (p->buf)
      emit_param_array(sb, f, i, p->buf);
    else
      sb_printf(sb, "%s%s %s", p->var->is_const ? "const " : "", f->param_type ? f->param_type[i] : p->var->type->name,
                p->var->name);
  }
  sb_putc(sb, ')');
}

static void emit_stmts(Emit *em, const Stmt *s, int ind);

static void emit_block_body(Emit *em, const Stmt *block, int ind) {
  emit_stmts(em, block->kind == ST_BLOCK ? block->body : block, ind);
}

static void emit_for_header(Emit *em, const Stmt *s);
static void emit_loop_hint(Emit *em, const Stmt *s, int ind);

/* A loop as written: its hint, header and body. */
static void emit_plain_loop(Emit *em, const Stmt *s, int ind) {
  emit_loop_hint(em, s, ind);
  sb_indent(em->sb, ind);
  emit_for_header(em, s);
  sb_puts(em->sb, " {\n");
  emit_block_body(em, s->body, ind + 1);
  sb_indent(em->sb, ind);
  sb_puts(em->sb, "}\n");
}

static void emit_for_header(Emit *em, const Stmt *s) {
  StrBuf *sb = em->sb;
  const char *v = s->var->name;
  sb_printf(sb, "for (%s %s = ", s->var->type->name, v);
  ir_print_expr(sb, s->lo);
  sb_printf(sb, "; %s %s ", v, op_spelling(s->cmp));
  ir_print_expr(sb, s->hi);
  if (s->step == 1)
    sb_printf(sb, "; %s++)", v);
  else if (s->step == -1)
    sb_printf(sb, "; %s--)", v);
  else if (s->step > 0)
    sb_printf(sb, "; %s += %lld)", v, (long long)s->step);
  else
    sb_printf(sb, "; %s -= %lld)", v, (long long)-s->step);
}

/* An expression the host evaluates: spelled as the function's C wants. */
static void print_value(const Emit *em, const Expr *e) { emit_host_expr(em->sb, em->m, em->f, e); }

/* " /" "* note *" "/" when there is a note, then the line's end. */
static void emit_note(StrBuf *sb, const char *note) {
  if (note) {
    sb_putc(sb, ' ');
    sb_comment(sb, note);
  }
  sb_putc(sb, '\n');
}

static void emit_if(Emit *em, const Stmt *s, int ind) {
  StrBuf *sb = em->sb;
  sb_puts(sb, "if (");
  if (s->plain_cond) ir_print_expr(sb, s->cond);
  else print_value(em, s->cond);
  sb_puts(sb, ") {");
  emit_note(sb, s->note);
  emit_block_body(em, s->then_s, ind + 1);
  sb_indent(sb, ind);
  sb_putc(sb, '}');
  if (s->else_s) {
    const Stmt *e = s->else_s;
    if (e->kind == ST_BLOCK && e->body && !e->body->next && e->body->kind == ST_IF) {
      sb_puts(sb, " else ");
      emit_if(em, e->body, ind);
      return;
    }
    sb_puts(sb, " else {\n");
    emit_block_body(em, e, ind + 1);
    sb_indent(sb, ind);
    sb_putc(sb, '}');
  }
}

/* annotate() values, one comment line each, before their loop or statement. */
static void emit_annots(Emit *em, const Stmt *s, int ind) {
  for (const Annot *a = s->annots; a; a = a->next) {
    sb_indent(em->sb, ind);
    sb_puts(em->sb, "/* @");
    sb_c_text(em->sb, C_TEXT_COMMENT, a->key, strlen(a->key));
    sb_puts(em->sb, " = ");
    sb_c_text(em->sb, C_TEXT_COMMENT, a->value, strlen(a->value));
    sb_puts(em->sb, " */\n");
  }
}

/* A tensorized nest: its intrinsic call, under the test of its scalar
 * operands' domains when they are not constants (else the nest as
 * written), or (when a later step changed the nest) a comment saying why
 * the loops stay (lower/intrinsic.c decided which). */
static bool emit_intrinsic(Emit *em, const Stmt *s, int ind) {
  const IntrinCall *c = s->intrin_call;
  sb_indent(em->sb, ind);
  if (!c->fn) {
    sb_comment(em->sb, c->note);
    sb_putc(em->sb, '\n');
    return false;
  }
  if (c->comment) { /* an instruction of a sequence: the expression it computes */
    sb_comment(em->sb, c->comment);
    sb_putc(em->sb, '\n');
    sb_indent(em->sb, ind);
  }
  if (c->guard) {
    sb_printf(em->sb, "if (%s) {\n", c->guard);
    sb_indent(em->sb, ind + 1);
  }
  if (c->hold) { /* a bound the call names, declared before it */
    ir_print_intrin_hold(em->sb, c);
    sb_putc(em->sb, '\n');
    sb_indent(em->sb, ind + !!c->guard);
  }
  ir_print_intrin_call(em->sb, c);
  sb_putc(em->sb, '\n');
  if (!c->guard) return true;
  sb_indent(em->sb, ind);
  sb_puts(em->sb, "} else { ");
  sb_comment(em->sb, c->fallback_note);
  sb_putc(em->sb, '\n');
  if (em->f->mark_fallbacks) {
    sb_indent(em->sb, ind + 1);
    sb_printf(em->sb, "%s\n", c->fallback_mark);
  }
  emit_stmts(em, c->fallback, ind + 1);
  sb_indent(em->sb, ind);
  sb_puts(em->sb, "}\n");
  return true;
}

/* vectorize/parallel: the loop's hint as ir_loop_hint spells it, after
 * the note of a vectorized nest that no VU instruction computes. */
static void emit_loop_hint(Emit *em, const Stmt *s, int ind) {
  for (int i = 0; i < em->f->nnotes; i++)
    if (em->f->notes[i].loop == s) {
      sb_indent(em->sb, ind);
      sb_comment(em->sb, em->f->notes[i].text);
      sb_putc(em->sb, '\n');
    }
  sb_puts(em->sb, ir_loop_hint(s->loop_kind));
}

/* ---------------- lowered nodes (lower/) ---------------- */

/* "A_tok", "C_ob_tok[jo % 2]" (malloc'ed) */
static char *token_text(const DmaToken *t) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, t->base);
  for (int i = 0; i < t->nidx; i++) {
    sb_putc(&sb, '[');
    ir_print_expr(&sb, t->idx[i]);
    sb_putc(&sb, ']');
  }
  return sb_take(&sb);
}

static void emit_view(Emit *em, const Lowered *l) {
  StrBuf *sb = em->sb;
  const Buffer *b = l->view_buf;
  if (l->decl) {
    emit_onchip_decl(sb, b, l->scope_at, l->scope_note);
    sb_putc(sb, '\n');
  } else if (l->view_copy) {
    emit_pointer_decl(sb, b, b->name, 0);
    sb_printf(sb, " = %s[", b->db_name);
    ir_print_expr(sb, l->view_copy);
    sb_puts(sb, "];\n");
  } else {
    emit_pointer_decl(sb, b, b->db_name, -1);
    sb_puts(sb, " = (");
    emit_pointer_decl(sb, b, "", -1);
    sb_puts(sb, ")(void *)(");
    emit_scope_address(sb, b, "0", l->scope_at);
    sb_puts(sb, "); ");
    sb_comment(sb, l->scope_note);
    sb_putc(sb, '\n');
  }
}

static void emit_tokens(Emit *em, const Stmt *s) {
  const Lowered *l = s->low;
  sb_printf(em->sb, "npu_token_t %s", l->token.base);
  for (int i = 0; i < l->ndims; i++) sb_printf(em->sb, "[%lld]", (long long)l->dims[i]);
  if (l->zero) sb_puts(em->sb, l->ndims == 2 ? " = {{0}}" : " = {0}");
  sb_putc(em->sb, ';');
  emit_note(em->sb, s->note);
}

static void emit_wait(Emit *em, const Stmt *s) {
  const Lowered *l = s->low;
  char *tok = token_text(&l->token);
  if (l->guard) {
    sb_puts(em->sb, "if (");
    ir_print_expr(em->sb, l->guard);
    sb_puts(em->sb, ") ");
  } else if (l->if_issued) {
    sb_printf(em->sb, "if (%s) ", tok);
  }
  sb_printf(em->sb, "npu_dma_wait(%s);", tok);
  free(tok);
  emit_note(em->sb, s->note);
}

/* A start: `token = npu_dma_Nd(...)`, after a comment naming its copy when
 * asked. One waited for at once (no token name) prints as one call with
 * its wait. */
static void emit_start(Emit *em, const Lowered *l, int ind) {
  if (l->named) {
    const Stmt *leaf = ir_nest_leaf(l->copy);
    sb_indent(em->sb, ind);
    sb_printf(em->sb, "/* %s: %s <- %s */\n", leaf->name, leaf->lhs->buf->name, leaf->rhs->buf->name);
  }
  if (!l->shape) return; /* an empty box where it would start: no DMA */
  if (!l->token.base) {
    emit_dma_call(em->sb, l->shape, ind, NULL, NULL);
    return;
  }
  StrBuf ch;
  sb_init(&ch);
  ir_print_expr(&ch, l->channel);
  char *tok = token_text(&l->token);
  emit_dma_call(em->sb, l->shape, ind, tok, ch.data);
  free(tok);
  sb_free(&ch);
}

/* The check's reference's hoisted address: `const T (*npg_p1)[64] = A[i];` */
static void emit_pointer(StrBuf *sb, const Lowered *l) {
  const Buffer *b = l->view_buf;
  sb_printf(sb, l->ptr_stepped ? "%s%s *%s" : "%s%s (*%s)", b->is_const ? "const " : "", b->elem->name, l->ptr_name);
  for (int d = l->ptr_from; !l->ptr_stepped && d < b->ndim; d++) sb_printf(sb, "[%lld]", (long long)b->shape[d]);
  sb_puts(sb, " = ");
  ir_print_expr(sb, l->ptr_init);
  sb_puts(sb, ";\n");
}

static void emit_lowered(Emit *em, const Stmt *s, int ind) {
  const Lowered *l = s->low;
  if (l->kind == LOW_DMA_START) {
    emit_start(em, l, ind);
    return;
  }
  if (l->kind == LOW_DMA_WAIT && !l->token.base) return; /* printed with its start */
  sb_indent(em->sb, ind);
  switch (l->kind) {
  case LOW_NOTE: sb_comment(em->sb, s->note); sb_putc(em->sb, '\n'); return;
  case LOW_UNUSED: sb_printf(em->sb, "(void)%s;\n", s->note); return;
  case LOW_VIEW: emit_view(em, l); return;
  case LOW_TOKENS: emit_tokens(em, s); return;
  case LOW_DMA_WAIT: emit_wait(em, s); return;
  case LOW_POINTER: emit_pointer(em->sb, l); return;
  case LOW_DMA_START: return;
  }
}

/* A loop: an intrinsic call, a loop over the cores that runs one phase
 * (its header carries s->note, which says which), or the loop as written. */
static void emit_loop(Emit *em, const Stmt *s, int ind) {
  if (s->intrin_call && emit_intrinsic(em, s, ind)) return;
  if (!s->note) {
    emit_plain_loop(em, s, ind);
    return;
  }
  sb_indent(em->sb, ind);
  emit_for_header(em, s);
  sb_puts(em->sb, " {");
  emit_note(em->sb, s->note);
  emit_block_body(em, s->body, ind + 1);
  sb_indent(em->sb, ind);
  sb_puts(em->sb, "}\n");
}

/* A marked call (CallSite): a call of the function emit_file.c defines. */
static void emit_call(Emit *em, const Stmt *s, int ind) {
  const CallSite *c = s->call;
  sb_indent(em->sb, ind);
  sb_printf(em->sb, "%s(", c->fn);
  for (int i = 0; i < c->nparams; i++) {
    if (i) sb_puts(em->sb, ", ");
    const Buffer *b = c->arg_buf[i];
    if (!b) {
      print_value(em, ir_call_scalar_arg(s, i));
      continue;
    }
    if (s->arg_casts && s->arg_casts[i]) sb_puts(em->sb, s->arg_casts[i]); /* lower/call_args.c */
    sb_puts(em->sb, b->name);
  }
  sb_printf(em->sb, "); /* %s, line %d */\n", c->name, s->loc.line);
}

static void emit_stmts(Emit *em, const Stmt *s, int ind) {
  StrBuf *sb = em->sb;
  for (; s; s = s->next) {
    emit_annots(em, s, ind);
    if (s->low) {
      emit_lowered(em, s, ind);
      continue;
    }
    switch (s->kind) {
    case ST_BLOCK:
      if (s->call) {
        emit_call(em, s, ind);
        break;
      }
      sb_indent(sb, ind);
      sb_puts(sb, "{");
      emit_note(sb, s->note); /* lower_order's */
      emit_stmts(em, s->body, ind + 1);
      sb_indent(sb, ind);
      sb_puts(sb, "}\n");
      break;
    case ST_FOR:
      emit_loop(em, s, ind);
      break;
    case ST_IF:
      sb_indent(sb, ind);
      emit_if(em, s, ind);
      sb_putc(sb, '\n');
      break;
    case ST_ASSIGN:
      sb_indent(sb, ind);
      emit_host_store(sb, em->m, em->f, s->lhs, s->op);
      sb_printf(sb, " %s= ", op_spelling(s->op));
      print_value(em, s->rhs);
      sb_putc(sb, ';');
      if (s->labeled) sb_printf(sb, " /* %s */", s->name);
      sb_putc(sb, '\n');
      break;
    case ST_DECL:
      sb_indent(sb, ind);
      if (s->buf && buffer_onchip(s->buf)) {
        emit_onchip_decl(sb, s->buf, s->scope_at, s->scope_note);
        sb_putc(sb, '\n');
      } else if (s->buf) {
        emit_array_decl(sb, s->buf, s->extents);
        if (s->ninit) {
          sb_puts(sb, " = {");
          for (int i = 0; i < s->ninit; i++) {
            if (i) sb_puts(sb, ", ");
            ir_print_expr(sb, s->init_list[i]);
          }
          sb_putc(sb, '}');
        }
        sb_puts(sb, ";\n");
        if (em->f->local_ddr) emit_check_ddr(sb, s->buf, ind); /* at any depth: a call in a loop may get it */
      } else {
        sb_printf(sb, "%s%s %s", s->var->is_const ? "const " : "", s->var->type->name, s->var->name);
        if (s->init) {
          sb_puts(sb, " = ");
          print_value(em, s->init);
        }
        sb_puts(sb, ";\n");
      }
      break;
    }
  }
}

/* NPUGEN_ASSUME(...) for each of f's entry tests. */
static void emit_assumptions(StrBuf *sb, const LoweredFunction *f) {
  for (int i = 0; i < f->ntests; i++) {
    sb_puts(sb, "  NPUGEN_ASSUME(");
    ir_print_expr(sb, f->tests[i].cond);
    if (f->tests[i].extent_of) sb_printf(sb, " >= 1); /* an extent of %s */\n", f->tests[i].extent_of->name);
    else sb_puts(sb, ");\n");
  }
}

/* The lowered IR failed its synchronisation check (an npugen bug; a
 * session refuses such a variant, the random-schedule tester prints it):
 * the emitted C says so and does not compile, so no run trusts it. */
static void internal_error(StrBuf *sb, const char *why) {
  sb_puts(sb, "#error \"npugen internal error: DMA synchronisation of the lowered IR: ");
  sb_c_text(sb, C_TEXT_STRING, why, strlen(why));
  sb_puts(sb, "\"\n");
}

void emit_c_function(StrBuf *sb, const LoweredModule *m, const LoweredFunction *f) {
  Emit em = {.sb = sb, .m = m, .f = f};
  if (f->is_static) sb_puts(sb, "static ");
  emit_prototype(sb, f);
  sb_puts(sb, " {\n");
  emit_assumptions(sb, f);
  if (f->sync_error) internal_error(sb, f->sync_error);
  emit_stmts(&em, f->body, 1);
  sb_puts(sb, "}\n");
}

void emit_check_ddr(StrBuf *sb, const Buffer *b, int ind) {
  sb_indent(sb, ind);
  sb_printf(sb, "{ void npg_check_ddr(const void *, unsigned long, const char *); npg_check_ddr(%s, sizeof %s, \"%s\"); }\n",
            b->name, b->name, b->name);
}
